"""Hand-built positions for tests and rule demonstrations.

:func:`position` makes a :class:`Game` already in play with the hands you name (any number of
cards each), optionally with seats already finished, eliminated or revolted, so a rule can be
shown in a few moves instead of a full 36-card game. The cards nobody holds count as out of
play, so the 216-card accounting still holds.
"""

from __future__ import annotations

import random
from collections import Counter

from .cards import deal, full_set, parse_cards, sort_cards
from .game import Game
from .game.state import ST_PLAY


def position(rules="dagang", hands: dict | None = None, leader: int = 0, *,
             finished=(), eliminated=(), revolutionaries=(), waived=(), kaidian=None,
             smothered=()) -> Game:
    """A game in play with the given hands.

    ``hands`` maps seats to cards (``"3S 4H"`` or a list); unnamed seats that are not finished,
    eliminated or revolted get no cards, which is only sensible when they are out of play.
    ``finished`` lists seats in finishing order (头科 first). ``eliminated`` is a list of
    ``(seat, reason)``. ``revolutionaries`` gives their 对头 the 够死级 rights of the rules unless
    that 对头 is in ``waived``.
    """
    g = Game(rules, deal(random.Random(0)), live=False)
    hands = {s: sort_cards(parse_cards(c)) for s, c in (hands or {}).items()}
    total = Counter()
    for s in range(6):
        cards = hands.get(s, [])
        g.hands[s] = dict(Counter(cards))
        g.count[s] = len(cards)
        total.update(cards)
    rest = Counter(full_set())
    rest.subtract(total)
    if any(n < 0 for n in rest.values()):
        raise ValueError("the hands hold more than four of some card")
    g.out = +rest
    for s in revolutionaries:
        g.revolutionaries.append(s)
        g.deactivate(s)
    for s in waived:
        g.waived[s] = True
    g.stage = ST_PLAY
    g.settle_revolutions()
    for s in finished:
        g.deactivate(s)
        g.finish_order.append(s)
        g.last_out = s
    for s, reason in eliminated:
        g.deactivate(s)
        g.eliminated.append((s, reason))
    if kaidian:
        for s, v in kaidian.items():
            g.kaidian[s] = v
    if len(g.finish_order) >= 2:
        g.kaidian_closed = True
    g.smothers.extend(smothered)
    g.leader = leader
    g.state = "play"
    g.start_round(leader)
    return g


def make_deal(fixed: dict | None = None, seed: int = 0) -> list[list[str]]:
    """A full legal deal where seat ``s`` holds at least the cards ``fixed[s]``; the rest of the
    four decks is shuffled (with ``seed``) into the free places, 36 cards a seat."""
    fixed = {s: parse_cards(c) for s, c in (fixed or {}).items()}
    pool = Counter(full_set())
    for cards in fixed.values():
        pool.subtract(cards)
    if any(n < 0 for n in pool.values()):
        raise ValueError("the fixed cards hold more than four of some card")
    rest = list(pool.elements())
    random.Random(seed).shuffle(rest)
    hands = []
    for s in range(6):
        cards = list(fixed.get(s, []))
        if len(cards) > 36:
            raise ValueError(f"seat {s} is given more than 36 cards")
        need = 36 - len(cards)
        cards += rest[:need]
        rest = rest[need:]
        hands.append(sort_cards(cards))
    return hands


def record_for(rules, deal_hands, actions, *, leader=0, pre=(), previous=None, opening_seat=0,
               agreed=None) -> dict:
    """A ``gouji-record/1`` dict (for tests)."""
    rec = {
        "format": "gouji-record/1",
        "rules": rules,
        "opening_seat": opening_seat,
        "previous": previous,
        "deal": deal_hands,
        "pre": list(pre),
        "leader": leader,
        "actions": list(actions),
    }
    if agreed is not None:
        rec["agreed"] = agreed
    return rec
