"""Game and match records (RECORD.md): result shape, error codes and where they point, garbage
input, rules specs, state round trips and per-seat views."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import CODES, Game, Rules, RulesError, replay, replay_match
from engine.bots import HeuristicBot, bot_game, next_act
from engine.cards import ALL_CARDS, deal, parse_cards
from engine.testing import make_deal, record_for

RESULT_KEYS = {"ok", "complete", "void", "places", "order", "team_points", "sweep", "kaidian",
               "revolutions", "eliminated", "burns", "smothers", "owed_tributes", "next_leader",
               "to_act"}
WHERE = {None, "deal", "pre", "leader", "actions"}
CARDS = set(ALL_CARDS)
PLAIN = [f"{r}{s}" for _copy in range(4)
         for r in ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A") for s in "SHDC"]


def err(res) -> dict:
    assert res["ok"] is False, f"expected an error, got {res}"
    assert set(res["error"]) >= {"where", "index", "code", "message"}
    assert res["error"]["code"] in CODES
    assert isinstance(res["error"]["message"], str) and res["error"]["message"]
    return res["error"]


def ok(res) -> dict:
    assert res["ok"] is True, f"expected ok, got {res.get('error')}"
    return res


def loc(e) -> tuple:
    return e["code"], e["where"], e["index"]


def bots(seed=0):
    return [HeuristicBot(random.Random(seed * 10 + i)) for i in range(6)]


def step(g: Game, bs) -> None:
    """One step of :func:`engine.bots.play_out`: a pre-play choice, a burn or a turn."""
    g.act(*next_act(g, bs))


# a basic-rules deal for hand-made acts: seat 0 leads, seat 1 holds low cards
SIMPLE = make_deal({0: "9S AS AH 5S 6S", 1: "5H 10D", 3: "KS KH"}, 3)


def simple(actions, **kw):
    return replay(record_for("basic", SIMPLE, actions, leader=0, **kw))


def play(seat, cards):
    return {"seat": seat, "act": "play", "cards": parse_cards(cards)}


def pas(seat):
    return {"seat": seat, "act": "pass"}


# ---------------------------------------------------------------------------------------------
# the result object


def test_result_has_exactly_the_documented_keys():
    """结果 (RECORD.md, The result): a finished game's result has exactly the documented keys."""
    for preset, seed in (("dagang", 0), ("basic", 1), ("online", 2)):
        g = bot_game(preset, seed)
        res = ok(replay(g.record()))
        assert set(res) == RESULT_KEYS
        assert res == g.result()
        assert res["complete"] is True and res["to_act"] is None
        assert sorted(res["places"]) == [1, 2, 3, 4, 5, 6]
        assert res["order"] == sorted(range(6), key=res["places"].__getitem__)
        assert len(res["team_points"]) == 2 and 0 in res["team_points"]


def test_result_keys_of_an_unfinished_and_a_void_game():
    """结果 (RECORD.md): an unfinished and a void (流局) game have the same keys."""
    rec = bot_game("dagang", 4).record()
    rec["actions"] = rec["actions"][:10]
    assert set(ok(replay(rec))) == RESULT_KEYS
    d = make_deal({0: PLAIN[:36], 1: PLAIN[36:72]}, 1)  # two seats with no 2 and no joker
    void = ok(replay(record_for("basic", d, [], pre=[{"type": "revolution", "seat": 0},
                                                     {"type": "revolution", "seat": 1}])))
    assert set(void) == RESULT_KEYS
    assert void["void"] is True and void["team_points"] == [0, 0]
    assert void["revolutions"] == [0, 1]


@pytest.mark.parametrize("seed", [0, 5])
def test_unfinished_record_result(seed):
    """未完 (RECORD.md): complete false, places 0 where unknown (the rest as they end), and
    to_act {"seat", "acts"} naming the next actor of the full record."""
    g = bot_game("dagang", seed)
    full = g.result()
    rec = g.record()
    n = len(rec["actions"])
    seen_partial_place = False
    for k in range(0, n, 7):
        part = dict(rec, actions=rec["actions"][:k])
        res = ok(replay(part))
        assert res["complete"] is False
        assert res["to_act"] is not None
        ta = res["to_act"]
        assert {"seat", "acts"} <= set(ta) <= {"seat", "acts", "burners"}
        nxt = rec["actions"][k]
        if nxt["act"] == "burn":
            assert nxt["seat"] in ta.get("burners", [])
        else:
            assert ta["seat"] == nxt["seat"]
            assert nxt["act"] in ta["acts"]
        assert set(ta["acts"]) <= {"play", "pass", "yield"}
        for s in range(6):
            assert res["places"][s] in (0, full["places"][s])
        seen_partial_place |= any(res["places"]) and not all(res["places"])
    assert seen_partial_place


# ---------------------------------------------------------------------------------------------
# error codes: where and index


def test_bad_format_unknown_record_key():
    """bad_format (RECORD.md: unknown keys are an error): an unknown top-level key."""
    rec = record_for("basic", SIMPLE, [], leader=0)
    rec["colour"] = "red"
    e = err(replay(rec))
    assert e["code"] == "bad_format" and e["index"] is None


def test_bad_format_unknown_key_in_pre_event():
    """bad_format: an unknown key in a pre-play event points at that event."""
    pre = [{"type": "hui3"}, {"type": "hui3", "seat": 0}]
    e = err(replay(record_for({"preset": "basic", "options": {"dadian": True}}, SIMPLE, [],
                              pre=[{"type": "declare", "seat": 1, "kind": "mingdian",
                                    "loud": True}])))
    assert loc(e) == ("bad_format", "pre", 0)
    e = err(replay(record_for("basic", SIMPLE, [], pre=pre)))
    assert loc(e) == ("bad_format", "pre", 1)


def test_bad_format_unknown_key_in_action():
    """bad_format: an unknown key in an act points at that act."""
    acts = [play(0, "9S"), {"seat": 1, "act": "pass", "why": "no"}]
    e = err(simple(acts))
    assert loc(e) == ("bad_format", "actions", 1)
    acts = [dict(play(0, "9S"), fast=True)]
    assert loc(err(simple(acts))) == ("bad_format", "actions", 0)
    acts = [play(0, "9S"), {"seat": 1, "act": "fold"}]
    assert loc(err(simple(acts))) == ("bad_format", "actions", 1)


def test_bad_format_unknown_key_in_previous():
    """bad_format (RECORD.md: unknown keys are an error): `previous` is a result object; an
    unknown key in it, or in one of its owed tributes, is refused, not ignored."""
    prev = {"owed_tributes": [], "next_leader": 0}
    ok(replay(record_for("basic", SIMPLE, [], leader=0, previous=prev)))
    e = err(replay(record_for("basic", SIMPLE, [], leader=0, previous=dict(prev, bogus=1))))
    assert e["code"] == "bad_format"
    owed = [{"kind": "luo", "from": 5, "to": 0, "count": 0, "bogus": 1}]
    e = err(replay(record_for("basic", SIMPLE, [], leader=0,
                              previous=dict(prev, owed_tributes=owed))))
    assert e["code"] == "bad_format"


def test_bad_format_unknown_key_in_match_and_rules():
    """bad_format: unknown keys in a match record or a rules object."""
    res = replay_match({"format": "gouji-match/1", "rules": "dagang", "games": [], "x": 1})
    assert res["ok"] is False and res["error"]["code"] == "bad_format"
    e = err(replay(record_for({"preset": "basic", "colour": 1}, SIMPLE, [], leader=0)))
    assert e["code"] == "bad_format"


@pytest.mark.parametrize("where", ["deal", "pre", "actions"])
def test_bad_card(where):
    """bad_card: a string that is not a card, in the deal, a pre-play event or an act."""
    d = copy.deepcopy(SIMPLE)
    pre, acts = [], [play(0, "9S")]
    if where == "deal":
        d[2][5] = "1X"
    elif where == "pre":
        pre = [{"type": "tribute", "kind": "luo", "from": 5, "to": 0, "cards": ["ZZ"]}]
    else:
        acts = [play(0, "9S"), {"seat": 1, "act": "play", "cards": ["11H"]}]
    e = err(replay(record_for("basic", d, acts, leader=0, pre=pre)))
    assert loc(e) == ("bad_card", where, {"deal": None, "pre": 0, "actions": 1}[where])


@pytest.mark.parametrize("change", ["five_hands", "short_hand", "long_hand", "extra_copy",
                                    "missing_joker"])
def test_bad_deal(change):
    """bad_deal: six hands of 36 that together are one four-deck set, or nothing."""
    d = copy.deepcopy(SIMPLE)
    if change == "five_hands":
        d = d[:5]
    elif change == "short_hand":
        d[1] = d[1][:35]
    elif change == "long_hand":
        d[1] = d[1] + ["3S"]
    elif change == "extra_copy":  # 36 cards each, but one card five times
        c = d[0][0]
        i = next(i for i, x in enumerate(d[1]) if x != c)
        d[1][i] = c
    else:  # a 大王 replaced by a fifth copy of 4♠
        h = next(h for h in range(6) if "RJ" in d[h])
        d[h][d[h].index("RJ")] = "4S"
    e = err(replay(record_for("basic", d, [], leader=0)))
    assert loc(e) == ("bad_deal", "deal", None)


def test_bad_pre():
    """bad_pre: a pre-play event the rules refuse, at its index."""
    e = err(replay(record_for("basic", SIMPLE, [], pre=[
        {"type": "buy3", "seat": 0, "from": 3, "give": "2S", "take": "3S"}])))
    assert loc(e) == ("bad_pre", "pre", 0)
    e = err(replay(record_for("basic", SIMPLE, [], pre=[{"type": "hui3"}, {"type": "hui3"}])))
    assert loc(e) == ("bad_pre", "pre", 1)


def test_bad_pre_missing_event_index_is_a_position():
    """bad_pre for a missing event (an unpaid 落贡): `index` is a position in `pre` (or null),
    never a negative number."""
    d = make_deal({5: ["RJ", "BJ", "2S"] + PLAIN[:33]}, 1)
    prev = {"owed_tributes": [{"kind": "luo", "from": 5, "to": 0, "count": 2}],
            "next_leader": 0}
    e = err(replay(record_for("basic", d, [], previous=prev)))
    assert e["code"] == "bad_pre" and e["where"] == "pre"
    assert e["index"] is None or e["index"] == 0, e


def test_wrong_leader():
    """wrong_leader: the record's leader is not the one the rules give (where leader)."""
    prev = {"owed_tributes": [], "next_leader": 2}
    ok(replay(record_for("basic", SIMPLE, [], leader=2, previous=prev)))
    e = err(replay(record_for("basic", SIMPLE, [], leader=0, previous=prev)))
    assert loc(e) == ("wrong_leader", "leader", None)


def test_not_in_hand():
    """not_in_hand: a play of a card the seat does not hold."""
    missing = next(c for c in ("KD", "KC", "QS", "QH", "JS") if c not in SIMPLE[0])
    e = err(simple([play(0, missing)]))
    assert loc(e) == ("not_in_hand", "actions", 0) and e["seat"] == 0
    twice = next(c for c in SIMPLE[0] if SIMPLE[0].count(c) == 1)
    e = err(simple([play(0, [twice, twice])]))
    assert loc(e) == ("not_in_hand", "actions", 0)


def test_bad_combo():
    """bad_combo: two ranks from 3..A are not one combo."""
    e = err(simple([play(0, "5S 6S")]))
    assert loc(e) == ("bad_combo", "actions", 0) and e["seat"] == 0


def test_not_your_turn():
    """not_your_turn: a seat acts out of turn (the leader has not led)."""
    e = err(simple([play(1, "5H")]))
    assert loc(e) == ("not_your_turn", "actions", 0) and e["seat"] == 1


def test_not_entitled():
    """not_entitled: only the 对头 may answer a 够级 combo (phase 1)."""
    e = err(simple([play(0, "AS AH"), pas(1)]))
    assert loc(e) == ("not_entitled", "actions", 1) and e["seat"] == 1
    ok(simple([play(0, "AS AH"), pas(3)]))


def test_does_not_beat():
    """does_not_beat: a lower rank does not beat the top."""
    e = err(simple([play(0, "9S"), play(1, "5H")]))
    assert loc(e) == ("does_not_beat", "actions", 1) and e["seat"] == 1


def test_illegal_yield():
    """illegal_yield: only the owner's 对头 may yield (让牌), never the leader."""
    e = err(simple([play(0, "9S"), {"seat": 1, "act": "yield"}]))
    assert loc(e) == ("illegal_yield", "actions", 1)
    e = err(simple([{"seat": 0, "act": "yield"}]))
    assert loc(e) == ("illegal_yield", "actions", 0)


def test_illegal_burn():
    """illegal_burn: a burn (烧牌) of a combo that is not 够级."""
    e = err(simple([play(0, "9S"), {"seat": 1, "act": "burn", "cards": ["10D"]}]))
    assert loc(e) == ("illegal_burn", "actions", 1) and e["seat"] == 1


def test_three_rule():
    """three_rule (憋3): a 3 led before the last combo."""
    d = make_deal({0: "3S 3H 5S", 1: "3D", 2: "3C", 3: "3S", 4: "3H", 5: "3D"}, 2)
    e = err(replay(record_for("dagang", d, [play(0, "5S"), pas(1), pas(2), pas(3), pas(4),
                                            pas(5), play(0, "3S")])))
    assert loc(e) == ("three_rule", "actions", 6) and e["seat"] == 0


def test_game_over():
    """game_over: an act after the game ended, at its index."""
    rec = bot_game("basic", 2).record()
    n = len(rec["actions"])
    rec["actions"].append({"seat": 0, "act": "pass"})
    e = err(replay(rec))
    assert loc(e) == ("game_over", "actions", n)


def test_first_error_reported_and_nothing_after():
    """The first illegal act is reported; nothing after it is judged."""
    e = err(simple([play(0, "9S"), play(1, "5H"), {"seat": 9, "act": "nonsense"}]))
    assert loc(e) == ("does_not_beat", "actions", 1)


def test_error_codes_are_the_documented_ones():
    """错误码 (RECORD.md): the engine's codes are exactly the documented ones."""
    assert set(CODES) == {"bad_format", "bad_card", "bad_deal", "bad_pre", "wrong_leader",
                          "not_in_hand", "bad_combo", "not_your_turn", "not_entitled",
                          "does_not_beat", "illegal_yield", "illegal_burn", "three_rule",
                          "game_over"}


# ---------------------------------------------------------------------------------------------
# garbage never raises


GARBAGE = [None, [], {}, {"format": 1}, "gouji-record/1", "", 10 ** 100, -(10 ** 100), 1.5,
           float("nan"), True, [[]], [None], {"": None}, ["3S"] * 36, {"x": {"y": [1, 2]}}]


@pytest.mark.parametrize("junk", GARBAGE, ids=repr)
def test_replay_never_raises_on_garbage(junk):
    """replay() returns an error object for any input, never raises."""
    res = replay(junk)
    err(res)
    res = replay_match(junk)
    assert res["ok"] is False


def _base_record() -> dict:
    """A real second game (previous, tributes, 买3, acts), cut in the middle."""
    r1 = bot_game("dagang", 7).result()
    rec = bot_game("dagang", 8, previous=r1).record()
    rec["actions"] = rec["actions"][:40]
    return rec


BASE = _base_record()

JUNK = [None, True, False, 0, -1, 6, 10 ** 100, -(10 ** 100), 2.5, "", "x", "RJ", [], [None],
        [[]], {}, {"a": 1}, [10 ** 100], ["3S", 5], {"type": []}]


def _paths(rec) -> list[tuple]:
    """Every field of the base record worth breaking (top level and nested)."""
    paths = [(k,) for k in ("format", "rules", "opening_seat", "previous", "deal", "pre",
                            "leader", "actions", "agreed")]
    paths += [("deal", 0), ("deal", 3, 5)]
    for i, ev in enumerate(rec["pre"]):
        paths.append(("pre", i))
        paths += [("pre", i, k) for k in ev]
    for i in (0, 1, 5):
        paths.append(("actions", i))
        paths += [("actions", i, k) for k in rec["actions"][i]]
    paths += [("previous", k) for k in ("owed_tributes", "next_leader", "void", "places")]
    if rec["previous"]["owed_tributes"]:
        paths += [("previous", "owed_tributes", 0, k) for k in ("kind", "from", "to", "count")]
    return paths


PATHS = _paths(BASE)


def _set(rec, path, value):
    rec = copy.deepcopy(rec)
    node = rec
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return rec


def _check_no_raise(rec):
    try:
        res = replay(rec)
    except Exception as exc:  # noqa: BLE001 - the point of the test
        pytest.fail(f"replay raised {type(exc).__name__}: {exc}")
    assert isinstance(res, dict) and res.get("ok") in (True, False)
    if res["ok"] is False:
        assert res["error"]["code"] in CODES
        assert res["error"]["where"] in WHERE
    else:
        assert set(res) == RESULT_KEYS


@pytest.mark.parametrize("path", PATHS, ids=lambda p: "/".join(map(str, p)))
def test_replay_never_raises_on_wrong_types_in_any_field(path):
    """replay() never raises whatever a field holds (every field, every wrong type)."""
    for junk in JUNK:
        _check_no_raise(_set(BASE, path, junk))


@pytest.mark.parametrize("junk", JUNK, ids=repr)
def test_replay_match_never_raises_on_junk_fields(junk):
    """replay_match() never raises: junk rules, opening seat, games or game entries."""
    rec = copy.deepcopy(BASE)
    for match in ({"format": "gouji-match/1", "rules": junk, "games": [rec]},
                  {"format": "gouji-match/1", "rules": "dagang", "opening_seat": junk,
                   "games": [rec]},
                  {"format": "gouji-match/1", "rules": "dagang", "games": junk},
                  {"format": "gouji-match/1", "rules": "dagang", "games": [junk, rec]},
                  {"format": junk, "games": []}):
        try:
            res = replay_match(match)
        except Exception as exc:  # noqa: BLE001 - the point of the test
            pytest.fail(f"replay_match raised {type(exc).__name__}: {exc}")
        assert res["ok"] in (True, False)
        if not res["ok"]:
            assert res["error"]["code"] in CODES


def _json_values():
    leaf = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
            | st.text(max_size=6) | st.sampled_from(["3S", "RJ", "BJ", "10H", "play", "pass",
                                                     "burn", "tribute", "luo", "dagang"]))
    return st.recursive(leaf, lambda c: st.lists(c, max_size=4)
                        | st.dictionaries(st.text(max_size=6) | st.sampled_from(
                            ["seat", "act", "cards", "type", "kind", "from", "to"]), c,
                            max_size=4), max_leaves=12)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PATHS), _json_values())
def test_replay_fuzz_any_field(path, value):
    """replay() never raises on a record with any JSON value in any field (hypothesis)."""
    _check_no_raise(_set(BASE, path, value))


@given(_json_values())
def test_replay_fuzz_whole_record(value):
    """replay()/replay_match() never raise on arbitrary JSON (hypothesis)."""
    res = replay(value)
    assert res["ok"] is False
    res = replay_match(value)
    assert res["ok"] is False


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_json_values(), min_size=1, max_size=3))
def test_replay_fuzz_actions(acts):
    """replay() never raises on arbitrary act objects after a real start (hypothesis)."""
    rec = copy.deepcopy(BASE)
    rec["actions"] = rec["actions"][:3] + acts
    _check_no_raise(rec)


@given(st.lists(st.fixed_dictionaries({"seat": st.integers(-3, 10) | st.just(10 ** 30),
                                       "act": st.sampled_from(["play", "pass", "yield", "burn"]),
                                       "cards": st.lists(st.sampled_from(sorted(CARDS)),
                                                         max_size=5)}),
                max_size=6))
def test_replay_fuzz_plausible_acts(acts):
    """replay() never raises on plausible but random acts; errors point into the list."""
    for a in acts:
        if a["act"] in ("pass", "yield"):
            del a["cards"]
    rec = copy.deepcopy(BASE)
    rec["actions"] = rec["actions"][:3] + acts
    res = replay(rec)
    if not res["ok"]:
        assert res["error"]["where"] == "actions"
        assert 3 <= res["error"]["index"] < 3 + len(acts)


# ---------------------------------------------------------------------------------------------
# matches


def _chain(preset, seeds, **kw):
    games, prev = [], None
    for s in seeds:
        g = bot_game(preset, s, previous=prev, **kw)
        games.append(g)
        prev = g.result()
    return games


@pytest.mark.parametrize("preset", ["dagang", "basic", "online"])
def test_replay_match_chains_previous_and_sums_points(preset):
    """gouji-match/1: each game's previous is the game before; team_points are the totals."""
    games = _chain(preset, [31, 32, 33])
    recs = [g.record() for g in games]
    for r in recs:
        del r["previous"]
    res = replay_match({"format": "gouji-match/1", "rules": preset, "games": recs})
    assert res["ok"] is True, res
    assert res["games"] == [g.result() for g in games]
    assert res["team_points"] == [sum(g.result()["team_points"][t] for g in games)
                                  for t in (0, 1)]
    assert set(res) == {"ok", "games", "team_points"}


def test_replay_match_game_rules_default_to_match_rules():
    """gouji-match/1: a game's own rules may be left out."""
    games = _chain("basic", [41, 42])
    recs = [g.record() for g in games]
    for r in recs:
        del r["rules"]
    res = replay_match({"format": "gouji-match/1", "rules": "basic", "games": recs})
    assert res["ok"] is True, res


def test_replay_match_error_names_the_game():
    """gouji-match/1: the first illegal game k is named with its error."""
    games = _chain("dagang", [51, 52, 53])
    recs = [g.record() for g in games]
    recs[2]["actions"][3] = dict(recs[2]["actions"][3], seat=(recs[2]["actions"][3]["seat"] + 1)
                                 % 6)
    res = replay_match({"format": "gouji-match/1", "rules": "dagang", "games": recs})
    assert res["ok"] is False and res["game"] == 2
    assert res["error"]["where"] == "actions" and res["error"]["index"] == 3
    assert res["error"]["code"] in CODES


def test_replay_match_checks_tributes_across_games():
    """gouji-match/1: the engine checks the second game's tributes against the first's result."""
    games = _chain("basic", range(60, 80))
    k = next(i for i in range(1, len(games)) if any(
        ev["type"] == "tribute" for ev in games[i].record()["pre"]))
    recs = [g.record() for g in games[k - 1:k + 1]]
    ok_res = replay_match({"format": "gouji-match/1", "rules": "basic", "games": recs})
    assert ok_res["ok"] is True
    recs[1]["pre"] = [ev for ev in recs[1]["pre"] if ev["type"] not in ("tribute", "return")]
    res = replay_match({"format": "gouji-match/1", "rules": "basic", "games": recs})
    assert res["ok"] is False and res["game"] == 1 and res["error"]["code"] == "bad_pre"


def test_replay_match_rejects_unfinished_game():
    """gouji-match/1: the games of a match are finished games."""
    rec = bot_game("basic", 3).record()
    rec["actions"] = rec["actions"][:5]
    res = replay_match({"format": "gouji-match/1", "rules": "basic", "games": [rec]})
    assert res["ok"] is False and res["game"] == 0


# ---------------------------------------------------------------------------------------------
# rules specs


@pytest.mark.parametrize("rules", ["dagang", "basic", "online", {"preset": "dagang"},
                                   {"preset": "basic", "options": {"hui3": False}},
                                   {"preset": "online", "options": {"closer_last": False,
                                                                    "revolution_gousiji": 2}}])
def test_rules_accepts_preset_names_and_objects(rules):
    """rules (RECORD.md): a preset name or {"preset", "options"}."""
    d = make_deal({s: f"3{'SHDC'[s % 4]}" for s in range(6)}, 4)
    res = ok(replay(record_for(rules, d, [], leader=0)))
    assert res["complete"] is False


@pytest.mark.parametrize("rules", ["nosuch", "", 7, [], {"preset": "nosuch"},
                                   {"preset": "dagang", "options": {"nosuch": True}},
                                   {"preset": "dagang", "options": {"bie3": "yes"}},
                                   {"preset": "dagang", "options": {"men": "forever"}},
                                   {"preset": "dagang", "options": {"revolution_gousiji": -1}},
                                   {"preset": "dagang", "extra": {}},
                                   {"preset": "dagang", "options": ["bie3"]}])
def test_rules_refuses_unknown_presets_and_options(rules):
    """rules (RECORD.md): unknown presets, options or values are bad_format."""
    d = make_deal({s: f"3{'SHDC'[s % 4]}" for s in range(6)}, 4)
    e = err(replay(record_for(rules, d, [], leader=0)))
    assert e["code"] == "bad_format"


@pytest.mark.parametrize(("preset", "value"), [("dagang", "rights"), ("basic", "rights"),
                                               ("online", "auto")])
def test_revolution_kaidian_default_per_preset(preset, value):
    """revolution_kaidian (RULES.md §13): rights by default, auto in the online preset; set one
    by one it survives the spec round trip."""
    assert Rules(preset)["revolution_kaidian"] == value
    other = "auto" if value == "rights" else "rights"
    spec = {"preset": preset, "options": {"revolution_kaidian": other}}
    rules = Rules.from_spec(spec)
    assert rules["revolution_kaidian"] == other
    assert Rules.from_spec(rules.spec()) == rules


def test_revolution_kaidian_refuses_other_values():
    """revolution_kaidian (RULES.md §13): only rights or auto; the error names the option."""
    with pytest.raises(RulesError, match="revolution_kaidian"):
        Rules.from_spec({"preset": "online", "options": {"revolution_kaidian": "yes"}})


def test_rules_options_take_effect():
    """rules options (RULES.md §13): turning 憋3 off lets a 3 be led early."""
    d = make_deal({0: "3S 3H 5S", 1: "3D", 2: "3C", 3: "3S", 4: "3H", 5: "3D"}, 2)
    acts = [play(0, "3S")]
    assert err(replay(record_for("dagang", d, acts)))["code"] == "three_rule"
    ok(replay(record_for({"preset": "dagang", "options": {"bie3": False}}, d, acts)))


# ---------------------------------------------------------------------------------------------
# Game.to_state / from_state


def _same_game(a: Game, b: Game):
    assert b.result() == a.result()
    for s in [None, *range(6)]:
        assert b.view(s) == a.view(s), s
    for s in range(6):
        assert b.legal_actions(s) == a.legal_actions(s), s
    assert b.record() == a.record()


def _round_trip(g: Game) -> Game:
    text = json.dumps(g.to_state())
    return Game.from_state(json.loads(text))


@pytest.mark.parametrize("preset, seed", [("dagang", 0), ("basic", 1), ("online", 2)])
def test_state_round_trip_finished_game(preset, seed):
    """to_state → JSON → from_state gives the same result, views and legal acts (finished)."""
    g = bot_game(preset, seed)
    _same_game(g, _round_trip(g))


@pytest.mark.parametrize("steps", [0, 1, 3, 12, 40, 90, 150])
def test_state_round_trip_mid_game(steps):
    """to_state → JSON → from_state mid-game (pre-play prompts included) gives the same game,
    and both go on identically."""
    g = Game("dagang", deal(random.Random(1)))
    bs = bots(1)
    for _ in range(steps):
        if g.state == "over":
            break
        step(g, bs)
    assert g.state != "over"
    h = _round_trip(g)
    _same_game(g, h)
    b1, b2 = bots(9), bots(9)
    for _ in range(25):
        if g.state == "over":
            break
        step(g, b1)
        step(h, b2)
    _same_game(g, h)


@pytest.mark.parametrize("steps", [0, 1, 2, 4, 30])
def test_state_round_trip_second_game_with_tributes(steps):
    """to_state round trip of a live second game (进贡/还贡/买3 prompts, then play)."""
    r1 = bot_game("dagang", 12).result()
    g = Game("dagang", deal(random.Random(13)), previous=r1)
    bs = bots(2)
    for _ in range(steps):
        step(g, bs)
    h = _round_trip(g)
    _same_game(g, h)
    for _ in range(10):
        step(g, bs)
    _same_game(g, _round_trip(g))


# ---------------------------------------------------------------------------------------------
# per-seat views (RULES.md §12)


def _cards_outside(view, allowed) -> list:
    """Card strings found in the view outside the allowed top-level keys."""
    found = []

    def walk(x, path):
        if isinstance(x, str):
            if x in CARDS:
                found.append((path, x))
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(v, path + (k,))
        elif isinstance(x, list | tuple):
            for i, v in enumerate(x):
                walk(v, path + (i,))

    for k, v in view.items():
        if k not in allowed:
            walk(v, (k,))
    return found


PUBLIC = {"top", "actions", "public_pre"}


def _check_views(g: Game):
    le10 = g.rules["show_counts"] == "le10"
    for s in [None, *range(6)]:
        v = json.loads(json.dumps(g.view(s)))
        if s is None:
            assert "hand" not in v and "legal" not in v
            assert _cards_outside(v, PUBLIC) == []
        else:
            own = sorted(c for c, n in g.hands[s].items() for _ in range(n))
            assert sorted(v["hand"]) == own
            assert _cards_outside(v, PUBLIC | {"hand", "legal"}) == []
            have = Counter(own)
            for a in v["legal"]:
                cards = a.get("cards") or ([a["give"]] if "give" in a else [])
                assert not Counter(cards) - have, (s, a)
        for t in range(6):
            n = g.count[t]
            if t == s:
                continue
            shown = v["counts"][t]
            if le10 and n > 10:
                assert shown == "10+", (s, t, shown)
            else:
                assert shown == n, (s, t, shown)


@pytest.mark.parametrize("preset, seed", [("dagang", 3), ("online", 4), ("basic", 5)])
def test_view_shows_only_own_hand_at_every_step(preset, seed):
    """报牌/view (RULES.md §12): at every step of a bot game each seat sees its own hand only
    (others' cards appear nowhere but in played combos and public tributes); a spectator sees
    no hand; counts over 10 read "10+" under show_counts le10."""
    r1 = bot_game(preset, seed).result()
    g = Game(preset, deal(random.Random(seed + 50)), previous=r1)
    bs = bots(seed)
    steps = 0
    while g.state != "over":
        _check_views(g)
        step(g, bs)
        steps += 1
    _check_views(g)
    assert steps > 50


def test_view_counts_le10_and_always():
    """报牌 (§12): le10 shows "10+" above 10 cards, always shows the number."""
    hands = deal(random.Random(6))
    g = Game("dagang", hands, live=False)
    assert g.view(None)["counts"] == ["10+"] * 6
    assert g.view(2)["counts"][2] in (36, "10+") and g.view(2)["counts"][0] == "10+"
    g = Game("online", hands, live=False)
    assert g.view(None)["counts"] == [36] * 6


def test_a_state_without_its_acts_is_the_state_with_them_left_out():
    """``to_state(actions=False)``: the same state, its record's ``actions`` ``None`` (a caller
    that has them encoded puts them back)."""
    rng = random.Random(7)
    bots = [HeuristicBot(random.Random(70 + i)) for i in range(6)]
    game = Game("dagang", deal(rng))
    while game.state != "over" and len(game.actions) < 30:
        game.act(*next_act(game, bots))
    whole, without = game.to_state(), game.to_state(actions=False)
    assert without["record"]["actions"] is None and len(whole["record"]["actions"]) == 30
    without["record"]["actions"] = whole["record"]["actions"]
    assert without == whole
