"""Load-test result submission over HTTP: one round of a big event, every table's games 1 and 2
posted as full records to ``/api/v1/tables/{id}/results/``.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gouji_bench \\
        python manage.py bench_api --tables 1667

What it does:

1. creates the database if it is missing (PostgreSQL: ``createdb``) and migrates it;
2. builds an event of ``6 × tables`` checked-in players and draws round 1 through the services
   (the same ``round_create`` / ``round_draw`` / ``round_publish`` the API uses), then gives one
   seated player per table a login and an API token;
3. bot-plays games 1 and 2 of every table (``engine.bots.play_match``): a full record each;
4. starts gunicorn (sync workers, one per core by default) on a free port of 127.0.0.1 with the
   throttles raised; clients POST over keep-alive connections (``http.client``);
5. pass 1, the goal's scenario: game 1 of every table arrives at random times (a Poisson
   process) at ``--rate`` per second, by default the goal's pace (every table within 60 s),
   whatever the server does. Latency counts from each request's due time;
6. pass 2, capacity: game 2 of every table, posted back to back by ``--clients`` processes;
   the latency here is mostly waiting in line behind the other clients;
7. pass 3: pass 2's bodies again (duplicates): every answer must be 200 and no row may be
   added; after each pass it checks one result per table and game, each accepted by the engine;
8. stops gunicorn.

With ``--baseline`` pass 2's bodies, with their tokens, are also posted by the same clients,
just before and just after pass 2, to two ceilings, and the command prints each one's rate,
p50 and p99 and the submission's ratio to each (the goal: at least 0.5 of the minimal
project's rate, p99 under 50 ms):

- the in-stack bare view (:mod:`benchmarks.baseline`), served by the product's own gunicorn
  workers (:mod:`benchmarks.wsgi`): token, the product's parser, one insert, inside the
  product's middleware, authentication and throttles, so the ratio shows what the submission's
  own work costs;
- a minimal Django + DRF project (:mod:`benchmarks.minimal_drf`: token, DRF's JSON parser, one
  insert, no middleware) under the same gunicorn settings on the same PostgreSQL server, in its
  own database (``<name>_minimal``), its users given the same token keys: the ratio shows what
  the product's whole stack costs on top.

The load targets 127.0.0.1 only and is bounded: each pass posts each table once and gives up
after ``--timeout`` seconds. Data is left in the database (a new event per run).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from benchmarks.builders import published_round
from benchmarks.figures import percentile
from benchmarks.loadclient import Request, run_requests
from benchmarks.servers import Gunicorn, ensure_database, loadavg, minimal_database_url
from engine.bots import play_match
from games.models import GameResult, GameResultVersion
from tournaments.models import Entry

GOAL_SECONDS = 60
GOAL_P99_MS = 100
#: --baseline: result submission at least half as fast as the minimal DRF project's insert of
#: the same body, p99 under 50 ms with 8 clients
GOAL_RATIO = 0.5
GOAL_BASELINE_P99_MS = 50


class Command(BaseCommand):
    help = ("Benchmark result submission: gunicorn + N concurrent clients posting one full "
            "record per table over HTTP on 127.0.0.1; verifies nothing is lost or duplicated.")

    def add_arguments(self, parser):
        parser.add_argument("--tables", type=int, default=1667)
        parser.add_argument("--rate", type=float, default=None,
                            help="arrivals per second in pass 1 (default: the goal's pace, "
                                 "every table within 60 s)")
        parser.add_argument("--senders", type=int, default=16,
                            help="client processes sending pass 1's scheduled requests")
        parser.add_argument("--clients", type=int, default=8,
                            help="concurrent back-to-back clients in passes 2 and 3")
        parser.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                            help="gunicorn sync workers (default: one per core)")
        parser.add_argument("--seed", type=int, default=1, help="seed of the bot-played games")
        parser.add_argument("--timeout", type=float, default=300.0,
                            help="give a pass up after this many seconds")
        parser.add_argument("--port", type=int, default=None,
                            help="gunicorn's port on 127.0.0.1 (default: a free one)")
        parser.add_argument("--baseline", action="store_true",
                            help="also post pass 2's bodies, before and after pass 2, to a bare "
                                 "DRF insert view inside the product's stack (same workers, same "
                                 "database) and to a minimal Django + DRF project "
                                 "(benchmarks/minimal_drf: same gunicorn settings, same "
                                 "PostgreSQL server, its own database <name>_minimal); print "
                                 "the rate, p50 and p99 of each and the submission's ratio to "
                                 "each")

    # ------------------------------------------------------------------------- steps
    def handle(self, *args, tables, rate, senders, clients, workers, seed, timeout,
               baseline, port=None, **opts):
        if tables < 1 or clients < 1 or workers < 1 or senders < 1:
            raise CommandError("--tables, --senders, --clients and --workers must be at least 1")
        if rate is not None and rate <= 0:
            raise CommandError("--rate must be positive")
        rate = rate or tables / GOAL_SECONDS
        w = self.stdout.write
        ensure_database(self.stdout.write)
        db = connections["default"]
        w(f"database: {db.vendor} {db.settings_dict.get('NAME')}; {os.cpu_count()} cores, "
          f"{workers} gunicorn sync workers; load average {loadavg()}")
        if db.vendor == "sqlite":
            w(self.style.WARNING("SQLite serialises writers: the figures that matter are "
                                 "PostgreSQL's (set DATABASE_URL)"))

        t0 = time.perf_counter()
        rnd, seated = published_round(tables)
        w(f"event built and round 1 drawn through the services: {rnd.tables.count()} tables, "
          f"{Entry.objects.filter(event=rnd.event).count()} players "
          f"({time.perf_counter() - t0:.1f} s)")

        t0 = time.perf_counter()
        game1, game2 = self._jobs(rnd, seated, seed)
        w(f"{len(game1)} matches of 2 games bot-played ({time.perf_counter() - t0:.1f} s, "
          f"{sum(len(r.body) for r in game1 + game2) / (2 * len(game1)) / 1024:.1f} KB "
          f"per request body)")

        app = "benchmarks.wsgi:application" if baseline else "config.wsgi:application"
        server = Gunicorn(workers=workers, app=app, port=port).start()
        w(server.describe())
        port = server.port
        minimal = None
        problems = []
        try:
            if baseline:
                minimal = self._minimal_project(seated, workers, game2, clients, timeout)
            first, wall1 = run_requests(game1, senders, port, timeout=timeout, rate=rate,
                                        seed=seed)
            self._report(f"pass 1: game 1 of every table, arriving at random (Poisson) at "
                         f"{rate:.1f}/s, {senders} senders", game1, first, wall1, expect=201)
            p99 = percentile(sorted(r.seconds for r in first), 99) * 1000
            problems += self._verify(rnd, len(game1), 1, "after pass 1")

            ceilings = {"in-stack": [], "minimal": []}
            if baseline:
                self._ceilings(ceilings, game2, clients, port, minimal, timeout, "before pass 2")
            second, wall2 = run_requests(game2, clients, port, timeout=timeout)
            self._report(f"pass 2: game 2 of every table, {clients} clients back to back "
                         f"(capacity)", game2, second, wall2, expect=201)
            if baseline:
                self._ceilings(ceilings, game2, clients, port, minimal, timeout, "after pass 2")
                self._ratios(second, wall2, ceilings, clients)
            problems += self._verify(rnd, len(game1), 2, "after pass 2")
            met = wall2 <= GOAL_SECONDS and p99 < GOAL_P99_MS
            w(f"\ngoal: a round of {len(game1)} tables within {GOAL_SECONDS} s (pass 2: "
              f"{wall2:.1f} s back to back) and p99 < {GOAL_P99_MS} ms at the round's pace (pass "
              f"1: {p99:.1f} ms): "
              + (self.style.SUCCESS("met") if met else self.style.WARNING("not met")))

            before = self._counts(rnd)
            third, wall3 = run_requests(game2, clients, port, timeout=timeout)
            self._report("pass 3: game 2 again, the same bodies (duplicates)", game2, third,
                         wall3, expect=200)
            problems += self._verify(rnd, len(game1), 2, "after pass 3")
            after = self._counts(rnd)
            if after != before:
                problems.append(f"duplicates added rows: results/versions {before} → {after}")
            for name, results, expect in (("pass 1", first, 201), ("pass 2", second, 201),
                                          ("pass 3", third, 200)):
                wrong = sum(1 for r in results if r.status != expect)
                if wrong:
                    problems.append(f"{name}: {wrong} answer(s) not {expect}")
        finally:
            tail = server.stop()
            w("gunicorn stopped" + (f"; log tail:\n{tail}" if tail else ""))
            if minimal is not None:
                tail = minimal.stop()
                w("the minimal project's gunicorn stopped"
                  + (f"; log tail:\n{tail}" if tail else ""))
        if problems:
            raise CommandError("; ".join(problems))
        w(self.style.SUCCESS(f"OK: {2 * len(game1)} results stored once each, all accepted by "
                             f"the engine; duplicates added nothing"))

    def _jobs(self, rnd, tokens: dict, seed: int) -> tuple[list, list]:
        """Games 1 and 2 of every table as full records (game 2's tributes follow game 1)."""
        rng = random.Random(seed)
        games = ([], [])
        for table_id in sorted(tokens):
            headers = {"Authorization": f"Token {tokens[table_id]}",
                       "Content-Type": "application/json", "Accept": "application/json"}
            for number, game in enumerate(play_match(rnd.event.rules, 2, rng), 1):
                record = game.record()
                body = json.dumps({"number": number, "record": record},
                                  separators=(",", ":")).encode()
                games[number - 1].append(Request("POST", f"/api/v1/tables/{table_id}/results/",
                                                 headers, body, "POST results"))
        return games

    # ------------------------------------------------------------------------- baseline
    def _minimal_project(self, tokens: dict, workers: int, jobs, clients: int,
                         timeout: float) -> Gunicorn:
        """The minimal DRF project (:mod:`benchmarks.minimal_drf`) on its own database, its
        users holding the product's token keys, under gunicorn as the product is; warmed up
        (every worker's connection open) by a few of ``jobs``."""
        url = minimal_database_url()
        env = {"DJANGO_SETTINGS_MODULE": "benchmarks.minimal_drf.settings",
               "MINIMAL_DATABASE_URL": url}
        users = {key: f"table-{table_id}" for table_id, key in tokens.items()}
        done = subprocess.run([sys.executable, "-m", "benchmarks.minimal_drf.setup"],
                              input=json.dumps(users), text=True, capture_output=True,
                              env={**os.environ, **env}, check=False, timeout=300)
        if done.returncode:
            raise CommandError(f"the minimal project's set-up failed:\n{done.stderr[-2000:]}")
        self.stdout.write(f"{done.stdout.strip()}, database {urlsplit(url).path[1:]}")
        from benchmarks.minimal_drf.views import PATH

        server = Gunicorn(workers=workers, app="benchmarks.minimal_drf.wsgi:application",
                          env=env, ready=("/" + PATH, 401)).start()
        self.stdout.write(server.describe())
        warm = [self._to_minimal(job) for job in jobs[:4 * workers]]
        run_requests(warm, clients, server.port, timeout=timeout)
        return server

    @staticmethod
    def _to_minimal(job: Request) -> Request:
        from benchmarks.minimal_drf.views import PATH

        return Request("POST", "/" + PATH, job.headers, job.body, "POST minimal")

    def _ceilings(self, ceilings: dict, jobs, clients: int, port: int, minimal: Gunicorn,
                  timeout: float, when: str) -> None:
        """Post ``jobs``' bodies, with their tokens, to the in-stack bare view and to the
        minimal project; add each one's outcomes and wall time to ``ceilings``."""
        from benchmarks.baseline import PATH
        from benchmarks.models import BaselineRow

        bare = [Request("POST", "/" + PATH, job.headers, job.body, "POST baseline")
                for job in jobs]
        results, wall = run_requests(bare, clients, port, timeout=timeout)
        self._report(f"in-stack bare view {when}: the same bodies to a bare DRF insert inside "
                     f"the product's stack, {clients} clients back to back", bare, results,
                     wall, expect=201)
        ceilings["in-stack"].append((results, wall))
        BaselineRow.objects.all().delete()
        outside = [self._to_minimal(job) for job in jobs]
        results, wall = run_requests(outside, clients, minimal.port, timeout=timeout)
        self._report(f"minimal DRF project {when}: the same bodies, {clients} clients back to "
                     f"back", outside, results, wall, expect=201)
        ceilings["minimal"].append((results, wall))

    def _ratios(self, results, wall: float, ceilings: dict, clients: int) -> None:
        """The submission's rate, p50 and p99 beside each ceiling's (both its runs together),
        and its ratio to each; whether the goal against the minimal project is met."""
        def figures(runs) -> tuple[float, float, float]:
            latencies = sorted(r.seconds * 1000 for done, _wall in runs for r in done)
            total = sum(w for _done, w in runs)
            return (len(latencies) / total if total else 0.0, percentile(latencies, 50),
                    percentile(latencies, 99))

        rate, p50, p99 = figures([(results, wall)])
        w = self.stdout.write
        w(f"\nat {clients} clients (ceilings: both runs, before and after pass 2, together); "
          f"load average {loadavg()}")
        w(f"  {'':<22} {'per second':>10} {'p50 ms':>8} {'p99 ms':>8} {'submission ÷':>13}")
        w(f"  {'result submission':<22} {rate:>10.0f} {p50:>8.1f} {p99:>8.1f}")
        ratios = {}
        for name, title in (("in-stack", "in-stack bare view"), ("minimal", "minimal DRF")):
            c_rate, c_p50, c_p99 = figures(ceilings[name])
            ratios[name] = rate / c_rate if c_rate else float("nan")
            w(f"  {title:<22} {c_rate:>10.0f} {c_p50:>8.1f} {c_p99:>8.1f} "
              f"{ratios[name]:>13.2f}")
        met = ratios["minimal"] >= GOAL_RATIO and p99 < GOAL_BASELINE_P99_MS
        w(f"goal: submission >= {GOAL_RATIO} of the minimal project's rate ("
          f"{ratios['minimal']:.2f}) and p99 < {GOAL_BASELINE_P99_MS} ms ({p99:.1f}): "
          + (self.style.SUCCESS("met") if met else self.style.WARNING("not met")))

    # ------------------------------------------------------------------------- figures
    def _report(self, title: str, jobs, results, wall: float, expect: int) -> None:
        w = self.stdout.write
        latencies = sorted(r.seconds * 1000 for r in results)
        codes = Counter(r.status for r in results)
        w(f"\n{title}")
        w(f"  requests: {len(results)}; answers: "
          + ", ".join(f"{code or 'transport error'}×{n}" for code, n in sorted(codes.items())))
        w(f"  wall time: {wall:.2f} s; {len(results) / wall:.0f} submissions/s")
        w(f"  latency ms: p50 {percentile(latencies, 50):.1f}  p90 "
          f"{percentile(latencies, 90):.1f}  p99 {percentile(latencies, 99):.1f}  max "
          f"{latencies[-1] if latencies else float('nan'):.1f}")
        for r in [r for r in results if r.status != expect][:5]:
            w(self.style.WARNING(f"  unexpected {r.status}: "
                                 f"{r.body[:300].decode('utf-8', 'replace')}"))

    @staticmethod
    def _counts(rnd) -> tuple[int, int]:
        return (GameResult.objects.filter(table__round=rnd).count(),
                GameResultVersion.objects.filter(result__table__round=rnd).count())

    def _verify(self, rnd, tables: int, games: int, when: str) -> list[str]:
        rows = GameResult.objects.filter(table__round=rnd)
        count, versions = self._counts(rnd)
        distinct = rows.values("table_id", "number").distinct().count()
        ok = rows.filter(engine_result__ok=True).count()
        self.stdout.write(f"  check {when}: {count} GameResult rows ({distinct} distinct "
                          f"table/game), {versions} versions, {ok} with engine_result.ok")
        problems = []
        want = tables * games
        if count != want or distinct != want:
            problems.append(f"{when}: {count} results for {tables} tables × {games} games")
        if versions != want:
            problems.append(f"{when}: {versions} versions for {want} results")
        if ok != count:
            problems.append(f"{when}: {count - ok} result(s) without engine_result.ok")
        return problems

