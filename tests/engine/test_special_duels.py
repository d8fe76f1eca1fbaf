"""Special duels of RULES.md §6 (phase 1 only): 无头, 够死级 (after a finish and after a
revolution), 烧牌 / 反烧 / 解烧 / 诈烧 and 开点.

Positions are built with :func:`engine.testing.position`; teams are {0, 2, 4} and {1, 3, 5},
and the 对头 of seat ``s`` is ``(s + 3) % 6``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalAction, replay
from engine.cards import CARD_RANK, full_set
from engine.record import replay_game
from engine.testing import make_deal, position, record_for

BASIC = "basic"
LOOSE = {"preset": "basic", "options": {"strict_burn": False}}  # 000's 诈烧
DADIAN = {"preset": "basic", "options": {"dadian": True}}  # 打点 without 憋3


# ---------------------------------------------------------------------------- helpers
def play(g, seat, cards):
    g.act(seat, {"act": "play", "cards": cards.split()})


def pass_(g, seat):
    g.act(seat, {"act": "pass"})


def burn(g, seat, cards):
    g.act(seat, {"act": "burn", "cards": cards.split()})


def snapshot(g):
    return (g.version, list(g.count), [g.view(s)["hand"] for s in range(6)], g.to_act(),
            len(g.actions), g.result())


def refused(g, seat, action, codes):
    """The act is refused with one of ``codes``, names the seat, and changes nothing."""
    if isinstance(codes, str):
        codes = {codes}
    before = snapshot(g)
    with pytest.raises(IllegalAction) as info:
        g.act(seat, action)
    assert info.value.code in codes, (info.value.code, info.value.message)
    assert f"seat {seat}" in info.value.message
    assert snapshot(g) == before
    return info.value


def turn(g):
    return g.to_act()["seat"]


def top_owner(g):
    """The seat whose combo is on the table (the top)."""
    top = g.view(None)["top"]
    return None if top is None else top["seat"]


def finished(g):
    """Seats that finished so far, in order (头科 first)."""
    return list(g.view(None)["finished"])


def leads(g, seat):
    """``seat`` now leads a new round (it may only play)."""
    ta = g.to_act()
    assert ta["seat"] == seat, ta
    assert ta["acts"] == ["play"], ta


# ---------------------------------------------------------------------------- 无头
@pytest.mark.parametrize("gone", ["finished", "eliminated", "revolted_and_waived"])
def test_no_head_seat_may_answer_gouji_and_anyone_may_answer_it(gone):
    """无头 (RULES.md §6, §14 example 4): seat 3's 对头 (seat 0) is out, so seat 3 may beat seat
    5's 够级 combo in turn order, and any seat that has not passed may beat seat 3's 够级 combo."""
    kw = {
        "finished": {"finished": [0]},
        "eliminated": {"eliminated": [(0, "failed_burn")]},
        "revolted_and_waived": {"revolutionaries": [0], "waived": [3]},
    }[gone]
    g = position(BASIC, {1: "2S 2H 4S", 2: "4H 5H", 3: "2D 2C 4D", 4: "BJ BJ 4C",
                         5: "AS AH 6S"}, leader=5, **kw)
    play(g, 5, "AS AH")
    # entitled: seat 2 (对头 of 5) and seat 3 (无头); seat 1 is not
    assert turn(g) == 2
    refused(g, 1, {"act": "play", "cards": ["2S", "2H"]}, "not_entitled")
    pass_(g, 2)
    assert turn(g) == 3
    play(g, 3, "2D 2C")
    # the owner is 无头: every seat that has not passed may answer, in turn order
    assert turn(g) == 4
    pass_(g, 4)
    assert turn(g) == 5
    pass_(g, 5)
    assert turn(g) == 1
    pass_(g, 1)
    # seat 2 passed (and is not seat 3's 对头): the round returns to seat 3
    leads(g, 3)
    assert g.card_total() == 216


def test_no_head_seat_may_be_beaten_on_any_combo_by_non_opposite():
    """无头 (RULES.md §6): anyone may beat a 够级 combo the 无头 seat leads; without 无头 only the
    对头 may."""
    g = position(BASIC, {1: "4S 5S", 2: "4H 5H", 3: "KS KH 4D", 4: "AS AH 5D", 5: "4C 5C"},
                 leader=3, finished=[0])
    play(g, 3, "KS KH")
    assert turn(g) == 4
    play(g, 4, "AS AH")
    assert g.card_total() == 216


def test_no_head_seat_that_passed_may_not_beat_gouji():
    """无头 (RULES.md §5 rule 3): the 无头 seat may beat a 够级 combo only if it has not passed
    in the round."""
    g = position(BASIC, {1: "9S 4S", 2: "4H 5H", 3: "10S BJ", 4: "2S 5D", 5: "4C 5C"},
                 leader=1, finished=[0])
    play(g, 1, "9S")
    pass_(g, 2)
    pass_(g, 3)  # 无头 seat 3 passes
    play(g, 4, "2S")  # 够级: entitled only seat 1 (对头); seat 3 passed
    assert turn(g) == 1
    pass_(g, 1)
    leads(g, 4)
    refused(g, 3, {"act": "play", "cards": ["BJ"]}, {"not_entitled", "not_your_turn"})
    assert g.card_total() == 216


def test_no_head_seat_that_has_not_passed_may_beat_gouji():
    """无头 (RULES.md §6): in turn order the 无头 seat may beat anyone's 够级 combo."""
    g = position(BASIC, {1: "9S 4S", 2: "4H 5H", 3: "10S BJ 6D", 4: "JS 2S 5D", 5: "4C 5C"},
                 leader=1, finished=[0])
    play(g, 1, "9S")
    pass_(g, 2)
    play(g, 3, "10S")
    play(g, 4, "2S")  # 够级 of seat 4: its 对头 is seat 1
    assert turn(g) == 1
    pass_(g, 1)
    assert turn(g) == 3  # 无头 and has not passed
    play(g, 3, "BJ")
    assert top_owner(g) == 3
    assert g.card_total() == 216


# ---------------------------------------------------------------------------- 够死级 (finish)
def _toukee_dipai_position():
    return position(BASIC, {0: "KS KH", 1: "BJ BJ 4S", 2: "AD AC 4H", 3: "2S 2H 5S",
                            4: "4D 6D", 5: "4C 6C"}, leader=0)


def test_gousiji_on_toukee_dipai_wins_round_at_once():
    """够死级 (RULES.md §6, 大纲 第十六条): 头科's 对头 answers its 底牌 with a 够级 combo; nobody
    may beat it, the round ends and its player leads."""
    g = _toukee_dipai_position()
    play(g, 0, "KS KH")  # 头科's 底牌
    assert finished(g) == [0]
    assert turn(g) == 3
    play(g, 3, "2S 2H")
    leads(g, 3)
    # seat 1 holds 小王 小王, which would beat 2 2, but may not answer
    refused(g, 1, {"act": "play", "cards": ["BJ", "BJ"]}, {"not_entitled", "not_your_turn"})
    play(g, 3, "5S")
    assert top_owner(g) == 3 and turn(g) == 4  # a new round led by seat 3
    assert g.card_total() == 216


def test_gousiji_on_dipai_can_still_be_burned():
    """够死级 (RULES.md §6): the 够死级 answer cannot be beaten except by 烧牌 in phase 1."""
    g = _toukee_dipai_position()
    play(g, 0, "KS KH")
    play(g, 3, "2S 2H")
    assert 1 in g.to_act().get("burners", [])
    burn(g, 1, "BJ BJ")
    assert g.result()["burns"] == [{"burner": 1, "burned": 3, "counter": False}]
    assert top_owner(g) == 1
    assert turn(g) == 4  # only the burner's 对头 may answer
    assert g.card_total() == 216


def test_gousiji_right_lost_once_another_seat_beats_dipai():
    """够死级 (RULES.md §6): once anyone else beats the 底牌, the 对头's right is gone and it is
    无头: its 够级 answer may be beaten by others."""
    g = position(BASIC, {0: "9S", 1: "10S 4S", 2: "4H 5H", 3: "2S 5S", 4: "BJ 4D",
                         5: "4C 5C"}, leader=0)
    play(g, 0, "9S")  # 头科's 底牌
    assert turn(g) == 1
    play(g, 1, "10S")  # beats the 底牌: seat 3's 够死级 right is gone
    pass_(g, 2)
    play(g, 3, "2S")
    assert turn(g) == 4  # seat 3 is 无头: seat 4 may answer its 够级 combo
    play(g, 4, "BJ")
    assert top_owner(g) == 4
    assert g.card_total() == 216


def test_gousiji_holds_for_erkee_dipai_in_four_way_play():
    """够死级 (RULES.md §6): it holds for 二科's 底牌 although 四户乱缠 begins with that finish:
    the 对头's 够级 answer is unbeatable and wins at once."""
    g = position(BASIC, {1: "KS KH", 2: "4H 5H", 3: "4S 5S", 4: "AS AH 5D",
                         5: "BJ BJ 4C"}, leader=1, finished=[0])
    play(g, 1, "KS KH")  # 二科's 底牌: now four play
    assert finished(g) == [0, 1]
    assert turn(g) == 2
    pass_(g, 2)
    pass_(g, 3)
    assert turn(g) == 4
    play(g, 4, "AS AH")
    # in 四户乱缠 seat 5 could otherwise answer with 小王 小王
    leads(g, 4)
    refused(g, 5, {"act": "play", "cards": ["BJ", "BJ"]}, {"not_entitled", "not_your_turn"})
    assert g.card_total() == 216


def test_erkee_dipai_without_gousiji_is_open_in_four_way_play():
    """四户乱缠 (RULES.md §5): the contrast case — a 够级 answer to 二科's 底牌 by a seat other
    than its 对头 may be beaten by anyone."""
    g = position(BASIC, {1: "KS KH", 2: "AS AH 4H", 3: "4S 5S", 4: "5D 6D",
                         5: "BJ BJ 4C"}, leader=1, finished=[0])
    play(g, 1, "KS KH")
    play(g, 2, "AS AH")
    assert turn(g) == 3
    pass_(g, 3)
    pass_(g, 4)
    assert turn(g) == 5
    play(g, 5, "BJ BJ")
    assert g.card_total() == 216


# ---------------------------------------------------------------------------- 够死级 (revolution)
def test_revolution_gousiji_rights_make_three_gouji_leads_unbeatable():
    """够死级 after 革命 (RULES.md §6, revolution_gousiji = 3): each of the first three 够级
    plays of the revolutionary's 对头 wins the round at once; then it is 无头."""
    g = position(BASIC, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D",
                         4: "KS KH AS AH 2S 2H JS JH JD JC 9D",
                         5: "QS QS QS QS 4C"}, leader=4, revolutionaries=[1])
    for combo in ("KS KH", "AS AH", "2S 2H"):
        play(g, 4, combo)
        leads(g, 4)
    play(g, 4, "JS JH JD JC")  # rights used up: seat 4 is 无头
    assert turn(g) == 5
    play(g, 5, "QS QS QS QS")
    assert top_owner(g) == 5
    assert g.card_total() == 216


def test_revolution_gousiji_right_used_on_an_answer():
    """够死级 after 革命 (RULES.md §6): a right also makes a 够级 answer unbeatable."""
    g = position(BASIC, {0: "9S 5S", 2: "4H 5H", 3: "4D 5D", 4: "2S 6D",
                         5: "BJ 4C"}, leader=0, revolutionaries=[1])
    play(g, 0, "9S")
    assert turn(g) == 2  # seat 1 revolted: skipped
    pass_(g, 2)
    pass_(g, 3)
    play(g, 4, "2S")
    leads(g, 4)
    assert g.card_total() == 216


def test_revolution_gousiji_count_follows_option():
    """够死级 after 革命 (RULES.md §6): option revolution_gousiji sets how many rights."""
    rules = {"preset": "basic", "options": {"revolution_gousiji": 1}}
    g = position(rules, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D", 4: "KS KH AS AH 9D",
                         5: "2S 2H 4C"}, leader=4, revolutionaries=[1])
    play(g, 4, "KS KH")
    leads(g, 4)
    play(g, 4, "AS AH")
    assert turn(g) == 5
    assert g.card_total() == 216


def test_waived_gousiji_makes_opposite_no_head_at_once():
    """够死级 waived (RULES.md §6): the revolutionary's 对头 that waives its rights is 无头 at
    once: anyone may beat its 够级 combo."""
    g = position(BASIC, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D", 4: "KS KH 9D",
                         5: "AS AH 4C"}, leader=4, revolutionaries=[1], waived=[4])
    play(g, 4, "KS KH")
    assert turn(g) == 5
    play(g, 5, "AS AH")
    assert g.card_total() == 216


def test_waived_gousiji_answer_is_beatable():
    """够死级 waived (RULES.md §6): without rights the same 够级 answer may be beaten by any
    seat that has not passed."""
    g = position(BASIC, {0: "9S 5S", 2: "4H 5H", 3: "4D 5D", 4: "2S 6D",
                         5: "BJ 4C"}, leader=0, revolutionaries=[1], waived=[4])
    play(g, 0, "9S")
    pass_(g, 2)
    pass_(g, 3)
    play(g, 4, "2S")
    assert turn(g) == 5
    play(g, 5, "BJ")
    assert g.card_total() == 216


def test_revolution_opposite_with_rights_is_not_no_head():
    """无头 and 够死级 (RULES.md §6): while it holds 够死级 rights the revolutionary's 对头 is not
    无头, so it may not answer another seat's 够级 combo."""
    g = position(BASIC, {0: "4S 5S", 2: "KS KH 5H", 3: "4D 5D", 4: "AS AH 9D",
                         5: "4C 6C"}, leader=2, revolutionaries=[1])
    play(g, 2, "KS KH")
    assert turn(g) == 5  # seat 2's 对头; seat 4 is skipped
    refused(g, 4, {"act": "play", "cards": ["AS", "AH"]}, "not_entitled")
    pass_(g, 5)
    leads(g, 2)
    assert g.card_total() == 216


def _deal_with_revolutionary(revolutionary, fixed, seed=0):
    """A legal deal: seats hold ``fixed`` cards, and ``revolutionary`` holds no 2 and no joker
    (its wild cards are swapped for plain ones of seats not named in ``fixed``)."""
    hands = make_deal(fixed, seed)
    mine = hands[revolutionary]
    donors = [t for t in range(6) if t != revolutionary and t not in fixed]
    for c in [c for c in mine if CARD_RANK[c] >= 15]:
        t = next(t for t in donors if any(CARD_RANK[d] < 15 for d in hands[t]))
        d = next(d for d in hands[t] if CARD_RANK[d] < 15)
        hands[t].remove(d)
        hands[t].append(c)
        mine.remove(c)
        mine.append(d)
    assert not [c for c in mine if CARD_RANK[c] >= 15]
    assert Counter(c for h in hands for c in h) == Counter(full_set())
    return hands


@pytest.mark.parametrize(("waive", "next_seat", "acts"), [
    (False, 4, ["play"]),  # 够死级: the round is won at once
    (True, 5, ["play", "pass"]),  # 无头: seat 5 may answer
])
def test_waive_gousiji_event_in_record(waive, next_seat, acts):
    """够死级 waived (RULES.md §6; RECORD.md pre event waive_gousiji): in a record, the
    revolutionary's 对头 either holds 够死级 rights or, having waived them, is 无头."""
    deal = _deal_with_revolutionary(1, {4: "2S", 5: "RJ"}, seed=5)
    pre = [{"type": "revolution", "seat": 1}]
    if waive:
        pre.append({"type": "waive_gousiji", "seat": 4})
    rec = record_for(BASIC, deal, [{"seat": 4, "act": "play", "cards": ["2S"]}], leader=4,
                     pre=pre)
    g, err = replay_game(rec)
    assert err is None, err
    assert g.to_act()["seat"] == next_seat
    assert g.to_act()["acts"] == acts
    assert g.card_total() == 216


def test_waive_gousiji_refused_for_seat_without_rights():
    """够死级 waiver (RULES.md §6): only the revolutionary's 对头 has rights to waive."""
    deal = _deal_with_revolutionary(1, {}, seed=5)
    pre = [{"type": "revolution", "seat": 1}, {"type": "waive_gousiji", "seat": 5}]
    res = replay(record_for(BASIC, deal, [], leader=0, pre=pre))
    assert res["ok"] is False
    assert res["error"]["code"] == "bad_pre" and res["error"]["index"] == 1
    assert "seat 5" in res["error"]["message"]


def test_revolution_gousiji_can_be_burned():
    """够死级 after 革命 (RULES.md §6): the unbeatable play yields only to 烧牌."""
    g = position(BASIC, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D", 4: "2S 2H 9D",
                         5: "BJ BJ 4C"}, leader=4, revolutionaries=[1])
    play(g, 4, "2S 2H")
    leads(g, 4)
    refused(g, 5, {"act": "play", "cards": ["BJ", "BJ"]}, {"not_entitled", "not_your_turn"})
    burn(g, 5, "BJ BJ")
    assert g.result()["burns"] == [{"burner": 5, "burned": 4, "counter": False}]
    assert turn(g) == 2  # only seat 5's 对头 may answer a burning combo
    assert g.card_total() == 216


def test_a_no_head_seat_may_not_answer_a_burning_combo():
    """无头 under a burn (RULES.md §6 烧牌): only the burner's 对头 may answer its combos — a 无头
    seat may not either; it may only counter-burn."""
    g = position(BASIC, {1: "AS AH 5S BJ", 2: "4H 5H", 3: "2S 2H 5D", 4: "4C 5C",
                         5: "KS KH 6H"}, leader=5, finished=[0])
    play(g, 5, "KS KH")
    burn(g, 1, "AS AH")
    assert turn(g) == 4  # seat 1's 对头; seat 3 (无头, seat 0 has finished) is skipped
    assert g.legal_actions(3) == [{"act": "burn", "cards": ["2S", "2H"]}]
    pass_(g, 4)
    leads(g, 1)

# ---------------------------------------------------------------------------- 烧牌
# Seat 0 leads K K (够级); its 对头 is seat 3.
def _burn_position(rules=BASIC, **hands):
    base = {0: "KS KH 9S", 1: "AS AH BJ 5S 6S", 2: "2S 2H 8D", 3: "2D 2C 8H",
            4: "RJ RJ 7D", 5: "8S 8C"}
    base.update({int(k[1:]): v for k, v in hands.items()})
    return position(rules, base, leader=0)


def test_burn_takes_the_top_and_only_burners_opposite_may_answer():
    """烧牌 (RULES.md §6): a seat other than the owner and its 对头 beats a 够级 combo out of
    turn; from then on only the burner's 对头 may answer its combos."""
    g = _burn_position()
    play(g, 0, "KS KH")
    assert turn(g) == 3
    burn(g, 1, "AS AH")
    assert g.result()["burns"] == [{"burner": 1, "burned": 0, "counter": False}]
    assert top_owner(g) == 1
    assert turn(g) == 4  # seat 1's 对头
    refused(g, 2, {"act": "play", "cards": ["2S", "2H"]}, {"not_entitled", "not_your_turn"})
    refused(g, 3, {"act": "play", "cards": ["2D", "2C"]}, {"not_entitled", "not_your_turn"})
    pass_(g, 4)
    leads(g, 1)
    assert g.card_total() == 216


def test_burner_must_lead_joker_combos_until_its_last():
    """烧牌 (RULES.md §6, 大纲 第十条): every combo the burner leads carries a joker except its
    last; under strict_burn a jokerless lead before the last is refused."""
    g = _burn_position()
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    pass_(g, 4)
    refused(g, 1, {"act": "play", "cards": ["5S"]}, "illegal_burn")
    play(g, 1, "5S BJ")
    assert top_owner(g) == 1 and turn(g) == 4
    pass_(g, 4)
    play(g, 1, "6S")  # its last combo: no joker needed
    assert finished(g) == [1]
    assert g.result()["eliminated"] == []
    assert g.card_total() == 216


def test_burn_refused_by_owner_and_by_its_opposite():
    """烧牌 (RULES.md §6): only a seat other than the owner and its 对头 may burn."""
    g = _burn_position(s3="2D 2C 8H")
    play(g, 0, "KS KH")
    refused(g, 3, {"act": "burn", "cards": ["2D", "2C"]}, "illegal_burn")
    refused(g, 0, {"act": "burn", "cards": ["9S"]}, {"illegal_burn", "bad_combo"})
    assert g.card_total() == 216


def test_burn_must_beat_the_combo():
    """烧牌 (RULES.md §6): the burning combo must beat the 够级 combo."""
    g = _burn_position(s2="QS QH 8D")
    play(g, 0, "KS KH")
    refused(g, 2, {"act": "burn", "cards": ["QS", "QH"]}, "illegal_burn")
    assert g.card_total() == 216


def test_burn_only_before_anyone_else_acts():
    """烧牌 (RULES.md §6): a burn comes at once; after the 对头 has acted on the combo it is
    too late."""
    g = _burn_position()
    play(g, 0, "KS KH")
    pass_(g, 3)
    # the round is over (nobody else may answer 够级), seat 0 leads again
    leads(g, 0)
    refused(g, 1, {"act": "burn", "cards": ["AS", "AH"]}, "illegal_burn")
    assert g.card_total() == 216


def test_burn_not_allowed_on_non_gouji_combo():
    """烧牌 (RULES.md §6): only a 够级 combo may be burned."""
    g = _burn_position()
    play(g, 0, "9S")
    refused(g, 2, {"act": "burn", "cards": ["2S"]}, "illegal_burn")
    assert g.card_total() == 216


def test_passed_seat_may_not_burn():
    """过牌不烧 (RULES.md §6): a seat that has passed in the round may not burn."""
    g = position(BASIC, {0: "9S 4S", 1: "BJ 5S", 2: "2S 6H", 3: "BJ 5D", 4: "BJ 5H",
                         5: "5C 6C"}, leader=0)
    play(g, 0, "9S")
    pass_(g, 1)
    play(g, 2, "2S")  # 够级 of seat 2; its 对头 is seat 5
    assert 1 not in g.to_act().get("burners", [])
    refused(g, 1, {"act": "burn", "cards": ["BJ"]}, "illegal_burn")
    assert g.to_act()["burners"] == [4, 3]
    burn(g, 3, "BJ")
    assert g.result()["burns"] == [{"burner": 3, "burned": 2, "counter": False}]
    assert g.card_total() == 216


def test_no_burn_in_four_way_play():
    """烧牌 (RULES.md §5 phase 2): in 四户乱缠 there is no burning; anyone may simply answer."""
    g = position(BASIC, {2: "KS KH 4H", 3: "AS AH 4S", 4: "4D 5D", 5: "2S 2H 4C"},
                 leader=2, finished=[0, 1])
    play(g, 2, "KS KH")
    assert "burners" not in g.to_act()
    refused(g, 5, {"act": "burn", "cards": ["2S", "2H"]}, "illegal_burn")
    play(g, 3, "AS AH")
    assert g.card_total() == 216


@pytest.mark.parametrize(("owner", "expected"), [(0, [2, 4, 1, 5]), (1, [3, 5, 2, 0]),
                                                 (4, [0, 2, 5, 3])])
def test_burn_priority_lists_owners_team_first(owner, expected):
    """烧牌 priority (RULES.md §6, 大纲 第十条): seats of the owner's own team first, then the
    others, each group in turn order from the owner; its 对头 never burns."""
    hands = {s: "AS AH" for s in range(6)}
    hands[owner] = "KS KH 9S"
    hands[(owner + 3) % 6] = "AD AC 4C"
    g = position(BASIC, hands, leader=owner)
    play(g, owner, "KS KH")
    assert g.to_act()["seat"] == (owner + 3) % 6
    assert g.to_act()["burners"] == expected
    assert g.card_total() == 216


def test_burn_priority_skips_seats_that_cannot_burn():
    """烧牌 priority (RULES.md §6): only seats able to burn are listed."""
    g = position(BASIC, {0: "KS KH 9S", 1: "AS AH", 2: "QS QH", 3: "AD AC",
                         4: "2S 2H", 5: "4C 5C"}, leader=0)
    play(g, 0, "KS KH")
    assert g.to_act()["burners"] == [4, 1]
    assert g.card_total() == 216


def test_strict_burn_refuses_burn_without_enough_jokers():
    """烧牌 with strict_burn (RULES.md §6): a burn is refused when the cards left could not carry
    a joker on each remaining combo but the last."""
    g = _burn_position(s1="AS AH 5S 6S 7S")
    play(g, 0, "KS KH")
    assert 1 not in g.to_act().get("burners", [])
    refused(g, 1, {"act": "burn", "cards": ["AS", "AH"]}, "illegal_burn")
    assert g.card_total() == 216


def test_strict_burn_accepts_burn_leaving_one_combo():
    """烧牌 条件二 (RULES.md §6): a burn is fine when the cards left are all one combo."""
    g = _burn_position(s1="AS AH 5S 5H 2C")
    play(g, 0, "KS KH")
    assert 1 in g.to_act()["burners"]
    burn(g, 1, "AS AH")
    pass_(g, 4)
    play(g, 1, "5S 5H 2C")
    assert finished(g) == [1]
    assert g.card_total() == 216


def test_loose_burn_accepts_burn_without_enough_jokers():
    """烧牌 with strict_burn off (RULES.md §6): any beating burn is accepted."""
    g = _burn_position(LOOSE, s1="AS AH 5S 6S 7S")
    play(g, 0, "KS KH")
    assert 1 in g.to_act()["burners"]
    burn(g, 1, "AS AH")
    assert g.result()["burns"] == [{"burner": 1, "burned": 0, "counter": False}]
    assert g.card_total() == 216


@pytest.mark.parametrize("rules", [LOOSE, "online"])
def test_failed_burn_eliminates_burner(rules):
    """诈烧 (RULES.md §6, §7): with strict_burn off, a burner that leads a jokerless combo while
    holding other cards is eliminated at once, placed last, its cards leave play, and the seat
    whose combo was burned leads next."""
    g = _burn_position(rules, s1="AS AH BJ 5S 6S")
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    pass_(g, 4)
    leads(g, 1)
    played_before = len(g.actions)
    play(g, 1, "5S")
    res = g.result()
    assert res["eliminated"] == [{"seat": 1, "reason": "failed_burn"}]
    assert res["places"][1] == 6
    assert g.count[1] == 0 and g.view(1)["hand"] == []
    assert len(g.actions) == played_before + 1
    leads(g, 0)  # the burned seat leads
    assert g.view(None)["top"] is None
    assert g.card_total() == 216


def test_failed_burn_lead_goes_to_next_seat_when_burned_seat_is_out():
    """诈烧 (RULES.md §6): if the burned seat is no longer playing, the next playing seat after
    the burner leads."""
    g = position(LOOSE, {0: "KS KH", 1: "AS AH BJ 5S 6S", 2: "4H 5H", 3: "4D 5D",
                         4: "4C 5C", 5: "6C 7C"}, leader=0)
    play(g, 0, "KS KH")  # 头科's 底牌
    burn(g, 1, "AS AH")
    assert turn(g) == 4
    pass_(g, 4)
    play(g, 1, "6S")
    assert g.result()["eliminated"] == [{"seat": 1, "reason": "failed_burn"}]
    leads(g, 2)
    assert g.card_total() == 216


def test_failed_burn_ranks_below_everyone():
    """诈烧 (RULES.md §7): the failed burner is placed 大落 when the game ends."""
    g = position(LOOSE, {0: "KS KH 9S", 1: "AS AH BJ 5S 6S", 2: "8D", 3: "8H",
                         4: "7D", 5: "8C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    pass_(g, 4)
    play(g, 1, "5S")  # 诈烧
    leads(g, 0)
    play(g, 0, "9S")  # seat 0 finishes 头科
    for s in (2, 3, 4, 5):
        pass_(g, s)
    res = g.result()
    assert res["places"][0] == 1 and res["places"][1] == 6
    assert g.card_total() == 216


def test_counter_burn_stops_first_burner():
    """反烧 (RULES.md §6): another seat (not the burner's 对头) beats the burning combo; the first
    burner stops burning, the counter-burner burns, and only its 对头 may answer."""
    g = position(LOOSE, {0: "KS KH 9D", 1: "AS AH 5S 9H", 2: "2S 2H", 3: "8H 4D",
                         4: "BJ BJ 4S", 5: "7C 6C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    assert 2 in g.to_act()["burners"]
    burn(g, 2, "2S 2H")  # 反烧; seat 2 finishes with it (头科)
    assert g.result()["burns"] == [
        {"burner": 1, "burned": 0, "counter": False},
        {"burner": 2, "burned": 1, "counter": True},
    ]
    assert finished(g) == [2]
    assert turn(g) == 5  # the counter-burner's 对头 only; seat 4 may not answer
    refused(g, 4, {"act": "play", "cards": ["BJ", "BJ"]}, {"not_entitled", "not_your_turn"})
    pass_(g, 5)
    leads(g, 3)  # 接风 after seat 2's 底牌
    play(g, 3, "8H")
    pass_(g, 4)
    pass_(g, 5)
    pass_(g, 0)
    play(g, 1, "9H")
    pass_(g, 3)
    pass_(g, 4)  # seat 1's 对头 closes
    leads(g, 1)
    play(g, 1, "5S")  # jokerless, with 3 cards left: not 诈烧, seat 1 no longer burns
    assert g.result()["eliminated"] == []
    assert top_owner(g) == 1
    assert g.card_total() == 216


def test_counter_burn_by_burned_seat_allowed():
    """反烧 (RULES.md §6): any seat other than the burner's 对头 may counter-burn, the burned seat
    included."""
    g = position(BASIC, {0: "KS KH 2D 2C", 1: "AS AH 5S", 2: "4H 5H", 3: "4D 5D",
                         4: "4S 4C", 5: "6C 7C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    assert g.to_act()["burners"] == [0]
    refused(g, 4, {"act": "burn", "cards": ["4S", "4C"]}, "illegal_burn")
    burn(g, 0, "2D 2C")
    assert g.result()["burns"][-1] == {"burner": 0, "burned": 1, "counter": True}
    assert turn(g) == 3
    assert g.card_total() == 216


def test_counter_burn_on_burners_later_lead():
    """反烧 (RULES.md §6): a combo the burner leads while burning may also be counter-burned by a
    seat other than the burner's 对头; the counter earns 2 (counter true)."""
    g = position(BASIC, {0: "KS KH 9D", 1: "AS AH 5S BJ 6S", 2: "4H 5H", 3: "8H 4D",
                         4: "4S 4C", 5: "7S RJ 7C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    pass_(g, 4)
    leads(g, 1)
    play(g, 1, "5S BJ")  # a burning lead: only seat 4 may answer
    assert turn(g) == 4
    assert g.to_act()["burners"] == [5]
    burn(g, 5, "7S RJ")
    assert g.result()["burns"] == [
        {"burner": 1, "burned": 0, "counter": False},
        {"burner": 5, "burned": 1, "counter": True},
    ]
    assert turn(g) == 2  # seat 5's 对头
    assert g.card_total() == 216


def test_yielded_seat_may_not_burn():
    """过牌不烧 (RULES.md §5, §6): a yield (让牌) counts as a pass, so the yielder may not burn a
    later 够级 combo of the round."""
    g = position(BASIC, {0: "5S 9S", 1: "6C 4S", 2: "4H 5H", 3: "4D 5D", 4: "BJ 7C",
                         5: "2S 5C"}, leader=1)
    play(g, 1, "6C")
    pass_(g, 2)
    pass_(g, 3)
    g.act(4, {"act": "yield"})
    assert turn(g) == 5
    play(g, 5, "2S")  # 够级 of seat 5; its 对头 is seat 2
    assert 4 not in g.to_act().get("burners", [])
    refused(g, 4, {"act": "burn", "cards": ["BJ"]}, "illegal_burn")
    assert g.card_total() == 216


def test_opposite_breaks_burn():
    """解烧 (RULES.md §6): when the burner's 对头 beats its combo the burn is broken: the former
    burner may later lead a jokerless combo without penalty."""
    g = position(LOOSE, {0: "KS KH 9D", 1: "AS AH BJ BJ 5S 6S", 2: "8D 4H", 3: "8H 4D",
                         4: "2S 2H 4S", 5: "7C 6C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    assert turn(g) == 4
    play(g, 4, "2S 2H")  # 解烧
    assert turn(g) == 1  # play goes on from the 对头's 够级 combo: only seat 1 may answer
    play(g, 1, "BJ BJ")
    pass_(g, 4)
    leads(g, 1)
    play(g, 1, "5S")  # jokerless with a card left: no 诈烧 after 解烧
    assert g.result()["eliminated"] == []
    assert top_owner(g) == 1 and turn(g) == 2
    assert g.card_total() == 216


def test_burn_continues_when_opposite_passes():
    """烧牌 (RULES.md §6): without 解烧 the seat keeps burning through later rounds."""
    g = position(LOOSE, {0: "KS KH 9D", 1: "AS AH BJ RJ 5S 6S 7S", 2: "8D 4H", 3: "8H 4D",
                         4: "4S 4C", 5: "7C 6C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    pass_(g, 4)
    play(g, 1, "5S BJ")
    assert turn(g) == 4  # still burning: only its 对头 may answer
    pass_(g, 4)
    play(g, 1, "6S")  # jokerless while 大王 and 7S are still held: 诈烧
    assert g.result()["eliminated"] == [{"seat": 1, "reason": "failed_burn"}]
    assert g.card_total() == 216


# ---------------------------------------------------------------------------- 开点
def test_gouji_win_kaidian():
    """开点 (RULES.md §6, §14 example 2): a 够级 combo without 大王 that wins a round in phase 1
    开点s its owner."""
    g = position(DADIAN, {0: "5S 6S", 1: "5H 6H", 2: "QS QH QD 4S", 3: "5D 6D",
                          4: "5C 6C", 5: "KS KH KD 4H"}, leader=2)
    play(g, 2, "QS QH QD")
    assert turn(g) == 5
    play(g, 5, "KS KH KD")
    assert turn(g) == 2
    pass_(g, 2)
    leads(g, 5)
    assert g.result()["kaidian"] == [None, None, None, None, None, True]
    assert g.card_total() == 216


def test_gouji_win_with_big_joker_does_not_kaidian():
    """开点 (RULES.md §6): a winning 够级 combo that contains 大王 does not 开点."""
    g = position(DADIAN, {0: "5S 6S", 1: "5H 6H", 2: "QS QH QD 4S", 3: "5D 6D",
                          4: "5C 6C", 5: "KS KH RJ 4H"}, leader=2)
    play(g, 2, "QS QH QD")
    play(g, 5, "KS KH RJ")
    pass_(g, 2)
    leads(g, 5)
    assert g.result()["kaidian"] == [None] * 6
    assert g.card_total() == 216


def test_small_joker_gouji_win_kaidian():
    """开点 (RULES.md §6): a 小王-attached 够级 combo that lives 开点s (only 大王 is excluded)."""
    g = position(DADIAN, {0: "5S 6S", 1: "5H 6H", 2: "9S BJ 4S", 3: "5D 6D",
                          4: "5C 6C", 5: "4H 7H"}, leader=2)
    play(g, 2, "9S BJ")
    pass_(g, 5)
    leads(g, 2)
    assert g.result()["kaidian"] == [None, None, True, None, None, None]


def test_non_gouji_win_does_not_kaidian():
    """开点 (RULES.md §6): a round won by a combo that is not 够级 does not 开点."""
    g = position(DADIAN, {0: "5S 6S", 1: "5H 6H", 2: "KS 4S", 3: "5D 6D",
                          4: "5C 6C", 5: "4H 7H"}, leader=2)
    play(g, 2, "KS")
    for s in (3, 4, 5, 0, 1):
        pass_(g, s)
    leads(g, 2)
    assert g.result()["kaidian"] == [None] * 6


def test_beaten_gouji_does_not_kaidian():
    """开点 (RULES.md §6): a 够级 combo that is beaten does not live."""
    g = position(DADIAN, {0: "5S 6S", 1: "5H 6H", 2: "QS QH QD 4S", 3: "5D 6D",
                          4: "5C 6C", 5: "KS KH KD 4H"}, leader=2)
    play(g, 2, "QS QH QD")
    play(g, 5, "KS KH KD")
    pass_(g, 2)
    assert g.result()["kaidian"][2] is None


def test_burn_that_lives_kaidians_burner():
    """开点 (RULES.md §6): a burning 够级 combo that wins its round 开点s the burner."""
    g = position({"preset": "basic", "options": {"dadian": True}},
                 {0: "KS KH 9S", 1: "AS AH 5S", 2: "4H 5H", 3: "4D 5D", 4: "4C 6C",
                  5: "6S 7S"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    pass_(g, 4)
    leads(g, 1)
    assert g.result()["kaidian"] == [None, True, None, None, None, None]


def test_four_way_gouji_win_does_not_kaidian():
    """开点 (RULES.md §6): only phase-1 plays count; after 头科 in a game with a revolutionary
    four play 四户乱缠 and a living 够级 combo does not 开点."""
    g = position(DADIAN, {2: "KS KH 4S", 3: "5D 6D", 4: "5C 6C", 5: "4H 7H"},
                 leader=2, revolutionaries=[1], waived=[4], finished=[0])
    play(g, 2, "KS KH")
    for s in (3, 4, 5):
        pass_(g, s)
    leads(g, 2)
    assert g.result()["kaidian"][2] is None


@pytest.mark.parametrize(("before", "after"), [
    ({}, [False, None, None, False, None, None]),
    ({0: True}, [True, None, None, False, None, None]),
    ({3: True}, [False, None, None, True, None, None]),
    ({0: True, 3: True, 1: True}, [True, True, None, True, None, None]),
])
def test_toukee_finish_makes_pair_bukaidian(before, after):
    """不开点 (RULES.md §6): when 头科 finishes, its 对头 and itself are 不开点 unless they have
    开点ed; the other seats are not judged yet."""
    g = position(DADIAN, {0: "9S", 1: "5H 6H", 2: "5S 6S", 3: "5D 6D", 4: "5C 6C",
                          5: "4H 7H"}, leader=0, kaidian=before)
    play(g, 0, "9S")
    for s in (1, 2, 3, 4, 5):
        pass_(g, s)
    leads(g, 1)  # 接风
    assert g.result()["kaidian"] == after
    assert g.card_total() == 216


def test_erkee_finish_makes_all_but_toukee_bukaidian():
    """不开点 (RULES.md §6): when 二科 finishes, every seat other than 头科 (二科 included) that has
    not 开点ed is 不开点; those that did keep it."""
    g = position(DADIAN, {1: "9S", 2: "5S 6S", 3: "5D 6D", 4: "5C 6C", 5: "4H 7H"},
                 leader=1, finished=[0], kaidian={0: True, 2: True, 3: False})
    play(g, 1, "9S")
    for s in (2, 3, 4, 5):
        pass_(g, s)
    leads(g, 2)  # 接风
    assert g.result()["kaidian"] == [True, False, True, False, False, False]
    assert g.card_total() == 216


def test_an_answer_to_a_toukee_s_last_combo_never_kaidians():
    """开点 (RULES.md §6): the judgments are made the moment 头科 plays its 底牌, "so an answer to
    a 底牌 never counts" — also a 够级 answer by a seat not judged yet that wins the round."""
    g = position(DADIAN, {0: "KS", 1: "2S 5H", 2: "4S 5S", 3: "4D 5D", 4: "4C 5C",
                          5: "4H 6H"}, leader=0)
    play(g, 0, "KS")  # 头科
    play(g, 1, "2S")  # a single 2 is 够级
    for s in (3, 4):  # seat 3 is 无头, seat 4 is seat 1's 对头
        pass_(g, s)
    leads(g, 1)
    assert g.result()["kaidian"][1] is None
    assert g.card_total() == 216


def test_a_gouji_win_after_the_answer_to_a_last_combo_still_kaidians():
    """开点 (RULES.md §6): only the answer to the 底牌 is excluded; the next round's living 够级
    combo counts."""
    g = position(DADIAN, {0: "KS", 1: "2S AS AH 5H", 2: "4S 5S", 3: "4D 5D", 4: "4C 5C",
                          5: "4H 6H"}, leader=0)
    play(g, 0, "KS")
    play(g, 1, "2S")
    for s in (3, 4):
        pass_(g, s)
    play(g, 1, "AS AH")
    for s in (3, 4):
        pass_(g, s)
    leads(g, 1)
    assert g.result()["kaidian"][1] is True

def test_no_kaidian_after_erkee_finishes_even_by_gousiji():
    """不开点 (RULES.md §6): when 二科 finishes every seat but 头科 that has not 开点ed is 不开点
    and "no one can 开点 after that"; only phase-1 plays count. 二科's 对头 answering the 底牌
    with 够死级 (RULES.md §6) wins the round, but in 四户乱缠 and after 二科 finished: no 开点."""
    g = position(DADIAN, {1: "KS KH", 2: "4H 5H", 3: "4S 5S", 4: "AS AH 5D", 5: "4C 6C"},
                 leader=1, finished=[0], kaidian={0: True})
    play(g, 1, "KS KH")  # 二科
    pass_(g, 2)
    pass_(g, 3)
    play(g, 4, "AS AH")  # 够死级: wins at once
    leads(g, 4)
    play(g, 4, "5D")
    assert g.result()["kaidian"] == [True, False, False, False, False, False]


def test_revolution_opposite_kaidians_by_using_all_rights():
    """开点 after 革命 (RULES.md §6): the revolutionary's 对头 开点s only by using all its 够死级
    rights; one living 够级 combo is not enough."""
    g = position(DADIAN, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D", 4: "KS KH AS AH QS QH QD 9D",
                          5: "4C 6C"}, leader=4, revolutionaries=[1])
    play(g, 4, "KS KH")
    leads(g, 4)
    play(g, 4, "AS AH")
    leads(g, 4)
    assert g.result()["kaidian"][4] is None
    play(g, 4, "QS QH QD")
    leads(g, 4)
    play(g, 4, "9D")  # ends the third 够死级 round
    assert g.result()["kaidian"][4] is True


AUTO = {"preset": "basic", "options": {"dadian": True, "revolution_kaidian": "auto"}}


@pytest.mark.parametrize("waived", [(), (4,)])
def test_revolution_opposite_kaidians_at_once_with_revolution_kaidian_auto(waived):
    """开点 after 革命 (RULES.md §6, §8; revolution_kaidian = auto, 003: 革命算自動認點…對門
    "開點"): the revolutionary's 对头 开点s at once, rights used or waived, and keeps it when 头科
    finishes."""
    g = position(AUTO, {0: "9S", 2: "4H 5H", 3: "4D 5D", 4: "5C 6C 7C", 5: "4C 6D"},
                 leader=0, revolutionaries=[1], waived=waived)
    assert g.result()["kaidian"][4] is True
    play(g, 0, "9S")  # 头科: its pair is judged, seat 4 is not touched
    for s in (2, 3, 4, 5):
        pass_(g, s)
    assert g.result()["kaidian"][4] is True
    assert g.result()["kaidian"][1] is None
    assert g.card_total() == 216


def test_revolution_opposite_does_not_kaidian_at_once_with_revolution_kaidian_rights():
    """开点 after 革命 (RULES.md §6; revolution_kaidian = rights, the default): nothing is
    decided for the 对头 until its rights have lived."""
    g = position(DADIAN, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D", 4: "KS KH 9D", 5: "4C 6C"},
                 leader=4, revolutionaries=[1])
    assert g.result()["kaidian"][4] is None


def test_revolution_kaidian_auto_in_a_record():
    """开点 after 革命 (RULES.md §8): in a replayed record a revolution makes its 对头 开点 with
    revolution_kaidian = auto; with rights it does not."""
    deal = _deal_with_revolutionary(1, {}, seed=5)
    pre = [{"type": "revolution", "seat": 1}]
    auto, error = replay_game(record_for(AUTO, deal, [], leader=0, pre=pre))
    assert error is None, error
    rights, error = replay_game(record_for(DADIAN, deal, [], leader=0, pre=pre))
    assert error is None, error
    assert auto.result()["kaidian"][4] is True
    assert rights.result()["kaidian"][4] is None


def test_kaidian_null_without_dadian():
    """开点 (RULES.md §6; RECORD.md): with 打点 off, every kaidian entry is null, even after a
    living 够级 combo and at the end of the game."""
    g = position(BASIC, {0: "5S", 1: "5H", 2: "QS QH QD 4S", 3: "5D",
                         4: "5C", 5: "KS KH KD"}, leader=2)
    play(g, 2, "QS QH QD")
    play(g, 5, "KS KH KD")  # seat 5 finishes 头科
    pass_(g, 2)
    assert g.result()["kaidian"] == [None] * 6
    while g.state != "over":
        ta = g.to_act()
        s = ta["seat"]
        legal = g.legal_actions(s)
        act = next((a for a in legal if a["act"] == "pass"), legal[0])
        g.act(s, act)
    assert g.result()["complete"]
    assert g.result()["kaidian"] == [None] * 6
    assert g.card_total() == 216


# ---------------------------------------------------------------------------- 烧贡 of burns
def _shao_owed_after_play_out(g):
    """Finish ``g`` with bots that never burn; the 烧贡 the next game is owed."""
    import random

    from engine.bots import RandomBot, play_out

    play_out(g, [RandomBot(random.Random(s), burn_rate=0.0) for s in range(6)])
    return sorted((t["from"], t["to"], t["count"]) for t in g.result()["owed_tributes"]
                  if t["kind"] == "shao")


def test_a_broken_burn_still_earns_its_burn_tribute():
    """烧贡 (RULES.md §6, §9): a burn earns its tribute when it is made, also when the burner's
    对头 breaks it (解烧) at once."""
    g = position("basic", {0: "KS KH 9D", 1: "AS AH 5S", 2: "6H", 3: "7H", 4: "2S 2H 8S",
                           5: "4C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    play(g, 4, "2S 2H")  # 解烧
    assert g.burner is None
    assert _shao_owed_after_play_out(g) == [(0, 1, 1)]


def test_a_counter_burn_earns_two_and_the_first_burn_keeps_its_one():
    """烧贡 (RULES.md §6): the first burn earns 1 from the burned seat; the counter-burn earns 2
    from the seat whose burning combo it burned."""
    g = position(LOOSE, {0: "KS KH 9D", 1: "AS AH 5S 9H", 2: "2S 2H 6D", 3: "8H 4D",
                         4: "BJ BJ 4S", 5: "7C 6C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    burn(g, 2, "2S 2H")  # 反烧
    assert _shao_owed_after_play_out(g) == [(0, 1, 1), (1, 2, 2)]


def test_a_burn_that_ends_in_a_failed_burn_earns_nothing():
    """诈烧 (RULES.md §6): a burn whose burner later fails earns no 烧贡."""
    g = position(LOOSE, {0: "KS KH 9D", 1: "AS AH BJ RJ 5S 6S 7S", 2: "8D 4H", 3: "8H 4D",
                         4: "4S 4C", 5: "7C 6C"}, leader=0)
    play(g, 0, "KS KH")
    burn(g, 1, "AS AH")
    pass_(g, 4)
    play(g, 1, "5S BJ")
    pass_(g, 4)
    play(g, 1, "6S")  # 诈烧
    assert g.result()["eliminated"] == [{"seat": 1, "reason": "failed_burn"}]
    assert _shao_owed_after_play_out(g) == []


# ---------------------------------------------------------------------------- 开点 by rights
def test_a_right_used_on_a_play_that_is_then_burned_is_spent_without_living():
    """revolution_kaidian = rights (RULES.md §6): each right is used by a 够级 play, also one that
    is then burned; the burned play did not live, so it does not count towards 开点."""
    g = position(DADIAN, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D", 4: "KS KH 9D 8D",
                          5: "BJ BJ 4C"}, leader=4, revolutionaries=[1])
    assert g.gousiji_rights[4] == 3
    play(g, 4, "KS KH")
    burn(g, 5, "BJ BJ")
    assert g.gousiji_rights[4] == 2 and g.gousiji_lived[4] == 0
    assert g.result()["kaidian"][4] is None


def test_a_waived_opposite_cannot_kaidian_and_pays_the_revolutionary_mutually():
    """revolution_kaidian = rights (RULES.md §6): having waived its rights, the revolutionary's
    对头 cannot 开点 even with a living 够级 combo, and the two pay each other 点贡."""
    import random

    from engine.bots import RandomBot, play_out

    g = position(DADIAN, {0: "4S 5S", 2: "4H 5H", 3: "4D 5D", 4: "KS KH 9D", 5: "4C 6C"},
                 leader=4, revolutionaries=[1], waived=(4,))
    play(g, 4, "KS KH")  # 无头: anyone may answer; nobody can
    for s in (5, 0, 2, 3):
        pass_(g, s)
    leads(g, 4)
    assert g.result()["kaidian"][4] is None
    play_out(g, [RandomBot(random.Random(s), burn_rate=0.0) for s in range(6)])
    res = g.result()
    assert res["kaidian"][1] is False and res["kaidian"][4] is False
    dian = {(t["from"], t["to"]): t["count"] for t in res["owed_tributes"] if t["kind"] == "dian"}
    assert dian[(1, 4)] == 1 and dian[(4, 1)] == 1
