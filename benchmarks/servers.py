"""The processes a benchmark starts, and what they share: gunicorn, uvicorn and a Celery worker
on this project's database, the database itself (created when missing), the Redis cache beside the
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
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db import connections

from benchmarks.loadclient import HOST, free_port, http_get
from benchmarks.machine import cpu_seconds

HIGH_RATE = "10000000/min"
THROTTLE_ENV = ("THROTTLE_ANON", "THROTTLE_USER", "THROTTLE_WRITES", "THROTTLE_RESULTS",
                "THROTTLE_ENGINE", "THROTTLE_LIVE")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", ""}  # the only database and Redis hosts used


def vacuum_if_autovacuum_is_off(say=print) -> None:
    """``VACUUM (ANALYZE)`` the database first where autovacuum is off (as on this project's CI
    machines; production runs it): earlier runs' deleted events leave dead rows and stale
    statistics behind, and with them one ``bench_event`` run's standings updates took 2.6 s
    where they took 0.9 s once the database was vacuumed. Not inside a transaction (a test's:
    VACUUM cannot run there), where it does nothing."""
    from django.db import connection

    if connection.vendor != "postgresql" or connection.in_atomic_block or autovacuum_on():
        return
    say("autovacuum is off on this PostgreSQL: VACUUM (ANALYZE) before the run")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")


def checkpoint(say=print) -> None:
    """A PostgreSQL checkpoint before a run: what the server did before it (a test suite's
    databases made and dropped: tens of thousands of files) would otherwise be written and
    synced by a checkpoint during it, a sync of seconds that holds up the run's acts. A server that
    refuses (a superuser's or ``pg_checkpoint``'s right) is named and the run goes on."""
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        return
    try:
        with connection.cursor() as cursor:
            cursor.execute("CHECKPOINT")
    except DatabaseError as exc:
        say(f"no checkpoint before the run: {str(exc).strip()}")


def wal_written() -> dict | None:
    """PostgreSQL's counts so far of the WAL it wrote (``records``, ``bytes``), of the times it
    flushed it to disk (``syncs``: a commit waits for one, and commits that come together
    share one) and of the transactions its databases committed (``commits``, reads too); a
    run's figures are two readings' difference. ``None`` off PostgreSQL, or before version 14
    (no ``pg_stat_wal``)."""
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        return None
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT wal_records, wal_bytes, wal_sync, (SELECT sum(xact_commit) "
                           "FROM pg_stat_database) FROM pg_stat_wal")
            records, size, syncs, commits = cursor.fetchone()
    except DatabaseError:
        return None
    return {"records": int(records), "bytes": int(size), "syncs": int(syncs),
            "commits": int(commits)}


def analyze(say=print) -> None:
    """The planner's statistics of every table, after a run's set-up filled them, where
    autovacuum is off (as on the CI machine's PostgreSQL). Production runs autovacuum, whose
    analyze follows any table that grew by a tenth; without it the tables a set-up fills
    (10,002 players, their logins, tokens and seats) would have none, and the act's statement
    would check the seat, the seating and the token by other plans than production's, costing
    PostgreSQL about a tenth more CPU an act."""
    from django.db import connection

    if connection.vendor != "postgresql" or autovacuum_on():
        return
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    say("autovacuum is off: the tables analyzed after the set-up, as its analyze would")


def autovacuum_on() -> bool:
    """Whether the PostgreSQL of the default database runs autovacuum (production's does; this
    machine kind's does not, and a benchmark then vacuums and analyzes what it needs itself)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        return cursor.fetchone()[0] == "on"


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


def minimal_database_url() -> str:
    """The database of ``bench_api --baseline``'s minimal DRF project (benchmarks/minimal_drf):
    the run's, with ``_minimal`` after its name, on the same server."""
    parts = urlsplit(database_url())
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "_minimal"))


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return "unknown"


#: the secret every server this process starts shares (``DJANGO_SECRET_KEY``, unless set)
RUN_SECRET_KEY = secrets.token_urlsafe(50)


class Server:
    """An app server on a free port of 127.0.0.1, throttles raised (:class:`Gunicorn`,
    :class:`Uvicorn`)."""

    name = "server"
    #: the GET that tells the server is up, and the answer it gives then
    ready: tuple[str, int] = ("/api/v1/events/", 200)

    def __init__(self, *, workers: int, env: dict | None = None, args: tuple[str, ...] = (),
                 port: int | None = None, ready: tuple[str, int] | None = None):
        self.workers = workers
        self.ready = ready or self.ready
        self.args = list(args)  # more server options (an access log, say)
        self.port = port or free_port()
        self.env = dict(os.environ)
        self.env.update({name: HIGH_RATE for name in THROTTLE_ENV})
        self.env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        # one secret for every server of the run, as in production: the API's announcements
        # sign the acts they carry, and a stream server with another key would drop them all
        # and read every game instead (config/serving.py refuses the development key)
        self.env.setdefault("DJANGO_SECRET_KEY", RUN_SECRET_KEY)
        self.env.setdefault("LOG_LEVEL", "ERROR")  # not one warning line per 4xx
        self.env["DATABASE_URL"] = database_url()
        self.env.update(env or {})
        self.proc = None
        self.log_path = ""

    def command(self) -> list[str]:
        """The server's command line; :class:`Gunicorn` and :class:`Uvicorn` give theirs (this
        base class is never started alone)."""
        raise NotImplementedError

    def start(self, timeout: float = 60.0):
        log = tempfile.NamedTemporaryFile(prefix=f"{self.name}-", suffix=".log", delete=False)
        self.log_path = log.name
        self.proc = subprocess.Popen(self.command(), env=self.env, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True,
                                     cwd=str(settings.BASE_DIR))
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see "
                                   f"{log.name}")
            try:
                if http_get(self.port, self.ready[0]) == self.ready[1]:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not answer within {timeout:.0f} s; see "
                                   f"{log.name}")
            time.sleep(0.2)
        for _ in range(4 * self.workers):  # every worker loads the app and opens its connection
            http_get(self.port, self.ready[0])
        return self

    def pids(self) -> list[int]:
        """The server's processes: the master (if any) and its workers."""
        if self.proc is None:
            return []
        return [self.proc.pid, *children(self.proc.pid)]

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


class Gunicorn(Server):
    """gunicorn (WSGI, config/wsgi.py): sync workers, or gthread ones with ``threads``."""

    name = "gunicorn"

    def __init__(self, *, workers: int, threads: int = 1, env: dict | None = None,
                 args: tuple[str, ...] = (), app: str = "config.wsgi:application",
                 port: int | None = None, ready: tuple[str, int] | None = None):
        super().__init__(workers=workers, env=env, args=args, port=port, ready=ready)
        self.threads = threads
        # benchmarks.wsgi:application adds bench_api's in-stack baseline view;
        # benchmarks.minimal_drf.wsgi:application is the minimal project
        self.app = app

    def command(self) -> list[str]:
        kind = ["--worker-class", "sync"] if self.threads <= 1 else [
            "--worker-class", "gthread", "--threads", str(self.threads)]
        return [sys.executable, "-m", "gunicorn", self.app,
                "--bind", f"{HOST}:{self.port}", "--workers", str(self.workers), *kind,
                "--timeout", "60", "--graceful-timeout", "10", "--keep-alive", "75",
                "--backlog", "2048", "--log-level", "warning", "--chdir", str(settings.BASE_DIR),
                *self.args]

    def describe(self) -> str:
        kind = "sync" if self.threads <= 1 else f"gthread ×{self.threads} threads"
        return (f"gunicorn pid {self.proc.pid} on http://{HOST}:{self.port} ({self.workers} "
                f"workers, {kind}); log {self.log_path}")


class Uvicorn(Server):
    """uvicorn (ASGI, config/asgi.py) with uvloop and httptools, as the production layout
    (docs/DEPLOY.md) runs it for live play's streams and long-polls: one process per worker."""

    name = "uvicorn"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", HOST,
                "--port", str(self.port), "--workers", str(self.workers), "--loop", "uvloop",
                "--http", "httptools", "--no-access-log", "--log-level", "warning",
                "--backlog", "4096", "--timeout-keep-alive", "75", *self.args]

    def describe(self) -> str:
        return (f"uvicorn pid {self.proc.pid} on http://{HOST}:{self.port} ({self.workers} "
                f"worker{'s' if self.workers > 1 else ''}, uvloop, httptools); log "
                f"{self.log_path}")


class Shards:
    """Several :class:`Uvicorn` servers on their own ports, each serving the games whose id
    picks it (``id % len(servers)``: :meth:`port_of`), as the proxy of docs/DEPLOY.md routes a game's
    streams and acts to one process (nginx ``hash``), so that the process that stores a
    game's act holds its streams and renders their frames from memory."""

    def __init__(self, servers: list[Uvicorn]):
        self.servers = servers
        self.ports = [server.port for server in servers]
        self.port = self.ports[0]
        self.workers = sum(server.workers for server in servers)

    def port_of(self, live_id: int) -> int:
        return self.ports[live_id % len(self.ports)]

    def pids(self) -> list[int]:
        return [pid for server in self.servers for pid in server.pids()]

    def describe(self) -> str:
        if len(self.servers) == 1:
            return self.servers[0].describe()
        return (f"{len(self.servers)} uvicorn processes (a game's streams and acts on the one "
                f"its id picks), pids " + ", ".join(str(s.proc.pid) for s in self.servers) +
                f" on ports {', '.join(map(str, self.ports))}; logs " +
                " ".join(s.log_path for s in self.servers))


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def process_figures(pids: list[int]) -> dict:
    """Resident memory (MB), open file descriptors, threads and CPU seconds, summed over ``pids``
    (Linux /proc; a process gone meanwhile counts nothing)."""
    rss = fds = threads = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        rss += int(line.split()[1])
            fds += len(os.listdir(f"/proc/{pid}/fd"))
            threads += len(os.listdir(f"/proc/{pid}/task"))
        except (OSError, ValueError):
            continue
    return {"rss_mb": rss / 1024, "fds": fds, "threads": threads, "cpu_s": cpu_seconds(pids)}


def raise_open_files(want: int) -> int:
    """Raise this process's open-file limit (inherited by the servers and clients it starts)
    toward ``want``: to the hard limit, or past it as root; returns the limit now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if want > hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
            return want
        except (ValueError, OSError):
            want = hard
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        return want
    return soft


#: how the benchmarks' events' slugs begin (benchmarks/builders.py, bench_live)
BENCH_EVENTS = "live-bench-"


def end_earlier_bench_games() -> int:
    """Mark the live games earlier benchmark runs left running as finished (no result; this is
    the benchmark's database): their seats are all overdue, and the 托管 sweep would have the
    bot play every one of them, once a move time each, beside this run's games. How many."""
    from live.models import LiveGame

    return LiveGame.objects.filter(
        status=LiveGame.Status.RUNNING,
        table__round__event__slug__startswith=BENCH_EVENTS).update(
        status=LiveGame.Status.FINISHED, turn_deadline=None)


def neighbour_db(redis_url: str) -> str:
    """The Redis database after the broker's (the cache every process shares, as in
    production: throttles, standings coalescing)."""
    from urllib.parse import urlparse

    parts = urlparse(redis_url)
    number = int(parts.path.strip("/") or 0)
    return parts._replace(path=f"/{(number + 1) % 16}").geturl()


class CeleryWorker:
    """A Celery worker (prefork, one process) on ``broker`` and this project's database, with
    Celery beat in it (``-B``): the 托管 sweep plays every seat whose move time ran out, as in
    production (docs/DEPLOY.md's layout runs beat)."""

    def __init__(self, broker: str, cache_url: str):
        self.broker, self.cache_url = broker, cache_url
        self.proc = None
        self.log_path = ""
        self.schedule_dir = None

    def start(self) -> CeleryWorker:
        self.forget_earlier_runs()
        env = dict(os.environ, DATABASE_URL=database_url(), CELERY_BROKER_URL=self.broker,
                   CACHE_URL=self.cache_url, LOG_LEVEL="WARNING")
        env.setdefault("DJANGO_SECRET_KEY", RUN_SECRET_KEY)  # its 托管 acts are signed too
        log = tempfile.NamedTemporaryFile(prefix="celery-", suffix=".log", delete=False)
        self.log_path = log.name
        self.schedule_dir = tempfile.TemporaryDirectory(prefix="celerybeat-")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork",
             "--concurrency", "1", "--loglevel", "WARNING", "--without-gossip",
             "--without-mingle", "--beat",
             "--schedule", os.path.join(self.schedule_dir.name, "schedule")],
            env=env, cwd=str(settings.BASE_DIR),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    #: kombu's keys on a Redis broker for the messages a worker took and has not acknowledged
    #: (Redis hands them to the next worker)
    UNACKED_KEYS = ("unacked", "unacked_index", "unacked_mutex")

    def forget_earlier_runs(self) -> None:
        """Empty the broker of what earlier runs left, before the worker starts: the queue
        (``celery purge``) and, on Redis, the messages a stopped worker held unacknowledged. An
        earlier run's game is still running, its seats overdue: each of its 托管 timers has the
        bot play a turn and queues the next, for as long as the game lasts. With the
        ``--streams`` mode not purging, five earlier runs had left 8,333 timers queued, and the
        worker played their games while this run's timers waited."""
        purge = subprocess.run([sys.executable, "-m", "celery", "-A", "config", "purge", "-f"],
                               env=dict(os.environ, CELERY_BROKER_URL=self.broker),
                               cwd=str(settings.BASE_DIR), capture_output=True, text=True)
        if purge.returncode:
            raise RuntimeError(f"purging the broker's queue failed: {purge.stderr[-500:]}")
        if self.broker.startswith(("redis://", "rediss://", "unix://")):
            import redis

            redis.Redis.from_url(self.broker).delete(*self.UNACKED_KEYS)
        end_earlier_bench_games()

    def describe(self) -> str:
        return (f"celery worker pid {self.proc.pid} (prefork, 1 process, and beat); "
                f"log {self.log_path}")

    def pids(self) -> list[int]:
        """The worker's processes: its main process (with beat) and the pool's child."""
        return [] if self.proc is None else [self.proc.pid, *children(self.proc.pid)]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if self.schedule_dir is not None:
            self.schedule_dir.cleanup()
            self.schedule_dir = None
