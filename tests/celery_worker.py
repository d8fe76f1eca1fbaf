"""A real Celery worker for the tests that need one, and what they share around it.

``in_process_worker`` starts one in this process with ``celery.contrib.testing.worker.
start_worker`` (pytest-celery needs Docker, which is not available: STYLE.md, "Known traps"):
threads pool with two threads, so two deliveries of one task can really run at the same time,
on the broker ``CELERY_BROKER_URL`` names. Used by tests/test_celery_worker.py (one worker for
the session) and tests/live/test_live_worker.py (one for its module). The fault tests
(tests/faults/test_worker_kill.py, test_worker_redis_restart.py) start ``celery worker`` as a
separate process instead (:class:`WorkerProcess`), to kill it or to take its broker away.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

from django.db import connection, connections

REPO = Path(__file__).resolve().parents[1]

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
    for celery_signal, handler in handlers:
        celery_signal.connect(handler, weak=False)
    try:
        with start_worker(app, pool="threads", concurrency=2, perform_ping_check=False,
                          shutdown_timeout=30.0, loglevel="WARNING"):
            yield outcomes
    finally:
        for celery_signal, handler in handlers:
            celery_signal.disconnect(handler)
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
    from tests.factories import EventFactory, check_in

    event = EventFactory(**kwargs)
    check_in(event, players)
    return event


def random_sheet(rng: random.Random) -> dict:
    """A result sheet the engine accepts (dagang: 打点 on, no revolutions)."""
    order = list(range(6))
    rng.shuffle(order)
    return {"order": order, "revolutions": [], "eliminated": [], "burns": [],
            "kaidian": [rng.random() < 0.5 for _ in range(6)], "leader": rng.randrange(6)}


def confirm_quietly(results) -> None:
    """Confirm results and note the change (``results_version``) as the services do, without
    queueing the recomputation: the standings are stale until a task runs."""
    from django.db.models import F
    from django.utils import timezone

    from games.models import GameResult
    from tournaments.models import Event

    event_ids = set(results.values_list("table__round__event_id", flat=True))
    GameResult.objects.filter(pk__in=list(results.values_list("pk", flat=True))).update(
        status=GameResult.Status.CONFIRMED, confirmed_at=timezone.now())
    Event.objects.filter(pk__in=event_ids).update(results_version=F("results_version") + 1)


# ----------------------------------------------------------------------------- worker processes
def worker_database_url() -> str:
    """The URL of the database this test process uses (pytest-django's test database), for a
    worker in another process."""
    db = connection.settings_dict
    auth = quote(db["USER"] or "", safe="")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"], safe="")
    return (f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
            f"{quote(db['NAME'], safe='')}")


def die_with_parent():  # runs in the forked child before exec: no worker outlives pytest
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:  # fields: state, ppid, …
            out.append(int(stat.parent.name))
    return sorted(out)


class WorkerProcess:
    """``celery -A config worker <args>`` in a process group of its own, on the test database
    (PostgreSQL) and ``broker_url``, its output in ``log_path``; killed if pytest dies."""

    def __init__(self, log_path: Path, *, broker_url: str, args: list[str],
                 env: dict[str, str] | None = None):
        env = dict(os.environ, DATABASE_URL=worker_database_url(), CELERY_BROKER_URL=broker_url,
                   DJANGO_SETTINGS_MODULE="config.settings", PYTHONUNBUFFERED="1", **(env or {}))
        self.log_path = log_path
        self.log = open(log_path, "wb")  # closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", *args],
            cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=die_with_parent)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def pool_children(self) -> list[int]:
        return children(self.proc.pid)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        text = self.log_text().splitlines()[-lines:]
        return f"--- {self.log_path.name} (pid {self.proc.pid}) ---\n" + "\n".join(text)

    def stop(self) -> None:
        """SIGKILL the whole process group (main process, pool children, an embedded beat)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        self.log.close()
