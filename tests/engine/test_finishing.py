"""Finishing, places, end of game and score (RULES.md §7), and 革命 (RULES.md §8).

Teams are {0, 2, 4} and {1, 3, 5}; the 对头 of seat ``s`` is ``(s + 3) % 6``. Place points:
头科 +4, 二科 +2, 三科 0, 四科 0, 二落 −2, 大落 −4.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import IllegalAction, replay
from engine.cards import CARD_RANK, full_set
from engine.record import replay_game
from engine.testing import make_deal, position, record_for

BASIC = "basic"
PLAY_ON = {"preset": "basic", "options": {"end_when_one_team_left": False}}


# ---------------------------------------------------------------------------- helpers
def play(g, seat, cards):
    g.act(seat, {"act": "play", "cards": cards.split()})


def pass_(g, seat):
    g.act(seat, {"act": "pass"})


def burn(g, seat, cards):
    g.act(seat, {"act": "burn", "cards": cards.split()})


def top_owner(g):
    """The seat whose combo is on the table (the top)."""
    top = g.view(None)["top"]
    return None if top is None else top["seat"]


def finished(g):
    """Seats that finished so far, in order (头科 first)."""
    return list(g.view(None)["finished"])


def leads(g, seat):
    ta = g.to_act()
    assert ta is not None and ta["seat"] == seat and ta["acts"] == ["play"], ta


def team_sum(places, team):
    points = {1: 4, 2: 2, 3: 0, 4: 0, 5: -2, 6: -4}
    return sum(points[places[s]] for s in range(team, 6, 2))


def check_over(g, places, team_points, sweep=False):
    res = g.result()
    assert res["complete"] is True and g.state == "over"
    assert res["void"] is False
    assert res["places"] == places
    assert res["order"] == sorted(range(6), key=places.__getitem__)
    assert res["team_points"] == team_points
    assert res["sweep"] is sweep
    assert 0 in res["team_points"]
    assert res["to_act"] is None
    assert g.card_total() == 216
    return res


# ---------------------------------------------------------------------------- places, 接风
def test_places_run_from_toukee_to_daluo_in_finishing_order():
    """头科 … 大落 (RULES.md §7): each seat that plays its last cards takes the next place from
    the top; the one seat left holding cards is 大落."""
    g = position(BASIC, {0: "9S", 1: "4H", 2: "4D", 3: "4C", 4: "4S", 5: "5S"}, leader=0)
    for leader in range(5):
        leads(g, leader)
        play(g, leader, g.view(leader)["hand"][0])
        if g.state == "over":
            break
        for s in range(leader + 1, 6):
            pass_(g, s)
    # 0 +4, 2 0, 4 −2 = 2; 1 +2, 3 0, 5 −4 = −2
    check_over(g, [1, 2, 3, 4, 5, 6], [2, 0])
    assert g.result()["order"] == [0, 1, 2, 3, 4, 5]


def test_jiefeng_next_seat_after_finisher_leads():
    """接风 (RULES.md §7, 大纲 第十九条): when the round ends on a finisher's 底牌, the next
    unfinished seat after it leads."""
    g = position(BASIC, {0: "4S 5S", 1: "4H 5H", 2: "9S", 3: "4D 5D", 4: "4C 5C",
                         5: "6S 6H"}, leader=2)
    play(g, 2, "9S")
    assert finished(g) == [2]
    for s in (3, 4, 5, 0, 1):
        pass_(g, s)
    leads(g, 3)
    assert g.card_total() == 216


@pytest.mark.parametrize("out", [
    {"finished": [3]},
    {"eliminated": [(3, "failed_burn")]},
    {"revolutionaries": [3], "waived": [0]},
])
def test_jiefeng_skips_seats_out_of_play(out):
    """接风 (RULES.md §7): the lead goes to the next seat still playing after the finisher."""
    g = position(BASIC, {0: "4S 5S", 1: "4H 5H", 2: "9S", 4: "4C 5C", 5: "6S 6H"},
                 leader=2, **out)
    play(g, 2, "9S")
    for s in (4, 5, 0, 1):
        pass_(g, s)
    leads(g, 4)
    assert g.card_total() == 216


def test_no_jiefeng_when_dipai_is_beaten():
    """接风 (RULES.md §7): only a round that ends on the 底牌 passes the lead on; if the 底牌 is
    beaten, the round's winner leads."""
    g = position(BASIC, {0: "4S 5S", 1: "4H 5H", 2: "9S", 3: "4D 5D", 4: "10C 5C",
                         5: "6S 6H"}, leader=2)
    play(g, 2, "9S")
    pass_(g, 3)
    play(g, 4, "10C")
    for s in (5, 0, 1):
        pass_(g, s)
    # seat 3 passed (and is not seat 4's 对头): back to seat 4
    leads(g, 4)


# ---------------------------------------------------------------------------- eliminations
def _smother_then_failed_burn():
    """Seat 1 is smothered (闷), then seat 0 burns and fails (诈烧)."""
    rules = {"preset": "dagang", "options": {"strict_burn": False}}
    g = position(rules, {0: "AS AH 5D 6D", 1: "9S 3S", 2: "10S KS KH 7H", 3: "8C 4D",
                         4: "8D 4C", 5: "9D 4H"}, leader=1)
    play(g, 1, "9S")  # seat 1 is down to its 3s
    play(g, 2, "10S")  # beats it: seat 1 is smothered
    assert g.result()["eliminated"] == [{"seat": 1, "reason": "smothered"}]
    for s in (3, 4, 5, 0):
        pass_(g, s)
    leads(g, 2)
    play(g, 2, "KS KH")
    burn(g, 0, "AS AH")
    pass_(g, 3)
    leads(g, 0)
    play(g, 0, "5D")  # 诈烧: a jokerless lead while holding 6D
    assert g.result()["eliminated"] == [{"seat": 1, "reason": "smothered"},
                                        {"seat": 0, "reason": "failed_burn"}]
    return g


def test_failed_burn_ranks_below_smother():
    """诈烧 and 闷 (RULES.md §7): eliminated seats take places from the bottom, and a failed burn
    ranks below a smother in the same game even when the smother came first."""
    g = _smother_then_failed_burn()
    assert g.result()["places"][0] == 6
    assert g.result()["places"][1] == 5
    leads(g, 2)  # the burned seat leads
    play(g, 2, "7H")  # 头科 (four play now)
    for s in (3, 4, 5):
        pass_(g, s)
    leads(g, 3)  # 接风
    play(g, 3, "4D")
    pass_(g, 4)
    pass_(g, 5)
    play(g, 3, "8C")  # 二科
    pass_(g, 4)
    pass_(g, 5)
    leads(g, 4)  # 接风
    play(g, 4, "4C")
    pass_(g, 5)
    play(g, 4, "8D")  # 三科; seat 5 is left alone
    # team 0: 大落 −4, 头科 +4, 三科 0 = 0; team 1: 二落 −2, 二科 +2, 四科 0 = 0
    check_over(g, [6, 5, 1, 2, 3, 4], [0, 0])


def test_first_eliminated_is_daluo_then_erluo():
    """Eliminations (RULES.md §7): the first eliminated seat is 大落, the next 二落."""
    g = position("dagang",
                 {0: "9S 3S", 1: "10S 4D", 2: "8H 5H", 3: "8C 5C", 4: "JS 3H",
                  5: "QS 6D"}, leader=0, eliminated=[(2, "smothered")])
    play(g, 0, "9S")
    play(g, 1, "10S")  # seat 0, down to its 3s, is smothered
    assert g.result()["eliminated"] == [{"seat": 2, "reason": "smothered"},
                                        {"seat": 0, "reason": "smothered"}]
    places = g.result()["places"]
    assert places[2] == 6 and places[0] == 5
    assert g.card_total() == 216


# ---------------------------------------------------------------------------- 革命 places
def test_revolutionary_placed_sike():
    """革命 (RULES.md §7, §8): a revolutionary is placed 四科 when its teammates are not both
    头科 and 二科; the others fill the remaining places in finishing order."""
    g = position(BASIC, {0: "9S", 2: "4H", 3: "4D", 4: "4C", 5: "4S"}, leader=0,
                 revolutionaries=[1])
    play(g, 0, "9S")  # 头科; with a revolutionary, four now play
    for s in (2, 3, 4, 5):
        pass_(g, s)
    leads(g, 2)  # 接风 skips the revolutionary
    play(g, 2, "4H")
    for s in (3, 4, 5):
        pass_(g, s)
    play(g, 3, "4D")
    pass_(g, 4)
    pass_(g, 5)
    play(g, 4, "4C")
    # 0 头科, 2 二科, 3 三科, 1 四科, 4 二落, 5 大落: team 0 4+2−2 = 4, team 1 0+0−4 = −4
    check_over(g, [1, 4, 2, 3, 5, 6], [4, 0])


def test_revolutionary_placed_sanke_when_teammates_take_toukee_and_erkee():
    """革命 and 串三户 (RULES.md §7, §8): when the revolutionary's two teammates are 头科 and 二科
    it is placed 三科, and its team has 串三户 (12 points)."""
    g = position(BASIC, {0: "4S 5S", 2: "4H 5H", 3: "9S", 4: "4D 5D", 5: "10H"}, leader=3,
                 revolutionaries=[1])
    play(g, 3, "9S")  # 头科
    pass_(g, 4)
    play(g, 5, "10H")  # 二科: seats 0, 2, 4 (one team) are left
    # they take 四科, 二落, 大落 by cards left (all 2), ties in turn order after seat 5
    res = check_over(g, [4, 3, 5, 1, 6, 2], [0, 12], sweep=True)
    assert res["revolutions"] == [1]


def test_revolutionary_sike_when_only_one_teammate_in_top_two():
    """革命 (RULES.md §7): 头科 a teammate but 二科 an opponent: still 四科."""
    g = position(PLAY_ON, {0: "10S", 2: "4H", 3: "9S", 4: "4D", 5: "4C"}, leader=3,
                 revolutionaries=[1])
    play(g, 3, "9S")  # 头科 (team of the revolutionary)
    pass_(g, 4)
    pass_(g, 5)
    play(g, 0, "10S")  # 二科
    pass_(g, 2)
    pass_(g, 4)
    pass_(g, 5)
    leads(g, 2)  # 接风
    play(g, 2, "4H")  # 三科
    pass_(g, 4)
    pass_(g, 5)
    play(g, 4, "4D")  # 二落 ... seat 5 大落
    # team 0: 0 二科 +2, 2 三科 0, 4 二落 −2 = 0; team 1: 3 头科 +4, 1 四科 0, 5 大落 −4 = 0
    check_over(g, [2, 4, 3, 1, 5, 6], [0, 0])


# ---------------------------------------------------------------------------- one team left
def _one_team_left_position(rules):
    return position(rules, {0: "4S 9S 8S", 1: "10S", 2: "5H", 3: "JS", 4: "7D 8D",
                            5: "QS 4C"}, leader=0)


def _play_until_three_finish(g):
    play(g, 0, "9S")
    play(g, 1, "10S")  # 头科
    pass_(g, 2)
    play(g, 3, "JS")  # 二科: four play now
    pass_(g, 4)
    play(g, 5, "QS")
    pass_(g, 0)
    pass_(g, 2)
    pass_(g, 4)
    leads(g, 5)
    play(g, 5, "4C")  # 三科: only team 0 holds cards


def test_game_ends_when_one_team_left_by_fewest_cards():
    """end_when_one_team_left (RULES.md §7, default on): once every seat holding cards is of one
    team the game ends; they take the places left by fewest cards, ties in turn order after the
    last finisher."""
    g = _one_team_left_position(BASIC)
    _play_until_three_finish(g)
    # seat 2 holds 1 card; seats 0 and 4 hold 2 each: seat 0 comes first after seat 5
    res = check_over(g, [5, 1, 4, 2, 6, 3], [0, 12], sweep=True)
    assert res["order"] == [1, 3, 5, 2, 0, 4]


@pytest.mark.parametrize(("hands", "places"), [
    ({2: "4H 5H", 4: "4D 5D"}, [2, 1, 5, 3, 6, 4]),  # tie: seat 2 comes first after seat 5
    ({2: "4H 5H 6H", 4: "4D 5D"}, [2, 1, 6, 3, 5, 4]),  # fewer cards first
])
def test_one_team_left_order_by_cards_then_turn(hands, places):
    """end_when_one_team_left (RULES.md §7): the seats left take places by fewest cards, ties in
    turn order after the last finisher."""
    g = position(BASIC, {**hands, 5: "9S"}, leader=5, finished=[1, 0, 3])
    play(g, 5, "9S")  # 四科; seats 2 and 4 (team 0) are left
    # team 0: 二科 +2, 二落 −2, 大落 −4 = −4; team 1: 头科 +4, 三科 0, 四科 0 = 4
    check_over(g, places, [0, 4])


def test_one_team_left_ties_follow_turn_order_after_last_finisher():
    """end_when_one_team_left (RULES.md §7): with equal cards left, the order is the turn order
    starting after the last finisher (seat 3 here: seats 4, 0, 2), not seat number order."""
    g = position(BASIC, {0: "4S 5S", 2: "4H 5H", 3: "9S", 4: "4D 5D"}, leader=3,
                 finished=[1, 5])
    play(g, 3, "9S")  # 三科: team 1 has 串三户; seats 0, 2, 4 are left
    res = check_over(g, [5, 1, 6, 3, 4, 2], [0, 12], sweep=True)
    assert res["order"] == [1, 5, 3, 4, 0, 2]


@pytest.mark.parametrize("rules", [PLAY_ON, "online"])
def test_play_goes_on_with_one_team_left_when_option_off(rules):
    """end_when_one_team_left off (RULES.md §7, preset online): play goes on until one seat is
    left."""
    g = _one_team_left_position(rules)
    _play_until_three_finish(g)
    assert g.state == "play" and g.result()["complete"] is False
    assert g.to_act()["seat"] == 0  # seat 5's 底牌 may still be answered
    for s in (0, 2, 4):
        pass_(g, s)
    leads(g, 0)  # 接风
    play(g, 0, "4S")
    pass_(g, 2)
    play(g, 4, "8D")
    pass_(g, 0)
    pass_(g, 2)
    play(g, 4, "7D")  # 四科
    pass_(g, 0)
    pass_(g, 2)
    leads(g, 0)  # 接风
    play(g, 0, "8S")  # 二落; seat 2 is left: 大落
    check_over(g, [5, 1, 6, 2, 4, 3], [0, 12], sweep=True)


# ---------------------------------------------------------------------------- score
@pytest.mark.parametrize(("order", "team_points", "sweep"), [
    # places 1..6 in order; team sums by hand
    ([0, 1, 2, 3, 4, 5], [2, 0], False),  # 0: 4+0−2 = 2; 1: 2+0−4 = −2
    ([1, 0, 3, 2, 5, 4], [0, 2], False),  # 1: 4+0−2 = 2; 0: 2+0−4 = −2
    ([0, 2, 1, 4, 3, 5], [6, 0], False),  # 0: 4+2+0 = 6; 1: 0−2−4 = −6
    ([1, 0, 3, 5, 2, 4], [0, 4], False),  # 1: 4+0+0 = 4; 0: 2−2−4 = −4
    ([0, 1, 4, 3, 5, 2], [0, 0], False),  # 0: 4+0−4 = 0; 1: 2+0−2 = 0
    ([2, 0, 4, 1, 3, 5], [12, 0], True),  # 串三户 of team 0 (sum would be 6)
    ([5, 3, 1, 0, 2, 4], [0, 12], True),  # 串三户 of team 1
    ([3, 1, 5, 4, 2, 0], [0, 12], True),
])
def test_score_only_positive_team_scores(order, team_points, sweep):
    """Score (RULES.md §7, 大纲 第二十条): 头科 +4, 二科 +2, 三科 0, 四科 0, 二落 −2, 大落 −4;
    each team sums its seats; only the positive team scores; 串三户 scores 12."""
    *first, last = order[:5]
    g = position(PLAY_ON, {last: "9S", order[5]: "4S"}, leader=last, finished=first)
    play(g, last, "9S")
    places = [order.index(s) + 1 for s in range(6)]
    res = check_over(g, places, team_points, sweep)
    assert res["order"] == order
    if not sweep:
        assert team_points == [max(0, team_sum(places, 0)), max(0, team_sum(places, 1))]


# ---------------------------------------------------------------------------- 革命 in records
WILD = {15, 16, 17}  # 2, 小王, 大王


def _deal_without(seat, ranks, seed=0, keep=(), hands=None, protect=()):
    """A full legal deal in which ``seat`` holds no card of ``ranks`` (rank values) but the
    cards in ``keep``. Its other such cards are swapped for plain cards of other seats (never
    of the seats in ``protect``); every hand stays 36 cards and the six hands one four-deck set.
    """
    if hands is None:
        hands = make_deal({seat: " ".join(keep)} if keep else None, seed)
    hands = [list(h) for h in hands]
    mine = hands[seat]
    spare = list(keep)
    for c in spare:
        mine.remove(c)
    for c in [c for c in mine if CARD_RANK[c] in ranks]:
        for t in range(6):
            if t == seat or t in protect:
                continue
            good = next((d for d in hands[t] if CARD_RANK[d] not in ranks), None)
            if good is not None:
                break
        hands[t].remove(good)
        hands[t].append(c)
        mine.remove(c)
        mine.append(good)
    mine.extend(spare)
    assert all(len(h) == 36 for h in hands)
    assert Counter(c for h in hands for c in h) == Counter(full_set())
    assert sorted(c for c in mine if CARD_RANK[c] in ranks) == sorted(keep)
    return hands


def _low_single(hand):
    return next(c for c in sorted(hand, key=CARD_RANK.__getitem__) if 4 <= CARD_RANK[c] <= 9)


def test_revolution_by_seat_dealt_no_two_and_no_joker():
    """革命 (RULES.md §8): a seat dealt no joker and no 2 may revolt; its cards leave play and it
    takes no part: the turn skips it."""
    deal = _deal_without(1, WILD)
    lead = _low_single(deal[0])
    rec = record_for(BASIC, deal, [{"seat": 0, "act": "play", "cards": [lead]}], leader=0,
                     pre=[{"type": "revolution", "seat": 1}])
    g, err = replay_game(rec)
    assert err is None, err
    res = g.result()
    assert res["ok"] is True and res["revolutions"] == [1]
    assert res["complete"] is False and res["void"] is False
    assert g.count[1] == 0 and g.view(1)["hand"] == []
    assert sum(g.count) == 216 - 36 - 1  # 36 out of play, one card played
    assert g.card_total() == 216
    assert res["to_act"]["seat"] == 2  # seat 1 is skipped
    assert replay(rec) == res


@pytest.mark.parametrize("wild", ["2C", "BJ", "RJ"])
def test_revolution_refused_for_seat_dealt_a_two_or_joker(wild):
    """革命 (RULES.md §8): one 2 or one joker in the dealt hand forbids revolution."""
    deal = _deal_without(1, WILD, keep=[wild])
    rec = record_for(BASIC, deal, [], leader=0, pre=[{"type": "revolution", "seat": 1}])
    res = replay(rec)
    assert res["ok"] is False
    err = res["error"]
    assert err["where"] == "pre" and err["index"] == 0 and err["code"] == "bad_pre"
    assert "seat 1" in err["message"]


def test_revolution_under_bie3_needs_no_three_either():
    """革命 under 憋3 (RULES.md §8, 大纲 第二十六条二): only a seat with no 3, no 2 and no joker
    may revolt; without 憋3 a 3 does not matter."""
    deal = _deal_without(4, WILD | {3}, keep=["3H"])
    pre = [{"type": "revolution", "seat": 4}]
    refused = replay(record_for("dagang", deal, [], leader=0, pre=pre))
    assert refused["ok"] is False and refused["error"]["code"] == "bad_pre"
    assert "seat 4" in refused["error"]["message"]
    accepted = replay(record_for(BASIC, deal, [], leader=0, pre=pre))
    assert accepted["ok"] is True and accepted["revolutions"] == [4]

    clean = _deal_without(4, WILD | {3})
    ok = replay(record_for("dagang", clean, [], leader=0, pre=pre))
    assert ok["ok"] is True and ok["revolutions"] == [4]


def test_revolution_refused_when_option_off():
    """革命 (RULES.md §8): option revolution off refuses it."""
    deal = _deal_without(1, WILD)
    rules = {"preset": "basic", "options": {"revolution": False}}
    res = replay(record_for(rules, deal, [], leader=0, pre=[{"type": "revolution", "seat": 1}]))
    assert res["ok"] is False and res["error"]["code"] == "bad_pre"


def test_two_revolutions_void_the_game():
    """流局 (RULES.md §8): two revolutions in one game void it: no score, no play."""
    deal = _deal_without(4, WILD, hands=_deal_without(1, WILD, seed=3), protect=[1])
    pre = [{"type": "revolution", "seat": 1}, {"type": "revolution", "seat": 4}]
    g, err = replay_game(record_for(BASIC, deal, [], leader=0, pre=pre))
    assert err is None, err
    res = g.result()
    assert res["ok"] is True and res["void"] is True and res["complete"] is True
    assert res["team_points"] == [0, 0] and res["sweep"] is False
    assert res["revolutions"] == [1, 4]
    assert g.card_total() == 216

    played = replay(record_for(BASIC, deal, [{"seat": 0, "act": "play",
                                              "cards": [_low_single(deal[0])]}],
                               leader=0, pre=pre))
    assert played["ok"] is False and played["error"]["code"] == "game_over"


def test_revolutionary_cannot_lead_or_play():
    """革命 (RULES.md §8): the revolutionary takes no part: it may not lead nor act."""
    deal = _deal_without(1, WILD)
    pre = [{"type": "revolution", "seat": 1}]
    res = replay(record_for(BASIC, deal, [], leader=1, pre=pre))
    assert res["ok"] is False and res["error"]["code"] == "wrong_leader"
    assert res["error"]["where"] == "leader"

    g, err = replay_game(record_for(BASIC, deal, [], leader=0, pre=pre))
    assert err is None
    before = (g.version, list(g.count))
    with pytest.raises(IllegalAction) as info:
        g.act(1, {"act": "play", "cards": [_low_single(deal[1])]})
    assert info.value.code in {"not_your_turn", "not_in_hand"}
    assert "seat 1" in info.value.message
    assert (g.version, list(g.count)) == before
