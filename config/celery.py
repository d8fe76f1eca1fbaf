"""Celery application. With no ``CELERY_BROKER_URL`` tasks run in-process (eager)."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gouji")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.celeryd_init.connect(weak=False)
def worker_niced(**kwargs) -> None:
    """As ``celery worker`` starts: its niceness raised by ``CELERY_WORKER_NICE``
    (config/settings.py), for it and the processes it starts. Not in a worker run inside
    another process (the tests'), which this signal does not reach."""
    from django.conf import settings

    if settings.CELERY_WORKER_NICE:
        os.nice(settings.CELERY_WORKER_NICE)


@signals.task_prerun.connect(weak=False)
@signals.task_postrun.connect(weak=False)
def connections_checked(sender=None, **kwargs) -> None:
    """Before and after a task a worker runs, its database connections are checked as Django
    checks a request's (``close_old_connections``: one past ``CONN_MAX_AGE``, or unusable after
    an error, is closed; with a pool, each goes back to it), not closed outright: Celery's Django
    fixup now does that only every ``2 × CELERY_DB_REUSE_MAX`` tasks (config/settings.py). A task
    run in-process (eager) is part of the request that ran it, and is left alone."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()
