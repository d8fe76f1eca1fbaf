"""A duplicate (复式) event for the tests: players checked in, a round drawn and published, and
its board games played by bots through the live services (no HTTP)."""

from __future__ import annotations

import itertools
import random

from django.test import TestCase

from engine.bots import CarefulBot, HeuristicBot, next_act
from live import services as live
from live.models import LiveGame
from tests.factories import UserFactory
from tournaments.models import Table
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create
from tournaments.services.rounds import round_create, round_publish

_serial = itertools.count(1)


def duplicate_event(*, players: int = 12, games: int = 1, method: str = "mp", group: int = 2,
                    slug: str | None = None, name: str | None = None):
    """A published duplicate event with round 1 drawn and published: (event, round)."""
    tag = f"{random.randrange(10**9)}-{next(_serial)}"
    event = event_create(name=name or f"Duplicate {tag}", slug=slug or f"dup-{tag}",
                         games_per_match=games, rounds_planned=2, duplicate=method,
                         duplicate_group=group)
    event_publish(event=event)
    for i in range(players):
        player = player_create(name=f"Dup {tag} {i}",
                               user=UserFactory(username=f"dup-{tag}-{i}"))
        entry_check_in(entry=entry_register(event=event, player=player))
    rnd = round_publish(round=round_draw(round_id=round_create(event=event).pk))
    return event, rnd


def play_game(table: Table, number: int, seed: int = 0, careful: bool = False) -> LiveGame:
    """Deal game ``number`` of ``table`` live and have bots play it out (:func:`play_out`)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        lg = live.live_start(table=table, number=number)
    return play_out(lg.pk, seed, careful)


def play_out(live_id: int, seed: int = 0, careful: bool = False) -> LiveGame:
    """Have bots play live game ``live_id`` to its end through the services (``careful``:
    托管's careful bot, else the plain heuristic one), the on-commit work (the board's
    scoring) run as a commit would."""
    bot = CarefulBot if careful else HeuristicBot
    bots = [bot(random.Random(seed * 10 + s)) for s in range(6)]
    while True:
        lg = LiveGame.objects.get(pk=live_id)
        game = live.live_game(lg)
        if game.state == "over":
            return lg
        seat, action = next_act(game, bots)
        with TestCase.captureOnCommitCallbacks(execute=True):
            live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)
