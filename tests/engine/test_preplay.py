"""Before play and between games: first lead (RULES.md §4), 进贡/还贡 (§9), 憋3/买3/闷/会3 (§10),
明点/预点 (§11).

Records are replayed with :func:`engine.replay` / :func:`engine.replay_match`; positions for
play-time rules come from :func:`engine.testing.position`.
"""

from __future__ import annotations

import random

import pytest

from engine import Game, IllegalAction, replay, replay_game, replay_match
from engine.bots import HeuristicBot, bot_game, play_out
from engine.cards import parse_cards
from engine.testing import make_deal, position, record_for

# Cards that are neither 3s nor tribute cards (2s, jokers): ranks 4..A, copy by copy, so that a
# slice of 36 holds each card at most once.
PLAIN = [f"{r}{s}" for _copy in range(4)
         for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A") for s in "SHDC"]

NO_BIE3 = {"preset": "dagang", "options": {"bie3": False}}  # 打点 on, 憋3 off: no 买3 needed


def hand_of(special: str, slot: int) -> list[str]:
    """A full 36-card hand: ``special`` plus plain filler (slot 0..3 keep fillers disjoint)."""
    cards = parse_cards(special)
    return cards + PLAIN[slot * 36: slot * 36 + 36 - len(cards)]


def build_deal(full: dict | None = None, partial: dict | None = None, seed: int = 0):
    """Seats in ``full`` get exactly the special cards plus plain filler; seats in ``partial``
    get at least those cards; the rest of the four decks is shuffled in."""
    fixed = {s: hand_of(sp, i) for i, (s, sp) in enumerate((full or {}).items())}
    fixed.update({s: parse_cards(c) for s, c in (partial or {}).items()})
    return make_deal(fixed, seed)


def prev(*owed, next_leader=0) -> dict:
    """A hand-written previous result: ``owed`` as (kind, from, to, count)."""
    return {"owed_tributes": [{"kind": k, "from": f, "to": t, "count": n} for k, f, t, n in owed],
            "next_leader": next_leader}


def trib(kind, frm, to, cards) -> dict:
    return {"type": "tribute", "kind": kind, "from": frm, "to": to, "cards": parse_cards(cards)}


def ret(frm, to, cards) -> dict:
    return {"type": "return", "from": frm, "to": to, "cards": parse_cards(cards)}


def err(res) -> dict:
    assert res["ok"] is False, f"expected an error, got {res}"
    return res["error"]


def ok(res) -> dict:
    assert res["ok"] is True, f"expected ok, got {res.get('error')}"
    return res


def bots(seed=0):
    return [HeuristicBot(random.Random(seed * 10 + i)) for i in range(6)]


def finished_record(rules, deal_hands, **kw) -> dict:
    """Play a live first game of a table with bots and return its record."""
    g = Game(rules, deal_hands, first_game=True, **kw)
    play_out(g, bots(), random.Random(0))
    assert g.state == "over"
    return g.record()


def threes_deal(buyer: int, counts: dict, buyer_special="2S 2H BJ", seed=0):
    """A 憋3 deal where ``buyer`` holds no 3 and seat t holds exactly ``counts[t]`` 3s (the
    counts of the five other seats must add up to 16, all the 3s)."""
    assert sum(counts.values()) == 16 and buyer not in counts
    pool = [f"3{s}" for _ in range(4) for s in "SHDC"]
    partial = {}
    for t, n in counts.items():
        partial[t] = " ".join(pool[:n])
        pool = pool[n:]
    return build_deal({buyer: buyer_special}, partial, seed)


def back_cards(d, receiver: int, giver: int, n: int) -> str:
    """``n`` plain cards of ``receiver``'s deal whose ranks the giver was dealt (a legal 还贡)."""
    ranks = {c[:-1] for c in d[giver] if c in PLAIN}
    return " ".join([c for c in d[receiver] if c in PLAIN and c[:-1] in ranks][:n])


def owed_sum(res, kind=None, frm=None, to=None) -> int:
    return sum(t["count"] for t in res["owed_tributes"]
               if (kind is None or t["kind"] == kind) and (frm is None or t["from"] == frm)
               and (to is None or t["to"] == to))


# ---------------------------------------------------------------------------------------------
# §4 first lead (开牌/上班)


def test_first_lead_loser_previous_daluo_leads():
    """开牌 (§4, first_lead=loser): the previous game's 大落 leads; another leader is wrong_leader."""
    d = build_deal(seed=3)
    good = replay(record_for("basic", d, [], leader=4, previous=prev(next_leader=4)))
    ok(good)
    assert good["to_act"]["seat"] == 4
    e = err(replay(record_for("basic", d, [], leader=0, previous=prev(next_leader=4))))
    assert (e["code"], e["where"], e["index"]) == ("wrong_leader", "leader", None)


def test_first_lead_loser_next_leader_is_daluo_of_finished_games():
    """大落开牌 (§4 loser): a finished game's next_leader is its 大落 (unless 串三户)."""
    seen = 0
    for seed in range(8):
        r = bot_game("basic", seed).result()
        if r["sweep"]:
            continue
        assert r["next_leader"] == r["places"].index(6), (seed, r["places"])
        seen += 1
    assert seen >= 3


def test_first_lead_loser_checked_across_a_match():
    """大落开牌 (§4): in a match the second game's leader must be the first game's 大落."""
    seed = next(k for k in range(10, 40) if not bot_game("basic", k).result()["sweep"])
    g1 = bot_game("basic", seed)
    r1 = g1.result()
    g2 = bot_game("basic", seed + 100, previous=r1)
    assert g2.leader == r1["places"].index(6)
    match = {"format": "gouji-match/1", "rules": "basic", "games": [g1.record(), g2.record()]}
    res = replay_match(match)
    assert res["ok"] is True, res
    bad = g2.record()
    bad["leader"] = (g2.leader + 1) % 6
    res = replay_match({"format": "gouji-match/1", "rules": "basic",
                        "games": [g1.record(), bad]})
    assert res["ok"] is False and res["game"] == 1
    assert res["error"]["code"] == "wrong_leader" and res["error"]["where"] == "leader"


# 3s of one suit: seats 1 and 4 hold three of one suit each, every other seat at most one.
LIANG3_TIE = {4: "3S 3S 3S 2S", 1: "3H 3H 3H 2H", 0: "3D 3C 3S 2D", 2: "3D 3C 3H 2C",
              3: "3D 3C 2S", 5: "3D 3C 2H"}


@pytest.mark.parametrize("opening, leader", [(0, 1), (2, 4), (5, 1), (4, 4)])
def test_liang3_first_game_tie_goes_first_from_opening_seat(opening, leader):
    """亮3/顶班 (§4): most 3s of one suit leads the table's first game; a tie goes to the tied
    seat first in turn order from the opening seat."""
    d = make_deal(LIANG3_TIE, 7)
    rec = finished_record("basic", d, opening_seat=opening)
    assert rec["leader"] == leader
    match = {"format": "gouji-match/1", "rules": "basic", "opening_seat": opening, "games": [rec]}
    assert replay_match(match)["ok"] is True
    other = {1: 4, 4: 1}[leader]
    bad = dict(rec, leader=other)
    res = replay_match({"format": "gouji-match/1", "rules": "basic", "opening_seat": opening,
                        "games": [bad]})
    assert res["ok"] is False and res["game"] == 0
    assert (res["error"]["code"], res["error"]["where"]) == ("wrong_leader", "leader")


def test_liang3_counts_threes_of_one_suit_not_all_threes():
    """亮3 (§4): the most 3s *of one suit* leads: two 3♠ beat four 3s of four suits."""
    hands = {0: "3S 3H 3D 3C 2S", 3: "3S 3S 2H", 1: "3S 3H 3D 2D", 2: "3H 3D 3C 2C",
             4: "3H 3C 2S", 5: "3D 3C 2H"}
    d = make_deal(hands, 2)
    rec = finished_record("basic", d)
    assert rec["leader"] == 3
    res = replay_match({"format": "gouji-match/1", "rules": "basic",
                        "games": [dict(rec, leader=0)]})
    assert res["ok"] is False and res["error"]["code"] == "wrong_leader"


def test_first_lead_rotate_seat_after_previous_first_leader():
    """轮流开牌 (§4, first_lead=rotate): each later game's leader is the seat after the previous
    game's first leader."""
    g1 = bot_game("dagang", 21, opening_seat=4)
    assert g1.leader == 4
    r1 = g1.result()
    assert r1["next_leader"] == 5
    g2 = bot_game("dagang", 22, previous=r1)
    assert g2.leader == 5
    r2 = g2.result()
    assert r2["next_leader"] == 0
    games = [g1.record(), g2.record()]
    res = replay_match({"format": "gouji-match/1", "rules": "dagang", "opening_seat": 4,
                        "games": games})
    assert res["ok"] is True, res
    res = replay_match({"format": "gouji-match/1", "rules": "dagang", "opening_seat": 4,
                        "games": [g1.record(), dict(g2.record(), leader=0)]})
    assert res["ok"] is False and res["game"] == 1
    assert (res["error"]["code"], res["error"]["where"]) == ("wrong_leader", "leader")
    # a standalone record with that previous result is checked the same way
    d = build_deal(partial={s: f"3{'SHDC'[s % 4]}" for s in range(6)}, seed=5)
    p = dict(r1, owed_tributes=[])
    ok(replay(record_for("dagang", d, [], leader=5, previous=p)))
    e = err(replay(record_for("dagang", d, [], leader=0, previous=p)))
    assert (e["code"], e["where"], e["index"]) == ("wrong_leader", "leader", None)


# ---------------------------------------------------------------------------------------------
# §9 进贡 / 还贡


def test_luo_tribute_biggest_first():
    """进贡 (§9): 落贡 cards are the giver's biggest: 大王s, then 小王s, then 2s."""
    d = build_deal({5: "RJ BJ BJ 2S 2H"}, {0: "4S 5S"}, seed=1)
    p = prev(("luo", 5, 0, 2))
    back = ret(0, 5, "4S 5S")
    ok(replay(record_for("basic", d, [], pre=[trib("luo", 5, 0, "RJ BJ"), back], previous=p)))
    for wrong in ("BJ BJ", "RJ 2S", "2S 2H"):
        e = err(replay(record_for("basic", d, [], pre=[trib("luo", 5, 0, wrong), back],
                                  previous=p)))
        assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 0), wrong


def test_luo_tribute_small_jokers_before_twos():
    """进贡 (§9): with no 大王, the 小王s go before the 2s."""
    d = build_deal({5: "BJ 2S 2H"}, {0: "4S 5S"}, seed=1)
    p = prev(("luo", 5, 0, 2))
    ok(replay(record_for("basic", d, [], previous=p,
                         pre=[trib("luo", 5, 0, "BJ 2H"), ret(0, 5, "4S 5S")])))
    e = err(replay(record_for("basic", d, [], previous=p,
                              pre=[trib("luo", 5, 0, "2S 2H"), ret(0, 5, "4S 5S")])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)


def test_tribute_giver_without_enough_gives_what_it_has():
    """进贡 (§9): a giver without enough tribute cards gives what it has; none means none."""
    d = build_deal({5: "2S"}, {0: "4S"}, seed=1)
    p = prev(("luo", 5, 0, 2))
    ok(replay(record_for("basic", d, [], previous=p,
                         pre=[trib("luo", 5, 0, "2S"), ret(0, 5, "4S")])))
    d0 = build_deal({5: ""}, seed=1)
    ok(replay(record_for("basic", d0, [], previous=p)))


def test_missing_tribute_is_bad_pre():
    """进贡 (§9): with previous owing a 落贡 the giver can pay, leaving it out is bad_pre."""
    d = build_deal({5: "RJ BJ 2S"}, {0: "4S"}, seed=1)
    e = err(replay(record_for("basic", d, [], previous=prev(("luo", 5, 0, 2)))))
    assert (e["code"], e["where"]) == ("bad_pre", "pre")
    # paying only part while holding more is as bad
    e = err(replay(record_for("basic", d, [], previous=prev(("luo", 5, 0, 2)),
                              pre=[trib("luo", 5, 0, "RJ"), ret(0, 5, "4S")])))
    assert (e["code"], e["where"]) == ("bad_pre", "pre")


def test_tribute_not_owed_or_overpaid_is_bad_pre():
    """进贡 (§9): with previous, only what is owed is paid: no extra giver, no extra card."""
    d = build_deal({5: "RJ BJ 2S"}, seed=1)
    e = err(replay(record_for("basic", d, [], previous=prev(),
                              pre=[trib("luo", 5, 0, "RJ BJ"), ret(0, 5, "4S 5S")])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)
    e = err(replay(record_for("basic", d, [], previous=prev(("luo", 5, 0, 2)),
                              pre=[trib("luo", 5, 0, "RJ BJ 2S"), ret(0, 5, "4S 5S 6S")])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)


def test_tribute_order_dian_men_shao_luo():
    """进贡顺序 (§9): 点贡, then 闷贡, then 烧贡, then 落贡."""
    d = build_deal({1: "RJ 2S", 2: "BJ 2H", 4: "2D", 5: "RJ RJ BJ"}, seed=4)
    p = prev(("dian", 1, 4, 1), ("men", 2, 3, 1), ("shao", 4, 0, 1), ("luo", 5, 0, 2))
    good = [trib("dian", 1, 4, "RJ"), trib("men", 2, 3, "BJ"), trib("shao", 4, 0, "2D"),
            trib("luo", 5, 0, "RJ RJ"), ret(0, 5, back_cards(d, 0, 5, 2))]
    ok(replay(record_for(NO_BIE3, d, [], previous=p, pre=good)))
    # 落贡 before 点贡: the 落贡 is out of order
    swapped = [good[3], good[4], good[0], good[1], good[2]]
    e = err(replay(record_for(NO_BIE3, d, [], previous=p, pre=swapped)))
    assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 0)
    # 闷贡 before 点贡
    e = err(replay(record_for(NO_BIE3, d, [], previous=p, pre=[good[1], good[0]] + good[2:])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)
    # 烧贡 after 落贡
    e = err(replay(record_for(NO_BIE3, d, [], previous=p,
                              pre=[good[0], good[1], good[3], good[4], good[2]])))
    assert e["code"] == "bad_pre" and e["index"] in (2, 4)


def test_chi_le_bu_tu_received_tribute_never_passed_on():
    """吃了不吐 (§9): a card received as tribute is never passed on as tribute."""
    # seat 0 receives 大王 as 点贡 from seat 3, then owes 2 落贡 to seat 1 holding only 2S 2H
    d = build_deal({0: "2S 2H", 3: "RJ"}, {1: "4S 5S"}, seed=6)
    p = prev(("dian", 3, 0, 1), ("luo", 0, 1, 2))
    first = trib("dian", 3, 0, "RJ")
    ok(replay(record_for(NO_BIE3, d, [], previous=p,
                         pre=[first, trib("luo", 0, 1, "2S 2H"), ret(1, 0, "4S 5S")])))
    e = err(replay(record_for(NO_BIE3, d, [], previous=p,
                              pre=[first, trib("luo", 0, 1, "RJ 2S"), ret(1, 0, "4S 5S")])))
    assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 1)


def test_chi_le_bu_tu_is_about_the_card_not_only_its_rank():
    """吃了不吐 (§9): a seat holding its own 2♠ and a 2♥ received as tribute passes on the 2♠,
    never the received 2♥."""
    d = build_deal({0: "2S", 3: "2H"}, {1: "4S"}, seed=6)
    p = prev(("dian", 3, 0, 1), ("luo", 0, 1, 1))
    first = trib("dian", 3, 0, "2H")
    ok(replay(record_for(NO_BIE3, d, [], previous=p,
                         pre=[first, trib("luo", 0, 1, "2S"), ret(1, 0, "4S")])))
    e = err(replay(record_for(NO_BIE3, d, [], previous=p,
                              pre=[first, trib("luo", 0, 1, "2H"), ret(1, 0, "4S")])))
    assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 1)


def test_chi_le_bu_tu_short_giver_keeps_received_card():
    """吃了不吐 (§9): a giver whose own tribute cards run short keeps the received card and pays
    what it has."""
    d = build_deal({0: "2S", 3: "RJ"}, {1: "4S"}, seed=6)
    p = prev(("dian", 3, 0, 1), ("luo", 0, 1, 2))
    ok(replay(record_for(NO_BIE3, d, [], previous=p,
                         pre=[trib("dian", 3, 0, "RJ"), trib("luo", 0, 1, "2S"),
                              ret(1, 0, "4S")])))


def test_huan_gong_same_count():
    """还贡 (§9): the 落贡 receiver returns exactly as many cards as it got."""
    d = build_deal({5: "RJ BJ 2S"}, seed=1)
    p = prev(("luo", 5, 0, 2))
    give = trib("luo", 5, 0, "RJ BJ")
    for back in ("4S", "4S 5S 6S"):
        e = err(replay(record_for("basic", d, [], previous=p, pre=[give, ret(0, 5, back)])))
        assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 1), back


def test_huan_gong_missing_is_bad_pre():
    """还贡 (§9): a 落贡 must be returned before play."""
    d = build_deal({5: "RJ BJ 2S"}, seed=1)
    e = err(replay(record_for("basic", d, [], previous=prev(("luo", 5, 0, 2)),
                              pre=[trib("luo", 5, 0, "RJ BJ")])))
    assert (e["code"], e["where"]) == ("bad_pre", "pre")


def test_huan_gong_rank_the_giver_still_holds():
    """还贡 (§9, 大纲 第二十一条四): each returned card is of a rank the giver still holds."""
    # seat 5 gives its only 小王 and 2: afterwards it holds neither rank, but holds 4s and 5s
    d = build_deal({5: "BJ 2S"}, partial={0: "2H 2D 4H 5D AS"}, seed=1)
    p = prev(("luo", 5, 0, 2))
    give = trib("luo", 5, 0, "BJ 2S")
    ok(replay(record_for("basic", d, [], previous=p, pre=[give, ret(0, 5, "4H 5D")])))
    for back in ("2H 4H", "BJ 4H", "4H AS"):
        e = err(replay(record_for("basic", d, [], previous=p, pre=[give, ret(0, 5, back)])))
        assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 1), back


def test_only_luo_gong_is_returned():
    """还贡 (§9): 点贡 is not returned."""
    d = build_deal({1: "RJ 2S"}, seed=4)
    p = prev(("dian", 1, 4, 1))
    ok(replay(record_for(NO_BIE3, d, [], previous=p, pre=[trib("dian", 1, 4, "RJ")])))
    e = err(replay(record_for(NO_BIE3, d, [], previous=p,
                              pre=[trib("dian", 1, 4, "RJ"), ret(4, 1, "4S")])))
    assert (e["code"], e["index"]) == ("bad_pre", 1)


def _luo(res):
    return [t for t in res["owed_tributes"] if t["kind"] == "luo"]


def test_luo_gong_owed_by_losers_of_finished_games():
    """落贡 (§9): 大落 owes 头科 2, 二落 owes 二科 1 (different teams; none after 串三户)."""
    checked = 0
    for seed in range(12):
        r = bot_game("basic", seed).result()
        at = {p: s for s, p in enumerate(r["places"])}
        expect = []
        if not r["sweep"]:
            for giver, taker, n in ((6, 1, 2), (5, 2, 1)):
                if at[giver] % 2 != at[taker] % 2:
                    expect.append({"kind": "luo", "from": at[giver], "to": at[taker],
                                   "count": n})
        assert sorted(_luo(r), key=str) == sorted(expect, key=str), (seed, r["places"])
        checked += 1
    assert checked == 12


def test_tribute_within_team_off_no_luo_gong_between_teammates():
    """落贡 (§9, tribute_within_team off by default): no 落贡 between teammates; with the option
    on, teammates pay it too."""
    found = 0
    for seed in range(40):
        r = bot_game("basic", seed).result()
        if r["sweep"]:
            continue
        at = {p: s for s, p in enumerate(r["places"])}
        pairs = [(at[6], at[1], 2), (at[5], at[2], 1)]
        mates = [(g, t, n) for g, t, n in pairs if g % 2 == t % 2]
        if not mates:
            continue
        found += 1
        for g, t, _n in mates:
            assert not any(x["from"] == g and x["to"] == t for x in _luo(r)), (seed, r)
        on = bot_game({"preset": "basic", "options": {"tribute_within_team": True}},
                      seed).result()
        assert on["places"] == r["places"]
        for g, t, n in mates:
            assert {"kind": "luo", "from": g, "to": t, "count": n} in _luo(on), (seed, on)
        if found >= 3:
            break
    assert found >= 1


def test_no_luo_gong_after_chuan_san_hu():
    """串三户 (§9): after one team takes 头科, 二科 and 三科 there is no 落贡."""
    found = 0
    for seed in range(60):
        for rules in ("basic", {"preset": "basic", "options": {"tribute_within_team": True}}):
            r = bot_game(rules, seed).result()
            if not r["sweep"]:
                continue
            found += 1
            assert r["team_points"] in ([12, 0], [0, 12])
            assert _luo(r) == [], (seed, r)
        if found >= 2:
            break
    assert found >= 1


def test_revolutionary_receives_no_tribute():
    """革命 (§8, §9): a revolutionary neither pays nor receives tribute in that game."""
    d = build_deal({0: ""}, partial={5: "RJ BJ"}, seed=8)  # seat 0: no 2, no joker
    p = prev(("luo", 5, 0, 2), next_leader=1)
    rev = {"type": "revolution", "seat": 0}
    res = ok(replay(record_for("basic", d, [], leader=1, previous=p, pre=[rev])))
    assert res["revolutions"] == [0]
    e = err(replay(record_for("basic", d, [], leader=1, previous=p,
                              pre=[rev, trib("luo", 5, 0, "RJ BJ"), ret(0, 5, "4S 5S")])))
    assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 1)


def test_revolutionary_pays_no_tribute():
    """革命 (§9): a revolutionary that owes 点贡 pays nothing, and nobody asks for it."""
    d = build_deal({0: ""}, seed=8)
    p = prev(("dian", 0, 3, 1), next_leader=1)
    ok(replay(record_for(NO_BIE3, d, [], leader=1, previous=p,
                         pre=[{"type": "revolution", "seat": 0}])))


@pytest.mark.parametrize("revolts", [True, False])
def test_live_play_asks_for_revolution_before_it_pays_tributes(revolts):
    """革命 is judged on the dealt cards (§8) and a revolutionary neither pays nor receives
    tribute (§2): live play asks each seat before paying any tribute, so the seat asked holds
    its dealt hand — a 小王 owed to it as 落贡 is not in it yet, and never comes if it
    revolts."""
    # given: seat 0 dealt no 2 and no joker, owed seat 5's two jokers (落贡) by game 1
    d = build_deal({0: ""}, partial={5: "RJ BJ"}, seed=8)
    g = Game("basic", d, prev(("luo", 5, 0, 2), next_leader=1))

    # then: seat 0 is asked first, holding what it was dealt, nothing paid yet
    assert g.pre_prompt() == (0, [{"act": "revolt"}, {"act": "decline"}])
    assert not g.auto_tributes_paid
    assert sorted(g.hands[0]) == sorted(set(d[0])) and "BJ" not in g.hands[0]

    # when: it revolts (or declines), and the other seats decline
    g.act(0, {"act": "revolt" if revolts else "decline"})
    while g.pre_prompt() is not None and g.pre_prompt()[1][-1] == {"act": "decline"}:
        g.act(g.pre_prompt()[0], {"act": "decline"})

    # then: the tributes are paid after the question, to it only if it did not revolt
    assert g.auto_tributes_paid
    jokers = [e for e in g.pre_events if e["type"] == "tribute"]
    assert jokers == ([] if revolts else [trib("luo", 5, 0, "RJ BJ")])


# ---------------------------------------------------------------------------------------------
# §10 憋3


def test_bie3_threes_only_as_last_pure_combo():
    """憋3 (§10): 3s may not be played before the last combo, nor split, nor with 2s/jokers."""
    for cards in (["3S", "3H"], ["3S"]):
        g = position("dagang", {0: "3S 3H 5S", 3: "9S 9H"}, leader=0)
        with pytest.raises(IllegalAction) as exc:
            g.act(0, {"act": "play", "cards": cards})
        assert exc.value.code == "three_rule"
    g = position("dagang", {0: "3S 3H 2S", 3: "9S 9H"}, leader=0)
    with pytest.raises(IllegalAction) as exc:
        g.act(0, {"act": "play", "cards": ["3S", "3H", "2S"]})
    assert exc.value.code == "three_rule"
    g = position("dagang", {0: "3S 3H BJ", 3: "9S 9H"}, leader=0)
    with pytest.raises(IllegalAction) as exc:
        g.act(0, {"act": "play", "cards": ["3S", "3H", "BJ"]})
    assert exc.value.code == "three_rule"


def test_bie3_leader_left_with_only_threes_plays_them():
    """憋3 (§10): a seat left with only 3s plays them together as its last combo."""
    g = position("dagang", {0: "3S 3H", 3: "9S 9H", 1: "5S"}, leader=0)
    legal = g.legal_actions(0)
    assert legal == [{"act": "play", "cards": ["3S", "3H"]}]
    g.act(0, {"act": "play", "cards": ["3S", "3H"]})
    assert g.finish_order == [0]


def test_bie3_legal_actions_hold_back_threes():
    """憋3 (§10): while other cards remain, no legal lead contains a 3."""
    g = position("dagang", {0: "3S 3H 5S 2D BJ", 3: "9S 9H"}, leader=0)
    plays = g.legal_actions(0)
    assert plays
    assert all(not any(c.startswith("3") for c in a["cards"]) for a in plays)


def test_bie3_off_threes_play_freely():
    """憋3 (§10) off: a 3 may be led at any time."""
    g = position("basic", {0: "3S 3H 5S", 3: "9S 9H"}, leader=0)
    g.act(0, {"act": "play", "cards": ["3S"]})
    assert g.count[0] == 2


def test_bie3_three_rule_in_a_record():
    """憋3 (§10): a record leading a 3 early fails with three_rule at that act."""
    d = build_deal(partial={0: "3S 3H 5S", 1: "3D", 2: "3C", 3: "3S", 4: "3H", 5: "3D"}, seed=2)
    e = err(replay(record_for("dagang", d, [{"seat": 0, "act": "play", "cards": ["3S"]}])))
    assert (e["code"], e["where"], e["index"], e["seat"]) == ("three_rule", "actions", 0, 0)
    acts = [{"seat": 0, "act": "play", "cards": ["5S"]}, {"seat": 1, "act": "pass"},
            {"seat": 2, "act": "pass"}]
    ok(replay(record_for("dagang", d, acts)))


# ---------------------------------------------------------------------------------------------
# §10 买3


def buy(seat, frm, give, take) -> dict:
    return {"type": "buy3", "seat": seat, "from": frm, "give": give, "take": take}


def test_mai3_from_opposite_with_two_threes():
    """买3 (§10): a seat with no 3 buys from its 对头 when the 对头 holds two or more, paying a 2."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3})
    take = next(c for c in d[3] if c.startswith("3"))
    res = ok(replay(record_for("dagang", d, [], pre=[buy(0, 3, "2S", take)])))
    assert res["to_act"]["seat"] == 0
    e = err(replay(record_for("dagang", d, [], pre=[buy(0, 1, "2S", "3S")])))
    assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 0)


def test_mai3_from_opposites_teammate_with_most_threes():
    """买3 (§10): when the 对头 has fewer than two 3s, buy from the 对头's teammate with most."""
    d = threes_deal(0, {3: 1, 1: 3, 5: 5, 2: 4, 4: 3})
    take5 = next(c for c in d[5] if c.startswith("3"))
    ok(replay(record_for("dagang", d, [], pre=[buy(0, 5, "2S", take5)])))
    for frm in (3, 1):
        take = next(c for c in d[frm] if c.startswith("3"))
        e = err(replay(record_for("dagang", d, [], pre=[buy(0, frm, "2S", take)])))
        assert (e["code"], e["index"]) == ("bad_pre", 0), frm


@pytest.mark.parametrize("buyer, counts, seller", [
    (0, {3: 1, 1: 4, 5: 4, 2: 4, 4: 3}, 1),
    (2, {5: 1, 1: 4, 3: 4, 0: 4, 4: 3}, 3),  # from seat 2 the turn order reaches 3 before 1
])
def test_mai3_tie_broken_in_turn_order_from_buyer(buyer, counts, seller):
    """买3 (§10): a tie between the 对头's teammates goes to the first in turn order from the
    buyer."""
    d = threes_deal(buyer, counts)
    other = next(t for t in counts if counts[t] == counts[seller] and t != seller)
    take = next(c for c in d[seller] if c.startswith("3"))
    ok(replay(record_for("dagang", d, [], pre=[buy(buyer, seller, "2S", take)])))
    take_o = next(c for c in d[other] if c.startswith("3"))
    e = err(replay(record_for("dagang", d, [], pre=[buy(buyer, other, "2S", take_o)])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)


def test_mai3_pays_a_two_if_it_has_one():
    """买3 (§10): the price is a 2; a joker only when the buyer holds no 2."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3})
    take = next(c for c in d[3] if c.startswith("3"))
    e = err(replay(record_for("dagang", d, [], pre=[buy(0, 3, "BJ", take)])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)
    e = err(replay(record_for("dagang", d, [], pre=[buy(0, 3, "4S", take)])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)
    d2 = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3}, buyer_special="BJ RJ")
    take = next(c for c in d2[3] if c.startswith("3"))
    ok(replay(record_for("dagang", d2, [], pre=[buy(0, 3, "BJ", take)])))


def test_mai3_moves_the_cards():
    """买3 (§10): the buyer gives its 2 to the seller and takes the 3."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3})
    take = next(c for c in d[3] if c.startswith("3"))
    g, e = replay_game(record_for("dagang", d, [], pre=[buy(0, 3, "2S", take)]))
    assert e is None
    assert g.hands[0].get(take) == 1 and g.hands[0].get("2S", 0) == 0
    assert g.hands[3].get("2S", 0) == d[3].count("2S") + 1
    assert sum(n for c, n in g.hands[3].items() if c.startswith("3")) == 1


def test_mai3_missing_buy_is_bad_pre():
    """买3 (§10): a seat with no 3 that can pay must buy before play."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3})
    e = err(replay(record_for("dagang", d, [])))
    assert (e["code"], e["where"]) == ("bad_pre", "pre")


def test_mai3_seat_holding_a_three_may_not_buy():
    """买3 (§10): only a seat with no 3 buys."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3})
    take = next(c for c in d[3] if c.startswith("3"))
    pre = [buy(0, 3, "2S", take), buy(1, 4, "2S", "3S")]
    e = err(replay(record_for("dagang", d, [], pre=pre)))
    assert (e["code"], e["index"]) == ("bad_pre", 1)


def test_mai3_only_with_bie3():
    """买3 (§10): buying 3s exists only with 憋3."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3})
    take = next(c for c in d[3] if c.startswith("3"))
    e = err(replay(record_for("basic", d, [], pre=[buy(0, 3, "2S", take)])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)


def test_mai3_comes_after_tributes():
    """买3 (§4.2, §10): buying 3s comes after the tributes."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3}, buyer_special="2S 2H RJ")
    take = next(c for c in d[3] if c.startswith("3"))
    p = prev(("dian", 0, 3, 1))
    ok(replay(record_for("dagang", d, [], previous=p,
                         pre=[trib("dian", 0, 3, "RJ"), buy(0, 3, "2S", take)])))
    e = err(replay(record_for("dagang", d, [], previous=p,
                              pre=[buy(0, 3, "2S", take), trib("dian", 0, 3, "RJ")])))
    assert e["code"] == "bad_pre" and e["where"] == "pre" and e["index"] in (0, 1)


def test_mai3_take_must_be_a_three_the_seller_holds():
    """买3 (§10): the card taken is one of the seller's 3s."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3})
    missing = next(c for c in ("3S", "3H", "3D", "3C") if c not in d[3])
    e = err(replay(record_for("dagang", d, [], pre=[buy(0, 3, "2S", missing)])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)
    e = err(replay(record_for("dagang", d, [], pre=[buy(0, 3, "2S", d[3][-1])])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)


def test_mai3_not_required_with_nothing_to_pay():
    """买3 (§10): a seat with no 3 and nothing to pay does not buy; dealt no 2 and no joker, it
    may revolt instead (revolutions are judged on the dealt cards)."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3}, buyer_special="")
    ok(replay(record_for("dagang", d, [])))
    res = ok(replay(record_for("dagang", d, [], leader=1,
                               pre=[{"type": "revolution", "seat": 0}])))
    assert res["revolutions"] == [0]


# ---------------------------------------------------------------------------------------------
# §10 闷


SMOTHER_HANDS = {0: "5S 3S 3H", 1: "7S 8S", 2: "9S 9H", 3: "10S 10H", 4: "4D 4H", 5: "6D 6H"}


def test_men_last_place_smothered_seat_eliminated():
    """闷 (§10, men=last_place): a seat down to its 3s whose previous combo is beaten is
    eliminated at once and placed 大落."""
    g = position("dagang", SMOTHER_HANDS, leader=0)
    g.act(0, {"act": "play", "cards": ["5S"]})
    g.act(1, {"act": "play", "cards": ["7S"]})
    res = g.result()
    assert res["eliminated"] == [{"seat": 0, "reason": "smothered"}]
    assert res["smothers"] == [0]
    assert g.count[0] == 0 and not g.active[0]
    play_out(g, bots(1))
    res = g.result()
    assert res["complete"] and res["places"][0] == 6
    assert owed_sum(res, "men") == 0


def test_men_last_place_two_smothers_fill_places_from_the_bottom():
    """闷 (§7, §10): the first smothered seat is 大落, the next 二落."""
    found = 0
    for seed in range(10):
        r = bot_game("dagang", seed).result()
        sm = [x["seat"] for x in r["eliminated"] if x["reason"] == "smothered"]
        if r["revolutions"] or any(x["reason"] != "smothered" for x in r["eliminated"]):
            continue
        assert sm == r["smothers"]
        for k, s in enumerate(sm):
            assert r["places"][s] == 6 - k, (seed, r)
        found += len(sm) >= 2
    assert found >= 1


def test_men_not_smothered_when_combo_lives():
    """闷 (§10): if the combo before the 3s wins its round, the seat plays its 3s out."""
    g = position("dagang", SMOTHER_HANDS, leader=0)
    g.act(0, {"act": "play", "cards": ["5S"]})
    for s in (1, 2, 3, 4, 5):
        g.act(s, {"act": "pass"})
    assert g.turn == 0 and g.leading
    g.act(0, {"act": "play", "cards": ["3S", "3H"]})
    assert g.finish_order == [0] and g.smothers == [] and g.eliminated == []


def test_men_tribute_plays_on_and_owes_men_gong():
    """闷贡 (§9, §10, men=tribute): the smothered seat plays on and owes 1 闷贡 to the seat that
    beat its second-to-last combo (not to a later beater)."""
    g = position("online", SMOTHER_HANDS, leader=0)
    g.act(0, {"act": "play", "cards": ["5S"]})
    g.act(1, {"act": "play", "cards": ["7S"]})
    g.act(2, {"act": "play", "cards": ["9S"]})
    assert g.active[0] and g.count[0] == 2 and g.smothers == [0]
    assert g.eliminated == []
    play_out(g, bots(2))
    res = g.result()
    assert res["complete"] and res["eliminated"] == []
    men = [t for t in res["owed_tributes"] if t["kind"] == "men"]
    assert men == [{"kind": "men", "from": 0, "to": 1, "count": 1}]


def test_men_gong_in_finished_online_games():
    """闷贡 (§9): every smother of a men=tribute game shows up as 1 闷贡 owed by that seat."""
    found = 0
    for seed in range(6):
        r = bot_game("online", seed).result()
        for s in r["smothers"]:
            found += 1
            assert owed_sum(r, "men", frm=s) == 1, (seed, r)
        assert owed_sum(r, "men") == len(r["smothers"])
        assert all(x["reason"] != "smothered" for x in r["eliminated"])
    assert found >= 1


# ---------------------------------------------------------------------------------------------
# §10 会3


def test_hui3_removes_every_three():
    """会3 (§10): the hui3 event takes every 3 out of all hands."""
    d = build_deal(partial={0: "3S 3H 5S", 2: "3D"}, seed=9)
    g, e = replay_game(record_for("basic", d, [], pre=[{"type": "hui3"}]))
    assert e is None
    for s in range(6):
        assert not any(c.startswith("3") for c in g.hands[s]), s
        assert g.count[s] == 36 - sum(1 for c in d[s] if c.startswith("3"))
    assert g.card_total() == 216
    e = err(replay(record_for("basic", d, [{"seat": 0, "act": "play", "cards": ["3S"]}],
                              pre=[{"type": "hui3"}])))
    assert (e["code"], e["index"]) == ("not_in_hand", 0)


def test_hui3_only_when_option_on():
    """会3 (§10): refused where option hui3 is off (dagang)."""
    d = build_deal(partial={s: f"3{'SHDC'[s % 4]}" for s in range(6)}, seed=9)
    e = err(replay(record_for("dagang", d, [], pre=[{"type": "hui3"}])))
    assert (e["code"], e["where"], e["index"]) == ("bad_pre", "pre", 0)
    e = err(replay(record_for({"preset": "basic", "options": {"hui3": False}}, d, [],
                              pre=[{"type": "hui3"}])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)


def test_hui3_never_with_bie3():
    """会3 (§10): never played with 憋3, whatever the options say."""
    d = build_deal(partial={s: f"3{'SHDC'[s % 4]}" for s in range(6)}, seed=9)
    for rules in ({"preset": "basic", "options": {"bie3": True}},
                  {"preset": "basic", "options": {"bie3": True, "hui3": True}},
                  {"preset": "dagang", "options": {"hui3": True}}):
        res = replay(record_for(rules, d, [], pre=[{"type": "hui3"}]))
        assert res["ok"] is False, rules
        assert res["error"]["code"] in ("bad_pre", "bad_format"), rules


def test_hui3_once_and_last():
    """会3 (§4.2): chosen once, as the last pre-play event (after 明点)."""
    d = build_deal(partial={s: f"3{'SHDC'[s % 4]}" for s in range(6)}, seed=9)
    e = err(replay(record_for("basic", d, [], pre=[{"type": "hui3"}, {"type": "hui3"}])))
    assert (e["code"], e["index"]) == ("bad_pre", 1)
    rules = {"preset": "basic", "options": {"dadian": True}}
    decl = {"type": "declare", "seat": 2, "kind": "mingdian"}
    ok(replay(record_for(rules, d, [], pre=[decl, {"type": "hui3"}])))
    e = err(replay(record_for(rules, d, [], pre=[{"type": "hui3"}, decl])))
    assert (e["code"], e["index"]) == ("bad_pre", 1)


# ---------------------------------------------------------------------------------------------
# §11 明点 / 预点 and 点贡


def dian_game(rules, kd: dict, declared: dict):
    """A position played to the end with 开点 already fixed (头科 seat 2, 二科 seat 5)."""
    kaidian = {s: True for s in range(6)}
    kaidian.update(kd)
    g = position(rules, {0: "4S", 1: "5S", 3: "6S", 4: "7S"}, leader=0, finished=(2, 5),
                 kaidian=kaidian)
    for s, kind in declared.items():
        g.declared[s] = kind
    play_out(g, bots(3))
    res = g.result()
    assert res["complete"]
    for s in range(6):
        assert res["kaidian"][s] is kaidian[s]
    return res


def dian_pairs(res) -> dict:
    out = {}
    for t in res["owed_tributes"]:
        if t["kind"] == "dian":
            out[(t["from"], t["to"])] = out.get((t["from"], t["to"]), 0) + t["count"]
    return out


DOUBLE = {"preset": "dagang", "options": {"fanche_double": True}}


@pytest.mark.parametrize("rules, kd, declared, expect", [
    # plain 点贡: each 不开点 seat gives 1 to its 对头, mutual when both are
    ("dagang", {3: False}, {}, {(3, 0): 1}),
    ("dagang", {0: False, 3: False}, {}, {(0, 3): 1, (3, 0): 1}),
    ("dagang", {}, {}, {}),
    # 明点 / 预点 against a 不开点 对头: 2 / 4 cards
    ("dagang", {3: False}, {0: "mingdian"}, {(3, 0): 2}),
    ("dagang", {3: False}, {0: "yudian"}, {(3, 0): 4}),
    # 翻车: the 对头 开点ed, the declarer pays 2 / 4
    ("dagang", {}, {0: "mingdian"}, {(0, 3): 2}),
    ("dagang", {}, {0: "yudian"}, {(0, 3): 4}),
    # fanche_double doubles only the 翻车 payments
    (DOUBLE, {}, {0: "mingdian"}, {(0, 3): 4}),
    (DOUBLE, {}, {0: "yudian"}, {(0, 3): 8}),
    (DOUBLE, {3: False}, {0: "mingdian"}, {(3, 0): 2}),
    (DOUBLE, {3: False}, {0: "yudian"}, {(3, 0): 4}),
    # a plain 不开点 of the declarer still costs it 1
    ("dagang", {0: False, 3: False}, {0: "mingdian"}, {(3, 0): 2, (0, 3): 1}),
    ("dagang", {0: False}, {0: "mingdian"}, {(0, 3): 3}),
    ("dagang", {0: False}, {0: "yudian"}, {(0, 3): 5}),
    # other pairs are untouched by the declaration
    ("dagang", {3: False, 1: False}, {0: "mingdian"}, {(3, 0): 2, (1, 4): 1}),
])
def test_mingdian_yudian_dian_gong(rules, kd, declared, expect):
    """明点/预点/翻车 (§11): 点贡 between a declarer and its 对头, in owed_tributes."""
    res = dian_game(rules, kd, declared)
    assert dian_pairs(res) == expect


def test_dian_gong_off_without_dadian():
    """点贡 (§9): without 打点 (basic) nothing is owed for 不开点 and kaidian is null."""
    r = bot_game("basic", 3).result()
    assert r["kaidian"] == [None] * 6
    assert dian_pairs(r) == {}


def test_dian_gong_matches_kaidian_in_finished_games():
    """点贡 (§9): in finished 打点 games, each 不开点 seat owes exactly 1 to its 对头."""
    for seed in range(5):
        r = bot_game("dagang", seed).result()
        expect = {(s, (s + 3) % 6): 1 for s in range(6) if r["kaidian"][s] is False
                  and s not in r["revolutions"] and (s + 3) % 6 not in r["revolutions"]}
        got = dian_pairs(r)
        for key, n in expect.items():
            assert got.get(key) == n, (seed, r)


def test_yudian_declared_live_game_settles_dian_gong():
    """预点 (§11): a live game with a 预点 declaration charges 4 点贡 either way, and its record
    replays to the same result."""
    checked = 0
    for seed in range(4):
        rng = random.Random(seed)
        from engine.cards import deal
        g = Game("dagang", deal(rng), first_game=True)
        assert g.to_act()["seat"] == 0 and "declare" in g.to_act()["acts"]
        g.act(0, {"act": "declare", "kind": "yudian"})
        assert g.declared[0] == "yudian"
        play_out(g, bots(seed), rng)
        r = g.result()
        if r["void"] or 0 in r["revolutions"] or 3 in r["revolutions"]:
            continue
        pairs = dian_pairs(r)
        own = 1 if r["kaidian"][0] is False else 0
        if r["kaidian"][3] is False:
            assert pairs.get((3, 0)) == 4, r
            assert pairs.get((0, 3), 0) == own, r
        else:
            assert pairs.get((0, 3)) == 4 + own, r
            assert (3, 0) not in pairs
        rec = g.record()
        assert rec["pre"][0] == {"type": "declare", "seat": 0, "kind": "yudian"}
        assert replay(rec) == r
        checked += 1
    assert checked >= 2


def test_yudian_comes_first_mingdian_after_tributes():
    """预点/明点 (§4.2, §11): 预点 is the first pre-play event, 明点 comes after tributes."""
    d = build_deal({1: "RJ 2S"}, seed=4)
    p = prev(("dian", 1, 4, 1))
    yu = {"type": "declare", "seat": 2, "kind": "yudian"}
    ming = {"type": "declare", "seat": 2, "kind": "mingdian"}
    pay = trib("dian", 1, 4, "RJ")
    ok(replay(record_for(NO_BIE3, d, [], previous=p, pre=[yu, pay])))
    ok(replay(record_for(NO_BIE3, d, [], previous=p, pre=[pay, ming])))
    e = err(replay(record_for(NO_BIE3, d, [], previous=p, pre=[pay, yu])))
    assert (e["code"], e["index"]) == ("bad_pre", 1)
    e = err(replay(record_for(NO_BIE3, d, [], previous=p, pre=[ming, pay])))
    assert e["code"] == "bad_pre" and e["index"] in (0, 1)


def test_declarations_need_dadian_and_are_once():
    """明点 (§11): declarations exist only with 打点, one per seat."""
    d = build_deal(seed=4)
    ming = {"type": "declare", "seat": 2, "kind": "mingdian"}
    e = err(replay(record_for("basic", d, [], pre=[ming])))
    assert (e["code"], e["index"]) == ("bad_pre", 0)
    e = err(replay(record_for(NO_BIE3, d, [], pre=[{"type": "declare", "seat": 2,
                                                    "kind": "yudian"}, ming])))
    assert (e["code"], e["index"]) == ("bad_pre", 1)


def test_mai3_a_seat_that_paid_away_its_only_2_plays_without_buying_and_cannot_revolt():
    """买3 without payment (§10, §4): a seat dealt no 3 and one 2, which it pays as 落贡, has
    nothing to buy with after tributes: it does not buy (a buy is refused), plays without the
    3s rule, and cannot revolt either (revolutions are judged on the cards as dealt)."""
    d = threes_deal(0, {3: 2, 1: 4, 2: 4, 4: 3, 5: 3}, buyer_special="2S")
    previous = prev(("luo", 0, 1, 1), next_leader=0)
    back = back_cards(d, 1, 0, 1)
    pre = [trib("luo", 0, 1, "2S"), ret(1, 0, back)]
    res = replay(record_for("dagang", d, [], pre=pre, previous=previous))
    assert res["ok"], res
    take = next(c for c in d[3] if c.startswith("3"))
    e = err(replay(record_for("dagang", d, [], previous=previous,
                              pre=pre + [buy(0, 3, parse_cards(back)[0], take)])))
    assert (e["code"], e["index"]) == ("bad_pre", 2)
    e = err(replay(record_for("dagang", d, [], previous=previous,
                              pre=[{"type": "revolution", "seat": 0}] + pre)))
    assert (e["code"], e["index"]) == ("bad_pre", 0)
    # live play never asks it to buy: its first question after the tributes is 明点
    g = Game("dagang", d, previous)
    asked = []
    while g.state == "pre":
        seat, options = g.pre_prompt()
        asked.append((seat, options[0]["act"]))
        g.act(seat, HeuristicBot().choose(g, seat))
    assert (0, "buy3") not in asked
    assert g.hands[0].get("2S") is None and not any(c.startswith("3") for c in g.hands[0])
