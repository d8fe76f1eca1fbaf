"""A real Celery worker for the tests that need one, and what they share around it.

``in_process_worker`` starts one in this process with ``celery.contrib.testing.worker.
start_worker`` (pytest-celery needs Docker, which is not available: STYLE.md, "Known traps"):
threads pool with two threads, so two deliveries of one task can really run at the same time,
on the broker ``CELERY_BROKER_URL`` names. Used by tests/test_celery_worker.py (one worker for
the session) and tests/live/test_live_worker.py (one for its module). tests/faults/
test_worker_kill.py starts workers as separate processes instead, to kill them.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time

from django.db import connections

WAIT_SECONDS = 30.0


class TaskOutcomes:
    """Every task published by this process and how the worker finished it, from Celery's
    signals (no result backend is configured, and none is needed)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.published: set[str] = set()
        self.done: dict[str, tuple[str, object]] = {}  # id -> ("success", result) | ("failure", exc)

    def on_publish(self, sender=None, headers=None, body=None, **kwargs):
        task_id = (headers or {}).get("id") or (body or {}).get("id")
        with self.cond:
            self.published.add(task_id)
            self.cond.notify_all()

    def on_success(self, sender=None, result=None, **kwargs):
        with self.cond:
            self.done[sender.request.id] = ("success", result)
            self.cond.notify_all()

    def on_failure(self, sender=None, task_id=None, exception=None, **kwargs):
        with self.cond:
            self.done[task_id] = ("failure", exception)
            self.cond.notify_all()

    def wait(self, task_id: str, timeout: float = WAIT_SECONDS) -> tuple[str, object]:
        with self.cond:
            if not self.cond.wait_for(lambda: task_id in self.done, timeout):
                raise AssertionError(f"task {task_id} did not finish within {timeout} s")
            return self.done[task_id]

    def wait_idle(self, timeout: float = WAIT_SECONDS) -> None:
        """Wait until every task published so far has finished (e.g. the standings
        recomputations the services queue on commit)."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.published <= set(self.done), timeout):
                pending = sorted(self.published - set(self.done))
                raise AssertionError(f"tasks still pending after {timeout} s: {pending[:5]}")

    def failures(self) -> list[tuple[str, object]]:
        with self.cond:
            return [v for v in self.done.values() if v[0] == "failure"]


def _close_worker_connections(**kwargs):
    """The worker's threads keep their own connections (CONN_MAX_AGE); close them after each
    task so the test database can be flushed and dropped."""
    if threading.current_thread() is not threading.main_thread():
        connections.close_all()


@contextlib.contextmanager
def in_process_worker():
    """A worker on ``CELERY_BROKER_URL``'s broker, its queue purged first (messages left by an
    aborted earlier run must not reach it); yields its :class:`TaskOutcomes`. On leaving, the
    worker is stopped and the app's settings are restored."""
    from celery import signals
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    # settings were read at import: make sure this app really uses the broker
    saved = {k: app.conf[k] for k in ("task_always_eager", "broker_url")}
    app.conf.task_always_eager = False
    app.conf.broker_url = os.environ["CELERY_BROKER_URL"]
    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)
    outcomes = TaskOutcomes()
    handlers = [(signals.after_task_publish, outcomes.on_publish),
                (signals.task_success, outcomes.on_success),
                (signals.task_failure, outcomes.on_failure),
                (signals.task_postrun, _close_worker_connections)]
    for signal, handler in handlers:
        signal.connect(handler, weak=False)
    try:
        with start_worker(app, pool="threads", concurrency=2, perform_ping_check=False,
                          shutdown_timeout=30.0, loglevel="WARNING"):
            yield outcomes
    finally:
        for signal, handler in handlers:
            signal.disconnect(handler)
        for key, value in saved.items():
            app.conf[key] = value


def wait_until(predicate, what: str, timeout: float = WAIT_SECONDS, every: float = 0.05,
               detail=None):
    """``predicate()`` once it is true; an AssertionError naming ``what`` (and ``detail()``)
    after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    extra = f"\n{detail()}" if detail else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}{extra}")


def make_event(players: int, **kwargs):
    """An event (``EventFactory(**kwargs)``) with ``players`` checked-in entries."""
    from tests.factories import EventFactory, PlayerFactory
    from tournaments import services

    event = EventFactory(**kwargs)
    for _ in range(players):
        entry = services.entry_register(event=event, player=PlayerFactory())
        services.entry_check_in(entry=entry)
    return event


def random_sheet(rng: random.Random) -> dict:
    """A result sheet the engine accepts (dagang: 打点 on, no revolutions)."""
    order = list(range(6))
    rng.shuffle(order)
    return {"order": order, "revolutions": [], "eliminated": [], "burns": [],
            "kaidian": [rng.random() < 0.5 for _ in range(6)], "leader": rng.randrange(6)}
