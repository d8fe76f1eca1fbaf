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

With ``--baseline`` the same gunicorn workers also serve a bare DRF view that authenticates the
token, parses the body and inserts it as one row (:mod:`benchmarks.baseline`): pass 2's bodies
are posted to it by the same clients just before and just after pass 2, and the command prints
both rates and their ratio (the goal: at least 0.5), side by side in one run on one machine.

The load targets 127.0.0.1 only and is bounded: each pass posts each table once and gives up
after ``--timeout`` seconds. Data is left in the database (a new event per run).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from benchmarks.builders import published_round
from benchmarks.figures import percentile
from benchmarks.loadclient import Request, run_requests
from benchmarks.servers import Gunicorn, ensure_database, loadavg
from engine.bots import play_match
from games.models import GameResult, GameResultVersion
from tournaments.models import Entry

GOAL_SECONDS = 60
GOAL_P99_MS = 100
#: --baseline: result submission at least half as fast as a bare DRF insert of the same body,
#: p99 under 50 ms with 8 clients
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
                            help="also post pass 2's bodies to a bare DRF insert view (same "
                                 "workers, same database), before and after pass 2, and print "
                                 "the ratio of the rates")

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
        problems = []
        try:
            first, wall1 = run_requests(game1, senders, port, timeout=timeout, rate=rate,
                                        seed=seed)
            self._report(f"pass 1: game 1 of every table, arriving at random (Poisson) at "
                         f"{rate:.1f}/s, {senders} senders", game1, first, wall1, expect=201)
            p99 = percentile(sorted(r.seconds for r in first), 99) * 1000
            problems += self._verify(rnd, len(game1), 1, "after pass 1")

            if baseline:
                before_rate = self._baseline(game2, clients, port, timeout, "before pass 2")
            second, wall2 = run_requests(game2, clients, port, timeout=timeout)
            self._report(f"pass 2: game 2 of every table, {clients} clients back to back "
                         f"(capacity)", game2, second, wall2, expect=201)
            if baseline:
                after_rate = self._baseline(game2, clients, port, timeout, "after pass 2")
                self._ratio(second, wall2, (before_rate + after_rate) / 2)
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
    def _baseline(self, jobs, clients: int, port: int, timeout: float, when: str) -> float:
        """Post ``jobs``' bodies, with their tokens, to the bare insert view; its rate."""
        from benchmarks.baseline import PATH
        from benchmarks.models import BaselineRow

        bare = [Request("POST", "/" + PATH, job.headers, job.body, "POST baseline")
                for job in jobs]
        results, wall = run_requests(bare, clients, port, timeout=timeout)
        self._report(f"baseline {when}: the same bodies to a bare DRF insert view, {clients} "
                     f"clients back to back", bare, results, wall, expect=201)
        BaselineRow.objects.all().delete()
        return len(results) / wall if wall else 0.0

    def _ratio(self, results, wall: float, baseline_rate: float) -> None:
        rate = len(results) / wall if wall else 0.0
        p99 = percentile(sorted(r.seconds for r in results), 99) * 1000
        ratio = rate / baseline_rate if baseline_rate else float("nan")
        met = ratio >= GOAL_RATIO and p99 < GOAL_BASELINE_P99_MS
        self.stdout.write(
            f"\nresult submission {rate:.0f}/s against the bare DRF insert's {baseline_rate:.0f}/s "
            f"(mean of before and after): ratio {ratio:.2f}; p99 {p99:.1f} ms; goal ratio >= "
            f"{GOAL_RATIO} and p99 < {GOAL_BASELINE_P99_MS} ms: "
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
