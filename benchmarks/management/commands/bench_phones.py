"""``manage.py bench_phones``: ten thousand phones on event day (issue 54), through the
production layout.

Start the layout on ports of its own, then run this command with its environment (the same
database, Redis and static folder as the servers)::

    PROD_LOCAL_PORT=8560 PROD_LOCAL_DB=gouji_phones_prod THROTTLE_ANON=1000000/min \\
        deploy/prod-local start
    (set -a; . .prod-local/env; set +a; \\
     .venv/bin/python manage.py bench_phones --port 8560 --phones 10000 --seconds 60)

(Every simulated phone comes from 127.0.0.1, which the API's anonymous throttle counts as one
client: raise it for the run as above, or the polls count as 429s.)

It builds a published event of ``--tables`` tables (6 players each, round 1 published), then:

1. results and the desk alone for ``--alone`` seconds: the table's player posts a result, the
   referee confirms it (``--results-per-second``, about one a second during a 1,667-table
   round), the referee's desk polls its list every 3 s;
2. the same with ``--phones`` phones for ``--seconds`` (benchmarks/phones.py: leaderboard,
   find my table as its script does it, the table page, then polls every 5 s), shared out
   among ``--clients`` client processes so that one Python process does not limit their rate;
3. back to back for ``--compare`` seconds each, with 64 connections from the same client
   processes: the leaderboard's first page and a static file of its size, find-my-table's
   shards (each phone's own, as its name hashes) and a static file of a shard's size, and the
   search without the script (``seating/?q=``, a distinct page each), all through the same
   nginx.

It prints each page's rate, p50 and p99, the service processes' CPU (supervisord's children)
and the machine's, the static file's rate beside the pages', and the desk's and the
submissions' p99 with and without the phones.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

from benchmarks import machine, phones
from benchmarks.builders import published_round
from benchmarks.servers import children, loadavg
from engine.bots import play_match
from tournaments.models import Seat, Table
from tournaments.standings import standings_recompute
from web.seating_index import bucket, find_key, seating_index


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


class Command(BaseCommand):
    help = "Simulated phones on the public pages while results arrive (issue 54), via nginx."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int,
                            default=int(os.environ.get("PROD_LOCAL_PORT", 8480)),
                            help="nginx's HTTPS port of the running layout (PROD_LOCAL_PORT)")
        parser.add_argument("--dir", default=os.environ.get("PROD_LOCAL_DIR", ".prod-local"),
                            help="the layout's runtime folder (its certificate, supervisord)")
        parser.add_argument("--phones", type=int, default=10_000)
        parser.add_argument("--seconds", type=float, default=60.0,
                            help="how long the phones run")
        parser.add_argument("--alone", type=float, default=20.0,
                            help="how long results and the desk run without the phones")
        parser.add_argument("--compare", type=float, default=8.0,
                            help="seconds of each back-to-back comparison")
        parser.add_argument("--tables", type=int, default=1667)
        parser.add_argument("--results-per-second", type=float, default=1.0)
        parser.add_argument("--connections", type=int, default=256,
                            help="the phones' connections at most (shared out among clients)")
        parser.add_argument("--clients", type=int, default=2,
                            help="client processes the phones are shared out among")

    def handle(self, *args, **o):
        w = self.stdout.write
        run = Path(o["dir"]).resolve()
        cafile = run / "tls.crt"
        if not cafile.exists():
            raise CommandError(f"{cafile} is missing: start the layout (deploy/prod-local)")
        static_root = Path(settings.STATIC_ROOT or run / "static")
        if o["phones"] < 0 or o["tables"] < 2 or o["results_per_second"] <= 0 or \
                o["clients"] < 1:
            raise CommandError("--phones ≥ 0, --tables ≥ 2, --results-per-second > 0, "
                               "--clients ≥ 1")
        base = f"https://localhost:{o['port']}"
        w(f"building {o['tables']} tables ({6 * o['tables']} players)…")
        t0 = time.monotonic()
        plan = self._plan(base, o["tables"], o["results_per_second"])
        w(f"  built in {time.monotonic() - t0:.0f} s: event {plan.slug}")
        pids = self._service_pids(run)
        w(f"service processes (supervisord's): {len(pids)}; load average before: {loadavg()}")

        # 1. results and the desk alone
        alone, confirmed_alone, _cpu = phones.event_day(
            plan, phones=0, seconds=o["alone"], cafile=str(cafile),
            connections=o["connections"])
        # 2. the crowd
        cpu0, m0 = machine.cpu_seconds(pids), machine.cpu_times()
        crowd, confirmed, client_cpu = phones.event_day(
            plan, phones=o["phones"], seconds=o["seconds"], cafile=str(cafile),
            connections=o["connections"], clients=o["clients"])
        cpu1, m1 = machine.cpu_seconds(pids), machine.cpu_times()
        load = loadavg()
        w(f"\n{o['phones']} phones for {o['seconds']:.0f} s; {confirmed} results confirmed "
          f"meanwhile ({confirmed_alone} in {o['alone']:.0f} s without the phones)")
        w(f"{'page':<26} {'count':>7} {'per s':>7} {'p50 ms':>8} {'p99 ms':>8}  statuses")
        for label, n, rate, p50, p99, statuses in crowd.rows(o["seconds"]):
            w(f"{label:<26} {n:>7} {rate:>7.1f} {p50:>8.1f} {p99:>8.1f}  {statuses}")
        want = o["phones"] * (5 / o["seconds"] + (1 + 1 / 3) / phones.POLL_SECONDS)
        got = sum(len(v) for k, v in crowd.ms.items() if k not in (
            "desk page", "desk poll", "submit result", "confirm result"))
        w(f"phones' requests: {got / o['seconds']:.0f}/s reached of about {want:.0f}/s wanted "
          f"({o['clients']} client processes, {client_cpu / o['seconds']:.2f} cores)")
        used = machine.used(m0, m1)
        w(f"service CPU: {(cpu1 - cpu0) / o['seconds']:.2f} cores; machine: "
          + (f"{used.busy:.2f} of {os.cpu_count()} cores busy" if used else "unknown")
          + f"; load average after: {load}")
        for label in ("desk poll", "submit result", "confirm result"):
            with_, without = crowd.p99(label), alone.p99(label)
            if with_ is not None and without is not None:
                w(f"{label} p99: {with_:.1f} ms with the phones, {without:.1f} ms without "
                  f"({with_ / without:.2f}×)")

        # 3. static files of the same sizes, side by side with the pages
        board = f"{base}/e/{plan.slug}/leaderboard/"
        shards = [base + p.find for p in plan.phones]
        searches = [f"{base}/e/{plan.slug}/seating/?q={p.name.replace(' ', '+')}"
                    for p in plan.phones]
        static_urls = {}
        for name, url in (("leaderboard", board), ("shard", shards[0])):
            static = static_root / "bench-phones" / f"{name}-size.html"
            static.parent.mkdir(parents=True, exist_ok=True)
            static.write_bytes(b"x" * self._size(url, cafile))
            static.chmod(0o644)
            static.parent.chmod(0o755)
            static_urls[name] = f"{base}/static/bench-phones/{name}-size.html"
        compare = phones.Samples()
        runs = (("static (leaderboard's size)", [static_urls["leaderboard"]]),
                ("leaderboard page 1", [board]),
                ("static (a shard's size)", [static_urls["shard"]]),
                ("find: index shards", shards),
                ("find without script (?q=)", searches))
        for label, urls in runs:
            phones.closed_loop(urls, seconds=o["compare"], workers=64, cafile=str(cafile),
                               label=label, samples=compare, clients=o["clients"])
        w(f"\nback to back, 64 connections from {o['clients']} client processes, "
          f"{o['compare']:.0f} s each (leaderboard page 1: {self._size(board, cafile)} bytes, "
          f"a shard: {self._size(shards[0], cafile)} bytes)")
        rows = {r[0]: r for r in compare.rows(o["compare"])}
        for label, _urls in runs:
            _label, _n, rate, p50, p99, statuses = rows[label]
            static_rate = rows["static (a shard's size)" if "shard" in label or "find" in label else
                               "static (leaderboard's size)"][2]
            w(f"{label:<28} {rate:>8.1f}/s  p50 {p50:>6.1f} ms  p99 {p99:>6.1f} ms  "
              f"{rate / static_rate:>5.2f} of static  {statuses}")
        w(f"load average: {loadavg()}")

    # ------------------------------------------------------------------------- set-up
    def _plan(self, base: str, tables: int, rate: float) -> phones.Plan:
        rnd, tokens = published_round(tables)
        event = rnd.event
        standings_recompute(event_id=event.pk, force=True)  # every entry on the board
        User = get_user_model()
        referee = User.objects.create_user(username=f"{event.slug}-referee", password=None)
        event.referees.add(referee)
        token = Token.objects.create(user=referee)
        session = self._session(referee)
        numbers = dict(Table.objects.filter(round=rnd).values_list("pk", "number"))
        of = seating_index(rnd).buckets
        people = [phones.Phone(name=s.player.name,
                               table_page=f"/e/{event.slug}/rounds/1/tables/"
                                          f"{numbers[s.table_id]}/",
                               table_api=f"/api/v1/tables/{s.table_id}/",
                               find=f"/e/{event.slug}/rounds/1/find.json?k="
                                    f"{bucket(find_key(s.player.name), of)}&of={of}")
                  for s in Seat.objects.filter(round=rnd).select_related("player")]
        random.Random(1).shuffle(people)
        rng = random.Random(2)
        jobs = []
        for table_id in sorted(tokens):
            (game,) = play_match(event.rules, 1, rng)
            body = json.dumps({"number": 1, "record": game.record()},
                              separators=(",", ":")).encode()
            jobs.append((table_id, tokens[table_id], body))
        return phones.Plan(base=base, slug=event.slug, phones=people, results=iter(jobs),
                           referee_token=token.key, desk_cookie=session,
                           results_per_second=rate, desk_every=3.0)

    @staticmethod
    def _session(user) -> str:
        """A signed-in session for ``user`` (set-up data: what the sign-in page stores)."""
        from importlib import import_module

        store = import_module(settings.SESSION_ENGINE).SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.save()
        return store.session_key

    @staticmethod
    def _service_pids(run: Path) -> list[int]:
        try:
            pid = int((run / "supervisord.pid").read_text().strip())
        except (OSError, ValueError):
            return []
        return _descendants(pid)

    @staticmethod
    def _size(url: str, cafile: Path) -> int:
        import urllib.request

        context = phones.ssl_context(str(cafile))
        with urllib.request.urlopen(url, context=context, timeout=30) as r:
            return len(r.read())
