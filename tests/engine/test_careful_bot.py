"""The careful bot (托管) yields (让牌) as its 联邦 needs, and only where the rules let it."""

from __future__ import annotations

import random

from engine.bots import CarefulBot, hosted_act
from engine.rules import Rules
from engine.testing import position


def _at_the_opposite(rules="dagang", mine="9S 9H 8D 8C 7D", mate="KS", lead="5S"):
    """Seat 0 leads ``lead``, seats 1 and 2 pass: seat 3, the 对头, is to act with ``mine``;
    its teammate two seats on (seat 5) holds ``mate``."""
    g = position(rules, {0: "5S 5H 6S 7S", 1: "4C 4D", 2: "4H 4S", 3: mine, 4: "JS JH",
                         5: mate}, leader=0)
    g.act(0, {"act": "play", "cards": lead.split()})
    g.act(1, {"act": "pass"})
    g.act(2, {"act": "pass"})
    assert g.turn == 3
    return g


def _choice(game):
    return CarefulBot(random.Random(0)).choose(game, game.turn)


def test_it_yields_to_a_teammate_holding_fewer_cards_and_answers_when_it_comes_back():
    g = _at_the_opposite()
    assert g.can_yield(3)
    assert _choice(g) == {"act": "yield"}
    assert hosted_act(g) == (3, {"act": "yield"})
    g.act(3, {"act": "yield"})
    g.act(4, {"act": "pass"})
    g.act(5, {"act": "pass"})  # its teammate passes too: the turn comes back to the yielder
    assert g.turn == 3 and not g.can_yield(3)
    act = _choice(g)
    assert act["act"] == "play"
    g.act(3, act)
    assert g.top_restricted  # only its 对头 (seat 0) may answer now


def test_it_does_not_yield_when_its_teammate_holds_more_cards():
    g = _at_the_opposite(mate="KS KH QS QH JD JC 10S 10H 9D 9C 8S")  # 11 cards, shown as 10+
    assert g.can_yield(3) and _choice(g)["act"] == "play"


def test_it_counts_cards_where_the_table_shows_only_10_plus():
    """Under ``show_counts: le10`` counts above 10 are not shown, but a seat that counts the
    cards (36, the public pre-play events, the plays) knows them: 11 is fewer than 12."""
    mine = "9S 9H 8D 8C 7D 7C 6D 6C 5D 5C 4S 4H"  # 12 cards
    mate = "KS KH QS QH JD JC 10S 10H 9D 9C 8S"  # 11 cards
    g = _at_the_opposite(mine=mine, mate=mate)
    assert g.view(3)["counts"][5] == "10+"
    assert _choice(g) == {"act": "yield"}
    assert _choice(_at_the_opposite(mine=mine, mate=mate + " 8H"))["act"] == "play"  # 12, not fewer


def test_it_never_yields_an_answer_that_takes_it_out():
    g = _at_the_opposite(mine="9S 9H", lead="5S 5H")
    assert g.can_yield(3)
    assert _choice(g) == {"act": "play", "cards": ["9S", "9H"]}


def test_it_never_yields_under_closer_last_where_a_yield_is_only_a_pass():
    g = _at_the_opposite(Rules("dagang", {"closer_last": True}))
    assert g.can_yield(3) and _choice(g)["act"] == "play"


def test_can_yield_only_for_the_opposite_at_its_turn_on_a_top_that_is_not_gouji():
    g = _at_the_opposite()
    assert [s for s in range(6) if g.can_yield(s)] == [3]
    g = position("dagang", {0: "AS AH 6S", 1: "4C", 2: "4H", 3: "KS KH", 4: "JS", 5: "QS"},
                 leader=0)
    g.act(0, {"act": "play", "cards": ["AS", "AH"]})  # A A: 够级, only the 对头 answers
    assert g.turn == 3 and not g.can_yield(3)
