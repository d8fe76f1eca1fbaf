"""HTTP load tools shared by the benchmarks (``bench_api``, ``load_event``): a gunicorn server
on 127.0.0.1, client processes that send a list of requests (back to back, or at scheduled
times), and latency figures.

Traffic goes to 127.0.0.1 only. Client processes are forked: the caller closes its database
connections first (:func:`run_requests` does).
"""

from __future__ import annotations

import http.client
import json
import math
import multiprocessing
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.db import connections

HOST = "127.0.0.1"  # the only address these tools ever send traffic to
HIGH_RATE = "10000000/min"
THROTTLE_ENV = ("THROTTLE_ANON", "THROTTLE_USER", "THROTTLE_WRITES", "THROTTLE_RESULTS",
                "THROTTLE_ENGINE", "THROTTLE_LIVE")


@dataclass(frozen=True)
class Request:
    """One request to send; ``label`` groups it in the figures (e.g. "POST results")."""

    method: str
    path: str
    headers: dict
    body: bytes | None = None
    label: str = ""


@dataclass(frozen=True)
class Outcome:
    index: int
    status: int  # 0: transport error
    seconds: float
    body: bytes  # the answer (cut to 64 KB), or the transport error

    def json(self):
        return json.loads(self.body)


def _client(jobs, counter, out, deadline: float, port: int, schedule, t0: float,
            keep: bool) -> None:
    """One client process: take the next request until none is left (or time is up), send it on
    a kept-alive connection (``http.client`` reopens it when the server closes it).

    With a ``schedule`` (seconds after ``t0``, one per request) a request is sent at its time and
    its latency counts from that time, not from when this process got to it: a server that falls
    behind shows up in the figures (no "coordinated omission")."""
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    done = []
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value += 1
        if index >= len(jobs) or time.monotonic() > deadline:
            break
        req = jobs[index]
        if schedule is not None:
            due = t0 + schedule[index]
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
            start = due
        else:
            start = time.monotonic()
        try:
            conn.request(req.method, req.path, body=req.body, headers=req.headers)
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
            if not keep and status < 300:
                data = b""
        except (OSError, http.client.HTTPException) as exc:
            status, data = 0, repr(exc).encode()
            conn.close()
        done.append(Outcome(index, status, time.monotonic() - start, data[:65536]))
    conn.close()
    out.put(done)


def run_requests(jobs: list[Request], clients: int, port: int, *, timeout: float = 600.0,
                 rate: float | None = None, seed: int = 1, keep_bodies: bool = False
                 ) -> tuple[list[Outcome], float]:
    """Send every request once with ``clients`` processes; return the outcomes (in job order)
    and the wall time.

    Without ``rate`` the clients send back to back (a closed loop: the server's capacity). With
    ``rate`` (requests per second) the requests arrive as a Poisson process at that rate
    whatever the server does (an open loop). Answers' bodies are kept for errors, and for every
    answer with ``keep_bodies``."""
    if not jobs:
        return [], 0.0
    connections.close_all()  # no database connection may cross the fork
    ctx = multiprocessing.get_context("fork")
    counter = ctx.Value("l", 0)
    out = ctx.Queue()
    schedule = None
    if rate:
        rng, t, schedule = random.Random(seed), 0.0, []
        for _ in jobs:
            t += rng.expovariate(rate)
            schedule.append(t)
    lead = 0.5 if rate else 0.0  # every process is up before the first request is due
    start = time.perf_counter()
    t0 = time.monotonic() + lead
    deadline = t0 + timeout
    procs = [ctx.Process(target=_client, daemon=True, args=(
        jobs, counter, out, deadline, port, schedule, t0, keep_bodies))
        for _ in range(min(clients, len(jobs)))]
    for p in procs:
        p.start()
    results = []
    for _ in procs:
        results.extend(out.get(timeout=timeout + 60))
    wall = time.perf_counter() - start - lead
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()
    results.sort(key=lambda o: o.index)
    return results, wall


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return float("nan")
    k = max(0, math.ceil(pct / 100 * len(sorted_values)) - 1)
    return sorted_values[k]


class Figures:
    """Latency and throughput per label, across phases."""

    def __init__(self):
        self.latency = defaultdict(list)  # label -> seconds
        self.wall = defaultdict(float)  # label -> seconds spent in phases sending it
        self.statuses = defaultdict(lambda: defaultdict(int))

    def add(self, jobs: list[Request], outcomes: list[Outcome], wall: float) -> None:
        labels = set()
        for o in outcomes:
            label = jobs[o.index].label
            labels.add(label)
            self.latency[label].append(o.seconds)
            self.statuses[label][o.status] += 1
        for label in labels:
            self.wall[label] += wall

    def add_one(self, label: str, seconds: float, status: int) -> None:
        self.latency[label].append(seconds)
        self.statuses[label][status] += 1

    def lines(self) -> list[str]:
        """One line per label; req/s is the label's requests over the wall time of the batches
        that sent them (single requests sent one by one show "-")."""
        out = [f"  {'endpoint':<34} {'n':>6} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} "
               f"{'max ms':>8}  answers"]
        for label in sorted(self.latency):
            values = sorted(self.latency[label])
            wall = self.wall.get(label) or 0
            rate = f"{len(values) / wall:7.0f}" if wall else f"{'-':>7}"
            answers = ", ".join(f"{code or 'transport error'}×{n}"
                                for code, n in sorted(self.statuses[label].items()))
            out.append(f"  {label:<34} {len(values):>6} {rate} "
                       f"{percentile(values, 50) * 1000:8.1f} {percentile(values, 99) * 1000:8.1f}"
                       f" {values[-1] * 1000:8.1f}  {answers}")
        return out


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def http_get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


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
                 args: tuple[str, ...] = ()):
        self.workers, self.threads = workers, threads
        self.args = list(args)  # more gunicorn options (an access log, say)
        self.port = free_port()
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
        cmd = [sys.executable, "-m", "gunicorn", "config.wsgi:application",
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
