"""Confirmations while the standings are being recomputed (the path ``load_event`` found slowest).

``python manage.py bench_confirm --players 10000`` builds an event through the services (players
and entries in bulk; two rounds drawn, their results stored confirmed and the standings computed,
so a recomputation has real work), draws round 3 and stores its results as submitted. Then:

1. it confirms ``--confirms`` results one by one with :func:`games.services.result_confirm` (as a
   referee) while nothing else runs: the baseline;
2. it confirms as many again while another thread recomputes the standings
   (:func:`tournaments.standings.standings_recompute` with ``force``) back to back, as the worker
   does while a round's confirmations arrive;

and prints p50/p99/max of each confirmation and how long one recomputation takes. On SQLite
writers are serialised anyway: run it on PostgreSQL (``DATABASE_URL``). The event is deleted
afterwards unless ``--keep``.
"""

from __future__ import annotations

import os
import random
import threading
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, connections

import engine
from benchmarks.event_bench import EventBench, random_sheet
from benchmarks.figures import percentile
from games import services as game_services
from games.models import GameResult
from tournaments import standings
from tournaments.models import Table
from tournaments.services.draws import round_draw
from tournaments.services.events import event_create
from tournaments.services.rounds import round_create


class Command(BaseCommand):
    help = "Time result confirmations with and without a standings recomputation running."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=10_000)
        parser.add_argument("--confirms", type=int, default=300,
                            help="confirmations timed in each phase")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--keep", action="store_true")

    def handle(self, *args, players, confirms, seed, keep, **opts):
        if connection.vendor != "postgresql":
            raise CommandError("run it on PostgreSQL (DATABASE_URL): SQLite serialises writers")
        w = self.stdout.write
        rng = random.Random(seed)
        bench = EventBench(w)
        event = event_create(name="confirm bench",
                                      slug=f"bench-confirm-{int(time.time())}",
                                      rounds_planned=3, games_per_match=2)
        referee = _referee(event)
        # The recomputation each confirmation queues is the worker's job; with eager Celery it
        # would run inside the confirmation. Here the second phase's thread plays the worker.
        queue, standings.standings_queue_recompute = (standings.standings_queue_recompute,
                                                      lambda *a, **k: False)
        try:
            rules = engine.Rules.from_spec(event.rules)
            bench.play_rounds(event, players, 2, 2, rng)  # two full rounds, standings computed
            rnd = round_create(event=event)
            rnd = round_draw(round_id=rnd.pk)
            scored = []
            for table_id in Table.objects.filter(round=rnd).values_list("pk", flat=True):
                for game in (1, 2):
                    sheet = random_sheet(rng, rules)
                    scored.append((table_id, game, sheet, engine.score_sheet(sheet)))
            bench.store(scored, confirmed=False)
            pending = list(GameResult.objects.filter(
                table__round=rnd, status=GameResult.Status.SUBMITTED).order_by("pk"))
            if len(pending) < 2 * confirms:
                raise CommandError(f"only {len(pending)} results to confirm; lower --confirms")
            w(f"\nround 3: {len(pending)} submitted results; timing {confirms} confirmations "
              f"in each phase")
            quiet = self._confirm(pending[:confirms], referee)
            self._line("nothing else running", quiet)
            busy, runs = self._confirm_while_recomputing(event.pk, pending[confirms:2 * confirms],
                                                         referee)
            self._line("standings recomputing", busy)
            w(f"  one standings recomputation: p50 {percentile(sorted(runs), 50):.2f} s, max "
              f"{max(runs):.2f} s ({len(runs)} runs); load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        finally:
            standings.standings_queue_recompute = queue
            if not keep:
                bench.delete(event)

    def _line(self, title: str, times: list[float]) -> None:
        ms = sorted(t * 1000 for t in times)
        self.stdout.write(f"  confirm, {title:<24} p50 {percentile(ms, 50):7.1f} ms   p99 "
                          f"{percentile(ms, 99):7.1f} ms   max {ms[-1]:7.1f} ms")

    def _confirm(self, results, referee) -> list[float]:
        times = []
        for result in results:
            t = time.perf_counter()
            game_services.result_confirm(result=result, by=referee, as_referee=True)
            times.append(time.perf_counter() - t)
        return times

    def _confirm_while_recomputing(self, event_id, results, referee):
        stop = threading.Event()
        runs: list[float] = []

        def recompute():
            try:
                while not stop.is_set():
                    t = time.perf_counter()
                    standings.standings_recompute(event_id=event_id, force=True)
                    runs.append(time.perf_counter() - t)
            finally:
                connections.close_all()

        thread = threading.Thread(target=recompute, daemon=True)
        thread.start()
        time.sleep(0.5)  # the first run is under way
        try:
            times = self._confirm(results, referee)
        finally:
            stop.set()
            thread.join()
        return times, runs


def _referee(event):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create(username=f"confirm-bench-{event.pk}")
    event.referees.add(user)
    return user
