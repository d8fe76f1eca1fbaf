"""Events built for the benchmarks (and the fault test that reuses them): data set up through
the services, players and logins in bulk."""

from __future__ import annotations

import random
import time

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from benchmarks.servers import BENCH_EVENTS
from tournaments.models import MOVE_SECONDS_MAX, Entry, Player, Round, Seat
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_publish
from tournaments.services.rounds import round_create, round_publish


def published_round(tables: int) -> tuple[Round, dict[int, str]]:
    """6 × ``tables`` checked-in players, round 1 drawn and published; one seated player
    per table gets a login. Returns the round and ``{table_id: that player's API token}``."""
    stamp = f"{int(time.time())}-{random.randrange(10**6)}"
    slug = f"bench-{stamp}"
    event = event_create(name=f"bench {stamp}", slug=slug, rounds_planned=7,
                                  games_per_match=4)
    event_publish(event=event, published=True)  # players see published events
    # Set-up data, not what is measured: players in bulk, entries through the services.
    players = Player.objects.bulk_create(
        [Player(name=f"Bench {i + 1:05d}") for i in range(6 * tables)], batch_size=2000)
    with transaction.atomic():
        for player in players:
            entry_check_in(entry=entry_register(event=event,
                                                                  player=player))
    with transaction.atomic():
        rnd = round_create(event=event)
    rnd = round_draw(round_id=rnd.pk)  # what round_draw_task runs on a worker
    rnd = round_publish(round=rnd)
    seats = list(Seat.objects.filter(round=rnd, seat=0).select_related("player")
                 .order_by("table__number"))
    User = get_user_model()
    password = make_password(None)
    users = User.objects.bulk_create(
        [User(username=f"{slug}-t{s.table_id}", password=password) for s in seats],
        batch_size=2000)
    for seat, user in zip(seats, users, strict=True):
        seat.player.user = user
    Player.objects.bulk_update([s.player for s in seats], ["user"], batch_size=2000)
    tokens = Token.objects.bulk_create(
        [Token(key=Token.generate_key(), user=u) for u in users], batch_size=2000)
    return Round.objects.select_related("event").get(pk=rnd.pk), {
        s.table_id: t.key for s, t in zip(seats, tokens, strict=True)}


def live_round(tables: int) -> tuple[Round, list[tuple[int, list[str]]]]:
    """A published event of one-game matches with 6 × ``tables`` checked-in players, every
    one with a login, round 1 drawn and published: the round and ``[(table id, the seats'
    API tokens by seat)]`` in table order (``bench_live --streams``: thousands of seats).

    Its move time is the longest an event may have: the run measures play, and a game's clock
    runs from its start, while the other games start and 10,000 streams open — a minute on a
    slow host, when the sweep began to play the first games' seats (a 60 s move time) as play
    began, and their clients, out of step, met 409s and read their games again."""
    stamp = f"{int(time.time())}-{random.randrange(10**6)}"
    slug = f"{BENCH_EVENTS}{stamp}"
    event = event_create(name=f"Live bench {stamp}", slug=slug, rounds_planned=1,
                                  games_per_match=1, move_seconds=MOVE_SECONDS_MAX)
    event_publish(event=event, published=True)
    User = get_user_model()
    password = make_password(None)
    users = User.objects.bulk_create(
        [User(username=f"{slug}-{i}", password=password) for i in range(6 * tables)],
        batch_size=2000)
    players = Player.objects.bulk_create(
        [Player(name=f"Bench {i + 1:05d}", user=u) for i, u in enumerate(users)],
        batch_size=2000)
    tokens = {t.user_id: t.key for t in Token.objects.bulk_create(
        [Token(key=Token.generate_key(), user=u) for u in users], batch_size=2000)}
    # checked-in entries in bulk, as entry_register and entry_check_in leave them before
    # round 1 (through the services, 10,000 took 7 minutes on a loaded machine)
    now = timezone.now()
    Entry.objects.bulk_create(
        [Entry(event=event, player=p, late=False, first_round=1,
               status=Entry.Status.CHECKED_IN, checked_in_at=now) for p in players],
        batch_size=2000)
    with transaction.atomic():
        rnd = round_create(event=event)
    rnd = round_draw(round_id=rnd.pk)
    rnd = round_publish(round=rnd)
    by_table: dict[int, list[str]] = {}
    for table_id, user_id in (Seat.objects.filter(round=rnd)
                              .order_by("table__number", "seat")
                              .values_list("table_id", "player__user_id")):
        by_table.setdefault(table_id, []).append(tokens[user_id])
    return rnd, list(by_table.items())
