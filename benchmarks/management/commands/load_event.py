"""The load scenario: a 10,000-player event run over HTTP for several rounds, with everything
production uses: gunicorn, PostgreSQL, Redis and a Celery worker.

    python manage.py load_event --players 10000 --rounds 3

It needs PostgreSQL and Redis on this machine (DATABASE_URL, default
``postgres://postgres@127.0.0.1:5432/gouji_load``; ``--broker``, default
``redis://127.0.0.1:6379/12``) and starts the rest itself: gunicorn (gthread workers, a
connection pool per worker, long-polls woken by Redis pub/sub) and one Celery worker process.

What goes over the API (and is timed per endpoint):

- the organizer creates the event, adds referees and publishes it;
- registration: ``--self-register`` players create their profile, register and check in
  themselves (three requests each); the others are imported by the organizer as CSV files of
  1,000 rows, checked in;
- every round: the organizer opens it (the draw runs on the worker; the command polls the
  task URL) and publishes the seating; every table submits each game's result — a full record
  at ``--record-share`` of the tables, a result sheet at the others — by a seated player with a
  login, or else a referee, from ``--clients`` processes at once; each result is confirmed by
  a player of the other 联邦 or a referee; meanwhile ``--live-tables`` tables play their games
  live on the service (six seat clients each, long-polling, ``--think`` seconds per move);
  then the standings are recomputed on the worker and read.

Not over the API: the user accounts (bulk-created with tokens before the event, as sign-ups
would be) and the bot-played records (made by this process before a round's submissions).

Afterwards it checks that every result is stored exactly once (one version, the payload sent,
confirmed) and that the stored standings equal a recomputation from scratch, and it prints
throughput and p50/p99 per endpoint, and the draw and standings times of every round.
"""

from __future__ import annotations

import csv
import http.client
import io
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from urllib.parse import urlparse

from django.core.management.base import BaseCommand, CommandError

from benchmarks.figures import Figures
from benchmarks.loadclient import Request, run_requests
from benchmarks.servers import (
    LOCAL_HOSTS,
    CeleryWorker,
    Gunicorn,
    ensure_database,
    loadavg,
    neighbour_db,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/gouji_load"
DEFAULT_BROKER = "redis://127.0.0.1:6379/12"
CSV_ROWS = 1000


def _json_headers(token: str | None) -> dict:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    return headers


def _multipart(field: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; "
            f"filename=\"{filename}\"\r\nContent-Type: text/csv\r\n\r\n").encode() + content + \
        f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def random_sheet(rng: random.Random) -> dict:
    """A result sheet as a referee copies it from the table (no revolution, no burn)."""
    order = list(range(6))
    rng.shuffle(order)
    return {"order": order, "revolutions": [], "eliminated": [], "burns": [],
            "kaidian": [rng.random() < 0.5 for _ in range(6)], "leader": rng.randrange(6)}


def _play_matches(args) -> list:
    """Bot-play matches in a worker process (records for the record-submitting tables)."""
    rules, games, seeds = args
    from engine.bots import play_match

    return [[game.record() for game in play_match(rules, games, random.Random(seed))]
            for seed in seeds]


class Command(BaseCommand):
    help = ("Run a 10,000-player event over HTTP (gunicorn + PostgreSQL + Redis + a Celery "
            "worker) and check that nothing was lost or duplicated.")

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=10000)
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--games", type=int, default=2, help="games per match")
        parser.add_argument("--self-register", type=int, default=1500,
                            help="players who register and check in themselves over the API")
        parser.add_argument("--record-share", type=float, default=0.5,
                            help="share of tables that submit full records (others: sheets)")
        parser.add_argument("--live-tables", type=int, default=6)
        parser.add_argument("--think", type=float, default=0.1,
                            help="seconds a live seat thinks before it acts")
        parser.add_argument("--clients", type=int, default=8,
                            help="concurrent client processes for submissions and the rest")
        parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
        parser.add_argument("--threads", type=int, default=32, help="threads per worker")
        parser.add_argument("--pool", type=int, default=8, help="DB connections per worker")
        parser.add_argument("--broker", default=DEFAULT_BROKER)
        parser.add_argument("--seed", type=int, default=1)

    # ------------------------------------------------------------------ set-up
    def handle(self, *args, **opts):
        url = os.environ.get("DATABASE_URL")
        if not url or os.environ.get("CELERY_BROKER_URL") != opts["broker"]:
            # settings are read at start-up: run again with the database and broker set
            env = dict(os.environ, DATABASE_URL=url or DEFAULT_DB,
                       CELERY_BROKER_URL=opts["broker"])
            argv = [sys.executable, sys.argv[0], "load_event"]
            for name, value in opts.items():
                if name in ("players", "rounds", "games", "self_register", "record_share",
                            "live_tables", "think", "clients", "workers", "threads", "pool",
                            "broker", "seed"):
                    argv += [f"--{name.replace('_', '-')}", str(value)]
            self.stdout.flush()
            code = subprocess.call(argv, env=env)
            if code:
                raise CommandError(f"the load scenario exited with {code}")
            return
        parts = urlparse(url)
        if not parts.scheme.startswith("postgres") or parts.hostname not in LOCAL_HOSTS:
            raise CommandError("the load scenario runs against a local PostgreSQL only")
        if urlparse(opts["broker"]).hostname not in LOCAL_HOSTS:
            raise CommandError("the load scenario uses a local Redis only")
        if opts["players"] < 12 or opts["rounds"] < 1 or opts["games"] < 1:
            raise CommandError("at least 12 players, 1 round and 1 game")
        ensure_database(self.stdout.write)
        self.run(**opts)

    def run(self, *, players, rounds, games, self_register, record_share, live_tables, think,
            clients, workers, threads, pool, broker, seed, **_):
        w = self.stdout.write
        self.rng = random.Random(seed)
        self.figures = Figures()
        self.clients = clients
        self.draw_times, self.standings_times, self.live_acts = [], [], []
        w(f"load scenario: {players} players, {rounds} rounds of {games} games; "
          f"{os.cpu_count()} cores; load average {loadavg()}")
        t0 = time.monotonic()
        accounts = self.make_accounts(min(self_register, players))
        w(f"accounts with API tokens made in {time.monotonic() - t0:.1f} s (not over the API)")

        cache_url = neighbour_db(broker)  # a cache all processes share, as in production
        server = Gunicorn(workers=workers, threads=threads, env={
            "DB_POOL_MAX_SIZE": str(pool), "LIVE_PUBSUB_URL": broker,
            "CELERY_BROKER_URL": broker, "CACHE_URL": cache_url}).start()
        w(server.describe())
        worker = CeleryWorker(broker, cache_url).start()
        w(worker.describe())
        self.port = server.port
        problems = []
        started = time.monotonic()
        try:
            slug = self.create_event(accounts, games, rounds)
            self.register(slug, accounts, players)
            for number in range(1, rounds + 1):
                self.play_round(slug, number, accounts, games, record_share, live_tables, think)
            total = time.monotonic() - started
        finally:
            tail = server.stop()
            worker.stop()
            if tail:
                w(f"gunicorn log tail:\n{tail}")
        problems += self.verify(slug, rounds, games)
        self.report(total, players, rounds)
        if problems:
            for p in problems:
                w(self.style.ERROR(f"  {p}"))
            raise CommandError(f"{len(problems)} check(s) failed")
        w(self.style.SUCCESS("OK: every result stored exactly once and confirmed; the standings "
                             "equal a recomputation from scratch"))

    def make_accounts(self, n_players: int) -> dict:
        """Organizer, referees and ``n_players`` player logins, each with an API token."""
        from django.contrib.auth import get_user_model
        from django.contrib.auth.hashers import make_password
        from rest_framework.authtoken.models import Token

        User = get_user_model()
        tag = f"{int(time.time())}{random.randrange(1000)}"
        password = make_password(None)
        names = ([f"load{tag}-org"] + [f"load{tag}-ref{i}" for i in range(4)]
                 + [f"load{tag}-p{i}" for i in range(n_players)])
        users = User.objects.bulk_create(
            [User(username=n, password=password, is_staff=(k == 0))  # k 0: may create events
             for k, n in enumerate(names)], batch_size=2000)
        tokens = Token.objects.bulk_create(
            [Token(key=Token.generate_key(), user=u) for u in users], batch_size=2000)
        keys = [t.key for t in tokens]
        return {"tag": tag, "organizer": keys[0], "referees": keys[1:5],
                "referee_names": names[1:5], "players": keys[5:], "user_ids":
                {t.key: u.pk for t, u in zip(tokens, users, strict=True)}}

    # ------------------------------------------------------------------ requests
    def send(self, jobs, *, keep_bodies: bool = False, clients: int | None = None):
        """Send ``jobs`` from the client processes; record the figures; return the outcomes."""
        outcomes, wall = run_requests(jobs, clients or self.clients, self.port,
                                      keep_bodies=keep_bodies)
        self.figures.add(jobs, outcomes, wall)
        return outcomes

    def call(self, method: str, path: str, token: str | None, body=None, label: str = "",
             content_type: str | None = None, expect=(200, 201, 202)):
        """One request from this process (timed); returns the decoded answer."""
        headers = _json_headers(token)
        data = body
        if body is not None and not isinstance(body, bytes):
            data = json.dumps(body).encode()
        if content_type:
            headers["Content-Type"] = content_type
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        t = time.monotonic()
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        self.figures.add_one(label or f"{method} {path}", time.monotonic() - t, resp.status)
        if resp.status not in expect:
            raise CommandError(f"{method} {path}: {resp.status} {raw[:300]!r}")
        return json.loads(raw) if raw else None

    # ------------------------------------------------------------------ the event
    def create_event(self, accounts, games: int, rounds: int) -> str:
        slug = f"load-{accounts['tag']}"
        org = accounts["organizer"]
        self.call("POST", "/api/v1/events/", org, {
            "slug": slug, "name": f"Load test {accounts['tag']}", "rules": "dagang",
            "rounds_planned": rounds, "games_per_match": games}, "POST events")
        jobs = [Request("POST", f"/api/v1/events/{slug}/staff/", _json_headers(org),
                        json.dumps({"username": name, "role": "referee"}).encode(),
                        "POST events/staff") for name in accounts["referee_names"]]
        self._expect(self.send(jobs, clients=1), jobs, (200, 201, 204))
        self.call("POST", f"/api/v1/events/{slug}/publish/", org, {"published": True},
                  "POST events/publish")
        self.stdout.write(f"event {slug} created, 4 referees, published")
        return slug

    def register(self, slug: str, accounts, players: int) -> None:
        w = self.stdout.write
        t0 = time.monotonic()
        keys = accounts["players"]
        jobs = [Request("POST", "/api/v1/players/me/", _json_headers(k), json.dumps(
            {"name": f"Self {accounts['tag']} {i:05d}", "club": "Qingdao"}).encode(),
            "POST players/me") for i, k in enumerate(keys)]
        self._expect(self.send(jobs), jobs, (201,))
        jobs = [Request("POST", f"/api/v1/events/{slug}/entries/", _json_headers(k), b"{}",
                        "POST entries (self)") for k in keys]
        outcomes = self._expect(self.send(jobs, keep_bodies=True), jobs, (201,))
        entry_ids = [o.json()["id"] for o in outcomes]
        jobs = [Request("POST", f"/api/v1/events/{slug}/entries/{e}/check-in/",
                        _json_headers(k), b"", "POST entries/check-in")
                for k, e in zip(keys, entry_ids, strict=True)]
        self._expect(self.send(jobs), jobs, (200,))
        w(f"{len(keys)} players registered and checked in themselves "
          f"({time.monotonic() - t0:.1f} s)")

        t0 = time.monotonic()
        rest = players - len(keys)
        jobs = []
        for start in range(0, rest, CSV_ROWS):
            out = io.StringIO()
            writer = csv.writer(out)
            writer.writerow(["name", "club", "checked_in"])
            for i in range(start, min(rest, start + CSV_ROWS)):
                writer.writerow([f"Imported {accounts['tag']} {i:05d}", "Huangdao", "yes"])
            body, ctype = _multipart("file", f"players-{start}.csv", out.getvalue().encode())
            headers = _json_headers(accounts["organizer"])
            headers["Content-Type"] = ctype
            jobs.append(Request("POST", f"/api/v1/events/{slug}/entries/import/", headers, body,
                                "POST entries/import (1,000 rows)"))
        self._expect(self.send(jobs, clients=2), jobs, (201,))
        w(f"{rest} players imported by the organizer in {len(jobs)} CSV files, checked in "
          f"({time.monotonic() - t0:.1f} s)")

    def _expect(self, outcomes, jobs, ok) -> list:
        bad = [o for o in outcomes if o.status not in ok]
        if len(outcomes) != len(jobs) or bad:
            sample = bad[0].body[:300] if bad else b"(requests missing)"
            raise CommandError(f"{jobs[0].label}: {len(bad)} of {len(jobs)} failed, e.g. "
                               f"{bad[0].status if bad else ''} {sample!r}")
        return outcomes

    # ------------------------------------------------------------------ a round
    def play_round(self, slug, number, accounts, games, record_share, live_tables, think):
        from django.db import connection

        from tournaments.models import Event, Seat, Table

        w = self.stdout.write
        org = accounts["organizer"]
        w(f"\nround {number}")
        t0 = time.monotonic()
        answer = self.call("POST", f"/api/v1/events/{slug}/rounds/", org, {}, "POST rounds")
        task = urlparse(answer["task"]).path
        while True:  # the draw runs on the worker; poll the task URL
            time.sleep(0.25)
            got = self.call("GET", task, org, label="GET rounds/<n> (draw task)")
            if got["status"] != "committed":
                break
            if time.monotonic() - t0 > 600:
                raise CommandError(f"round {number}: not drawn after 600 s")
        draw = time.monotonic() - t0
        self.draw_times.append(draw)
        self.call("POST", f"/api/v1/events/{slug}/rounds/{number}/publish/", org, {},
                  "POST rounds/<n>/publish")
        tables = list(Table.objects.filter(round__event__slug=slug, round__number=number)
                      .order_by("number").values_list("pk", flat=True))
        w(f"  drawn on the worker in {draw:.1f} s (task polled over the API), published: "
          f"{len(tables)} tables")

        # who sits where, and which seated players have a login
        token_of = {uid: key for key, uid in accounts["user_ids"].items()}
        seats = {}  # table -> [(seat, side, token or None)]
        for table_id, seat, user_id in Seat.objects.filter(table_id__in=tables).values_list(
                "table_id", "seat", "player__user_id"):
            seats.setdefault(table_id, []).append((seat, seat % 2, token_of.get(user_id)))
        live = tables[:live_tables]
        self.give_logins(live, seats, accounts)
        threads = [threading.Thread(target=self.live_table, args=(t, seats[t], games, think),
                                    daemon=True) for t in live]
        connection.close()
        for t in threads:
            t.start()

        # records for the record-submitting tables: bot-played before the clock starts
        rest = tables[len(live):]
        records = self.records_for([t for t in rest if self.rng.random() < record_share], games)
        t0 = time.monotonic()
        referees = accounts["referees"]
        submitted = []  # (table, game, submitter token)
        for game in range(1, games + 1):
            jobs, meta = [], []
            for table_id in rest:
                logged = [x for x in sorted(seats[table_id]) if x[2]]
                submitter = logged[0][2] if logged else referees[table_id % len(referees)]
                if table_id in records:
                    payload = {"number": game, "record": records[table_id][game - 1]}
                else:
                    payload = {"number": game, "sheet": random_sheet(self.rng)}
                label = "POST results (record or sheet)"
                headers = _json_headers(submitter)
                headers["Idempotency-Key"] = f"{table_id}-{game}"
                jobs.append(Request("POST", f"/api/v1/tables/{table_id}/results/", headers,
                                    json.dumps(payload, separators=(",", ":")).encode(), label))
                meta.append((table_id, game, submitter, logged))
            outcomes = self._expect(self.send(jobs, keep_bodies=True), jobs, (201,))
            submitted += [(m, o.json()["id"]) for m, o in zip(meta, outcomes, strict=True)]
        w(f"  {len(submitted)} results submitted in {time.monotonic() - t0:.1f} s "
          f"({len(records)} tables by full record, {len(rest) - len(records)} by sheet)")

        t0 = time.monotonic()
        jobs = []
        for (_table, _game, submitter, logged), result_id in submitted:
            side = next((x[1] for x in logged if x[2] == submitter), None)
            others = [x[2] for x in logged if side is not None and x[1] != side]
            confirmer = others[0] if others else next(
                r for r in referees if r != submitter)
            jobs.append(Request("POST", f"/api/v1/results/{result_id}/confirm/",
                                _json_headers(confirmer), b'{"version":1}',
                                "POST results/confirm"))
        self._expect(self.send(jobs), jobs, (200,))
        w(f"  {len(jobs)} results confirmed in {time.monotonic() - t0:.1f} s")

        for t in threads:
            t.join(timeout=900)
        if any(t.is_alive() for t in threads):
            raise CommandError(f"round {number}: a live table did not finish within 900 s")
        w(f"  {len(live)} live tables finished their {games} game(s): "
          f"{sum(self.live_acts[-len(live) * games:] if live else [])} acts")

        # standings: queued on the worker by the confirmations; wait until they cover all
        t0 = time.monotonic()
        while True:
            event = Event.objects.get(slug=slug)
            if event.standings_results_version >= event.results_version and \
                    event.standings_digest:
                break
            if time.monotonic() - t0 > 600:
                raise CommandError(f"round {number}: standings not recomputed after 600 s")
            time.sleep(0.1)
        connection.close()
        took = time.monotonic() - t0
        self.standings_times.append(took)
        got = self.call("GET", f"/api/v1/events/{slug}/standings/?page_size=100", None,
                        label="GET standings (first page)")
        pages = min(20, -(-got["count"] // 100))
        jobs = [Request("GET", f"/api/v1/events/{slug}/standings/?page={k}&page_size=100",
                        {"Accept": "application/json"}, None, "GET standings (pages)")
                for k in range(2, pages + 1)]
        self._expect(self.send(jobs), jobs, (200,))
        w(f"  standings covered every confirmation {took:.1f} s after the last one; leader: "
          f"{got['results'][0]['entry']['name'] if got.get('results') else '?'}")

    def give_logins(self, live, seats, accounts) -> None:
        """Every player of a live table acts with their own login: make one where missing."""
        from django.contrib.auth import get_user_model
        from rest_framework.authtoken.models import Token

        from tournaments.models import Player, Seat

        User = get_user_model()
        for table_id in live:
            fixed = []
            for seat in Seat.objects.filter(table_id=table_id).select_related("player"):
                player = seat.player
                if player.user_id is None:
                    player.user = User.objects.create(
                        username=f"load{accounts['tag']}-live-{player.pk}")
                    Player.objects.filter(pk=player.pk).update(user=player.user)
                    token = Token.objects.create(user=player.user)
                    accounts["user_ids"][token.key] = player.user.pk
                key = Token.objects.get(user_id=player.user_id).key
                fixed.append((seat.seat, seat.seat % 2, key))
            seats[table_id] = fixed

    def records_for(self, tables, games) -> dict:
        """Full records of ``games`` bot-played games per table (two processes)."""
        import multiprocessing

        from django.db import connections

        from tournaments.models import Event

        if not tables:
            return {}
        rules = Event.objects.filter(rounds__tables__pk=tables[0]).values_list(
            "rules", flat=True).first()
        seeds = [self.rng.randrange(2**32) for _ in tables]
        chunks = [(rules, games, seeds[k::4]) for k in range(4)]
        connections.close_all()
        with multiprocessing.get_context("fork").Pool(2) as pool:
            parts = pool.map(_play_matches, chunks)
        matches = [None] * len(tables)
        for k, part in enumerate(parts):
            matches[k::4] = part
        return dict(zip(tables, matches, strict=True))

    def live_table(self, table_id, seats, games, think) -> None:
        """Six seat clients play the table's games live over the API (long-polls); each acts
        on its turn with one of the legal acts its own view lists."""
        keys = {seat: key for seat, _side, key in seats}
        for _game in range(games):
            for key in keys.values():  # every seat at the table, then seat 0 deals
                self.call("POST", f"/api/v1/tables/{table_id}/live/ready/", key, {},
                          "POST tables/<id>/live/ready")
            view = self.call("POST", f"/api/v1/tables/{table_id}/live/", keys[0], {},
                             "POST tables/<id>/live (start)")
            live_id = view["id"]
            done = threading.Event()
            lock = threading.Lock()
            acts = [0]

            def seat_client(seat, live_id=live_id, done=done, lock=lock, acts=acts):
                rng = random.Random(live_id * 10 + seat)
                since = -1
                while not done.is_set():
                    v = self.call("GET", f"/api/v1/live/{live_id}/?since={since}&wait=25",
                                  keys[seat], label="GET live/<id> (long-poll)")
                    since = v["version"]
                    if v["status"] == "finished":
                        done.set()
                        return
                    if not (v.get("to_act") or {}).get("seat") == seat:
                        continue
                    legal = v.get("legal") or []
                    if not legal:
                        continue
                    time.sleep(rng.uniform(0.5, 1.5) * think)
                    plays = [a for a in legal if a.get("act") not in ("pass", "burn")]
                    act = rng.choice(plays) if plays else legal[0]
                    try:
                        self.call("POST", f"/api/v1/live/{live_id}/act/", keys[seat],
                                  {"version": since, **act}, "POST live/<id>/act",
                                  expect=(200,))
                        with lock:
                            acts[0] += 1
                    except CommandError:
                        continue  # stale (someone else moved): read again

            clients = [threading.Thread(target=seat_client, args=(s,), daemon=True)
                       for s in range(6)]
            for c in clients:
                c.start()
            for c in clients:
                c.join(timeout=900)
            self.live_acts.append(acts[0])

    # ------------------------------------------------------------------ checks
    def verify(self, slug, rounds, games) -> list[str]:
        from django.db.models import Count

        from games.models import GameResult, GameResultVersion
        from tournaments.models import Event, Standing, Table
        from tournaments.standings import compute

        w = self.stdout.write
        problems = []
        event = Event.objects.get(slug=slug)
        tables = Table.objects.filter(round__event=event).count()
        results = GameResult.objects.filter(table__round__event=event)
        n = results.count()
        per_game = results.values("table_id", "number").annotate(c=Count("id")).filter(c__gt=1)
        versions = GameResultVersion.objects.filter(result__table__round__event=event).count()
        unconfirmed = results.exclude(status=GameResult.Status.CONFIRMED).count()
        w(f"\nchecks: {tables} tables over {rounds} rounds; {n} results (expected "
          f"{tables * games}), {versions} versions, {unconfirmed} unconfirmed, "
          f"{per_game.count()} table/game pairs stored twice")
        if n != tables * games:
            problems.append(f"{n} results stored for {tables * games} games played")
        if versions != n:
            problems.append(f"{versions} versions for {n} results (no correction was sent)")
        if unconfirmed:
            problems.append(f"{unconfirmed} results not confirmed")
        if per_game.exists():
            problems.append("a table's game has two results")
        fresh = [(r.entry_id, r.rank, r.points, r.match_points, r.games_played)
                 for r in compute(event)]
        stored = list(Standing.objects.filter(event=event).order_by("rank", "entry_id")
                      .values_list("entry_id", "rank", "points", "match_points",
                                   "games_played"))
        same = sorted(fresh, key=lambda r: (r[1], r[0])) == stored
        w(f"standings: {len(stored)} rows stored; a recomputation from scratch gives "
          f"{'the same' if same else 'DIFFERENT'} ranks and points")
        if not same:
            problems.append("the stored standings differ from a recomputation")
        return problems

    def report(self, total, players, rounds) -> None:
        w = self.stdout.write
        w(f"\nfigures ({players} players, {rounds} rounds, {total:.0f} s in all; load average "
          f"now {loadavg()})")
        for line in self.figures.lines():
            w(line)
        w("  draw on the worker (request → drawn), per round: "
          + ", ".join(f"{t:.1f} s" for t in self.draw_times))
        w("  standings on the worker (last confirmation → covered), per round: "
          + ", ".join(f"{t:.1f} s" for t in self.standings_times))
