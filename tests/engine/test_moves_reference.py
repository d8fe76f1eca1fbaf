"""Move generation on rank counts (engine.game.moves) against the plain reference it replaced:
build every candidate combo, keep those that beat the top and meet the 烧牌 conditions. Both must
give the same plays in the same order, in every position of many bot games."""

from __future__ import annotations

import random

import pytest

from engine import Game, deal
from engine.bots import make_bot, next_act
from engine.cards import BJ, CARD_ORDER, CARD_RANK, RJ, TWO, beats, combo_of
from engine.game import legal_plays


def reference_plays(game, seat, top, burn):
    hand = game.hands[seat]
    if not hand:
        return
    by_rank: dict[int, list[str]] = {}
    for c in sorted(hand, key=CARD_ORDER.__getitem__):
        by_rank.setdefault(CARD_RANK[c], []).extend([c] * hand[c])
    twos = by_rank.pop(TWO, [])
    bjs = by_rank.pop(BJ, [])
    rjs = by_rank.pop(RJ, [])
    total = game.count[seat]
    strict = game.rules["strict_burn"]
    rj_any = game.rules["rj_beats_any"]
    burning_lead = top is None and game.burner == seat and strict
    size = top.size if top is not None else None

    def acceptable(cards):
        combo = combo_of(cards)
        if top is not None and not beats(combo, top, rj_any):
            return False
        if burning_lead and len(cards) != total and (
                not combo.has_joker or not game.can_keep_burning(seat, cards)):
            return False
        if burn and strict and not game.can_keep_burning(seat, cards):
            return False
        return True

    def extend(base, twos):
        for k in range(1, len(base) + 1):
            for t in range(len(twos) + 1):
                for b in range(len(bjs) + 1):
                    for j in range(len(rjs) + 1):
                        if size is not None and k + t + b + j != size:
                            continue
                        cards = base[:k] + twos[:t] + bjs[:b] + rjs[:j]
                        if acceptable(cards):
                            yield cards

    for rank, cards in by_rank.items():
        if game.rules["bie3"] and rank == 3:
            if top is None and len(cards) == total:
                yield list(cards)
            continue
        if top is not None and rank <= top.rank and not rj_any:
            continue
        yield from extend(cards, twos)
    if twos:
        yield from extend(twos, [])
    for b in range(len(bjs) + 1):
        for j in range(len(rjs) + 1):
            if b + j == 0 or (size is not None and b + j != size):
                continue
            cards = bjs[:b] + rjs[:j]
            if acceptable(cards):
                yield cards


@pytest.mark.parametrize("rules", [
    "dagang", "basic", "online",
    {"preset": "online", "options": {"rj_beats_any": True}},
    {"preset": "dagang", "options": {"strict_burn": False, "rj_beats_any": True}},
])
def test_move_generation_matches_the_reference(rules):
    rng = random.Random(str(rules))
    positions = 0
    for _ in range(12):
        game = Game(rules, deal(rng))
        bots = [make_bot("random" if s % 2 else "heuristic", random.Random(rng.random()))
                for s in range(6)]
        while game.state == "play" or game.state == "pre":
            if game.state == "play":
                for s in range(6):
                    top = None if game.leading else game.top
                    assert list(legal_plays(game, s)) == list(reference_plays(game, s, top, False))
                    if game.top is not None:
                        assert list(legal_plays(game, s, burn=True)) == list(
                            reference_plays(game, s, game.top, True))
                    positions += 1
            game.act(*next_act(game, bots))
    assert positions > 1000
