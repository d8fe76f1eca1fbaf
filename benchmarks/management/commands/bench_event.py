"""Benchmark a large individual event through the real services.

Players and entries are bulk-created (registration is not what is measured); every round is then
opened with :func:`tournaments.services.round_create`, drawn with
:func:`tournaments.services.round_draw`, given a full round of confirmed results (bulk inserts of
:class:`games.models.GameResult` rows whose ``engine_result`` comes from
:func:`engine.score_sheet` on random finishing orders) and the standings are recomputed with
:func:`tournaments.standings.standings_recompute`. It prints the time of each step, the repeated
对头 / partner / tablemate meetings of the stored seating against a plain shuffle, and the
machine. The event is fresh (its own slug) and is deleted afterwards unless ``--keep``.

Runs on SQLite (default) and PostgreSQL (``DATABASE_URL``).
"""

from __future__ import annotations

import datetime
import os
import platform
import random
import time
from contextlib import contextmanager

from django.core.management.base import BaseCommand
from django.db import connection, transaction
from django.utils import timezone

import engine
from games.models import GameResult, GameResultVersion
from tournaments import draw as draw_module
from tournaments import services, standings
from tournaments.models import Bye, Entry, Event, Player, Round, Seat, Standing, Table

BATCH = 2000


def random_sheet(rng: random.Random, rules: engine.Rules) -> dict:
    """A result sheet the engine accepts: any finishing order without revolutions or
    eliminations, and any 开点 flags when 打点 is played."""
    order = list(range(6))
    rng.shuffle(order)
    kaidian = [rng.random() < 0.5 for _ in range(6)] if rules["dadian"] else None
    return {"format": "gouji-sheet/1", "rules": rules.spec(), "leader": rng.randrange(6),
            "order": order, "revolutions": [], "eliminated": [], "burns": [],
            "kaidian": kaidian}


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
        self.timings: dict[str, list[float]] = {}
        w(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; database: {connection.vendor} "
          f"{connection.settings_dict.get('NAME')}; {datetime.date.today().isoformat()}")
        event = services.event_create(
            name="benchmark", slug=f"bench-{int(time.time())}-{rng.randrange(10**6)}",
            rounds_planned=rounds, games_per_match=games)
        w(f"event {event.slug}: {players} players, {rounds} rounds, {games} games per match, "
          f"rules {event.rules}")
        try:
            self._run(event, players, rounds, games, rng)
        finally:
            if not keep:
                with self._timed("delete the event"):
                    self._delete(event)
        w(f"total {time.perf_counter() - started:.1f} s"
          + ("" if keep else f" (deleting the event took {self.timings['delete the event'][0]:.1f} s)"))

    # ------------------------------------------------------------------ steps
    @contextmanager
    def _timed(self, label: str):
        t0 = time.perf_counter()
        yield
        self.timings.setdefault(label, []).append(time.perf_counter() - t0)

    def _run(self, event: Event, n_players: int, rounds: int, games: int, rng: random.Random):
        w = self.stdout.write
        with self._timed("players"), transaction.atomic():
            people = Player.objects.bulk_create(
                [Player(name=f"Bench {event.pk}-{i + 1:05d}") for i in range(n_players)],
                batch_size=BATCH)
            now = timezone.now()
            Entry.objects.bulk_create(
                [Entry(event=event, player=p, status=Entry.Status.CHECKED_IN, checked_in_at=now,
                       first_round=1) for p in people], batch_size=BATCH)
        w(f"{n_players} players and checked-in entries bulk-created in "
          f"{self.timings['players'][0]:.1f} s")
        w(f"{'round':>5} {'tables':>6} {'byes':>4} {'create':>7} {'draw':>6} {'sheets':>7} "
          f"{'store':>6} {'results':>7} {'standings':>9}")
        seatings = []
        sheet_rules = engine.Rules.from_spec(event.rules)
        for number in range(1, rounds + 1):
            with self._timed("create"):
                rnd = services.round_create(event=event)
            with self._timed("draw"):
                rnd = services.round_draw(round_id=rnd.pk)
            tables = list(Table.objects.filter(round=rnd).order_by("number").values_list(
                "pk", flat=True))
            byes = Bye.objects.filter(round=rnd).count()
            seatings.append(self._seating(rnd))
            with self._timed("sheets"):
                scored = []
                for table_id in tables:
                    for game in range(1, games + 1):
                        sheet = random_sheet(rng, sheet_rules)
                        res = engine.score_sheet(sheet)
                        assert res.get("ok"), res
                        scored.append((table_id, game, sheet, res))
            with self._timed("store"):
                self._store(scored)
            with self._timed("standings"):
                changed = standings.standings_recompute(event_id=event.pk, force=True)
            assert changed
            t = self.timings
            w(f"{number:>5} {len(tables):>6} {byes:>4} {t['create'][-1]:>6.2f}s "
              f"{t['draw'][-1]:>5.2f}s {t['sheets'][-1]:>6.2f}s {t['store'][-1]:>5.2f}s "
              f"{len(scored):>7} {t['standings'][-1]:>8.2f}s")
        self._summary(event, rounds, seatings)

    def _seating(self, rnd: Round) -> list[tuple[int, ...]]:
        tables: dict[int, list[int]] = {}
        for table_number, seat, entry_id in Seat.objects.filter(round=rnd).order_by(
                "table__number", "seat").values_list("table__number", "seat", "entry_id"):
            tables.setdefault(table_number, [0] * 6)[seat] = entry_id
        return [tuple(t) for t in tables.values()]

    def _store(self, scored, confirmed: bool = True):
        """One round of results (confirmed, or only submitted), as the services would store them
        (result + its first version), in bulk."""
        now = timezone.now()
        status = GameResult.Status.CONFIRMED if confirmed else GameResult.Status.SUBMITTED
        with transaction.atomic():
            results = GameResult.objects.bulk_create(
                [GameResult(table_id=table_id, number=game, version=1, status=status,
                            confirmed_at=now if confirmed else None,
                            points_a=res["team_points"][0], points_b=res["team_points"][1],
                            places=res["places"], void=res["void"], engine_result=res)
                 for table_id, game, _sheet, res in scored], batch_size=BATCH)
            GameResultVersion.objects.bulk_create(
                [GameResultVersion(result=result, version=1,
                                   kind=GameResultVersion.Kind.SHEET, payload=sheet,
                                   engine_result=res, points_a=result.points_a,
                                   points_b=result.points_b)
                 for result, (_t, _g, sheet, res) in zip(results, scored, strict=True)],
                batch_size=BATCH)

    def _summary(self, event: Event, rounds: int, seatings):
        w = self.stdout.write
        t = self.timings
        last = Round.objects.get(event=event, number=rounds)
        with self._timed("verify"):
            problems = services.round_verify(round=last)
        w(f"round {rounds} re-drawn from its public data in {t['verify'][0]:.2f} s: "
          f"{'verified' if not problems else 'NOT verified: ' + '; '.join(problems)}")
        players_drawn = len(last.draw_entries)
        ours = draw_module.repeat_stats(seatings)
        shuffle = draw_module.simulate(players_drawn, rounds, f"bench-{event.slug}",
                                       method="shuffle")
        w(f"repeats after {rounds} rounds   对头 opposite   partner   tablemate")
        for name, stats in (("service draw", ours), ("plain shuffle", shuffle)):
            w(f"  {name:<26} {stats['opposite_repeats']:>9} {stats['partner_repeats']:>9} "
              f"{stats['tablemate_repeats']:>11}")

        def mean(label):
            return sum(t[label]) / len(t[label])

        w(f"mean per round: create {mean('create'):.2f} s (fixes the entries and scores), "
          f"draw {mean('draw'):.2f} s, store {len(seatings[-1]) * event.games_per_match} "
          f"results {mean('store'):.2f} s (+ scoring the sheets {mean('sheets'):.2f} s), "
          f"standings {mean('standings'):.2f} s; last round: draw {t['draw'][-1]:.2f} s, "
          f"standings {t['standings'][-1]:.2f} s")
        stored = Standing.objects.filter(event=event).count()
        w(f"standings rows: {stored}")

    def _delete(self, event: Event):
        """Remove the benchmark's rows, children first (seats and entries protect players)."""
        with transaction.atomic():
            GameResultVersion.objects.filter(result__table__round__event=event).delete()
            GameResult.objects.filter(table__round__event=event).delete()
            Standing.objects.filter(event=event).delete()
            Seat.objects.filter(round__event=event).delete()
            Bye.objects.filter(round__event=event).delete()
            Table.objects.filter(round__event=event).delete()
            Round.objects.filter(event=event).delete()
            player_ids = list(Entry.objects.filter(event=event).values_list("player_id",
                                                                            flat=True))
            Entry.objects.filter(event=event).delete()
            for k in range(0, len(player_ids), BATCH):
                Player.objects.filter(pk__in=player_ids[k:k + BATCH]).delete()
            event.delete()
