"""A view in two parts (engine.game.views): what depends on the seat looking, and what every
seat and spectator sees alike — the part live games' streams encode once per version."""

from __future__ import annotations

import random

import engine
from engine.bots import make_bot, next_act


def test_a_view_is_its_seat_part_and_its_public_part_and_nothing_else():
    rng = random.Random(11)
    for preset in ("dagang", "online"):  # (报牌 at ten or fewer; always)
        game = engine.Game(preset, engine.deal(rng))
        bots = [make_bot("heuristic", random.Random(rng.random())) for _ in range(6)]
        while True:
            public = game.public_view()
            assert not {"seat", "counts", "hand", "legal"} & set(public)
            for seat in (None, 0, 1, 2, 3, 4, 5):
                own = game.seat_view(seat)
                assert set(own) == ({"seat", "counts"} if seat is None else
                                    {"seat", "counts", "hand", "legal"})
                assert game.view(seat) == {**own, **public}
                assert game.public_view() == public  # (the same for every viewer)
            if game.state == "over":
                break
            game.act(*next_act(game, bots))
