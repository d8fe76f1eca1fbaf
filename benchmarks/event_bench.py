"""A large individual event through the real services, round by round: the work of
``bench_event`` and the set-up of ``bench_confirm``.

Players and entries are bulk-created (registration is not what is measured); every round is then
opened with :func:`tournaments.services.round_create`, drawn with
:func:`tournaments.services.round_draw`, given a full round of confirmed results (bulk inserts of
:class:`games.models.GameResult` rows whose ``engine_result`` comes from
:func:`engine.score_sheet` on random finishing orders) and the standings are recomputed with
:func:`tournaments.standings.standings_recompute`. The round's last game is stored awaiting
confirmation and then confirmed through :func:`games.services.result_confirm` (as a referee):
the ``update`` column is that confirmation with the standings recompute after it, the everyday
case of an event in progress (it starts from the standings stored through the round before);
the ``scratch`` column is the same standings read and computed from scratch (not written:
checked equal to the stored ones, every figure and rank). Results are bulk-inserted, not submitted through
``result_submit`` (``bench_api`` measures submission).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from contextlib import contextmanager

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

import engine
from games.models import GameResult, GameResultVersion
from games.services import result_confirm
from tournaments import draw as draw_module
from tournaments import standings
from tournaments.models import Bye, Entry, Event, Player, Round, Seat, Standing, Table
from tournaments.services.draws import round_draw, round_verify
from tournaments.services.rounds import round_create

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


class EventBench:
    """Times each step of an event's rounds (seconds per label in ``timings``) and writes a
    line per round to ``write``."""

    def __init__(self, write: Callable[[str], object]):
        self.write = write
        self.timings: dict[str, list[float]] = {}

    @contextmanager
    def timed(self, label: str):
        t0 = time.perf_counter()
        yield
        self.timings.setdefault(label, []).append(time.perf_counter() - t0)

    def play_rounds(self, event: Event, n_players: int, rounds: int, games: int,
                    rng: random.Random) -> None:
        """``n_players`` checked-in entries, then ``rounds`` rounds created, drawn, given
        confirmed results and standings; a line of timings per round, then the repeats of
        the seating against a plain shuffle."""
        w = self.write
        with self.timed("players"), transaction.atomic():
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
          f"{'store':>6} {'results':>7} {'standings':>9} {'update':>7} {'scratch':>7}")
        referee = get_user_model().objects.create_user(
            username=f"bench-referee-{event.slug}", password=None)
        event.referees.add(referee)
        seatings = []
        sheet_rules = engine.Rules.from_spec(event.rules)
        for number in range(1, rounds + 1):
            with self.timed("create"):
                rnd = round_create(event=event)
            with self.timed("draw"):
                rnd = round_draw(round_id=rnd.pk)
            tables = list(Table.objects.filter(round=rnd).order_by("number").values_list(
                "pk", flat=True))
            byes = Bye.objects.filter(round=rnd).count()
            seatings.append(self._seating(rnd))
            with self.timed("sheets"):
                scored = []
                for table_id in tables:
                    for game in range(1, games + 1):
                        sheet = random_sheet(rng, sheet_rules)
                        res = engine.score_sheet(sheet)
                        assert res.get("ok"), res
                        scored.append((table_id, game, sheet, res))
            with self.timed("store"):
                self.store(scored[:-1])
                last = self.store(scored[-1:], confirmed=False)[0]
            with self.timed("standings"):
                changed = standings.standings_recompute(event_id=event.pk, force=True)
            assert changed
            with self.timed("update"):  # (without a broker the confirmation's on-commit
                # recompute runs in-process, as a worker would run it)
                result_confirm(result=last, by=referee, as_referee=True)
                standings.standings_recompute(event_id=event.pk)
            with self.timed("scratch"):  # the same standings read and computed from scratch
                loaded = standings.load(event)
                rows = standings.compute(event, loaded=loaded)
                previous = {r.entry_id: r.rank for r in standings.compute(
                    event, number - 1, loaded)} if number > 1 else {}
            self._check(event, rows, previous)
            t = self.timings
            w(f"{number:>5} {len(tables):>6} {byes:>4} {t['create'][-1]:>6.2f}s "
              f"{t['draw'][-1]:>5.2f}s {t['sheets'][-1]:>6.2f}s {t['store'][-1]:>5.2f}s "
              f"{len(scored):>7} {t['standings'][-1]:>8.2f}s {t['update'][-1]:>6.2f}s "
              f"{t['scratch'][-1]:>6.2f}s")
        self._summary(event, rounds, seatings)

    @staticmethod
    def _check(event: Event, rows, previous) -> None:
        """The stored standings (from the last stored round and the results after it) are
        those computed from scratch: every figure, rank and previous rank."""
        fields = [*standings.STORED, "previous_rank"]
        stored = sorted(Standing.objects.filter(event=event).values_list("entry_id", *fields))
        scratch = sorted((r.entry_id, *(getattr(r, k) for k in standings.STORED),
                          previous.get(r.entry_id)) for r in rows)
        assert stored == scratch, "the stored standings differ from a computation from scratch"

    def _seating(self, rnd: Round) -> list[tuple[int, ...]]:
        tables: dict[int, list[int]] = {}
        for table_number, seat, entry_id in Seat.objects.filter(round=rnd).order_by(
                "table__number", "seat").values_list("table__number", "seat", "entry_id"):
            tables.setdefault(table_number, [0] * 6)[seat] = entry_id
        return [tuple(t) for t in tables.values()]

    def store(self, scored, confirmed: bool = True) -> list[GameResult]:
        """One round of results (confirmed, or only submitted), as the services would store them
        (result + its first version), in bulk; returns them."""
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
        return results

    def _summary(self, event: Event, rounds: int, seatings):
        w = self.write
        t = self.timings
        last = Round.objects.get(event=event, number=rounds)
        with self.timed("verify"):
            problems = round_verify(round=last)
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
          f"standings {mean('standings'):.2f} s, after one confirmation {mean('update'):.2f} s "
          f"(slowest {max(t['update']):.2f} s; from scratch {mean('scratch'):.2f} s, slowest "
          f"{max(t['scratch']):.2f} s); last round: draw {t['draw'][-1]:.2f} s, "
          f"standings {t['standings'][-1]:.2f} s")
        stored = Standing.objects.filter(event=event).count()
        w(f"standings rows: {stored}")

    def delete(self, event: Event):
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
            get_user_model().objects.filter(username=f"bench-referee-{event.slug}").delete()
