"""Benchmark live play over HTTP: many tables at once, six seat clients per table.

``python manage.py bench_live --tables 50``:

1. targets ``DATABASE_URL`` (default ``postgres://postgres@127.0.0.1:5432/gouji_bench``; the
   command re-runs itself with it when the variable is unset), creates the database if missing
   and migrates it;
2. creates a published event with ``6 × tables`` players (each with a login and an API token)
   and draws round 1; once the servers run, the six seats of every table say they are at it
   (``POST /api/v1/tables/<id>/live/ready/``) and seat 0 starts its game over the API
   (``POST /api/v1/tables/<id>/live/``: the server deals and arms the game's 托管 timer);
3. starts gunicorn on 127.0.0.1 as docs/DEPLOY.md's layout has it (``--layout split``):
   an API server (``gthread`` workers, one more than the cores, 4 threads each) takes the acts,
   and a stream server (one ``gthread`` worker with a thread for every waiting seat) the
   seats' event streams and long-polls, which a proxy routes to it (``GET /api/v1/live/…``). ``--layout single`` serves
   both from the stream server. Connection pools of ``--pool`` per worker; waiting requests are
   woken through Redis pub/sub (``--pubsub``). As in production, the servers queue Celery tasks
   on ``--broker`` (the local Redis) for a worker the command starts: every act's 托管
   countdown, a finished game's standings; throttles share a Redis cache. ``--broker none``
   runs tasks in the request and queues nothing;
4. runs the seat clients in ``--clients`` processes (whole tables each; one thread per seat,
   acts on a keep-alive ``http.client`` connection, the stream with ``requests``), so that
   the load generator's own GIL and bookkeeping do not pass for server latency. A seat follows its view on an event stream
   (``GET /api/v1/live/<id>/events/``, server-sent events; or with ``--transport longpoll`` a
   ``GET /api/v1/live/<id>/?since=<v>&wait=25`` after every change). Once every seat has its
   first view (the clock starts then), a seat whose turn it is thinks (``--think``: 0.5–1.5 ×
   that many seconds) and sends the act with the version it saw. The act is chosen by
   :class:`engine.bots.HeuristicBot` on a shadow :class:`engine.Game` the table's clients keep from the acts the server accepted (the server is never asked for
   hidden cards);
5. stops after ``--seconds`` or when every game is over, prints acts/s, the p50/p90/p99/max
   latency of the act POSTs, how long after an act's answer the waiting seats had the new
   version ("wake"), every non-200 answer, and checks that every finished game's stored record
   replays (``engine.replay``) to its stored result and to the shadow game's result; then stops
   gunicorn.

``--think 0`` makes every seat act the moment it may: a closed loop that measures capacity,
not the latency players see.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlparse

from django.core.management.base import BaseCommand, CommandError

from benchmarks import cpucap, machine
from benchmarks.figures import percentile
from benchmarks.loadclient import HOST
from benchmarks.servers import (
    BENCH_EVENTS,
    LOCAL_HOSTS,
    CeleryWorker,
    Gunicorn,
    Shards,
    Uvicorn,
    analyze,
    autovacuum_on,
    checkpoint,
    ensure_database,
    neighbour_db,
    process_figures,
    raise_open_files,
    wal_written,
)
from benchmarks.streamclient import PACES
from engine.bots import next_act

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/gouji_bench"


@dataclass
class TableOutcome:
    """What a client process reports of one table."""

    live_id: int
    acts: int
    over: bool
    places: list | None  # the shadow game's places, when it is over


class Table:
    """One table's shared client state: the shadow game, the act chosen for its version."""

    def __init__(self, live_id: int, state: dict, seed: int):
        from engine.bots import HeuristicBot
        from engine.game import Game

        self.live_id = live_id
        self.game = Game.from_state(state)
        self.bots = [HeuristicBot(random.Random(seed * 10 + i)) for i in range(6)]
        self.cond = threading.Condition()
        self.choice: tuple[int, int, dict] | None = None  # (version, seat, act)
        self.over = self.game.state == "over"
        self.acts = 0
        self.accepted_at: dict[int, float] = {}  # version -> when its act's answer arrived

    def woken(self, version: int, at: float, stats) -> None:
        """A waiting seat got ``version``: how long after the acting seat had its answer."""
        with self.cond:
            done = self.accepted_at.get(version)
        if done is not None:
            stats.add_wake((at - done) * 1000)

    def next_act(self, version: int) -> tuple[int, dict] | None:
        """(seat, act) to play at ``version`` if the shadow is at that version."""
        with self.cond:
            # a seat woken by the server may be ahead of the table's shadow game: the acting
            # seat's thread applies its accepted act when its answer arrives
            self.cond.wait_for(lambda: self.over or self.game.version >= version, timeout=10)
            if self.over or self.game.version != version:
                return None
            if self.choice is None or self.choice[0] != version:
                seat, act = next_act(self.game, self.bots)
                self.choice = (version, seat, act)
            return self.choice[1], self.choice[2]

    def accepted(self, seat: int, act: dict, new_version: int, at: float) -> None:
        with self.cond:
            self.accepted_at[new_version] = at
            self.game.act(seat, dict(act))
            if self.game.version != new_version:
                raise RuntimeError(f"table {self.live_id}: shadow at {self.game.version}, "
                                   f"server at {new_version}")
            self.acts += 1
            self.over = self.game.state == "over"
            self.cond.notify_all()

    def resync(self) -> None:
        """Reload the game from the database (after an unexpected refusal)."""
        from django.db import connection

        from engine.game import Game
        from live.models import LiveGame

        try:
            state = LiveGame.objects.get(pk=self.live_id).state
        finally:
            connection.close()
        with self.cond:
            self.game = Game.from_state(state)
            self.choice = None
            self.over = self.game.state == "over"
            self.cond.notify_all()


class Seated:
    """How many seats, over all client processes, have had their first view. Nobody acts
    before every seat has (a live game starts once its table is connected), and the run's clock
    starts then: the figures are of play, not of 300 streams connecting at the same instant."""

    def __init__(self, ctx, total: int):
        self.count = ctx.Value("i", 0)
        self.total = total

    def arrived(self) -> None:
        with self.count.get_lock():
            self.count.value += 1

    def all_here(self, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        while self.count.value < self.total:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.post_ms: list[float] = []
        self.final_post_ms: list[float] = []
        self.get_ms: list[float] = []
        self.wake_ms: list[float] = []
        self.statuses: Counter = Counter()
        self.errors: Counter = Counter()

    def add_wake(self, ms: float):
        with self.lock:
            self.wake_ms.append(ms)

    def add(self, kind: str, ms: float, status, final: bool = False):
        with self.lock:
            (self.post_ms if kind == "POST" else self.get_ms).append(ms)
            if final:
                self.final_post_ms.append(ms)
            self.statuses[(kind, status)] += 1

    def figures(self) -> dict:
        """What a client process sends back (picklable)."""
        return {name: getattr(self, name) for name in (
            "post_ms", "final_post_ms", "get_ms", "wake_ms", "statuses", "errors")}

    def merge(self, figures: dict) -> None:
        for name, value in figures.items():
            mine = getattr(self, name)
            if isinstance(mine, Counter):
                mine.update(value)
            else:
                mine.extend(value)


def seats_ready(conn, table_id: int, keys) -> None:
    """The six seats of a table say they are at it (``POST …/live/ready/``, one token each),
    as a table does before one of them deals its game live (live.services.live_start)."""
    for key in keys:
        conn.request("POST", f"/api/v1/tables/{table_id}/live/ready/", "{}", {
            "Authorization": f"Token {key}", "Content-Type": "application/json"})
        r = conn.getresponse()
        answer = r.read()
        if r.status != 200:
            raise CommandError(f"table {table_id}'s seat ready: {r.status} {answer[:300]!r}")


class Command(BaseCommand):
    help = "Load-test live play over HTTP (gunicorn on 127.0.0.1): N tables, six clients each."

    def add_arguments(self, parser):
        cores = os.cpu_count() or 1
        parser.add_argument("--tables", type=int, default=None,
                            help="tables played at once (default 50; with --streams, enough "
                                 "for the streams)")
        parser.add_argument("--seconds", type=float, default=60.0,
                            help="stop after this long even if games are running")
        parser.add_argument("--layout", choices=["split", "single"], default="split",
                            help="split (default): acts on an API server, streams and "
                                 "long-polls on a stream server, as behind the proxy of docs/DEPLOY.md; "
                                 "single: one gthread server for both")
        parser.add_argument("--api-workers", type=int, default=cores + 1,
                            help="workers of the API server (default: cores + 1)")
        parser.add_argument("--api-threads", type=int, default=4,
                            help="threads per API worker (default 4, gthread with keep-alive; "
                                 "1: sync workers, a connection per request)")
        parser.add_argument("--workers", type=int, default=1,
                            help="gthread workers of the stream server (default 1: each worker "
                                 "reads every new version of its tables once)")
        parser.add_argument("--threads", type=int, default=0,
                            help="threads per stream worker (default: enough for every waiting "
                                 "seat)")
        parser.add_argument("--pool", type=int, default=8,
                            help="database connections per worker (DB_POOL_MAX_SIZE)")
        parser.add_argument("--pubsub", default="redis://127.0.0.1:6379/0",
                            help="Redis URL that wakes long-polls (LIVE_PUBSUB_URL); 'none': "
                                 "waiting requests poll the database instead")
        parser.add_argument("--broker", default="redis://127.0.0.1:6379/12",
                            help="Celery broker of the servers and of a Celery worker the "
                                 "command starts, as in production (the games' 托管 timers, "
                                 "a finished game's standings; throttles share a Redis cache "
                                 "in the next database); its queue is purged first, so no "
                                 "earlier run's timers play on; 'none': tasks run in the "
                                 "request and nothing is queued")
        parser.add_argument("--think", type=float, default=1.0,
                            help="mean seconds a seat thinks before it acts (uniform 0.5–1.5 × "
                                 "this; 0: act at once, a closed loop that saturates the server)")
        parser.add_argument("--wait", type=float, default=25.0,
                            help="long-poll seconds of each waiting GET")
        parser.add_argument("--transport", choices=["sse", "longpoll"], default="sse",
                            help="how seats follow the game: one event stream each (default) "
                                 "or a long-poll after every change")
        parser.add_argument("--clients", type=int, default=4,
                            help="client processes the tables are spread over")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--no-fast-path", action="store_true",
                            help="every act takes the game's row lock (LIVE_FAST_PATH=0 in the "
                                 "servers and the worker): what the unlocked conditional update "
                                 "of an act in a known game gains")
        parser.add_argument("--streams", type=int, default=0,
                            help="many open streams (ISSUE 18): this many seat event streams on "
                                 "a uvicorn server (config/asgi.py), opened by one asyncio "
                                 "client process, while every table plays one act every "
                                 "--move-every seconds; 0 (default): the thread-per-seat run "
                                 "above on gunicorn")
        parser.add_argument("--move-every", type=float, default=3.0,
                            help="with --streams: seconds between two acts of a table")
        parser.add_argument("--pace", choices=list(PACES), default="steady",
                            help="with --streams: steady (default: every --move-every seconds "
                                 "from a random phase, so the tables reach their games' stages "
                                 "together) or random (--move-every seconds apart on average, a "
                                 "Poisson process per table, as people take their own time)")
        parser.add_argument("--act-server", choices=["gunicorn", "uvicorn"], default="uvicorn",
                            help="with --streams: acts on the uvicorn servers (default, as the "
                                 "proxy of docs/DEPLOY.md routes them) or on the API gunicorn")
        parser.add_argument("--shards", type=int, default=os.cpu_count() or 1,
                            help="with --streams: uvicorn processes (default: one per core, as "
                                 "docs/DEPLOY.md's layout), each on its own port; a game's streams "
                                 "and acts go to the one its id picks (id mod shards), as the "
                                 "proxy of docs/DEPLOY.md routes them")
        parser.add_argument("--stream-db-threads", type=int, default=2,
                            help="with --streams: LIVE_STREAM_DB_THREADS of the uvicorn servers")
        parser.add_argument("--connect-at-once", type=int, default=200,
                            help="with --streams: streams connecting at the same time")
        parser.add_argument("--act-connections", type=int, default=64,
                            help="with --streams: keep-alive connections the acts share")
        parser.add_argument("--stream-actions", choices=["new", "all"], default="new",
                            help="with --streams: the streams' actions parameter: new "
                                 "(default, as the live table page asks: each view has only "
                                 "the acts the stream has not sent yet) or all (every act so "
                                 "far in each view)")
        parser.add_argument("--cpu-cores", type=float, default=None,
                            help="play a slower host: confine the run, and this host's "
                                 "PostgreSQL and Redis, to this many cores of CPU time "
                                 "(a cgroup; needs root: benchmarks/cpucap.py)")
        parser.add_argument("--access-log", default="",
                            help="let gunicorn log each request's time here, and report the "
                                 "server-side act time beside the clients'")

    # ------------------------------------------------------------------ setup
    def handle(self, *args, **opts):
        url = os.environ.get("DATABASE_URL")
        if not url:
            # run again against the benchmark database (settings are read at start-up)
            env = dict(os.environ, DATABASE_URL=DEFAULT_DB)
            env.pop("CELERY_BROKER_URL", None)
            self.stdout.write(f"DATABASE_URL not set: using {DEFAULT_DB}")
            self.stdout.flush()
            argv = [sys.executable, str(_repo_root() / "manage.py"), "bench_live"]
            for name in ("tables", "seconds", "layout", "api_workers", "api_threads", "workers",
                         "threads",
                         "pool", "pubsub", "broker", "think", "wait", "transport", "clients", "seed",
                         "access_log", "streams", "move_every", "pace", "act_server", "shards",
                         "stream_db_threads", "connect_at_once", "act_connections",
                         "stream_actions", "cpu_cores"):
                if opts[name] is not None:
                    argv += [f"--{name.replace('_', '-')}", str(opts[name])]
            if opts["no_fast_path"]:
                argv.append("--no-fast-path")
            code = subprocess.call(argv, env=env, cwd=str(_repo_root()))
            if code:
                raise CommandError(f"the benchmark run exited with {code}")
            return
        parts = urlparse(url)
        if parts.scheme.startswith("postgres"):
            if parts.hostname not in LOCAL_HOSTS:
                raise CommandError("the benchmark only runs against a local database")
        else:
            self.stderr.write("warning: not PostgreSQL; row locks are no-ops on SQLite")
        from django.conf import settings

        if not settings.CELERY_TASK_ALWAYS_EAGER:
            raise CommandError("unset CELERY_BROKER_URL: this process sets the tables up "
                               "in-process; name the servers' broker with --broker")
        ensure_database(self.stdout.write)
        if opts["no_fast_path"]:
            os.environ["LIVE_FAST_PATH"] = "0"  # (the servers and the worker inherit it)
            self.stdout.write("no fast path: every act takes the game's row lock")
        self.vacuum()
        cores = opts["cpu_cores"]
        try:  # (with --cpu-cores, the run confined to that many cores: benchmarks/cpucap.py)
            with (contextlib.nullcontext() if cores is None
                  else cpucap.capped(cores, say=self.stdout.write)):
                if opts["streams"]:
                    self.run_streams(**opts)
                else:
                    self.run(**{**opts, "tables": opts["tables"] or 50})
        except cpucap.CapUnavailable as exc:
            raise CommandError(str(exc)) from exc

    def vacuum(self) -> None:
        """Vacuum the live games' table first: every act leaves a dead row version and its
        TOASTed state behind, and earlier runs' would weigh on this one where autovacuum is off
        (as on the CI machine's PostgreSQL; production runs it). Then a checkpoint, so that the
        run's own checkpoint does not write and sync what came before it."""
        from django.db import connection

        from live.models import LiveGame

        if connection.vendor != "postgresql":
            return
        if not autovacuum_on():
            self.stdout.write("autovacuum is off on this PostgreSQL: vacuuming the live games' "
                              "table before the run")
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM (ANALYZE) {connection.ops.quote_name(LiveGame._meta.db_table)}")
        checkpoint(say=self.stdout.write)

    def make_tables(self, n: int):
        """A published event with ``6 × n`` players (logins with API tokens), its round 1 drawn
        and published: [(table, the seats' tokens)]."""
        from django.contrib.auth import get_user_model
        from django.db import transaction
        from rest_framework.authtoken.models import Token

        from tournaments.models import Seat
        from tournaments.services.draws import round_draw
        from tournaments.services.entries import entry_check_in, entry_register
        from tournaments.services.events import event_create, event_publish
        from tournaments.services.players import player_create
        from tournaments.services.rounds import round_create, round_publish

        tag = f"{int(time.time())}-{os.getpid()}"
        User = get_user_model()
        event = event_create(name=f"Live bench {tag}", slug=f"{BENCH_EVENTS}{tag}",
                                      games_per_match=1, rounds_planned=1)
        event_publish(event=event)
        with transaction.atomic():
            for i in range(6 * n):
                user = User.objects.create(username=f"bench-{tag}-{i}")
                Token.objects.create(user=user)
                player = player_create(name=f"Bench {tag} {i}", user=user)
                entry_check_in(entry=entry_register(event=event,
                                                                      player=player))
        rnd = round_create(event=event)
        rnd = round_draw(round_id=rnd.pk)
        rnd = round_publish(round=rnd)
        tokens = dict(Token.objects.filter(user__username__startswith=f"bench-{tag}-")
                      .values_list("user_id", "key"))
        tables = []
        for table in rnd.tables.order_by("number"):
            seats = Seat.objects.filter(table=table).select_related("player").order_by("seat")
            tables.append((table, [tokens[s.player.user_id] for s in seats]))
        return event, tables

    def start_games(self, tables, api_port: int, seed: int):
        """Seat 0 of every table starts its game over the API once its six seats are ready (as
        a table does: the server deals and, with a broker, arms the game's 托管 timer); the
        clients' shadow games are built from the stored deals: [(Table, the seats' tokens)]."""
        import http.client
        import json

        from django.db import connection

        from live.models import LiveGame

        conn = http.client.HTTPConnection(HOST, api_port, timeout=30)
        started = []
        try:
            for k, (table, keys) in enumerate(tables):
                seats_ready(conn, table.pk, keys)
                conn.request("POST", f"/api/v1/tables/{table.pk}/live/", "{}", {
                    "Authorization": f"Token {keys[0]}", "Content-Type": "application/json"})
                r = conn.getresponse()
                answer = r.read()
                if r.status != 201:
                    raise CommandError(f"starting table {table.pk}'s game: {r.status} "
                                       f"{answer[:300]!r}")
                live_id = json.loads(answer)["id"]
                state = LiveGame.objects.values_list("state", flat=True).get(pk=live_id)
                started.append((Table(live_id, state, seed * 1000 + k), keys))
        finally:
            conn.close()
            connection.close()  # the client processes are forked
        return started

    def servers(self, *, layout, api_workers, api_threads, workers, threads, pool, pubsub,
                broker, access_log):
        """(API server, stream server): the same one with ``layout == "single"``."""
        env = {"DJANGO_DEBUG": "0", "DB_POOL_MAX_SIZE": str(pool), "LIVE_PUBSUB_URL": ""}
        if pubsub != "none":
            env["LIVE_PUBSUB_URL"] = pubsub
        if broker != "none":
            env.update(CELERY_BROKER_URL=broker, CACHE_URL=neighbour_db(broker))
            worker = CeleryWorker(broker, env["CACHE_URL"]).start()
            self.started.append(worker)  # (run() stops what is there)
            self.stdout.write(worker.describe())
        args = ("--access-logfile", access_log, "--access-logformat",
                "%(m)s|%(U)s|%(M)s|%(t)s") if access_log else ()  # ms, as timed there, and when
        streams = Gunicorn(workers=workers, threads=max(2, threads), env=env, args=args)
        self.started.append(streams.start())
        if layout == "single":
            return streams, streams
        api = Gunicorn(workers=api_workers, threads=api_threads, env=env, args=args)
        self.started.append(api.start())
        return api, streams

    # ------------------------------------------------------------------ run
    def run(self, *, tables, seconds, layout, api_workers, api_threads, workers, threads, pool,
            pubsub, broker, think, wait, transport, clients, seed, access_log="", **opts):
        self.access_log = access_log
        self.broker = broker
        # a worker may get any share of the streams (each holds a thread): room for all of them
        threads = threads or 6 * tables + 32
        out = self.stdout.write
        t0 = time.monotonic()
        event, seated_tables = self.make_tables(tables)
        analyze(say=out)
        from django.db import connections

        connections.close_all()  # (gunicorn and the client processes are forked)
        out(f"set up {len(seated_tables)} tables, {6 * len(seated_tables)} players in "
            f"{time.monotonic() - t0:.1f} s (event {event.slug})")
        self.started = []
        try:
            api, streams = self.servers(layout=layout, api_workers=api_workers,
                                        api_threads=api_threads, workers=workers,
                                        threads=threads, pool=pool, pubsub=pubsub,
                                        broker=broker, access_log=access_log)
            out(("acts: " + api.describe() + "\nstreams and long-polls: " + streams.describe())
                if api is not streams else "acts, streams and long-polls: " + streams.describe())
            tabs = self.start_games(seated_tables, api.port, seed)
            out(f"{len(tabs)} games started over the API")
            clients = max(1, min(clients, len(tabs)))
            out(f"{database_connections(pool, api, streams)}; waiting requests woken by "
                f"{'Redis pub/sub' if pubsub != 'none' else 'polling the version'}; "
                f"{6 * len(tabs)} seat clients in {clients} processes for up to {seconds:.0f} s "
                f"(think {think} s, "
                + ("one event stream each)" if transport == "sse" else f"long-poll {wait} s)"))
            outcomes, stats, elapsed, connected = self.drive(
                tabs, clients, api=f"http://127.0.0.1:{api.port}/api/v1/live",
                streams=f"http://127.0.0.1:{streams.port}/api/v1/live", seconds=seconds,
                think=think, wait=wait, transport=transport)
        finally:
            for server in self.started:
                tail = server.stop()
                if tail:
                    self.stderr.write(tail)
        out(f"every seat had its first view {connected:.1f} s after the clients started; the "
            f"seats played from then on")
        self.report(outcomes, stats, elapsed)

    def drive(self, tabs, clients, **kwargs):
        """Run the seat clients in ``clients`` forked processes, a share of the tables each;
        returns ([TableOutcome], merged Stats, seconds run, seconds until every seat had its
        first view)."""
        ctx = multiprocessing.get_context("fork")
        results = ctx.Queue()
        seated = Seated(ctx, 6 * len(tabs))
        procs = [ctx.Process(target=self.client_process, daemon=True,
                             args=(tabs[k::clients], results, seated), kwargs=kwargs)
                 for k in range(clients)]
        t0 = time.monotonic()
        for p in procs:
            p.start()
        seated.all_here()
        connected = time.monotonic() - t0
        outcomes, stats, elapsed = [], Stats(), 0.0
        try:
            for _ in procs:
                part, figures, ran = results.get(timeout=kwargs["seconds"] + kwargs["wait"] + 120)
                outcomes += part
                stats.merge(figures)
                elapsed = max(elapsed, ran)
        finally:
            for p in procs:
                p.join(10)
                if p.is_alive():
                    p.kill()
        return outcomes, stats, elapsed, connected

    def client_process(self, tabs, results, seated: Seated, *, api, streams, seconds, think,
                       wait, transport):
        """One client process: a thread per seat of its tables, from the moment every seat
        has its first view until ``seconds`` pass or its games are over; puts (outcomes,
        figures, seconds run) on ``results``."""
        stats = Stats()
        stop = threading.Event()
        threads = [threading.Thread(
            target=self.seat_loop, daemon=True,
            args=(api, streams, tab, seat, keys[seat], stats, stop, think, wait, transport,
                  seated))
            for tab, keys in tabs for seat in range(6)]
        for t in threads:
            t.start()
        seated.all_here()
        started = time.monotonic()
        while time.monotonic() - started < seconds and not all(t.over for t, _ in tabs):
            time.sleep(0.25)
        elapsed = time.monotonic() - started
        stop.set()
        for tab, _ in tabs:
            with tab.cond:
                tab.cond.notify_all()
        for t in threads:
            t.join(wait + 15)
        with stats.lock:
            figures = stats.figures()
        results.put(([TableOutcome(t.live_id, t.acts, t.over,
                                   t.game.result()["places"] if t.over else None)
                      for t, _ in tabs], figures, elapsed))

    def seat_loop(self, api, streams, tab: Table, seat, key, stats: Stats, stop, think, wait,
                  transport, seated: Seated):
        """One seat's client: follow the game on the stream server (an event stream, or
        long-polls); once every seat has its first view, on its turn, think, then act on the
        API server. Acts go out on one keep-alive connection of ``http.client``: what is
        timed is the request and its answer, not a client library's bookkeeping."""
        import http.client
        import json
        from urllib.parse import urlsplit

        where = urlsplit(api)
        conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
        headers = {"Authorization": f"Token {key}", "Content-Type": "application/json"}
        act_path = f"{where.path}/{tab.live_id}/act/"
        seen = -1
        follow = self.stream if transport == "sse" else self.long_polls
        try:
            for view, received in follow(f"{streams}/{tab.live_id}/", key, stats, stop, wait):
                if view["version"] > seen >= 0:
                    tab.woken(view["version"], received, stats)
                if view["version"] <= seen:
                    continue  # our own act, seen in its answer already
                if seen < 0:
                    seated.arrived()
                    seated.all_here()
                seen = view["version"]
                while not stop.is_set() and view["status"] != "finished":
                    mine = tab.next_act(seen)
                    if mine is None or mine[0] != seat:
                        break
                    act = mine[1]
                    if think and stop.wait(random.uniform(0.5, 1.5) * think):
                        return
                    body = json.dumps({"version": seen, **act})
                    t = time.perf_counter()
                    try:
                        conn.request("POST", act_path, body, headers)
                        r = conn.getresponse()
                        answer = r.read()
                    except (OSError, http.client.HTTPException) as exc:
                        conn.close()
                        stats.errors[("POST", type(exc).__name__)] += 1
                        tab.resync()
                        break
                    ms = (time.perf_counter() - t) * 1000
                    if r.status != 200:
                        stats.add("POST", ms, r.status)
                        tab.resync()
                        break
                    view = json.loads(answer)
                    stats.add("POST", ms, r.status, final=view["status"] == "finished")
                    tab.accepted(seat, act, view["version"], time.monotonic())
                    seen = view["version"]
                if view["status"] == "finished" or stop.is_set():
                    return
        finally:
            conn.close()

    def long_polls(self, url, key, stats, stop, wait):
        """The seat's long-polls (their own keep-alive connection)."""
        import requests

        seen = -1
        with requests.Session() as session:
            session.headers["Authorization"] = f"Token {key}"
            while not stop.is_set():
                t = time.perf_counter()
                try:
                    r = session.get(url, params={"since": seen, "wait": wait},
                                    timeout=wait + 30)
                except requests.RequestException as exc:
                    stats.errors[("GET", type(exc).__name__)] += 1
                    time.sleep(0.5)
                    continue
                stats.add("GET", (time.perf_counter() - t) * 1000, r.status_code)
                if r.status_code != 200:
                    time.sleep(0.5)
                    continue
                view = r.json()
                seen = max(seen, view["version"])
                yield view, time.monotonic()

    def stream(self, url, key, stats, stop, wait):
        """The seat's event stream (its own connection); reconnects with Last-Event-ID."""
        import json

        import requests

        seen = -1
        with requests.Session() as events:
            events.headers.update({"Authorization": f"Token {key}",
                                   "Accept": "text/event-stream"})
            while not stop.is_set():
                headers = {"Last-Event-ID": str(seen)} if seen >= 0 else {}
                try:
                    with events.get(f"{url}events/", headers=headers, stream=True,
                                    timeout=(10, 60)) as r:
                        stats.add("GET", 0.0, r.status_code)
                        if r.status_code != 200:
                            time.sleep(0.5)
                            continue
                        data = None
                        for line in r.iter_lines(chunk_size=None, decode_unicode=True):
                            if stop.is_set():
                                return
                            if line.startswith("data: "):
                                data = line[6:]
                            elif not line and data is not None:
                                view = json.loads(data)
                                data = None
                                seen = max(seen, view["version"])
                                yield view, time.monotonic()
                                if view["status"] == "finished":
                                    return
                except requests.RequestException as exc:
                    stats.errors[("GET", type(exc).__name__)] += 1
                    time.sleep(0.5)

    # ------------------------------------------------------------------ many open streams
    def run_streams(self, *, streams, tables, move_every, pace, act_server, shards, workers,
                    stream_db_threads, stream_actions,
                    connect_at_once, act_connections, api_workers, api_threads, pool, pubsub,
                    broker, seconds, seed, **opts):
        """``--streams N``: N seat streams open on uvicorn while the tables play (see
        :mod:`benchmarks.streamclient`); its figures are in docs/BENCHMARKS.md,
        "Live play"."""
        from django.db import connections

        from benchmarks.builders import live_round

        out = self.stdout.write
        tables = tables or -(-streams // 6)
        if streams > 6 * tables:
            raise CommandError(f"{tables} tables seat {6 * tables} players, not {streams}")
        limit = raise_open_files(streams + 4096)
        if limit < streams + 1024:
            raise CommandError(f"the open-file limit is {limit}: too low for {streams} streams "
                               f"(each side of a loopback connection holds a descriptor)")
        speed = machine.speed()  # (before anything else runs here)
        out(machine.speed_line(speed))
        t0 = time.monotonic()
        rnd, seated = live_round(tables)
        analyze(say=out)
        connections.close_all()  # (the servers and the client process are forked)
        out(f"set up {len(seated)} tables, {6 * len(seated)} players with logins in "
            f"{time.monotonic() - t0:.1f} s (event {rnd.event.slug}); open files: {limit}")
        self.started, self.broker = [], broker
        try:
            env = {"DJANGO_DEBUG": "0", "DB_POOL_MAX_SIZE": str(pool), "LIVE_PUBSUB_URL": "",
                   "LIVE_STREAM_DB_THREADS": str(stream_db_threads)}
            if pubsub != "none":
                env["LIVE_PUBSUB_URL"] = pubsub
            if broker != "none":
                env.update(CELERY_BROKER_URL=broker, CACHE_URL=neighbour_db(broker))
                worker = CeleryWorker(broker, env["CACHE_URL"]).start()
                self.started.append(worker)
                out(worker.describe())
            uvicorn = Shards([Uvicorn(workers=workers, env=env) for _ in range(shards)])
            for server in uvicorn.servers:
                self.started.append(server.start())
            api = uvicorn
            if act_server == "gunicorn":
                api = Gunicorn(workers=api_workers, threads=api_threads, env=env)
                self.started.append(api.start())
            out(f"streams{' and acts' if api is uvicorn else ''}: {uvicorn.describe()}")
            if api is not uvicorn:
                out(f"acts: {api.describe()}")
            games = self.start_games_at_once(seated, api.port, seed)
            out(f"{len(games)} games started over the API in {time.monotonic() - t0:.1f} s "
                f"since the set-up began")
            idle = process_figures(uvicorn.pids())
            figures, samples = self.drive_streams(
                games, streams, uvicorn=uvicorn, api=api, move_every=move_every, pace=pace,
                seconds=seconds, connect_at_once=connect_at_once,
                act_connections=act_connections, stream_actions=stream_actions, seed=seed)
        finally:
            for server in self.started:
                tail = server.stop()
                if tail:
                    self.stderr.write(tail)
        self.report_streams(figures, samples, idle=idle, streams=streams, tables=len(games),
                            move_every=move_every, pace=pace, act_server=act_server, pool=pool,
                            db_threads=stream_db_threads, workers=uvicorn.workers)

    def start_games_at_once(self, seated, api_port: int, seed: int, at_once: int = 8):
        """Seat 0 of every table starts its game over the API once its six seats are ready,
        ``at_once`` tables at a time; the clients' shadow games come from the stored deals:
        [(live id, Game, tokens)]."""
        import http.client
        import json
        from concurrent.futures import ThreadPoolExecutor

        from django.db import connection

        from engine.game import Game
        from live.models import LiveGame

        def start(chunk):
            conn = http.client.HTTPConnection(HOST, api_port, timeout=60)
            ids = []
            try:
                for table_id, keys in chunk:
                    seats_ready(conn, table_id, keys)
                    conn.request("POST", f"/api/v1/tables/{table_id}/live/", "{}", {
                        "Authorization": f"Token {keys[0]}",
                        "Content-Type": "application/json"})
                    r = conn.getresponse()
                    answer = r.read()
                    if r.status != 201:
                        raise CommandError(f"starting table {table_id}'s game: {r.status} "
                                           f"{answer[:300]!r}")
                    ids.append(json.loads(answer)["id"])
            finally:
                conn.close()
            return ids

        with ThreadPoolExecutor(at_once) as pool:
            parts = list(pool.map(start, [seated[k::at_once] for k in range(at_once)]))
        ids = [None] * len(seated)
        for k, part in enumerate(parts):
            ids[k::at_once] = part
        states = dict(LiveGame.objects.filter(pk__in=ids).values_list("pk", "state"))
        connection.close()  # the client process is forked
        return [(live_id, Game.from_state(states[live_id]), keys)
                for live_id, (_table, keys) in zip(ids, seated, strict=True)]

    def drive_streams(self, games, streams: int, *, uvicorn, api, move_every, pace, seconds,
                      connect_at_once, act_connections, stream_actions, seed):
        """The asyncio client in a forked process; the parent samples the processes (memory,
        descriptors, CPU, database and Redis connections) once every stream is open and again
        at the end: (the client's figures, {"open": ..., "end": ...})."""
        ctx = multiprocessing.get_context("fork")
        messages, sampled = ctx.Queue(), ctx.Event()
        proc = ctx.Process(target=_stream_client, daemon=True, kwargs=dict(
            messages=messages, sampled=sampled, games=games, streams=streams,
            stream_ports=uvicorn.ports,
            act_ports=api.ports if api is uvicorn else [api.port], move_every=move_every,
            pace=pace, seconds=seconds,
            connect_at_once=connect_at_once, act_connections=act_connections,
            stream_actions=stream_actions, seed=seed))
        proc.start()
        samples = {}
        api_pids = [] if api is uvicorn else api.pids()

        def sample():
            # the CPU readings first: ``ss -p`` reads every process's descriptors (20,000
            # here) and costs the machine about a second of CPU, so the connections are
            # counted only when no act is measured (before play, and once it has ended:
            # counted midway through play, they made that 10 s window's act p99 3 to 20 times
            # the others')
            taken = {"uvicorn": process_figures(uvicorn.pids()),
                     "api": process_figures(api_pids) if api_pids else None,
                     "client": process_figures([proc.pid]),
                     "postgres": process_figures(postgres_pids()),
                     "machine": machine.cpu_times(),
                     "at": time.monotonic(), "load": os.getloadavg()[0]}
            taken.update(db_connections=socket_count(5432), redis_connections=socket_count(6379),
                         uvicorn_db=socket_count(5432, uvicorn.pids()),
                         uvicorn_redis=socket_count(6379, uvicorn.pids()),
                         wal=wal_written())
            return taken

        # what each group of processes used in each 10 s of play (read from /proc: no ``ss``)
        workers = [s for s in self.started if isinstance(s, CeleryWorker)]
        groups = {"uvicorn": uvicorn.pids, "postgres": postgres_pids,
                  "client": lambda: [proc.pid],
                  "redis": lambda: cpucap.service_pids(("redis-server",))}
        if api_pids:
            groups["api"] = lambda: api_pids
        if workers:
            groups["worker"] = lambda: [pid for w in workers for pid in w.pids()]
        series, series_stop = machine.CpuSeries(groups), threading.Event()
        follower = threading.Thread(target=series.follow, args=(series_stop,), daemon=True)
        try:
            while True:
                kind, value = messages.get(timeout=seconds + 900)
                if kind == "say":
                    self.stdout.write(value)
                elif kind == "connected":
                    # (play waits for this reading: its ``ss -p`` took a second of the
                    # machine's CPU, and made the first seconds of play the slowest)
                    samples["open"] = sample()
                    sampled.set()
                    follower.start()  # (as play starts: its windows are the acts')
                elif kind == "played":
                    series_stop.set()
                    follower.join()
                    samples["series"] = series
                    samples["played"] = sample()
                elif kind == "done":
                    samples["end"] = sample()
                    return value, samples
                elif kind == "failed":
                    raise CommandError(f"the stream client failed: {value}")
        finally:
            series_stop.set()
            proc.join(30)
            if proc.is_alive():
                proc.kill()

    def report_streams(self, figures: dict, samples: dict, *, idle, streams, tables, move_every,
                       pace, act_server, pool, db_threads, workers):
        from django.conf import settings

        out = self.stdout.write
        loop_connections = settings.LIVE_LOOP_DB_CONNECTIONS if act_server == "uvicorn" else 0
        acts, ran = figures["acts"], figures["run_seconds"]
        opened = samples["open"]
        end = samples["end"]
        out("")
        out(f"machine: {platform.machine()}, {os.cpu_count()} cpu(s), python "
            f"{platform.python_version()}; the servers, PostgreSQL, Redis and the client share "
            f"them; load average {end['load']:.1f}")
        out(f"{figures['opened']}/{streams} seat streams open in {figures['connect_seconds']:.1f}"
            f" s ({tables} tables); reconnects during the run: {figures['reconnects']}")
        target = tables / move_every
        every = (f"every {move_every:g} s" if pace == "steady" else
                 f"every {move_every:g} s on average, at random times")
        out(f"ran {ran:.1f} s: {acts} acts accepted = {acts / ran:.1f} acts/s (asked: one per "
            f"table {every} = {target:.1f} acts/s; {figures['due_acts']} due)")
        late = figures["late_ms"]
        if late:
            out(f"acts sent late (the client's schedule slipping): {spread(late, (50, 99))}")
        if figures["act_ms"]:
            out(f"act POST ({act_server}): n={len(figures['act_ms'])} "
                f"{spread(figures['act_ms'], (50, 95, 99))} "
                f"mean={statistics.fmean(figures['act_ms']):.1f} ms")
            out("act POST by when it was sent: " + "; ".join(
                f"{start:.0f}-{start + 10:.0f} s p99 {percentile(sorted(ms), 99):.0f} ms "
                f"(max {max(ms):.0f})" for start, ms in figures["act_windows"]))
        if samples.get("series") is not None:
            out(samples["series"].line())
        out(f"events delivered: {figures['events']}; {figures['acts_seen']} of {acts} acts "
            f"reached a seat stream, {figures['acts_seen_everywhere']} every stream of their "
            f"table" + ("" if streams >= 6 * tables else
                        f" ({6 * tables - streams} seats have no stream)"))
        if figures["delivery_ms"]:
            out(f"delivery (act sent → event read at a seat stream): n="
                f"{len(figures['delivery_ms'])} {spread(figures['delivery_ms'], (50, 95, 99))}")
        out(f"act answers: {dict(sorted(figures['act_status'].items()))}; errors: "
            f"{dict(figures['errors']) or 'none'}")
        played = samples.get("played", end)
        cpu = {name: (played[name]["cpu_s"] - opened[name]["cpu_s"]) / max(
                   1e-9, played["at"] - opened["at"])
               for name in ("uvicorn", "api", "client", "postgres") if played.get(name)}
        out("cores used while playing: " + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()))
        per_act = machine.cpu_per_act_line(cpu, acts / max(1e-9, ran))
        if per_act:
            out(per_act)
        slow_share = machine.slow_share_line(cpu.get("client", 0.0), acts / max(1e-9, ran),
                                             os.cpu_count() or 1)
        if slow_share:
            out(slow_share)
        if opened.get("wal") and played.get("wal"):
            wal = {k: (played["wal"][k] - opened["wal"][k]) / max(1, acts) for k in opened["wal"]}
            out(f"PostgreSQL while playing, an act: {wal['syncs']:.2f} WAL flushes (a commit "
                f"waits for one; commits that come together share it), {wal['records']:.1f} WAL "
                f"records, {wal['bytes']:,.0f} bytes; {wal['commits']:.2f} transactions "
                f"committed (reads too)")
        whole = machine.used(opened["machine"], played["machine"])
        if whole is not None:
            out(whole.line(os.cpu_count()))
        per_stream = (opened["uvicorn"]["rss_mb"] - idle["rss_mb"]) * 1024 / max(1, streams)
        out(f"uvicorn ({workers} process{'es' if workers > 1 else ''} in all): idle "
            f"{idle['rss_mb']:.0f} "
            f"MB; {streams} streams open {opened['uvicorn']['rss_mb']:.0f} MB "
            f"({per_stream:.1f} KB a stream), {opened['uvicorn']['fds']} descriptors, "
            f"{opened['uvicorn']['threads']} threads; at the end "
            f"{end['uvicorn']['rss_mb']:.0f} MB")
        out(f"client: {opened['client']['rss_mb']:.0f} MB, {opened['client']['fds']} "
            f"descriptors" + (f"; API gunicorn: {opened['api']['rss_mb']:.0f} MB in all"
                              if opened.get("api") else ""))
        mid = samples.get("played", end)
        out(f"database connections of uvicorn: {opened['uvicorn_db']} with every stream open, "
            f"{mid['uvicorn_db']} as play ended (each process: pool {pool}, {db_threads} "
            f"stream database threads, up to {loop_connections} for the acts on its event loop); "
            f"all to PostgreSQL on this host: {mid['db_connections']}")
        out(f"Redis connections of uvicorn: {mid['uvicorn_redis']} (each process: one pub/sub "
            f"subscription for all its streams"
            + ("; the others publish its acts' announcements" if act_server == "uvicorn" else "")
            + ("; with the broker, also the shared cache's (the acts' throttles, one on the "
               "event loop) and Celery's (a game's end queues its standings, a seat in 托管 "
               "its turns' timers)" if self.broker != "none" else "")
            + ")")
        p99 = percentile(sorted(figures["act_ms"]), 99) if figures["act_ms"] else float("nan")
        out(f"goal act p99 < 100 ms with {streams} open streams: "
            f"{'met' if p99 < 100 else 'NOT met'} ({p99:.1f} ms)")
        if figures["errors"] or any(s != 200 for s in figures["act_status"]) or \
                figures["opened"] < streams:
            raise CommandError("streams that did not open, refused acts or transport errors "
                               "(above)")


    # ------------------------------------------------------------------ report
    def report(self, outcomes: list[TableOutcome], stats: Stats, elapsed: float):
        from django.db import connection

        import engine
        from games.models import GameResult
        from live.models import LiveGame

        out = self.stdout.write
        acts = sum(t.acts for t in outcomes)
        finished = [t for t in outcomes if t.over]
        out("")
        out(f"machine: {platform.machine()}, {os.cpu_count()} cpu(s), python "
            f"{platform.python_version()}, {connection.vendor}; load average "
            f"{os.getloadavg()[0]:.1f}")
        out(f"ran {elapsed:.1f} s: {acts} acts accepted = {acts / elapsed:.1f} acts/s; "
            f"{len(finished)}/{len(outcomes)} games finished")
        for name, values in (
                ("act POST", stats.post_ms),
                ("view GET (long-polls: includes the wait; streams: 0)", stats.get_ms),
                ("wake (act answered → waiting seat has it)", stats.wake_ms)):
            if values:
                out(f"{name}: n={len(values)} {spread(values)} "
                    f"mean={statistics.fmean(values):.1f} ms")
        if stats.final_post_ms:
            out(f"game-ending act POST (stores the result; standings "
                f"{'queued' if self.broker != 'none' else 'in the request'}): "
                f"n={len(stats.final_post_ms)} {spread(stats.final_post_ms, (50,))}")
        rate = (len(stats.get_ms) + len(stats.post_ms)) / elapsed
        out(f"requests: {rate:.0f}/s; by status: " + ", ".join(
            f"{k} {s}: {n}" for (k, s), n in sorted(stats.statuses.items(), key=str)))
        non200 = {k: n for k, n in stats.statuses.items() if k[1] != 200}
        out(f"non-200 answers: {non200 or 'none'}; transport errors: "
            f"{dict(stats.errors) or 'none'}")
        # every finished game's record replays to its stored result and to the shadow's
        bad = []
        for tab in finished:
            lg = LiveGame.objects.get(pk=tab.live_id)
            if lg.status != LiveGame.Status.FINISHED or lg.result_id is None:
                bad.append(f"live {tab.live_id}: not finished on the server")
                continue
            result = GameResult.objects.get(pk=lg.result_id)
            record = result.versions.get(version=result.version).payload
            replayed = engine.replay(record, first_game=(lg.number == 1))
            if replayed != result.engine_result or replayed.get("places") != tab.places \
                    or not result.system_recorded:
                bad.append(f"live {tab.live_id}: the record does not replay to its result")
        out(f"replayed {len(finished)} finished game(s): "
            + ("all match their stored results" if not bad else f"{len(bad)} mismatch(es)"))
        for line in bad[:10]:
            out("  " + line)
        if self.access_log and os.path.exists(self.access_log):
            with open(self.access_log) as fh:
                server = [float(line.split("|")[2]) for line in fh
                          if line.startswith("POST|") and "/act/" in line]
            if server:
                out(f"act POST as gunicorn timed it: n={len(server)} "
                    f"{spread(server, (50, 99))}")
        p99 = percentile(sorted(stats.post_ms), 99)
        out(f"goal p99 < 50 ms for act POSTs: {'met' if p99 < 50 else 'NOT met'} "
            f"({p99:.1f} ms)")
        if bad or non200 or stats.errors:
            # the clients act only on their turn at the version they saw: nothing may fail
            raise CommandError("replay mismatches, refused acts or transport errors (above)")


def spread(values: list[float], pcts=(50, 90, 99)) -> str:
    ordered = sorted(values)
    return " ".join(f"p{p}={percentile(ordered, p):.1f} ms" for p in pcts) + \
        f" max={ordered[-1]:.1f} ms"


def database_connections(pool: int, *servers) -> str:
    workers = sum(s.workers for s in {id(s): s for s in servers}.values())
    return f"{pool} database connections per worker ({workers} workers)"


def _repo_root():
    from django.conf import settings

    return settings.BASE_DIR


def _stream_client(*, messages, sampled, games, streams, stream_ports, act_ports, move_every,
                   pace, seconds, connect_at_once, act_connections, stream_actions, seed):
    """The client process of ``--streams``: every stream, every table's acts, on one event
    loop (uvloop when installed); reports through ``messages``, and plays once the parent has
    read the processes with every stream open (``sampled``)."""
    import asyncio

    from asgiref.sync import sync_to_async

    from benchmarks import streamclient
    from engine.bots import HeuristicBot
    from engine.game import Game

    def read_game(live_id):
        from django.db import connection

        from live.models import LiveGame

        try:
            return Game.from_state(LiveGame.objects.values_list("state", flat=True)
                                   .get(pk=live_id))
        finally:
            connection.close()

    seats, tables = [], []
    for k, (live_id, game, keys) in enumerate(games):
        tables.append(streamclient.TablePlay(live_id, game, [
            HeuristicBot(random.Random(seed * 10_000 + k * 6 + i)) for i in range(6)], keys))
        seats += [streamclient.SeatStream(live_id, s, keys[s], game.version) for s in range(6)]
    seats = seats[:streams]

    async def main():
        loop = asyncio.get_running_loop()
        say = lambda line: messages.put(("say", line))  # noqa: E731
        resync = sync_to_async(read_game, thread_sensitive=False)

        async def milestones():
            while streamclient_figures.connect_seconds == 0.0:
                await asyncio.sleep(0.1)
            messages.put(("connected", None))

        async def before_play():
            if not await asyncio.to_thread(sampled.wait, 600):
                raise RuntimeError("the parent did not read the processes in 600 s")

        marker = loop.create_task(milestones())
        figures = await streamclient.run(
            stream_ports=stream_ports, act_ports=act_ports, seats=seats, tables=tables,
            move_every=move_every, pace=pace, seconds=seconds, connect_at_once=connect_at_once,
            act_connections=act_connections, stream_actions=stream_actions, resync=resync,
            seed=seed, say=say,
            figures=streamclient_figures, played=lambda: messages.put(("played", None)),
            before_play=before_play)
        marker.cancel()
        return figures

    streamclient_figures = streamclient.Figures()
    try:
        try:
            import uvloop

            figures = uvloop.run(main())
        except ImportError:
            figures = asyncio.run(main())
        messages.put(("done", figures.summary()))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        messages.put(("failed", repr(exc)))


def postgres_pids() -> list[int]:
    """PostgreSQL's processes on this host (its backends are where the database's CPU goes)."""
    return cpucap.service_pids(("postgres", "postmaster"))


def socket_count(port: int, pids: list[int] | None = None) -> int:
    """Established TCP connections to ``port`` on this host (``ss``), of ``pids`` only if
    given."""
    try:
        lines = subprocess.run(["ss", "-tnpH", "state", "established", f"( dport = :{port} )"],
                               capture_output=True, text=True, timeout=10).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return -1
    if pids is None:
        return len(lines)
    marks = tuple(f",pid={pid}," for pid in pids)  # (users:(("python",pid=12,fd=5)): 12, not 512)
    return sum(1 for line in lines if any(mark in line for mark in marks))

