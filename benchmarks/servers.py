"""The processes a benchmark starts, and what they share: gunicorn and a Celery worker on this
project's database, the database itself (created when missing), the Redis cache beside the
broker.

Every server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time

from django.conf import settings
from django.db import connections

from benchmarks.loadclient import HOST, free_port, http_get

HIGH_RATE = "10000000/min"
THROTTLE_ENV = ("THROTTLE_ANON", "THROTTLE_USER", "THROTTLE_WRITES", "THROTTLE_RESULTS",
                "THROTTLE_ENGINE", "THROTTLE_LIVE")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", ""}  # the only database and Redis hosts used


def ensure_database(say=print) -> None:
    """Create the configured database if it does not exist (PostgreSQL), then migrate."""
    from django.core.management import call_command
    from django.db import OperationalError

    db = connections["default"]
    try:
        db.ensure_connection()
    except OperationalError as exc:
        if db.vendor != "postgresql" or "does not exist" not in str(exc):
            raise
        import psycopg
        from psycopg import sql

        cfg = db.settings_dict
        say(f"creating database {cfg['NAME']}")
        with psycopg.connect(dbname="postgres", host=cfg.get("HOST") or None,
                             port=cfg.get("PORT") or None, user=cfg.get("USER") or None,
                             password=cfg.get("PASSWORD") or None, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(cfg["NAME"])))
        db.close()
    call_command("migrate", interactive=False, verbosity=0)


def database_url() -> str:
    """The URL child processes must use: the same database as this process."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    return f"sqlite:///{settings.DATABASES['default']['NAME']}"


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return "unknown"


class Gunicorn:
    """gunicorn serving the project on a free port of 127.0.0.1, throttles raised."""

    def __init__(self, *, workers: int, threads: int = 1, env: dict | None = None,
                 args: tuple[str, ...] = (), app: str = "config.wsgi:application",
                 port: int | None = None):
        self.workers, self.threads = workers, threads
        self.app = app  # benchmarks.wsgi:application adds bench_api's baseline view
        self.args = list(args)  # more gunicorn options (an access log, say)
        self.port = port or free_port()
        self.env = dict(os.environ)
        self.env.update({name: HIGH_RATE for name in THROTTLE_ENV})
        self.env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        self.env.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))  # (config/wsgi.py)
        self.env.setdefault("LOG_LEVEL", "ERROR")  # not one warning line per 4xx
        self.env["DATABASE_URL"] = database_url()
        self.env.update(env or {})
        self.proc = None
        self.log_path = ""

    def start(self, timeout: float = 60.0) -> Gunicorn:
        log = tempfile.NamedTemporaryFile(prefix="gunicorn-", suffix=".log", delete=False)
        self.log_path = log.name
        kind = ["--worker-class", "sync"] if self.threads <= 1 else [
            "--worker-class", "gthread", "--threads", str(self.threads)]
        cmd = [sys.executable, "-m", "gunicorn", self.app,
               "--bind", f"{HOST}:{self.port}", "--workers", str(self.workers), *kind,
               "--timeout", "60", "--graceful-timeout", "10", "--keep-alive", "75",
               "--backlog", "2048", "--log-level", "warning", "--chdir", str(settings.BASE_DIR),
               *self.args]
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}; see {log.name}")
            try:
                if http_get(self.port, "/api/v1/events/") == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s; see "
                                   f"{log.name}")
            time.sleep(0.2)
        for _ in range(4 * self.workers):  # every worker loads the app and opens its connection
            http_get(self.port, "/api/v1/events/")
        return self

    def describe(self) -> str:
        kind = "sync" if self.threads <= 1 else f"gthread ×{self.threads} threads"
        return (f"gunicorn pid {self.proc.pid} on http://{HOST}:{self.port} ({self.workers} "
                f"workers, {kind}); log {self.log_path}")

    def stop(self) -> str:
        """Stop it; returns the log's tail if it holds anything."""
        if self.proc is None:
            return ""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as fh:
                tail = fh.read()[-2000:].strip()
            if not tail:
                os.unlink(self.log_path)
            return tail
        except OSError:
            return ""


def neighbour_db(redis_url: str) -> str:
    """The Redis database after the broker's (the cache every process shares, as in
    production: throttles, standings coalescing)."""
    from urllib.parse import urlparse

    parts = urlparse(redis_url)
    number = int(parts.path.strip("/") or 0)
    return parts._replace(path=f"/{(number + 1) % 16}").geturl()


class CeleryWorker:
    """A Celery worker (prefork, one process) on ``broker`` and this project's database."""

    def __init__(self, broker: str, cache_url: str):
        self.broker, self.cache_url = broker, cache_url
        self.proc = None
        self.log_path = ""

    def start(self) -> CeleryWorker:
        env = dict(os.environ, DATABASE_URL=database_url(), CELERY_BROKER_URL=self.broker,
                   CACHE_URL=self.cache_url, LOG_LEVEL="WARNING")
        log = tempfile.NamedTemporaryFile(prefix="celery-", suffix=".log", delete=False)
        self.log_path = log.name
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork",
             "--concurrency", "1", "--loglevel", "WARNING", "--without-gossip",
             "--without-mingle"], env=env, cwd=str(settings.BASE_DIR),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def describe(self) -> str:
        return f"celery worker pid {self.proc.pid} (prefork, 1 process); log {self.log_path}"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
