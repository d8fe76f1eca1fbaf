"""Time the ratings: a recomputation from scratch and the re-rating after one change.

``python manage.py bench_ratings --players 10000 --games 100000`` stores synthetic confirmed
results directly (bulk inserts, no engine: random seating each round, a random winning 联邦 and
random places) in events that count for ratings — ``--events`` events, rounds of every player
seated, ``--per-match`` games per table — then times :func:`ratings.services.ratings_recompute`
and :func:`ratings.services.ratings_update` after a change in the last round and in the first
round of the last event. The events are deleted afterwards unless ``--keep``."""

from __future__ import annotations

import os
import random
import time

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from games.models import GameResult
from ratings import services as ratings
from ratings.models import PlayerRating, RatedResult, RatingPoint
from tournaments.models import Entry, Event, Player, Round, Seat, Table


class Command(BaseCommand):
    help = "Time a ratings recomputation and an incremental re-rating on synthetic results."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=10_000)
        parser.add_argument("--games", type=int, default=100_000)
        parser.add_argument("--events", type=int, default=3)
        parser.add_argument("--per-match", type=int, default=4)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--keep", action="store_true")

    def handle(self, *args, players, games, events, per_match, seed, keep, **opts):
        w = self.stdout.write
        w(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        rng = random.Random(seed)
        start = time.perf_counter()
        made = _build(rng, players, games, events, per_match)
        w(f"built {made['players']} players, {made['games']} confirmed games in "
          f"{made['rounds']} rounds of {events} events in {time.perf_counter() - start:.1f} s")
        try:
            start, cpu = time.perf_counter(), time.process_time()
            rated = ratings.ratings_recompute()
            w(f"recompute from scratch: {rated} games in {time.perf_counter() - start:.1f} s "
              f"(this process's CPU {time.process_time() - cpu:.1f} s; "
              f"{PlayerRating.objects.count()} ratings, {RatingPoint.objects.count()} points)")
            for label, rnd in (("last round", made["last_round"]),
                               ("first round of the last event", made["first_of_last"])):
                result = GameResult.objects.filter(table__round=rnd).order_by("pk").first()
                GameResult.objects.filter(pk=result.pk).update(
                    points_a=result.points_b, points_b=result.points_a, version=2)
                start, cpu = time.perf_counter(), time.process_time()
                rated = ratings.ratings_update(event_id=rnd.event_id)
                w(f"a correction in the {label}: {rated} games re-rated in "
                  f"{time.perf_counter() - start:.2f} s (CPU {time.process_time() - cpu:.2f} s)")
        finally:
            if not keep:
                _delete(made)


def _build(rng, n_players, n_games, n_events, per_match) -> dict:
    tables_per_round = n_players // 6
    rounds_total = max(1, round(n_games / (tables_per_round * per_match)))
    rounds_per_event = max(1, -(-rounds_total // n_events))
    stamp = int(time.time())
    now = timezone.now()
    with transaction.atomic():
        players = Player.objects.bulk_create(
            [Player(name=f"Bench {stamp} {i}", club=f"Club {i % 40}") for i in range(n_players)],
            batch_size=5000)
        ids = [p.pk for p in players]
        event_objs, rounds, made_games = [], [], 0
        for e in range(n_events):
            if len(rounds) >= rounds_total:
                break
            event = Event.objects.create(name=f"ratings bench {stamp} {e}",
                                         slug=f"ratings-bench-{stamp}-{e}", rated=True,
                                         games_per_match=per_match,
                                         rounds_planned=rounds_per_event)
            event_objs.append(event)
            entries = Entry.objects.bulk_create(
                [Entry(event=event, player_id=p, status=Entry.Status.CHECKED_IN) for p in ids],
                batch_size=5000)
            entry_of = {en.player_id: en.pk for en in entries}
            for r in range(1, rounds_per_event + 1):
                if len(rounds) >= rounds_total:
                    break
                rnd = Round.objects.create(
                    event=event, number=r, status=Round.Status.FINISHED, seed="bench",
                    commitment="bench", drawn_at=now + timezone.timedelta(
                        minutes=len(rounds)))
                rounds.append(rnd)
                Table.objects.bulk_create([Table(round=rnd, number=t + 1)
                                           for t in range(tables_per_round)], batch_size=5000)
                tables = list(Table.objects.filter(round=rnd).order_by("number")
                              .values_list("pk", flat=True))
                order = list(ids)
                rng.shuffle(order)
                seats, results = [], []
                for k, table_id in enumerate(tables):
                    for s in range(6):
                        p = order[6 * k + s]
                        seats.append(Seat(table_id=table_id, round=rnd, seat=s, player_id=p,
                                          entry_id=entry_of[p]))
                    for g in range(1, per_match + 1):
                        places = list(range(1, 7))
                        rng.shuffle(places)
                        a_wins = rng.random() < 0.5
                        results.append(GameResult(
                            table_id=table_id, number=g, status=GameResult.Status.CONFIRMED,
                            points_a=12 if a_wins else 0, points_b=0 if a_wins else 12,
                            places=places, confirmed_at=now))
                Seat.objects.bulk_create(seats, batch_size=5000)
                GameResult.objects.bulk_create(results, batch_size=5000)
                made_games += len(results)
    last_event_rounds = [r for r in rounds if r.event_id == event_objs[-1].pk]
    return {"players": len(ids), "player_ids": ids, "events": event_objs, "rounds": len(rounds),
            "games": made_games, "last_round": rounds[-1], "first_of_last": last_event_rounds[0]}


def _delete(made: dict) -> None:
    event_ids = [e.pk for e in made["events"]]
    with transaction.atomic():
        RatedResult.objects.filter(round__event_id__in=event_ids).delete()
        RatingPoint.objects.filter(event_id__in=event_ids).delete()
        PlayerRating.objects.filter(player_id__in=made["player_ids"]).delete()
        GameResult.objects.filter(table__round__event_id__in=event_ids).delete()
        Seat.objects.filter(round__event_id__in=event_ids).delete()
        Table.objects.filter(round__event_id__in=event_ids).delete()
        Round.objects.filter(event_id__in=event_ids).delete()
        Entry.objects.filter(event_id__in=event_ids).delete()
        Event.objects.filter(pk__in=event_ids).delete()
        Player.objects.filter(pk__in=made["player_ids"]).delete()
