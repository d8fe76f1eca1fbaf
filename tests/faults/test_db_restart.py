"""Fault: PostgreSQL restarted while clients submit results over HTTP.

Clients must get answers they can retry (a 503 ``database_unavailable`` with ``Retry-After``, or
at worst a transport error — never a 500), a retry with the same body and ``Idempotency-Key``
must end in exactly one stored result, and no result may be half-written (a ``GameResult``
without its ``GameResultVersion``).

Set-up, all of it private to this test (the shared PostgreSQL and pytest-django's test database
are not touched):

1. a throwaway PostgreSQL cluster: ``initdb`` into a temporary directory (as the ``postgres``
   user when we are root), started with ``pg_ctl`` on a free port of 127.0.0.1 with its Unix
   socket in that directory; stopped (``-m immediate``) and removed afterwards, even on failure;
2. a subprocess (this file run as a script) migrates it and builds an event of ``TABLES``
   tables with round 1 drawn and published (``benchmarks.builders.published_round``, as
   ``bench_api`` does), gives one seated player per table an API token and bot-plays games 1
   and 2 of every table (full records);
3. gunicorn (2 sync workers, persistent connections ``DB_CONN_MAX_AGE=60`` as in production,
   throttles raised) serves the API on a free port of 127.0.0.1.

Then three phases:

- **fast**: ``CLIENTS`` threads POST game 1 of every table. When a third of the tables are
  stored, new requests are held back (the ones in flight go on), PostgreSQL gets
  ``pg_ctl stop -m fast``, the clients are let go and meet the outage; once they have (bounded
  wait) it is started again. Clients retry on a 503 or a transport error with the same key and
  body, honouring ``Retry-After`` (bounded retries), and treat 201 and 200 as success.
- **idle restart**: ``pg_ctl restart -m fast`` with no request running, while every worker
  holds a persistent connection to the old server; the next requests must simply succeed
  (Django's ``CONN_HEALTH_CHECKS`` replaces a dead persistent connection).
- **immediate**: as *fast* with game 2 and ``pg_ctl stop -m immediate`` (the crash-like one: no
  checkpoint, crash recovery at start).

After each, the private database is read with psycopg: every table has exactly one result for
the game, with exactly one version whose payload is what was sent (as the service normalises
it) under that client's key.
"""

from __future__ import annotations

import http.client
import json
import os
import pwd
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"  # the only address this test sends traffic to
TABLES = 48
CLIENTS = 4
WORKERS = 2
DBNAME = "gouji_fault"
HIGH_RATE = "10000000/min"
THROTTLE_ENV = ("THROTTLE_ANON", "THROTTLE_USER", "THROTTLE_WRITES", "THROTTLE_RESULTS",
                "THROTTLE_ENGINE")
MAX_ATTEMPTS = 30  # per request; with the waits below a request gives up after ~20 s
HOLD_DOWN_MIN = 0.5  # seconds the database stays down at least …
HOLD_DOWN_MAX = 5.0  # … and at most while waiting for the clients to meet the outage
LEAKS = re.compile(r"postgres|psycopg|127\.0\.0\.1|select |insert |update |connection to|"
                   r"port \d|socket|" + DBNAME, re.IGNORECASE)


# ----------------------------------------------------------------------------- the cluster
def _pg_bindir() -> Path | None:
    """The directory of ``initdb`` / ``pg_ctl``: on the PATH, else Debian's newest version."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for bindir in sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                         key=lambda p: [int(x) for x in re.findall(r"\d+", p.parent.name)] or [0],
                         reverse=True):
        if (bindir / "initdb").exists() and (bindir / "pg_ctl").exists():
            return bindir
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    bindir: Path
    base: Path  # the temporary directory: data/, sock/, server.log
    as_user: list[str]  # command prefix running a command as the cluster's owner
    port: int = 0

    @property
    def data(self) -> Path:
        return self.base / "data"

    @property
    def sock(self) -> Path:
        return self.base / "sock"

    @property
    def log(self) -> Path:
        return self.base / "server.log"

    def run(self, *args: str, timeout: float = 60, check: bool = True):
        return subprocess.run([*self.as_user, *args], capture_output=True, text=True,
                              timeout=timeout, check=check, cwd=self.base)

    def ctl(self, *args: str, timeout: float = 60, check: bool = True):
        return self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), *args,
                        timeout=timeout, check=check)

    def url(self) -> str:
        return f"postgres://postgres@{HOST}:{self.port}/{DBNAME}?connect_timeout=5"

    def connect(self, dbname: str = DBNAME):
        import psycopg

        return psycopg.connect(host=HOST, port=self.port, user="postgres", dbname=dbname,
                               connect_timeout=5, autocommit=True)

    def is_down(self) -> bool:
        """The postmaster has exited (it removes its pid file last)."""
        return not (self.data / "postmaster.pid").exists()

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


def _start_on_free_port(cluster: Cluster) -> None:
    """Start the cluster on a free port (another run may take the port we picked: try again)."""
    last = None
    for _ in range(5):
        cluster.port = _free_port()
        with open(cluster.data / "postgresql.conf", "a", encoding="utf-8") as fh:
            fh.write(f"port = {cluster.port}\n")  # the last setting wins
        last = cluster.ctl("-l", str(cluster.log), "-w", "-t", "60", "start", check=False)
        if last.returncode == 0:
            return
    raise RuntimeError(f"pg_ctl start failed: {last.stdout}{last.stderr}\n{cluster.log_tail()}")


@pytest.fixture
def private_pg():
    """A throwaway PostgreSQL cluster of our own; stopped and removed afterwards."""
    bindir = _pg_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL's initdb / pg_ctl were not found (PATH, /usr/lib/postgresql/*/"
                    "bin): the database-restart fault test needs a private cluster")
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run a private "
                        "PostgreSQL cluster as")
        if not shutil.which("runuser"):
            pytest.skip("running as root without runuser: cannot start PostgreSQL as postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    else:
        owner, as_user = None, []
    base = Path(tempfile.mkdtemp(prefix="gouji-fault-pg-"))
    cluster = Cluster(bindir=bindir, base=base, as_user=as_user)
    try:
        cluster.sock.mkdir()
        if owner is not None:
            for path in (base, cluster.sock):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        init = cluster.run(str(bindir / "initdb"), "-D", str(cluster.data), "-A", "trust",
                           "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync",
                           check=False, timeout=120)
        if init.returncode != 0:
            if owner is None:  # not root: we may simply not be allowed to
                pytest.skip(f"initdb failed as {pwd.getpwuid(os.geteuid()).pw_name}: "
                            f"{init.stderr.strip()[-300:]}")
            raise RuntimeError(f"initdb failed: {init.stdout}{init.stderr}")
        with open(cluster.data / "postgresql.conf", "a", encoding="utf-8") as fh:
            fh.write(f"listen_addresses = '{HOST}'\nunix_socket_directories = '{cluster.sock}'\n"
                     "max_connections = 30\nshared_buffers = 16MB\n")
        _start_on_free_port(cluster)
        with cluster.connect("postgres") as conn:
            conn.execute(f"CREATE DATABASE {DBNAME}")
        yield cluster
    finally:
        if (cluster.data / "postmaster.pid").exists():
            cluster.ctl("-m", "immediate", "-w", "-t", "30", "stop", check=False)
        shutil.rmtree(base, ignore_errors=True)


# ----------------------------------------------------------------------------- Django side
def _django_env(cluster: Cluster) -> dict:
    env = dict(os.environ)
    for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
        env.pop(name, None)  # Celery in-process, throttle counters in local memory
    env.update({name: HIGH_RATE for name in THROTTLE_ENV})
    env.update({"DATABASE_URL": cluster.url(), "DB_CONN_MAX_AGE": "60",
                "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0",
                "LOG_LEVEL": "ERROR", "PYTHONPATH": str(ROOT)})
    return env


def _build(cluster: Cluster, out: Path) -> dict:
    """Migrate the private database and build the event in a subprocess (this file as a
    script); return the jobs it wrote."""
    proc = subprocess.run([sys.executable, __file__, "build", str(TABLES), str(out)],
                          cwd=ROOT, env=_django_env(cluster), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"building the data failed:\n{proc.stdout}\n{proc.stderr}"
    return {**json.loads(out.read_text()), "timing": proc.stdout.strip()}


def _http(port: int, method: str, path: str, body: bytes | None = None,
          headers: dict | None = None, timeout: float = 15):
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


class Gunicorn:
    def __init__(self, cluster: Cluster, base: Path):
        self.port = _free_port()
        self.log_path = base / "gunicorn.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        cmd = [sys.executable, "-m", "gunicorn", "config.wsgi:application",
               "--bind", f"{HOST}:{self.port}", "--workers", str(WORKERS),
               "--worker-class", "sync", "--timeout", "30", "--graceful-timeout", "5",
               "--log-level", "warning", "--chdir", str(ROOT)]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=_django_env(cluster), stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, f"gunicorn exited:\n{self.log_tail()}"
            try:
                if _http(self.port, "GET", "/api/v1/events/", timeout=5)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"gunicorn did not answer:\n{self.log_tail()}"
            time.sleep(0.1)
        for _ in range(4 * WORKERS):  # every worker loads the app and opens its connection
            assert _http(self.port, "GET", "/api/v1/events/")[0] == 200

    def log_tail(self, chars: int = 3000) -> str:
        if not self.log.closed:
            self.log.flush()
        return self.log_path.read_text(errors="replace")[-chars:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)  # its own session, started above
                self.proc.wait(timeout=10)
        self.log.close()


# ----------------------------------------------------------------------------- clients
@dataclass
class Attempt:
    job: int
    status: int  # 0: transport error
    sent: float  # monotonic times
    at: float
    code: str = ""
    retry_after: str | None = None
    content_type: str = ""
    body: str = ""


@dataclass
class Phase:
    """One phase's bookkeeping, shared by the client threads and the restarter."""

    jobs: list
    trigger_at: int
    cond: threading.Condition = field(default_factory=threading.Condition)
    gate: threading.Event = field(default_factory=threading.Event)
    next_job: int = 0
    succeeded: int = 0
    triggered: bool = False
    stop_sent: float | None = None  # monotonic times
    started: float | None = None
    attempts: list = field(default_factory=list)
    final: dict = field(default_factory=dict)  # job index -> last status

    def failures(self, since: float = 0.0) -> list[Attempt]:
        with self.cond:
            return [a for a in self.attempts if a.status not in (200, 201) and a.at >= since]


def _post(port: int, job: dict) -> Attempt:
    sent = time.monotonic()
    headers = {"Authorization": f"Token {job['token']}", "Content-Type": "application/json",
               "Accept": "application/json", "Idempotency-Key": job["key"]}
    try:
        status, resp_headers, data = _http(port, "POST", job["path"], job["body"].encode(),
                                           headers)
    except (OSError, http.client.HTTPException) as exc:
        return Attempt(job=-1, status=0, sent=sent, at=time.monotonic(), body=repr(exc))
    lower = {k.lower(): v for k, v in resp_headers.items()}
    attempt = Attempt(job=-1, status=status, sent=sent, at=time.monotonic(),
                      retry_after=lower.get("retry-after"),
                      content_type=lower.get("content-type", ""),
                      body=data[:600].decode("utf-8", "replace"))
    try:
        attempt.code = json.loads(data)["error"]["code"] if status >= 300 else ""
    except (ValueError, KeyError, TypeError):
        attempt.code = "?"
    return attempt


def _client(phase: Phase, port: int) -> None:
    while True:
        phase.gate.wait(timeout=60)
        with phase.cond:
            if phase.next_job >= len(phase.jobs):
                return
            index = phase.next_job
            phase.next_job += 1
        job = phase.jobs[index]
        for attempt_no in range(MAX_ATTEMPTS):
            attempt = _post(port, job)
            attempt.job = index
            with phase.cond:
                phase.attempts.append(attempt)
            if attempt.status in (200, 201) or attempt.status not in (0, 503):
                break  # success, or an answer a retry would not change
            # 503: honour Retry-After (capped: this is a test); transport error: back off
            wait = (min(float(attempt.retry_after or 1), 1.0) if attempt.status == 503
                    else min(0.05 * 2 ** attempt_no, 1.0))
            time.sleep(wait * random.uniform(0.8, 1.2))
        with phase.cond:
            phase.final[index] = attempt.status
            if attempt.status in (200, 201):
                phase.succeeded += 1
                if phase.succeeded >= phase.trigger_at and not phase.triggered:
                    # hold back new requests (those in flight go on) until the stop is sent
                    phase.triggered = True
                    phase.gate.clear()
                    phase.cond.notify_all()


def _restart_under_load(phase: Phase, cluster: Cluster, mode: str) -> None:
    """Stop PostgreSQL (``mode``) once a third of the tables are stored, keep it down until the
    clients have met the outage (at least HOLD_DOWN_MIN s, at most HOLD_DOWN_MAX s after it
    went down), then start it again."""
    with phase.cond:
        if not phase.cond.wait_for(lambda: phase.triggered, timeout=120):
            phase.gate.set()
            raise AssertionError("the clients never stored a third of the tables")
    phase.stop_sent = time.monotonic()
    try:
        cluster.ctl("-m", mode, "-W", "stop")  # -W: signal the postmaster, do not wait
    finally:
        phase.gate.set()
    deadline = time.monotonic() + 60
    while not cluster.is_down():
        assert time.monotonic() < deadline, f"PostgreSQL did not stop:\n{cluster.log_tail()}"
        time.sleep(0.02)
    down_at = time.monotonic()
    while time.monotonic() < down_at + HOLD_DOWN_MAX and (
            time.monotonic() < down_at + HOLD_DOWN_MIN or not phase.failures(phase.stop_sent)):
        time.sleep(0.02)
    start = cluster.ctl("-l", str(cluster.log), "-w", "-t", "60", "start", check=False)
    assert start.returncode == 0, f"{start.stdout}{start.stderr}\n{cluster.log_tail()}"
    phase.started = time.monotonic()


def _run_phase(cluster: Cluster, server: Gunicorn, jobs: list, mode: str) -> dict:
    phase = Phase(jobs=jobs, trigger_at=len(jobs) // 3)
    phase.gate.set()
    threads = [threading.Thread(target=_client, args=(phase, server.port), daemon=True)
               for _ in range(CLIENTS)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    try:
        _restart_under_load(phase, cluster, mode)
    finally:
        phase.gate.set()
        for t in threads:
            t.join(timeout=MAX_ATTEMPTS * 1.5 + 30)
    assert not any(t.is_alive() for t in threads), "a client thread hung"
    wall = time.monotonic() - t0

    where = f"(gunicorn log:\n{server.log_tail()}\nPostgreSQL log:\n{cluster.log_tail()})"
    failures = phase.failures()
    answers = [a for a in failures if a.status != 0]
    transport = [a for a in failures if a.status == 0]
    # The outage was really met: otherwise this test tested nothing.
    assert failures, f"no request met the outage ({mode}) {where}"
    # Every error answer is the clean, retryable one — never a 500 or another code.
    for a in answers:
        assert a.status == 503, f"job {a.job}: {a.status} {a.body} {where}"
        assert a.code == "database_unavailable", a.body
        assert a.content_type.startswith("application/json"), a.content_type
        assert a.retry_after is not None and a.retry_after.isdigit() and (
            1 <= int(a.retry_after) <= 5), a.retry_after
        body = json.loads(a.body)
        assert set(body) == {"error"} and body["error"]["message"], body
        assert not LEAKS.search(body["error"]["message"]), body
    # Failures only around the outage: answered after the stop was sent, and sent before the
    # database was back (give or take a few seconds on a busy machine).
    for a in failures:
        assert a.at >= phase.stop_sent and a.sent <= phase.started + 5, (
            a, phase.stop_sent, phase.started)
    # Every job ended in success (201, or 200 when an earlier try had been stored after all).
    finals = [phase.final.get(i) for i in range(len(jobs))]
    assert all(s in (200, 201) for s in finals), (
        f"not every submission succeeded: {[(i, s) for i, s in enumerate(finals) if s not in (200, 201)]}"
        f" {where}")
    return {"mode": mode, "wall": wall, "503": len(answers), "transport": len(transport),
            "201": finals.count(201), "200": finals.count(200),
            "in_flight": sum(1 for a in failures if a.sent < phase.stop_sent),
            "down_s": phase.started - phase.stop_sent}


# ----------------------------------------------------------------------------- the checks
def _check_stored(cluster: Cluster, jobs: list, number: int) -> None:
    """Exactly one result per table for game ``number``, with exactly one version holding the
    payload that was sent under that client's key; no result anywhere without a version."""
    by_table = {j["table"]: j for j in jobs}
    with cluster.connect() as conn:
        rows = conn.execute(
            "SELECT r.table_id, r.version, (r.engine_result->>'ok')::boolean, "
            "       count(v.id), min(v.version), max(v.version), "
            "       (array_agg(v.payload))[1], (array_agg(v.idempotency_key))[1], "
            "       (array_agg(u.username))[1] "
            "FROM games_gameresult r "
            "LEFT JOIN games_gameresultversion v ON v.result_id = r.id "
            "LEFT JOIN auth_user u ON u.id = v.submitted_by_id "
            "WHERE r.table_id = ANY(%s) AND r.number = %s GROUP BY r.id",
            (list(by_table), number)).fetchall()
        orphans = conn.execute(
            "SELECT count(*) FROM games_gameresult r WHERE NOT EXISTS "
            "(SELECT 1 FROM games_gameresultversion v WHERE v.result_id = r.id)").fetchone()[0]
    assert orphans == 0, f"{orphans} result(s) without a version"
    tables = [r[0] for r in rows]
    assert sorted(tables) == sorted(by_table), (
        f"game {number}: {len(rows)} results for {len(by_table)} tables; missing "
        f"{sorted(set(by_table) - set(tables))}, twice {sorted({t for t in tables if tables.count(t) > 1})}")
    for table_id, version, ok, versions, vmin, vmax, payload, key, username in rows:
        job = by_table[table_id]
        assert (version, versions, vmin, vmax, ok) == (1, 1, 1, 1, True), (table_id, version,
                                                                           versions, ok)
        assert payload == job["expected"], f"table {table_id}: the stored payload differs"
        assert key == job["key"] and username == job["username"], (table_id, key, username)


def _check_idle_restart(cluster: Cluster, server: Gunicorn) -> None:
    """Every worker holds a persistent connection to the server that is now restarted with no
    request running; the next requests must succeed at once, not fail on the dead
    connection."""
    for _ in range(4 * WORKERS):
        assert _http(server.port, "GET", "/api/v1/events/")[0] == 200
    cluster.ctl("-m", "fast", "-w", "-t", "60", "restart", "-l", str(cluster.log))
    answers = [_http(server.port, "GET", "/api/v1/events/") for _ in range(6 * WORKERS)]
    bad = [(s, b[:300]) for s, _h, b in answers if s != 200]
    assert not bad, f"requests after an idle restart failed: {bad}\n{server.log_tail()}"


def test_postgres_restarted_during_submissions(private_pg):
    cluster = private_pg
    t0 = time.monotonic()
    data = _build(cluster, cluster.base / "jobs.json")
    built = time.monotonic() - t0
    by_number = {n: [j for j in data["jobs"] if j["number"] == n] for n in (1, 2)}
    assert all(len(jobs) == TABLES for jobs in by_number.values())
    server = Gunicorn(cluster, cluster.base)
    try:
        server.wait_ready()
        fast = _run_phase(cluster, server, by_number[1], "fast")
        _check_stored(cluster, by_number[1], 1)
        _check_idle_restart(cluster, server)
        immediate = _run_phase(cluster, server, by_number[2], "immediate")
        _check_stored(cluster, by_number[2], 2)
    finally:
        server.stop()
    log = server.log_tail(10**7)
    for bad in ("Internal Server Error", "Traceback", "WORKER TIMEOUT"):
        assert bad not in log, f"gunicorn's log has {bad!r}:\n{log[-3000:]}"
    print(f"\ndb-restart fault test: data built in {built:.1f} s ({data['timing']}); " + "; ".join(
        f"{p['mode']}: {p['wall']:.1f} s, down {p['down_s']:.2f} s, {p['503']}×503, "
        f"{p['transport']} transport errors ({p['in_flight']} failed in flight at the stop), "
        f"{p['201']}×201 {p['200']}×200"
        for p in (fast, immediate)))


# ----------------------------------------------------------------------------- the builder
def _build_main(tables: int, out: str) -> None:
    """Run in a subprocess with DATABASE_URL naming the private cluster: migrate, build the
    event (round 1 drawn and published), bot-play games 1 and 2 of every table; write the
    jobs (path, token, key, body, expected stored payload) as JSON."""
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import uuid

    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    import engine
    from benchmarks.builders import published_round
    from engine.bots import play_match

    t0 = time.monotonic()
    call_command("migrate", interactive=False, verbosity=0)
    t1 = time.monotonic()
    rnd, tokens = published_round(tables)
    t2 = time.monotonic()
    usernames = dict(Token.objects.filter(key__in=tokens.values())
                     .values_list("key", "user__username"))
    rules = engine.Rules.from_spec(rnd.event.rules).spec()
    rng = random.Random(20240611)
    jobs = []
    for table_id in sorted(tokens):
        games = [(g.record(), g.result()) for g in play_match(rnd.event.rules, 2, rng)]
        for number, (record, _result) in enumerate(games, 1):
            expected = dict(record, rules=rules)  # what result_validate stores: the event's
            if number > 1:  # rules, and the stored result of the game before
                expected["previous"] = games[number - 2][1]
            jobs.append({
                "table": table_id, "number": number, "token": tokens[table_id],
                "username": usernames[tokens[table_id]],
                "key": f"fault-{table_id}-{number}-{uuid.uuid4().hex}",
                "path": f"/api/v1/tables/{table_id}/results/",
                "body": json.dumps({"number": number, "record": record},
                                   separators=(",", ":")),
                "expected": expected})
    Path(out).write_text(json.dumps({"jobs": jobs}))
    print(f"migrate {t1 - t0:.1f} s, event {t2 - t1:.1f} s, games {time.monotonic() - t2:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "build":
        _build_main(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(f"usage: {sys.argv[0]} build TABLES OUT.json  (run by the test)")
