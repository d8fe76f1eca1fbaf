"""The seat rule (a user acts only from their own seat, at a table open to its players) gives
the same verdict on both act paths: the short path's conditional update
(:func:`live.services.live_act_planned`, :func:`live.services.store_planned`) stores exactly
the acts the locked path (:func:`live.services.live_act`) stores, and the locked path refuses
the others with the rule's code."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from live import services as live
from live.cache import games
from live.locks import lock_live
from live.models import LiveGame
from tests.live.helpers import bot_pick, make_live_table, server_game
from tournaments.errors import ServiceError
from tournaments.models import Event, Player, Round, Seat

pytestmark = pytest.mark.django_db


def _round_drawn(lt, seat):
    Round.objects.filter(pk=lt.table.round_id).update(status=Round.Status.DRAWN)


def _event_hidden(lt, seat):
    Event.objects.filter(pk=lt.event.pk).update(published=False)


def _reseated(lt, seat):
    """The seat is given to the stranger's player (a referee's correction)."""
    player = Player.objects.create(name=f"Stranger {lt.table.pk}", user=_stranger(lt))
    Seat.objects.filter(table=lt.table, seat=seat).update(player=player)


#: (case, who acts, the seat named: "own"/"other"/None, what changes first, the cache warm,
#: the locked path's refusal or None: stored)
CASES = [
    ("seated", "seated", None, None, True, None),
    ("seated, cold cache", "seated", None, None, False, None),
    ("seated, own seat named", "seated", "own", None, True, None),
    ("seated, another seat named", "seated", "other", None, True, "not_your_seat"),
    ("seating not published", "seated", None, _round_drawn, True, "not_seated"),
    ("seating not published, cold", "seated", None, _round_drawn, False, "not_seated"),
    ("event not published", "seated", None, _event_hidden, True, "not_seated"),
    ("not seated", "stranger", None, None, False, "not_seated"),
    ("referee", "referee", None, None, False, "not_seated"),
    ("anonymous", "anonymous", None, None, False, "not_seated"),
    ("reseated away", "seated", None, _reseated, True, "not_seated"),
    ("reseated here", "stranger", None, _reseated, False, None),
]


def _stranger(lt):
    """A user with no seat at the table (made once for it)."""
    return get_user_model().objects.get_or_create(username=f"seatless-{lt.table.pk}")[0]


def _user(lt, who, seat):
    return {"seated": lambda: lt.users[seat], "stranger": lambda: _stranger(lt),
            "referee": lambda: lt.referee_user, "anonymous": AnonymousUser}[who]()


@pytest.mark.parametrize("case, who, named, change, warm, refusal", CASES,
                         ids=[c[0] for c in CASES])
def test_both_act_paths_give_the_seat_rules_verdict(settings, case, who, named, change, warm,
                                                    refusal):
    lt = make_live_table()
    live_id = live.live_start(table=lt.table).pk
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    if warm:  # (this process has seen the seated player act: it knows their seat)
        with transaction.atomic():
            games.remember(lock_live(live_id, lt.users[seat]), lt.users[seat])
    else:
        games.clear()
    if change is not None:
        change(lt, seat)
    user = _user(lt, who, seat)
    seat_named = {"own": seat, "other": (seat + 1) % 6, None: None}[named]

    def short() -> bool:
        with transaction.atomic():
            made = live.live_act_planned(live_id=live_id, user=user, action=dict(action),
                                         version=game.version, seat=seat_named)
            stored = made is not None and live.store_planned(made) is not None
            transaction.set_rollback(True)
        return stored

    def locked() -> str | None:
        settings.LIVE_FAST_PATH = False
        try:
            with transaction.atomic():
                live.live_act(live_id=live_id, user=user, action=dict(action),
                              version=game.version, seat=seat_named)
                transaction.set_rollback(True)
        except ServiceError as exc:
            return exc.code
        finally:
            settings.LIVE_FAST_PATH = True
        return None

    assert (short(), locked()) == (refusal is None, refusal), case
    assert LiveGame.objects.get(pk=live_id).version == game.version  # (both rolled back)
