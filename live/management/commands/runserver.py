"""``manage.py runserver`` (what ``make serve`` starts): Django's development server, serving
the static files as django.contrib.staticfiles' does, that also runs the beat's sweeps
(live/sweeps.py: 托管 and the standings) in a thread of its own when no broker is configured
— nothing else would play a seat whose move time ran out. Started when the server has bound
its port: only in the process that serves (the autoreloader's child, or the one process with
``--noreload``), once in it, and never by migrate, test or shell. ``live`` is listed before
staticfiles in ``INSTALLED_APPS`` so that this command is the one ``runserver`` finds."""

from django.conf import settings
from django.contrib.staticfiles.management.commands.runserver import Command as Runserver

from live import sweeps


class Command(Runserver):
    help = (Runserver.help + " Without a broker (CELERY_BROKER_URL), it also runs the 托管 and "
            "standings sweeps Celery beat would send.")

    def on_bind(self, server_port):
        super().on_bind(server_port)
        if settings.CELERY_TASK_ALWAYS_EAGER and sweeps.start_in_background() is not None:
            self.stdout.write(
                f"No broker: this process plays overdue live seats (托管) every "
                f"{settings.LIVE_SWEEP_SECONDS} s, and sweeps stale standings.")
