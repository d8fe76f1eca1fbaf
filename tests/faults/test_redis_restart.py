"""Fault: Redis killed and started again while live games are played (issue 51, item 3).

The production layout, small, all of it on this machine: PostgreSQL (pytest-django's test
database, so PostgreSQL only), gunicorn (2 workers: the API), two uvicorn processes (a game's
acts and streams on the one its id picks, as docs/DEPLOY.md's proxy routes them), a Celery worker
with beat, and a PRIVATE redis-server (a free port, no persistence; never the shared one on
6379) as the broker, the shared cache (``CACHE_URL``) and live pub/sub.

``GAMES`` live games are played by bots through the API: each act sent by the acting seat's
token to its game's uvicorn (the act's short path), the seat's view read through gunicorn now
and then, and one seat of each game long-polling its uvicorn for every new version. Once each
game has made ``KILL_AFTER`` acts, Redis is SIGKILLed; while it is down the games go on, a
request that truly needs it (opening a round: its draw runs on a worker) is made, and Redis is
started again once every game has made ``ACTS_WHILE_DOWN`` more acts, that request was
answered and ``DOWN_AT_LEAST`` seconds have passed. The games are then played to their end.

What must hold:

- while Redis is down every answer is a success or a 503 with ``Retry-After`` in the API's
  error shape — never a 500 — and the round's 503 (``queue_unavailable``) stores no round;
- the acts go on (they need no Redis) and the long-polls see each new version (the servers
  read versions while pub/sub is down);
- no act lost or doubled: the acts answered 200 are, in order, the stored record's, each sent
  at the version the one before it answered, and the record replays to the stored result;
- no server logged a traceback or a 500, and each logged the outage in a few lines, not one
  per request;
- the worker is alive after and works: the standings the finished games changed are
  recomputed (:func:`_worker_alive_after`).
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from dataclasses import dataclass, field

import pytest
from django.db import connection, connections

import engine
from benchmarks.servers import CeleryWorker, Gunicorn, Shards, Uvicorn
from config import outage as outage_settings
from engine.game import Game
from live import deals as live_deals
from live import services as live
from live.models import LiveGame
from tests.factories import UserFactory
from tests.live.helpers import bot_pick, make_live_table
from tests.live.test_live_api import check_result
from tests.redisserver import HOST, PrivateRedis
from tournaments.models import Event, Round
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create

pytestmark = pytest.mark.django_db(transaction=True)

GAMES = 3
KILL_AFTER = 20  # acts of every game before Redis is killed
ACTS_WHILE_DOWN = 10  # acts of every game while it is down, at least
#: seconds Redis stays down at least: past two of the breakers' intervals, so that every
#: process tries Redis again, and fails, while it is down
DOWN_AT_LEAST = 2 * outage_settings.RETRY_SECONDS + 1
DOWN_AT_MOST = 20.0
THINK = 0.05  # seconds a bot thinks before each act (a game then lasts about 15 s)
MAX_ATTEMPTS = 40  # per act


@pytest.fixture(autouse=True)
def needs_postgres(db):
    if connection.vendor != "postgresql":
        pytest.skip("the servers this test starts share its database: PostgreSQL only "
                    "(set DATABASE_URL=postgres://…); the short path stores acts there too")


@pytest.fixture
def private_redis():
    server = PrivateRedis()
    if server.binary is None:
        pytest.skip("redis-server is not installed")
    server.start()
    yield server
    server.close()


@pytest.fixture
def seeded_deals(monkeypatch):
    """Deals from a seeded generator (not secrets.SystemRandom): full games, the same each run."""
    rng = random.Random(20240651)
    monkeypatch.setattr(live_deals, "derive_deal", lambda _seed, _label: engine.deal(rng))


def _database_url() -> str:
    cfg = connection.settings_dict
    return (f"postgres://{cfg['USER'] or 'postgres'}@{cfg['HOST'] or HOST}:{cfg['PORT'] or 5432}"
            f"/{cfg['NAME']}")


def _http(port: int, method: str, path: str, token: str | None = None,
          body: dict | None = None, timeout: float = 15.0):
    """(status, headers, parsed JSON or None); status 0 for a transport error."""
    headers = {"Accept": "application/json"}
    data = None
    if token:
        headers["Authorization"] = f"Token {token}"
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        lowered = {k.lower(): v for k, v in resp.getheaders()}
    except (OSError, http.client.HTTPException):
        return 0, {}, None
    finally:
        conn.close()
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = raw[:300]
    return resp.status, lowered, parsed


@dataclass
class Outage:
    """When Redis was down, and the answers seen (the clients' threads append)."""

    down_at: float | None = None
    up_at: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: list = field(default_factory=list)  # (time, what, status, code, retry_after)
    problems: list = field(default_factory=list)

    def down(self) -> bool:
        return self.down_at is not None and self.up_at is None

    def saw(self, what: str, status: int, headers: dict, body) -> None:
        code = body.get("error", {}).get("code") if isinstance(body, dict) else None
        with self.lock:
            self.answers.append((time.monotonic(), what, status, code,
                                 headers.get("retry-after")))
            if status >= 500 and not (
                    status == 503 and isinstance(body, dict) and set(body) == {"error"}
                    and (headers.get("retry-after") or "").isdigit()):
                self.problems.append(f"{what}: {status} {str(body)[:300]}")


@dataclass
class Player:
    """One game's bots, acting through the API, and what the API answered."""

    lt: object
    live_id: int
    act_port: int
    read_port: int
    outage: Outage
    acks: list = field(default_factory=list)  # (sent version, answered version, seat, act)
    acts_down: int = 0
    problems: list = field(default_factory=list)
    finished: bool = False

    def token(self, seat: int) -> str:
        from rest_framework.authtoken.models import Token

        return Token.objects.get(user=self.lt.users[seat]).key

    def run(self) -> None:
        try:
            tokens = [self.token(s) for s in range(6)]
            while not self.finished and len(self.acks) < 2000:
                lg = LiveGame.objects.get(pk=self.live_id)
                if lg.status == LiveGame.Status.FINISHED:
                    self.finished = True
                    return
                game = Game.from_state(lg.state)
                seat, action = bot_pick(game, self.lt.bots)
                time.sleep(THINK)
                if len(self.acks) % 10 == 0:  # the seat's view through gunicorn now and then
                    status, headers, body = _http(self.read_port, "GET",
                                                  f"/api/v1/live/{self.live_id}/", tokens[seat])
                    self.outage.saw("read", status, headers, body)
                self._act(tokens[seat], seat, action, lg.version)
        except Exception as exc:  # reported by the test
            self.problems.append(f"game {self.live_id}: {type(exc).__name__}: {exc}")
        finally:
            connections.close_all()

    def _act(self, token: str, seat: int, action: dict, version: int) -> None:
        path = f"/api/v1/live/{self.live_id}/act/"
        for _ in range(MAX_ATTEMPTS):
            down = self.outage.down()
            status, headers, body = _http(self.act_port, "POST", path, token,
                                          {"version": version, **action})
            self.outage.saw("act", status, headers, body)
            if status == 200:
                self.acks.append((version, body["version"], seat, action))
                self.acts_down += down
                return
            stored = LiveGame.objects.get(pk=self.live_id).version
            if status == 0 and stored > version:  # the answer was lost, the act stored
                self.acks.append((version, stored, seat, action))
                return
            if stored != version:
                self.problems.append(f"game {self.live_id}: answered {status} {body} and "
                                     f"the game moved on from {version} to {stored}")
                return
            if status not in (0, 503):
                self.problems.append(f"game {self.live_id}: {status} {str(body)[:300]}")
                return
            time.sleep(min(float(headers.get("retry-after") or 0.2), 0.5))
        self.problems.append(f"game {self.live_id}: no act stored after {MAX_ATTEMPTS} tries")


@dataclass
class Watcher:
    """A seat long-polling its game's uvicorn for every new version (``?since=&wait=``)."""

    live_id: int
    port: int
    token: str
    outage: Outage
    seen: list = field(default_factory=list)  # (time, version)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        since = -1
        while not self.stop.is_set():
            status, headers, body = _http(self.port, "GET",
                                          f"/api/v1/live/{self.live_id}/?since={since}&wait=2",
                                          self.token)
            self.outage.saw("long-poll", status, headers, body)
            if status == 200:
                since = max(since, body["version"])
                self.seen.append((time.monotonic(), body["version"]))
                if body.get("status") == "finished":
                    return
            else:
                time.sleep(0.2)


def _round_to_open() -> tuple[Event, str]:
    """An event with six players checked in and no round yet, and its organizer's token."""
    from rest_framework.authtoken.models import Token

    organizer = UserFactory(username="redis-fault-organizer")
    event = event_create(name="Redis fault cup", slug="redis-fault-cup",
                                  games_per_match=2, rounds_planned=1, organizer=organizer)
    event_publish(event=event)
    for i in range(6):
        player = player_create(name=f"Redis fault {i}")
        entry_check_in(entry=entry_register(event=event, player=player))
    return event, Token.objects.get_or_create(user=organizer)[0].key


def _start_all(servers) -> None:
    """Start the servers at once (each loads Django: in parallel on the machine's cores)."""
    failures = []

    def start(server):
        try:
            server.start()
        except Exception as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=start, args=(s,)) for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    if failures:
        raise failures[0]


def _logs(*servers) -> str:
    out = []
    for server in servers:
        try:
            with open(server.log_path, encoding="utf-8", errors="replace") as fh:
                out.append(f"--- {server.name} ({server.log_path})\n{fh.read()}")
        except OSError:
            pass
    return "\n".join(out)


def _worker_alive_after(worker: CeleryWorker, events: list[Event]) -> None:
    """The worker lived through the restart and works: the standings of the events whose
    games ended after it are recomputed (queued by the servers, run by the worker). A worker
    that exited (Celery 5.7.0's ``AttributeError: 'NoneType' object has no attribute
    'hostname'``, tests/faults/test_worker_redis_restart.py) fails the test."""
    from tournaments.standings import standings_are_stale

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert worker.proc.poll() is None, (
            f"the Celery worker exited after the Redis restart (code {worker.proc.returncode})"
            f":\n{open(worker.log_path, errors='replace').read()[-3000:]}")
        for event in events:
            event.refresh_from_db()
        if not any(standings_are_stale(event) for event in events):
            return
        time.sleep(0.5)
    raise AssertionError("the worker is alive but recomputed no standings within 30 s of the "
                         f"games' end:\n{open(worker.log_path, errors='replace').read()[-3000:]}")


def test_redis_killed_and_restarted_during_live_play(private_redis, seeded_deals, monkeypatch):
    t0 = time.monotonic()
    tables = [make_live_table(move_seconds=600) for _ in range(GAMES)]
    live_ids = [live.live_start(table=lt.table).pk for lt in tables]
    start_versions = dict(LiveGame.objects.filter(pk__in=live_ids).values_list("pk", "version"))
    other_event, organizer_token = _round_to_open()

    broker, cache_url = private_redis.url(0), private_redis.url(1)
    env = {"DATABASE_URL": _database_url(), "CELERY_BROKER_URL": broker,
           "CACHE_URL": cache_url, "LOG_LEVEL": "WARNING", "DJANGO_DEBUG": "0"}
    monkeypatch.setenv("DATABASE_URL", env["DATABASE_URL"])  # (the worker's, as the servers')
    api = Gunicorn(workers=2, env=env)
    shards = Shards([Uvicorn(workers=1, env=env) for _ in range(2)])
    worker = CeleryWorker(broker, cache_url)
    servers = [api, *shards.servers]
    outage = Outage()
    players = [Player(lt=lt, live_id=live_id, act_port=shards.port_of(live_id),
                      read_port=api.port, outage=outage)
               for lt, live_id in zip(tables, live_ids, strict=True)]
    try:
        worker.start()
        _start_all(servers)
        started = time.monotonic() - t0
        watchers = [Watcher(live_id=p.live_id, port=p.act_port, token=p.token(0),
                            outage=outage) for p in players]
        threads = [threading.Thread(target=x.run, daemon=True) for x in (*players, *watchers)]
        for thread in threads:
            thread.start()

        # Redis killed once every game is well under way …
        deadline = time.monotonic() + 60
        while min(len(p.acks) for p in players) < KILL_AFTER:
            assert time.monotonic() < deadline, [p.problems for p in players]
            assert not any(p.finished for p in players), "a game ended before the kill"
            time.sleep(0.05)
        private_redis.kill()
        outage.down_at = time.monotonic()
        # … a request that needs it is refused, and changes nothing …
        status, headers, body = _http(api.port, "POST",
                                      f"/api/v1/events/{other_event.slug}/rounds/",
                                      organizer_token, {"knockout": False})
        outage.saw("open a round", status, headers, body)
        assert status == 503 and body["error"]["code"] == "queue_unavailable", (status, body)
        assert headers["retry-after"].isdigit()
        assert not Round.objects.filter(event=other_event).exists()
        # … while the games go on; then it is started again
        while (min(p.acts_down for p in players) < ACTS_WHILE_DOWN or
               time.monotonic() < outage.down_at + DOWN_AT_LEAST) and \
                time.monotonic() < outage.down_at + DOWN_AT_MOST:
            assert not any(p.finished for p in players), "a game ended while Redis was down"
            time.sleep(0.05)
        private_redis.start()
        outage.up_at = time.monotonic()

        for thread in threads:
            thread.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "a client hung"
        logs = _logs(*servers)
        problems = outage.problems + [x for p in players for x in p.problems]
        assert not problems, "\n".join(problems[:20]) + "\n" + logs[-4000:]

        # the games went on while Redis was down, and the long-polls followed them
        assert all(p.acts_down >= ACTS_WHILE_DOWN for p in players), [
            p.acts_down for p in players]
        for watcher in watchers:
            during = [v for at, v in watcher.seen if outage.down_at < at < outage.up_at]
            assert len(set(during)) >= 2, (watcher.live_id, during)
        # no act lost or doubled, and each game's record is its result
        for p, watcher, lt in zip(players, watchers, tables, strict=True):
            lg = LiveGame.objects.get(pk=p.live_id)
            assert lg.status == LiveGame.Status.FINISHED
            for (_sent, answered, *_), (sent, *_rest) in zip(p.acks, p.acks[1:], strict=False):
                assert sent == answered, (p.live_id, sent, answered)  # consecutive, no gap
            record = lg.state["record"]
            plays = [(a["seat"], a["act"], sorted(a.get("cards", [])))
                     for a in record["actions"]]
            acked = [(seat, action["act"], sorted(action.get("cards", [])))
                     for _s, _a, seat, action in p.acks if action["act"] in ("play", "pass")]
            assert acked == plays, p.live_id
            # (and before the play, the pre-play's acts: from the game's start to its end,
            # every version moved on by an act answered once, never by one not answered)
            assert p.acks[0][0] == start_versions[p.live_id] and p.acks[-1][1] == lg.version
            assert watcher.seen[-1][1] == lg.version
            check_result(lt, p.live_id, 1)

        # the servers logged no 500 and the outage in a few lines, not one per request
        for bad in ("Traceback", "Internal Server Error", "WORKER TIMEOUT"):
            assert bad not in logs, f"a server logged {bad!r}:\n{logs[-4000:]}"
        assert "Redis (cache) unavailable" in logs, logs[-3000:]
        outage_lines = logs.count("unavailable for ")
        requests_down = sum(1 for at, *_ in outage.answers if outage.down_at < at < outage.up_at)
        processes = api.workers + shards.workers  # (each logs each breaker's outage once)
        assert outage_lines <= 3 * processes < requests_down, (outage_lines, requests_down)
        print(f"\nredis-restart fault test: servers up in {started:.1f} s; Redis down "
              f"{outage.up_at - outage.down_at:.1f} s, {requests_down} answers meanwhile "
              f"({sum(1 for a in outage.answers if a[2] == 503)}×503); acts "
              f"{[len(p.acks) for p in players]} ({[p.acts_down for p in players]} while "
              f"down); {outage_lines} outage log lines; {time.monotonic() - t0:.1f} s in all")

        _worker_alive_after(worker, [lt.event for lt in tables])
    finally:
        for server in servers:
            server.stop()
        worker.stop()
