"""Responding: who may act on the top, and when a round ends (RULES.md §5), with the worked
examples of RULES.md §14.

Positions come from ``engine.testing.position``; "→ n" in RULES.md §14 is checked as both
``game.turn`` and ``game.to_act()["seat"]``. Every act taken is first checked to be listed by
``game.legal_actions(seat)``; every refused act is checked for its RECORD.md code, a message
naming the acting seat, an unchanged state, and its absence from ``legal_actions``.
"""

from __future__ import annotations

import pytest

from engine import IllegalAction, parse_combo
from engine.testing import position

BASIC = "basic"
ONLINE = "online"
DAGANG_CLOSER_LAST = {"preset": "dagang", "options": {"closer_last": True}}


# --------------------------------------------------------------------------- helpers


def _action(kind: str, cards: str | None = None) -> dict:
    a = {"act": kind}
    if cards is not None:
        a["cards"] = cards.split()
    return a


def _signature(cards) -> tuple | None:
    try:
        c = parse_combo(cards)
    except ValueError:
        return None  # not a combo: never listed
    return (c.size, c.rank, c.kind, c.n_bj, c.n_rj, c.n_two)


def _listed(g, seat: int, action: dict) -> bool:
    legal = g.legal_actions(seat)
    if action["act"] in ("pass", "yield"):
        return {"act": action["act"]} in legal
    want = _signature(action["cards"])
    return want is not None and any(a["act"] == action["act"] and _signature(a["cards"]) == want for a in legal)


def do(g, seat: int, kind: str, cards: str | None = None) -> None:
    """Take an act, after checking it is the turn's seat and the act is listed as legal."""
    action = _action(kind, cards)
    assert g.turn == seat, f"expected seat {seat} to act, but the turn is seat {g.turn}"
    assert kind in g.to_act()["acts"], (kind, g.to_act())
    assert _listed(g, seat, action), (seat, action, g.legal_actions(seat))
    g.act(seat, action)


def assert_turn(g, seat: int, *, leading: bool = False) -> None:
    """"→ n" of RULES.md §14."""
    assert g.turn == seat
    assert g.to_act()["seat"] == seat
    assert g.leading is leading
    if leading:
        assert g.top is None
        assert g.to_act()["acts"] == ["play"]


def _snapshot(g) -> tuple:
    return (g.version, g.turn, list(g.count), g.owner, g.top, list(g.passed), len(g.actions),
            g.leading, g.yielder, [dict(h) for h in g.hands], g.state)


def assert_refused(g, seat: int, kind: str, cards: str | None, code: str) -> IllegalAction:
    """The act is refused with ``code``, the message names ``seat``, nothing changes, and
    ``legal_actions`` does not list it."""
    action = _action(kind, cards)
    listed_before = _listed(g, seat, action)
    before = _snapshot(g)
    with pytest.raises(IllegalAction) as info:
        g.act(seat, action)
    err = info.value
    assert err.code == code, (err.code, err.message)
    assert f"seat {seat}" in err.message, err.message
    assert _snapshot(g) == before
    assert not listed_before, (seat, action, g.legal_actions(seat))
    if code in ("not_entitled", "not_your_turn") and seat != g.turn:
        assert not [a for a in g.legal_actions(seat) if a["act"] in ("play", "pass", "yield")]
    return err


def assert_listed_acts(g, seat: int, *, play: bool, pass_: bool, yield_: bool) -> None:
    kinds = {a["act"] for a in g.legal_actions(seat)}
    assert ("play" in kinds) is play, kinds
    assert ("pass" in kinds) is pass_, kinds
    assert ("yield" in kinds) is yield_, kinds
    if g.turn == seat and not g.leading:
        assert ("yield" in g.to_act()["acts"]) is yield_


# Hands for the phase-1 examples; every seat keeps at least two cards throughout.
EX1_HANDS = {
    0: "4S 5S 10S",
    1: "4H 5H 10H",
    2: "7S 8S 9S",
    3: "4D 10C JC",
    4: "9D 10D JD",
    5: "4C 5C 10S",
}


# --------------------------------------------------------------------------- §14 examples


def test_example1_passed_seat_is_skipped_and_round_returns_to_owner():
    """§14 例1 / RULES.md §5 过牌: a seat that passed is skipped; the round ends (扣牌) when the
    turn is back at the owner, who wins and leads."""
    g = position(BASIC, EX1_HANDS, leader=2)
    # given: seat 2 leads 7S (not 够级)
    do(g, 2, "play", "7S")
    assert_turn(g, 3)
    do(g, 3, "pass")
    assert_turn(g, 4)
    do(g, 4, "play", "9D")
    assert_turn(g, 5)
    # seat 3 passed in this round: it may not answer 9D even though 10C would beat it
    assert_refused(g, 3, "play", "10C", "not_entitled")
    do(g, 5, "pass")
    assert_turn(g, 0)
    do(g, 0, "pass")
    assert_turn(g, 1)
    do(g, 1, "pass")
    # → 2: it has not passed in this round
    assert_turn(g, 2)
    assert_refused(g, 3, "play", "10C", "not_entitled")
    # when: seat 2 passes; seat 3 is skipped (passed, and not seat 4's 对头)
    do(g, 2, "pass")
    # then: the turn is back at seat 4, which wins the round and leads
    assert_turn(g, 4, leading=True)
    assert g.count == [3, 3, 2, 3, 2, 3]


def test_example2_gouji_top_only_opposite_answers():
    """§14 例2 / RULES.md §5 够级: a 够级 combo is answered only by its owner's 对头; the winner
    of a 够级 round 开点s under 打点."""
    g = position("dagang", {
        0: "4S 5S",
        1: "4H 5H",
        2: "QS QH QD 6S 7S",
        3: "AS AH AD 4D 5D",
        4: "4C 5C",
        5: "KS KH KD 6H 7H",
    }, leader=2)
    # given: seat 2 leads QQQ (够级) → only seat 5, its 对头
    do(g, 2, "play", "QS QH QD")
    assert_turn(g, 5)
    assert_listed_acts(g, 5, play=True, pass_=True, yield_=False)
    # seat 3 could beat it but is not entitled
    err = assert_refused(g, 3, "play", "AS AH AD", "not_entitled")
    assert "seat 5" in err.message
    # when: seat 5 plays KKK → only seat 2 is entitled
    do(g, 5, "play", "KS KH KD")
    assert_turn(g, 2)
    assert_refused(g, 3, "play", "AS AH AD", "not_entitled")
    # then: seat 2 passes → seat 5 wins the round and has 开点ed
    do(g, 2, "pass")
    assert_turn(g, 5, leading=True)
    assert g.kaidian[5] is True


def test_example3_yield_lets_next_two_act_then_restricts_the_yielders_combo():
    """§14 例3 / RULES.md §5 让牌: the 对头 yields, the next two act first, then the yielder plays;
    its combo may be answered only by its owner's 对头."""
    g = position(BASIC, {
        0: "JS 5S",
        1: "6C 4H 5H",
        2: "4D 5D 9D",
        3: "9H 5C",
        4: "8C 9C 10C",
        5: "10H 4C",
    }, leader=1)
    # given: seat 1 leads 6C; seats 2 and 3 pass
    do(g, 1, "play", "6C")
    assert_turn(g, 2)
    assert_listed_acts(g, 2, play=True, pass_=True, yield_=False)
    do(g, 2, "pass")
    assert_turn(g, 3)
    do(g, 3, "pass")
    assert_turn(g, 4)
    assert_listed_acts(g, 4, play=True, pass_=True, yield_=True)
    # when: seat 4 (seat 1's 对头) yields → 5
    do(g, 4, "yield")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 0)
    do(g, 0, "pass")
    # → 4 again; a second yield is no longer offered
    assert_turn(g, 4)
    assert_listed_acts(g, 4, play=True, pass_=True, yield_=False)
    do(g, 4, "play", "8C")
    # then: only seat 1 may answer it → 1
    assert_turn(g, 1)
    for s, cards in ((2, "9D"), (3, "9H"), (5, "10H"), (0, "JS")):
        assert_refused(g, s, "play", cards, "not_entitled")


def test_example4_no_head_seat_is_entitled_after_the_opposite():
    """§14 例4 / RULES.md §5 rule 3, §6 无头: seat 0 finished as 头科, so seat 3 is 无头 and may
    answer seat 5's 够级 combo after seat 2 (seat 5's 对头); seat 1 may not."""
    g = position(BASIC, {
        1: "2S 2H 4H",
        2: "2D 2C 4D",
        3: "KD KC 2S 2H 5D",
        4: "4C 5C",
        5: "AS AH 6H",
    }, leader=5, finished=[0])
    # given: seat 5 leads AS AH (够级)
    do(g, 5, "play", "AS AH")
    # seat 0 is out and seat 1 not entitled → 2
    assert_turn(g, 2)
    assert_refused(g, 1, "play", "2S 2H", "not_entitled")
    assert_listed_acts(g, 3, play=False, pass_=False, yield_=False)
    # when: seat 2 passes → 3 (无头)
    do(g, 2, "pass")
    # then
    assert_turn(g, 3)
    assert_listed_acts(g, 3, play=True, pass_=True, yield_=False)
    do(g, 3, "play", "2S 2H")
    # seat 3 is 无头: anyone who has not passed may beat its combo, 够级 or not → 4
    assert_turn(g, 4)


def test_example5_four_way_free_for_all_passed_seat_plays_again():
    """§14 例5 / RULES.md §5 四户乱缠: with 头科 and 二科 out, anyone may answer a 够级 combo in
    turn, and a seat that passed may still play later in the same round."""
    g = position(BASIC, {
        2: "QS QH QD QC 4S",
        3: "JS JH JD JC 5S",
        4: "KS KH KD KC 6S",
        5: "AS AH AD AC 7S",
    }, leader=3, finished=[0, 1])
    # given: seat 3 leads four Jacks (够级 in phase 1); anyone may answer in turn
    do(g, 3, "play", "JS JH JD JC")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 2)
    do(g, 2, "play", "QS QH QD QC")
    assert_turn(g, 3)
    do(g, 3, "pass")
    # when: seat 4, which passed on the Jacks, plays on in the same round
    assert_turn(g, 4)
    do(g, 4, "play", "KS KH KD KC")
    # then: seat 5 (also passed before) may play too
    assert_turn(g, 5)
    do(g, 5, "play", "AS AH AD AC")
    assert_turn(g, 2)
    do(g, 2, "pass")
    assert_turn(g, 3)
    do(g, 3, "pass")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 5, leading=True)


# --------------------------------------------------------------------------- phase 1


def test_opposite_is_entitled_even_after_passing():
    """对头 (RULES.md §5 rule 1, 大纲 第十一条): the owner's 对头 is always entitled, even after
    passing earlier in the round."""
    g = position(BASIC, {
        0: "5S 4S 4C",
        1: "4H 8S 9H",
        2: "4D 5D",
        3: "5H 6H",
        4: "7S 9S 10S",
        5: "5C 6C",
    }, leader=0)
    do(g, 0, "play", "5S")
    do(g, 1, "pass")
    do(g, 2, "pass")
    do(g, 3, "pass")  # seat 3 is seat 0's 对头: it passes
    assert_turn(g, 4)
    do(g, 4, "play", "7S")  # new top; seat 4's 对头 is seat 1, which has passed
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 0)
    do(g, 0, "pass")
    # seat 1 passed, but it is the 对头 of the owner: entitled
    assert_turn(g, 1)
    do(g, 1, "play", "8S")
    # seats 2 and 3 passed and are skipped; seat 4 is seat 1's 对头 → 4
    assert_turn(g, 4)
    do(g, 4, "play", "9S")
    # seat 1 again, as seat 4's 对头
    assert_turn(g, 1)


def test_non_gouji_top_answered_in_turn_by_seats_that_have_not_passed():
    """非够级牌 (RULES.md §5 rule 2): every seat that has not passed may answer a non-够级 top,
    in order owner+1, owner+2, …, including an earlier owner."""
    g = position(BASIC, {
        0: "4S 10S 5S",
        1: "5H 4H",
        2: "6S 4D",
        3: "7S 5D",
        4: "8S 4C",
        5: "9S 5C",
    }, leader=0)
    do(g, 0, "play", "4S")
    assert_turn(g, 1)
    do(g, 1, "play", "5H")
    assert_turn(g, 2)
    do(g, 2, "play", "6S")
    assert_turn(g, 3)
    do(g, 3, "play", "7S")
    assert_turn(g, 4)
    do(g, 4, "play", "8S")
    assert_turn(g, 5)
    do(g, 5, "play", "9S")
    # seat 0 led and has not passed: it may answer
    assert_turn(g, 0)
    do(g, 0, "play", "10S")
    assert_turn(g, 1)


def test_gouji_top_only_the_opposite_is_asked():
    """够级 (RULES.md §5): seats that are not the owner's 对头 are skipped on a 够级 top, even if
    they never passed; when the 对头 passes, the round ends."""
    g = position(BASIC, {
        0: "KS KH 4S",
        1: "AS AH 4H",
        2: "AD AC 4D",
        3: "5S 5H",
        4: "2S 2H 4C",
        5: "5D 5C",
    }, leader=0)
    do(g, 0, "play", "KS KH")
    # → 3 (seat 0's 对头); seats 1 and 2 are skipped
    assert_turn(g, 3)
    for s in (1, 2, 4):
        assert_listed_acts(g, s, play=False, pass_=False, yield_=False)
    assert_refused(g, 1, "play", "AS AH", "not_entitled")
    assert_refused(g, 4, "play", "2S 2H", "not_entitled")
    assert_refused(g, 3, "yield", None, "illegal_yield")
    do(g, 3, "pass")
    assert_turn(g, 0, leading=True)


def test_no_head_owner_may_be_answered_by_anyone_who_has_not_passed():
    """无头 (RULES.md §5 rule 3): a 够级 combo of a 无头 seat may be beaten by any seat that has
    not passed; a 无头 seat may answer anyone's 够级 combo."""
    g = position(BASIC, {
        1: "4H 5H",
        2: "AS AH 4D",
        3: "KS KH 2S 2H 4S",
        4: "4C 5C",
        5: "5D 6D",
    }, leader=3, finished=[0])
    # seat 0 (seat 3's 对头) finished: seat 3 is 无头
    do(g, 3, "play", "KS KH")
    # not the 对头 rule: seat 4 is first in order
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 1)
    do(g, 1, "pass")
    assert_turn(g, 2)
    do(g, 2, "play", "AS AH")
    # seat 2's 对头 is 5 (passed but entitled); seat 3 is 无头 and has not passed: it comes first
    assert_turn(g, 3)
    do(g, 3, "play", "2S 2H")
    # seat 3 is 无头: seat 4 passed → skipped; seat 5 passed → skipped; 1 passed; 2 has not passed
    assert_turn(g, 2)


def test_leader_must_play_not_pass():
    """上班/出牌 (RULES.md §4.4, §5): the leader plays any legal combo; it cannot pass."""
    g = position(BASIC, EX1_HANDS, leader=2)
    assert_refused(g, 2, "pass", None, "not_entitled")
    assert_refused(g, 2, "yield", None, "illegal_yield")
    assert_turn(g, 2, leading=True)


def test_acting_out_of_turn_is_refused():
    """轮次 (RULES.md §5): an entitled seat acts only when the turn reaches it."""
    g = position(BASIC, EX1_HANDS, leader=2)
    do(g, 2, "play", "7S")
    assert_turn(g, 3)
    # seat 4 is entitled on 7S but must wait for seat 3
    assert_refused(g, 4, "play", "9D", "not_your_turn")
    assert_refused(g, 4, "pass", None, "not_your_turn")
    assert_refused(g, 0, "pass", None, "not_your_turn")


def test_answer_must_beat_the_top():
    """上牌 (RULES.md §3, §5): an entitled seat plays a combo that beats the top, or passes."""
    g = position(BASIC, EX1_HANDS, leader=2)
    do(g, 2, "play", "9S")
    assert_turn(g, 3)
    assert_refused(g, 3, "play", "4D", "does_not_beat")
    assert_refused(g, 3, "play", "10C JC", "bad_combo")
    do(g, 3, "play", "10C")
    assert_turn(g, 4)


# --------------------------------------------------------------------------- 让牌


def _yield_position(rules=BASIC):
    return position(rules, {
        0: "4S 5S 8S",
        1: "6C 4H 5H",
        2: "4D 5D",
        3: "7D 5C",
        4: "8C 9C 10C",
        5: "7H 4C",
    }, leader=1)


def test_yield_lets_next_two_act_first():
    """让牌 (RULES.md §5, 大纲 第十二条): after the 对头 yields, the next two seats act before it."""
    g = _yield_position()
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    do(g, 4, "yield")
    assert_turn(g, 5)
    assert_refused(g, 4, "play", "8C", "not_your_turn")
    do(g, 5, "pass")
    assert_turn(g, 0)
    do(g, 0, "pass")
    assert_turn(g, 4)


def test_yielder_passing_afterwards_closes_the_round():
    """让牌/扣牌 (RULES.md §5): when the yielder acts again and passes, the round ends (扣牌);
    the owner wins and leads."""
    g = _yield_position()
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    do(g, 4, "yield")
    do(g, 5, "pass")
    do(g, 0, "pass")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 1, leading=True)


def test_yielders_combo_answered_only_by_its_owners_opposite():
    """让牌 restricted (RULES.md §5, 大纲 第十二条): a combo played after yielding may be answered
    only by its owner's 对头; if that seat passes, the yielder wins the round."""
    g = _yield_position()
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    do(g, 4, "yield")
    do(g, 5, "pass")
    do(g, 0, "pass")
    do(g, 4, "play", "8C")
    assert_turn(g, 1)
    assert_refused(g, 0, "play", "8S", "not_entitled")
    do(g, 1, "pass")
    assert_turn(g, 4, leading=True)


def test_yield_counts_as_a_pass_for_entitlement():
    """让牌 (RULES.md §5): a yield counts as a pass — when one of the next two beats the top,
    the yielder (not that seat's 对头) is skipped for the rest of the round."""
    g = _yield_position()
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    do(g, 4, "yield")
    assert_turn(g, 5)
    do(g, 5, "play", "7H")
    # owner 5, its 对头 is 2; 0 and 1 have not passed
    assert_turn(g, 0)
    do(g, 0, "pass")
    assert_turn(g, 1)
    do(g, 1, "pass")
    assert_turn(g, 2)
    assert_refused(g, 4, "play", "8C", "not_entitled")
    do(g, 2, "pass")
    # seat 3 passed, seat 4 yielded: both skipped → back to seat 5
    assert_turn(g, 5, leading=True)


def test_yield_when_one_of_the_next_two_is_skipped():
    """让牌 (RULES.md §5): "if both pass (or are skipped), the yielder acts again" — a seat that
    passed earlier in the round is skipped, and the yielder gets the turn back."""
    g = position(BASIC, {
        0: "4S 5S",
        1: "6C 4H 5H",
        2: "4D 5D",
        3: "7D 5C",
        4: "8C 9C 10C",
        5: "4C 7H 8H",
    }, leader=5)
    do(g, 5, "play", "4C")
    do(g, 0, "pass")  # seat 0 passes in this round
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    assert_turn(g, 4)
    do(g, 4, "yield")
    # seat 5 has not passed in this round → 5
    assert_turn(g, 5)
    do(g, 5, "pass")
    # seat 0 passed before: skipped → the yielder again
    assert_turn(g, 4)
    assert_listed_acts(g, 4, play=True, pass_=True, yield_=False)


def test_yield_when_the_next_seat_has_finished():
    """让牌 (RULES.md §5): a finished seat among the next two is skipped."""
    g = position(BASIC, {
        1: "6C 4H 5H",
        2: "4D 5D",
        3: "7D 5C",
        4: "8C 9C 10C",
        5: "4C 7H 8H",
    }, leader=1, finished=[0])
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    do(g, 4, "yield")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 4)
    assert_refused(g, 0, "pass", None, "not_your_turn")


def test_only_the_opposite_may_yield():
    """让牌 (RULES.md §5): only the owner's 对头 may yield; another seat's yield is refused
    (illegal_yield) and not listed."""
    g = _yield_position()
    do(g, 1, "play", "6C")
    assert_turn(g, 2)
    assert_listed_acts(g, 2, play=False, pass_=True, yield_=False)
    assert_refused(g, 2, "yield", None, "illegal_yield")
    do(g, 2, "pass")
    assert_refused(g, 3, "yield", None, "illegal_yield")
    assert_turn(g, 3)


def test_yield_on_gouji_top_is_refused():
    """让牌/够级 (RULES.md §5): the 对头 may not yield on a 够级 top (illegal_yield)."""
    g = position(BASIC, {
        0: "4S 5S",
        1: "4H 5H",
        2: "QS QH QD 6S",
        3: "4D 5D",
        4: "4C 5C",
        5: "KS KH KD 6H",
    }, leader=2)
    do(g, 2, "play", "QS QH QD")
    assert_turn(g, 5)
    assert_listed_acts(g, 5, play=True, pass_=True, yield_=False)
    err = assert_refused(g, 5, "yield", None, "illegal_yield")
    assert "让" in err.message or "yield" in err.message


def test_yielding_twice_is_refused():
    """让牌 (RULES.md §5): a yielder that gets the turn back plays or passes; a second yield is
    refused (illegal_yield)."""
    g = _yield_position()
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    do(g, 4, "yield")
    do(g, 5, "pass")
    do(g, 0, "pass")
    assert_turn(g, 4)
    assert_refused(g, 4, "yield", None, "illegal_yield")
    assert_turn(g, 4)


# --------------------------------------------------------------------------- closer_last


@pytest.mark.parametrize("rules", [ONLINE, DAGANG_CLOSER_LAST], ids=["online", "dagang+option"])
def test_closer_last_opposite_asked_again_after_all_pass(rules):
    """扣牌/closer_last (RULES.md §5, 003): the owner's 对头 that passed before the others acted is
    asked once more after everyone else has passed, and may then play."""
    g = _yield_position(rules)
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 0)
    do(g, 0, "pass")
    # asked once more
    assert_turn(g, 4)
    assert_listed_acts(g, 4, play=True, pass_=True, yield_=True)
    do(g, 4, "play", "8C")
    # everyone but seat 1 has passed; seat 1 is seat 4's 对头
    assert_turn(g, 1)


@pytest.mark.parametrize("rules", [ONLINE, DAGANG_CLOSER_LAST], ids=["online", "dagang+option"])
def test_closer_last_second_pass_closes_the_round(rules):
    """扣牌/closer_last (RULES.md §5): asked once more, the 对头's pass closes the round (扣牌)."""
    g = _yield_position(rules)
    do(g, 1, "play", "6C")
    for s in (2, 3, 4, 5, 0):
        do(g, s, "pass")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 1, leading=True)


@pytest.mark.parametrize("rules", [ONLINE, DAGANG_CLOSER_LAST], ids=["online", "dagang+option"])
def test_closer_last_yield_works_as_a_pass(rules):
    """让牌 under closer_last (RULES.md §5): yielding is allowed but works as a pass: the others
    act, the 对头 is asked once more, and a yield then closes the round like a pass."""
    g = _yield_position(rules)
    do(g, 1, "play", "6C")
    do(g, 2, "pass")
    do(g, 3, "pass")
    assert_listed_acts(g, 4, play=True, pass_=True, yield_=True)
    do(g, 4, "yield")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 0)
    do(g, 0, "pass")
    assert_turn(g, 4)
    do(g, 4, "yield")
    assert_turn(g, 1, leading=True)


def test_closer_last_example1_opposite_asked_again():
    """closer_last (RULES.md §5, §14 例1 under online): in example 1, seat 1 (seat 4's 对头)
    passed before seat 2 acted, so after seat 2 passes it is asked once more."""
    g = position(ONLINE, EX1_HANDS, leader=2)
    do(g, 2, "play", "7S")
    do(g, 3, "pass")
    do(g, 4, "play", "9D")
    do(g, 5, "pass")
    do(g, 0, "pass")
    do(g, 1, "pass")
    assert_turn(g, 2)
    do(g, 2, "pass")
    assert_turn(g, 1)
    do(g, 1, "play", "10H")
    # seat 1's 对头 is seat 4 (the others all passed)
    assert_turn(g, 4)


@pytest.mark.parametrize("rules", [ONLINE, DAGANG_CLOSER_LAST], ids=["online", "dagang+option"])
def test_closer_last_gouji_top_opposites_pass_ends_the_round(rules):
    """closer_last/够级 (RULES.md §5): on a 够级 top nobody else acts, so the 对头's pass is
    the last act and closes the round (扣牌) at once."""
    g = position(rules, {
        0: "4S 5S",
        1: "4H 5H",
        2: "QS QH QD 6S",
        3: "4D 5D",
        4: "4C 5C",
        5: "KS KH KD 6H",
    }, leader=2)
    do(g, 2, "play", "QS QH QD")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 2, leading=True)


def test_closer_last_off_by_default():
    """closer_last (RULES.md §5, §13): off in basic and dagang — after the 对头 and then the
    others pass, the round ends without asking the 对头 again."""
    for rules in (BASIC, "dagang"):
        g = _yield_position(rules)
        do(g, 1, "play", "6C")
        for s in (2, 3, 4, 5):
            do(g, s, "pass")
        assert_turn(g, 0)
        do(g, 0, "pass")
        assert_turn(g, 1, leading=True)


def test_closer_last_not_asked_again_when_it_was_the_last_to_act():
    """closer_last (RULES.md §5): only a 对头 that passed *before the others had acted* is asked
    once more; if everyone after it had already passed, its pass ends the round."""
    g = position(ONLINE, {
        0: "4S 6S",
        1: "4H 6H",
        2: "7S 8S",
        3: "4D 6D",
        4: "5S 4C 6C",
        5: "4C 6C",
    }, leader=4)
    do(g, 4, "play", "5S")
    do(g, 5, "pass")
    do(g, 0, "pass")
    do(g, 1, "pass")  # seat 4's 对头
    assert_turn(g, 2)
    do(g, 2, "play", "7S")
    do(g, 3, "pass")
    do(g, 4, "pass")
    assert_turn(g, 5)  # seat 2's 对头, passed before but entitled
    do(g, 5, "pass")
    # seats 0 and 1 passed earlier in the round: nobody acted after seat 5
    assert_turn(g, 2, leading=True)



@pytest.mark.parametrize("rules", [ONLINE, DAGANG_CLOSER_LAST], ids=["online", "dagang+option"])
def test_closer_last_never_on_a_gouji_top_even_when_a_no_head_seat_passed(rules):
    """closer_last/够级 (RULES.md §5: "never on a 够级 duel"): on a 够级 top the 对头 is not asked
    again, also when a 无头 seat acted on that top after the 对头's pass."""
    g = position(rules, {1: "4H 5H", 2: "KS KH 6S", 3: "4D 5D 6D", 4: "4C 5C",
                         5: "AS AH 6H"}, leader=5, finished=[0])
    do(g, 5, "play", "AS AH")
    assert_turn(g, 2)  # seat 5's 对头
    do(g, 2, "pass")
    assert_turn(g, 3)  # 无头: seat 0, its 对头, has finished
    do(g, 3, "pass")
    assert_turn(g, 5, leading=True)

@pytest.mark.parametrize("rules", [ONLINE, DAGANG_CLOSER_LAST], ids=["online", "dagang+option"])
def test_closer_last_also_on_a_finished_seat_s_last_combo(rules):
    """closer_last (RULES.md §5: "also on a finished seat's 底牌"): the 对头 of a seat that went
    out with a non-够级 combo is asked once more after the others passed, and may answer it."""
    g = position(rules, {0: "5C 7D", 1: "6C", 2: "4H 5H", 3: "4D 5D", 4: "8C 9C",
                         5: "4S 5S"}, leader=1)
    do(g, 1, "play", "6C")  # seat 1 goes out (头科); its 底牌 stays the top
    for s in (2, 3, 4, 5, 0):
        assert_turn(g, s)
        do(g, s, "pass")
    assert_turn(g, 4)  # asked once more
    do(g, 4, "play", "8C")
    assert_turn(g, 4, leading=True)  # everyone else has passed on this round

# --------------------------------------------------------------------------- 四户乱缠


PHASE2_HANDS = {
    2: "KS KH 7S 4S",
    3: "AS AH 5S 8S",
    4: "2S 2H 6S 4C",
    5: "9S 10S 4D",
}


@pytest.mark.parametrize(
    "out",
    [
        {"finished": [0, 1]},
        {"finished": [0], "revolutionaries": [1]},
        {"finished": [0], "eliminated": [(1, "failed_burn")]},
    ],
    ids=["touke-erke-out", "revolution", "elimination"],
)
def test_four_way_everyone_entitled_on_gouji(out):
    """四户乱缠 (RULES.md §5 phase 2): once only four play, the 够级 rule no longer applies —
    every unfinished seat answers in turn."""
    g = position(BASIC, PHASE2_HANDS, leader=2, **out)
    do(g, 2, "play", "KS KH")
    # seat 3 is not seat 2's 对头 (5), yet in 四户乱缠 it is entitled: it is asked first
    assert_turn(g, 3)
    do(g, 3, "play", "AS AH")
    assert_turn(g, 4)
    do(g, 4, "play", "2S 2H")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 2)
    do(g, 2, "pass")
    assert_turn(g, 3)
    do(g, 3, "pass")
    assert_turn(g, 4, leading=True)


def test_four_way_passing_does_not_remove_the_right():
    """四户乱缠 (RULES.md §5 phase 2, 000 过牌后也可上牌): a seat that passed may play later in
    the same round."""
    g = position(BASIC, PHASE2_HANDS, leader=2, finished=[0, 1])
    do(g, 2, "play", "7S")
    assert_turn(g, 3)
    do(g, 3, "pass")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 5)
    do(g, 5, "play", "9S")
    assert_turn(g, 2)
    do(g, 2, "pass")
    # seat 3 passed on 7S, still entitled on 9S, and plays
    assert_turn(g, 3)
    assert_listed_acts(g, 3, play=True, pass_=True, yield_=False)
    do(g, 3, "play", "AS")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 5)
    do(g, 5, "pass")
    assert_turn(g, 2)
    do(g, 2, "pass")
    assert_turn(g, 3, leading=True)


def test_four_way_begins_mid_round_when_erke_finishes():
    """四户乱缠 (RULES.md §5 phase 2): when 二科 finishes in the middle of a round, only four
    play from then on, and a seat that passed earlier in that round is entitled again."""
    g = position(BASIC, {
        1: "5H",
        2: "4D 6D 7D",
        3: "8S 9S",
        4: "8C 9C",
        5: "8D 9D",
    }, leader=2, finished=[0])
    do(g, 2, "play", "4D")
    do(g, 3, "pass")
    do(g, 4, "pass")
    do(g, 5, "pass")
    assert_turn(g, 1)
    # seat 1 answers with its last card and finishes as 二科: four seats are left
    do(g, 1, "play", "5H")
    assert g.finish_order == [0, 1]
    assert_turn(g, 2)
    do(g, 2, "pass")
    # seat 3 passed on 4D before the finish; in 四户乱缠 it keeps its right → 3
    assert_turn(g, 3)
    do(g, 3, "play", "8S")
    assert_turn(g, 4)
    do(g, 4, "pass")
    assert_turn(g, 5)
    do(g, 5, "pass")
    # seat 2 passed twice in this round, still entitled
    assert_turn(g, 2)


def test_four_way_no_yield():
    """四户乱缠 (RULES.md §5 phase 2): 让牌 no longer applies — the owner's 对头 may not yield."""
    g = position(BASIC, PHASE2_HANDS, leader=2, finished=[0, 1])
    do(g, 2, "play", "4S")
    do(g, 3, "pass")
    do(g, 4, "pass")
    assert_turn(g, 5)  # seat 2's 对头
    assert_listed_acts(g, 5, play=True, pass_=True, yield_=False)
    assert_refused(g, 5, "yield", None, "illegal_yield")


# --------------------------------------------------------------------------- 死牌 (unbeatable)


def test_unbeatable_big_joker_top_still_needs_an_explicit_pass():
    """死牌 (RULES.md §3, §5): a 大王-attached top changes nothing in the order; the entitled
    对头 must still pass explicitly (扣牌) before the round ends."""
    g = position(BASIC, {
        0: "RJ 9S 4S",
        1: "4H 5H",
        2: "4D 5D",
        3: "RJ AS 2S",
        4: "4C 5C",
        5: "5S 6S",
    }, leader=0)
    do(g, 0, "play", "RJ 9S")
    # the round is not over: seat 3 must act
    assert_turn(g, 3)
    assert g.leading is False
    assert g.legal_actions(3) == [{"act": "pass"}]
    assert_refused(g, 3, "play", "RJ AS", "does_not_beat")
    do(g, 3, "pass")
    assert_turn(g, 0, leading=True)


def test_unbeatable_top_in_four_way_each_seat_passes():
    """死牌 in 四户乱缠 (RULES.md §5): every playing seat still passes explicitly in turn."""
    g = position(BASIC, {
        2: "RJ 9S 4S",
        3: "2S 2H 4D",
        4: "AS AH 5D",
        5: "RJ KS 6D",
    }, leader=2, finished=[0, 1])
    do(g, 2, "play", "RJ 9S")
    for s in (3, 4, 5):
        assert_turn(g, s)
        assert [a for a in g.legal_actions(s) if a["act"] == "play"] == []
        do(g, s, "pass")
    assert_turn(g, 2, leading=True)


def test_a_play_names_only_cards_the_seat_holds_whatever_their_order():
    """The cards of a play are checked against the hand whether the play comes in card order
    (found by lookup, as records and bots give it) or not; a card held four times cannot be
    played five times."""
    for cards in (["9S", "9S", "9S", "9S", "9S"], ["4D", "9S", "9S", "9S", "9S", "9S"]):
        g = position("dagang", {0: "9S 9S 9S 9S 9H 4D", 1: "5C"}, leader=0)
        with pytest.raises(IllegalAction) as info:
            g.act(0, {"act": "play", "cards": cards})
        assert info.value.code == "not_in_hand"
        assert g.count[0] == 6 and g.hands[0]["9S"] == 4  # nothing changed
    for cards in (["9S", "9S", "9H"], ["9H", "9S", "9S"]):
        g = position("dagang", {0: "9S 9S 9H 4D", 1: "9S 9H"}, leader=0)
        with pytest.raises(IllegalAction) as info:
            g.act(0, {"act": "play", "cards": ["9S", "9S", "9S"]})
        assert "holds 2" in info.value.message
        g.act(0, {"act": "play", "cards": cards})
        assert g.hands[0] == {"4D": 1} and g.cards_by_rank(0) == {4: ["4D"]}
