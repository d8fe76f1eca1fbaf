"""Celery application. With no ``CELERY_BROKER_URL`` tasks run in-process (eager)."""

import os

from celery import Celery, Task, signals
from kombu.exceptions import OperationalError

from config import outage

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class BrokerAwareTask(Task):
    """Every task of the project: queued through the broker's breaker (:data:`config.outage.
    BROKER`). While the broker is known to be down, ``apply_async`` raises
    :class:`config.outage.Skipped` at once instead of trying to connect (half a second, and a
    retry, each time); a failure opens the breaker, a success closes it. Callers catch
    kombu's ``OperationalError`` as without it: the change they queue for is stored, and a beat
    sweep does the task's work once the broker is back. Tasks run in-process (eager) do not
    touch it."""

    def apply_async(self, args=None, kwargs=None, **options):
        if self.app.conf.task_always_eager:
            return super().apply_async(args, kwargs, **options)
        if not outage.BROKER.allows():
            raise outage.Skipped(f"{self.name} not queued: the broker is unavailable")
        try:
            queued = super().apply_async(args, kwargs, **options)
        except OperationalError as exc:
            outage.BROKER.failed(exc, f"queueing {self.name}")
            raise
        outage.BROKER.succeeded()
        return queued


app = Celery("gouji", task_cls=BrokerAwareTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def task_named(name: str) -> Task:
    """The task registered as ``name``, for a module that queues a task which calls it back (a
    service whose task runs the service): queued by its name, the module need not import the
    tasks module, which would close an import circle (tests/test_layout.py). It is the task
    itself, so its ``delay``/``apply_async`` go through the broker's breaker, or run it
    in-process when tasks are eager. A process that has not imported the tasks modules yet (a
    web server; a worker imports them as it starts) imports them at the first miss. An unknown
    name is a :class:`LookupError`; tests/test_layout.py checks every name the project passes."""
    try:
        return app.tasks[name]
    except KeyError:
        app.autodiscover_tasks(force=True)
    try:
        return app.tasks[name]
    except KeyError:
        raise LookupError(f"no Celery task is registered as {name!r}") from None


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


def queue_ready() -> bool:
    """Whether a task queued now would reach the broker (always, when tasks run in-process):
    for a request whose whole point is a task, asked before it stores anything, so that with
    the broker down it is refused and changes nothing (:mod:`config.outage`). One connection
    to the broker (half a second at most), none while its breaker is open."""
    if app.conf.task_always_eager:
        return True
    if not outage.BROKER.allows():
        return False
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0.2)
    except (OperationalError, OSError) as exc:
        outage.BROKER.failed(exc, "checking the broker")
        return False
    outage.BROKER.succeeded()
    return True
