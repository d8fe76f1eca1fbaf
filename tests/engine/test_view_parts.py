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


def test_a_seats_hand_in_its_view_is_its_cards_in_card_order_after_every_act():
    """The view's hand is kept between acts that leave a seat's cards alone
    (:meth:`engine.Game.sorted_hand`): through matches — tributes, 还贡 and 买3 move cards
    before play, plays and burns take them, a seat out or in revolution has none — every
    seat's view shows exactly what it holds, sorted, and a view's list is its own."""
    from engine.cards import sort_cards

    rng = random.Random(5)
    for preset in ("dagang", "online"):
        previous = None
        bots = [make_bot("heuristic", random.Random(rng.random())) for _ in range(6)]
        for number in range(3):  # (games after the first pay and return tributes)
            game = engine.Game(preset, engine.deal(rng), previous, first_game=number == 0)
            while True:
                for seat in range(6):
                    held = sort_cards(c for c, n in game.hands[seat].items() for _ in range(n))
                    shown = game.seat_view(seat)["hand"]
                    assert shown == held
                    shown.append("RJ")  # (a caller's list: the next view is not changed)
                    assert game.seat_view(seat)["hand"] == held
                if game.state == "over":
                    break
                game.act(*next_act(game, bots))
            previous = game.result()
