"""Fixtures for the live-play tests (PRODUCT.md, "Live play").

By default these tests run Celery eagerly even when ``CELERY_BROKER_URL`` is set, so that a
live act schedules no 托管 countdown on a broker nobody drains and the standings recomputation a
finished game queues runs in-process. ``test_live_worker.py`` overrides :func:`celery_eager` to
use a real worker.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters live in the cache: start every test with an empty one."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def celery_eager(celery_eager):
    """tests/conftest.py's, for every live test."""
    yield


@pytest.fixture
def live_table(db):
    from tests.live.helpers import make_live_table

    return make_live_table()


@pytest.fixture
def started_with_broker(settings, monkeypatch, django_capture_on_commit_callbacks):
    """A game started (30 s move time) with a broker that records what is queued, not runs
    it: (table, game id, [(task args, countdown)])."""
    from live import services as live
    from live.tasks import live_autoplay_task
    from tests.live.helpers import make_live_table

    settings.CELERY_TASK_ALWAYS_EAGER = False
    queued = []
    monkeypatch.setattr(live_autoplay_task, "apply_async",
                        lambda args, countdown: queued.append((args, round(countdown))))
    lt = make_live_table(move_seconds=30)
    with django_capture_on_commit_callbacks(execute=True):
        live_id = live.live_start(table=lt.table).pk
    return lt, live_id, queued


@pytest.fixture
def waiting(monkeypatch, settings):
    """Waiting requests (long-polls, event streams) woken by this process's announcements alone,
    as with pub/sub working, and reading nothing while they wait; and a semaphore released each
    time a request starts waiting for a game. A test acts once ``waiting.acquire(timeout=10)``
    says a request waits, instead of sleeping for a guessed time; the waiter then touches the
    database only when the announcement wakes it (SQLite's in-memory test database locks a
    table a reader is on)."""
    import threading

    from live import notify

    settings.LIVE_PUBSUB_URL = None  # nothing published: the announcement stays in-process
    listening = threading.Event()
    listening.set()
    monkeypatch.setattr(notify, "_ensure_listener", lambda: True)
    monkeypatch.setattr(notify, "_listener_ok", listening)
    monkeypatch.setattr(notify, "_subscribed_at", float("-inf"))  # no first read
    monkeypatch.setattr(notify, "SAFETY_READ", 3600.0)  # and no read now and then
    started = threading.Semaphore(0)

    class Waiters(dict):
        def setdefault(self, key, default=None):
            try:
                return super().setdefault(key, default)
            finally:
                started.release()

    monkeypatch.setattr(notify, "_waiters", Waiters())
    return started
