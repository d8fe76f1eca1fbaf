"""Shared test configuration: Hypothesis profiles and common database fixtures.

Select one with the HYPOTHESIS_PROFILE environment variable (default ``dev``);
``.ci/run`` sets ``ci``.
"""

import os
import secrets

import pytest
from hypothesis import settings

# The web server refuses the public development key unless DJANGO_DEBUG is on (config/wsgi.py):
# config.wsgi imported by a test, and the servers tests start, get a key of their own.
os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-" + secrets.token_urlsafe(40))

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# ----------------------------------------------------------------------------- markers
#: the markers of whole files, by their path under tests/ (fnmatch patterns; the markers are
#: described in pyproject.toml): `make test-fast` deselects browser, fault and slow. A single
#: test of a kind is marked in its module (``@pytest.mark.redis``).
MARKS_BY_PATH = {
    "faults/*": ("fault", "slow"),
    "*browser*.py": ("browser", "slow"),
    "faults/test_db_restart.py": ("postgres",),  # (a private cluster it creates)
    "faults/test_worker_kill.py": ("postgres",),
    "faults/test_redis_restart.py": ("postgres", "redis"),
    "faults/test_worker_redis_restart.py": ("postgres", "redis"),
    "api/test_fast_act_loop.py": ("postgres",),
    "api/test_api_throttle_processes.py": ("redis", "slow"),  # (server processes)
    "api_schema/*": ("slow",),  # (schemathesis: every operation, many examples)
    "benchmarks/test_analyze.py": ("postgres",),
    "benchmarks/test_checkpoint.py": ("postgres",),
    "live/test_live_pool.py": ("postgres", "redis"),
    "live/test_live_worker.py": ("redis", "slow"),  # (a real worker through a broker)
    "test_celery_worker.py": ("redis", "slow"),
    "test_loopredis.py": ("redis",),
    "tournaments/test_standings_lock.py": ("postgres",),
    "tournaments/test_standings_pages.py": ("postgres",),
}


def pytest_collection_modifyitems(config, items):
    """Give each test the markers of its file (:data:`MARKS_BY_PATH`)."""
    from fnmatch import fnmatch
    from pathlib import Path

    tests = Path(__file__).resolve().parent
    for item in items:
        path = Path(item.path).resolve().relative_to(tests).as_posix()
        for pattern, marks in MARKS_BY_PATH.items():
            if fnmatch(path, pattern):
                for mark in marks:
                    item.add_marker(mark)


@pytest.fixture
def celery_eager(settings):
    """Queued tasks run in-process, even with ``CELERY_BROKER_URL`` set (the live tests, the
    draw sweep's and the submission faults' use it; a module may override it)."""
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = saved


@pytest.fixture
def referee(db):
    from tests.factories import UserFactory

    return UserFactory(username="referee")


@pytest.fixture
def checked_in_event(db):
    """An individual event with 14 checked-in players (two tables and two byes)."""
    from tests.factories import EventFactory, check_in

    event = EventFactory()
    check_in(event, 14)
    return event


@pytest.fixture(autouse=True)
def _fresh_live_caches():
    """Live games are cached per process by id and version (live.cache.GameCache), and
    announced versions remembered (live.notify), and 托管 timers armed once per game and
    version (a key in the cache); a test that rolls back may reuse an id, so each test starts
    with all of them empty (and the tokens the act's short path remembers: users' ids are
    reused too)."""
    from django.core.cache import cache

    from api.authentication import token_users
    from live import notify
    from live.cache import games
    from live.streams import frames, publics

    games.clear()
    frames.clear()
    publics.clear()
    token_users.clear()
    notify.forget()
    if type(cache).__name__ == "LocMemCache":  # (a shared CACHE_URL is not the tests' to clear)
        cache.clear()
    yield
    from live import aiodb

    aiodb.database.close_now()  # (the acts stored on an event loop: its connections)


@pytest.fixture(autouse=True)
def _one_rate_window(monkeypatch):
    """The rate limits count requests in fixed windows of the clock (config/ratelimit.py): a
    test that makes a limit's requests and expects the next one refused failed when a window
    ended between them (a minute's window: about one run in a hundred). In-process the clock
    the limits read stands still for the test (from its real time); servers the test starts
    in other processes keep the real clock."""
    import time
    from types import SimpleNamespace

    from config import ratelimit

    now = time.time()
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: now))


@pytest.fixture
def same_connection_across_requests(monkeypatch):
    """Requests made outside Django's test client (a WSGI call), or a streamed response closed
    by the test, keep the test's database connection. Django closes a connection at the end of
    a request whose autocommit differs from the setting — as it is inside a test's transaction —
    so the next request of the test would find it closed on PostgreSQL (SQLite's in-memory test
    database is never closed). The test client takes the same receiver off while it handles a
    request, and puts it back after: here it stays off (the client's own switching is made a
    no-op) until the test ends."""
    import django.test.client
    from django.core import signals
    from django.db import close_old_connections

    monkeypatch.setattr(django.test.client, "close_old_connections", lambda **kwargs: None)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def _redis_breakers_closed():
    """Each test starts with every Redis breaker closed and the outage's local cache empty
    (config/outage.py): a test that met a dead Redis does not leave the next one without it."""
    from config import outage

    outage.reset()
    yield
    outage.reset()


class _DeadRedis:
    """A port of 127.0.0.1 on which Redis is down: ``kind="refused"`` (a socket bound there,
    not listening: every connection is refused, as when the server has exited) or ``"hung"``
    (listening, never accepting nor answering: a server stopped, or a lost host)."""

    def __init__(self, kind: str):
        import socket

        self.kind = kind
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        if kind == "hung":
            self.socket.listen(1)
        self.port = self.socket.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def close(self):
        self.socket.close()


@pytest.fixture
def redis_down(request, settings):
    """Redis is down for the whole test, and the service is configured as in production: the
    shared cache (``CACHE_URL``), the Celery broker (tasks not run in-process) and live
    pub/sub all name it. ``@pytest.mark.parametrize("redis_down", ["hung"], indirect=True)``
    for a Redis that takes connections and never answers; refused by default."""
    from config.celery import app

    dead = _DeadRedis(getattr(request, "param", "refused"))
    settings.CACHES = {"default": {
        "BACKEND": "config.cache.RedisCache", "LOCATION": dead.url,
        "OPTIONS": {"pool_class": "config.cache.SharedConnectionPool",
                    "socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}
    settings.LIVE_PUBSUB_URL = dead.url
    # (Celery's configuration reads these Django settings: they win over app.conf's)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = dead.url
    app._pool = app.amqp._producer_pool = None  # (the producers connect to the new URL)
    try:
        yield dead
    finally:
        app._pool = app.amqp._producer_pool = None
        dead.close()
