"""An act's stored state is encoded with each act of its record encoded once, as it is made
(live.services._state_encoding): the JSON is the whole state's, after every act of a whole
game, for a game rebuilt from its state, and for a copy that goes another way."""

from __future__ import annotations

import copy
import random

import orjson

from engine import Game
from engine.bots import HeuristicBot, next_act
from engine.cards import deal
from live import fastjson
from live.services import _state_encoding


def _as_stored(game: Game):
    return orjson.loads(fastjson.encode(_state_encoding(game)))


def test_the_encoded_state_is_the_whole_state_after_every_act():
    bots = [HeuristicBot(random.Random(40 + i)) for i in range(6)]
    game = Game("dagang", deal(random.Random(4)))
    other = None
    while game.state != "over":
        assert _as_stored(game) == game.to_state(), f"at version {game.version}"
        game.act(*next_act(game, bots))
        if len(game.actions) == 40:
            other = copy.deepcopy(game)  # (its acts' encoding copied with it)
    assert _as_stored(game) == game.to_state()
    rebuilt = Game.from_state(game.to_state())
    assert _as_stored(rebuilt) == rebuilt.to_state() == game.to_state()
    # the copy goes another way from its 40th act: its own acts, never the original's
    seat, usual = next_act(other, bots)
    other.act(seat, next(a for a in reversed(other.legal_actions(seat)) if a != usual))
    while other.state != "over" and len(other.actions) < 80:
        other.act(*next_act(other, bots))
        assert _as_stored(other) == other.to_state()
    assert other.to_state()["record"]["actions"] != game.to_state()["record"]["actions"][:80]
