"""Benchmark a large individual event through the real services
(:class:`benchmarks.event_bench.EventBench`).

It prints the time of each step, the repeated 对头 / partner / tablemate meetings of the stored
seating against a plain shuffle, and the machine. The event is fresh (its own slug) and is
deleted afterwards unless ``--keep``.

Runs on SQLite (default) and PostgreSQL (``DATABASE_URL``).
"""

from __future__ import annotations

import datetime
import os
import platform
import random
import time

from django.core.management.base import BaseCommand
from django.db import connection

from benchmarks.event_bench import EventBench
from benchmarks.servers import vacuum_if_autovacuum_is_off
from tournaments.services.events import event_create


class Command(BaseCommand):
    help = ("Time draws, result storage and standings for a large individual event (default "
            "10,000 players, 7 rounds) and compare seating repeats with a plain shuffle.")

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=10_000)
        parser.add_argument("--rounds", type=int, default=7)
        parser.add_argument("--games", type=int, default=4, help="games per match")
        parser.add_argument("--seed", type=int, default=1, help="seed of the random results")
        parser.add_argument("--keep", action="store_true",
                            help="keep the benchmark event (deleted by default)")

    def handle(self, *args, players, rounds, games, seed, keep, **opts):
        w = self.stdout.write
        rng = random.Random(seed)
        started = time.perf_counter()
        bench = EventBench(w)
        w(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; database: {connection.vendor} "
          f"{connection.settings_dict.get('NAME')}; {datetime.date.today().isoformat()}")
        vacuum_if_autovacuum_is_off(w)
        event = event_create(
            name="benchmark", slug=f"bench-{int(time.time())}-{rng.randrange(10**6)}",
            rounds_planned=rounds, games_per_match=games)
        w(f"event {event.slug}: {players} players, {rounds} rounds, {games} games per match, "
          f"rules {event.rules}")
        try:
            bench.play_rounds(event, players, rounds, games, rng)
        finally:
            if not keep:
                with bench.timed("delete the event"):
                    bench.delete(event)
        w(f"total {time.perf_counter() - started:.1f} s"
          + ("" if keep else f" (deleting the event took {bench.timings['delete the event'][0]:.1f} s)"))
