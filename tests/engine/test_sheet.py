"""Result sheets (gouji-sheet/1): checked and scored with the same rules as full records."""

from __future__ import annotations

import random

import pytest

from engine import score_sheet
from engine.bots import play_match


def _sheet_from(result, rules, leader, men_by=None):
    return {
        "format": "gouji-sheet/1",
        "rules": rules,
        "leader": leader,
        "order": result["order"],
        "revolutions": result["revolutions"],
        "eliminated": result["eliminated"],
        "kaidian": result["kaidian"],
        "burns": result["burns"],
    }


@pytest.mark.parametrize("preset", ["dagang", "basic"])
def test_sheet_of_a_played_game_scores_like_its_record(preset):
    """The sheet a referee would copy from a finished game scores exactly as the replay did:
    places, team points, 串三户, 开点 and the tributes owed to the next game."""
    rng = random.Random(preset)
    for _ in range(60):
        g = play_match(preset, 1, rng)[0]
        res = g.result()
        if res["void"]:
            continue
        assert score_sheet(_sheet_from(res, preset, g.leader)) == res


def _base(**kw):
    sheet = {"format": "gouji-sheet/1", "rules": "dagang", "order": [0, 1, 2, 3, 4, 5],
             "kaidian": [True, True, False, True, False, True]}
    sheet.update(kw)
    return sheet


def test_sweep_scores_twelve():
    """串三户: one 联邦 takes 头科, 二科 and 三科 and scores 12; no 落贡 follows."""
    res = score_sheet(_base(order=[1, 3, 5, 0, 2, 4]))
    assert res["ok"] and res["sweep"] and res["team_points"] == [0, 12]
    assert not [t for t in res["owed_tributes"] if t["kind"] == "luo"]


def test_plain_score_only_positive_team():
    """Place points 4, 2, 0, 0, −2, −4; only the positive 联邦 scores (只记正分)."""
    res = score_sheet(_base(order=[0, 1, 3, 2, 4, 5]))
    # team 0: seats 0 (1st, +4), 2 (4th, 0), 4 (5th, -2) = 2; team 1: 2 + 0 - 4 = -2
    assert res["team_points"] == [2, 0]


def test_not_kaidian_owes_dian_tribute_to_opposite():
    """不开点: each such seat gives its 对头 one 点贡."""
    res = score_sheet(_base(order=[0, 1, 3, 2, 4, 5]))
    dian = [t for t in res["owed_tributes"] if t["kind"] == "dian"]
    assert dian == [{"kind": "dian", "from": 2, "to": 5, "count": 1},
                    {"kind": "dian", "from": 4, "to": 1, "count": 1}]


def test_revolutionary_must_be_placed_fourth_or_third():
    """革命: the revolutionary is 四科, or 三科 when its teammates are 头科 and 二科."""
    bad = score_sheet(_base(order=[0, 1, 2, 3, 4, 5], revolutions=[5],
                            kaidian=[True, True, True, True, True, False]))
    assert not bad["ok"] and "seat 5 revolted" in bad["error"]["message"]
    good = score_sheet(_base(order=[1, 3, 5, 0, 2, 4], revolutions=[5],
                             kaidian=[True, True, True, True, True, False]))
    assert good["ok"] and good["places"][5] == 3 and good["sweep"]


def test_revolutionary_cannot_kaidian_on_a_sheet():
    res = score_sheet(_base(order=[0, 1, 2, 5, 4, 3], revolutions=[5],
                            kaidian=[True] * 6))
    assert not res["ok"] and "seat 5" in res["error"]["message"]



def test_revolutionary_s_opposite_kaidians_on_an_online_sheet():
    """revolution_kaidian = auto (RULES.md §6, §13: the online preset): a sheet must show the
    revolutionary's 对头 开点; with rights (dagang) it may be 不开点."""
    kaidian = [True, True, False, True, True, False]  # seat 2, 对头 of revolutionary 5: 不开点
    bad = score_sheet(_base(rules="online", order=[0, 1, 2, 5, 4, 3], revolutions=[5],
                            kaidian=kaidian))
    assert not bad["ok"] and "seat 2" in bad["error"]["message"]
    assert "revolution_kaidian" in bad["error"]["message"]
    assert score_sheet(_base(order=[0, 1, 2, 5, 4, 3], revolutions=[5], kaidian=kaidian))["ok"]
    good = score_sheet(_base(rules="online", order=[0, 1, 2, 5, 4, 3], revolutions=[5],
                             kaidian=[True, True, True, True, True, False]))
    assert good["ok"], good

def test_eliminated_seats_take_the_last_places_failed_burn_lowest():
    """诈烧 ranks below 闷 (000): the failed burner is 大落, the smothered seat 二落."""
    elim = [{"seat": 4, "reason": "smothered"}, {"seat": 1, "reason": "failed_burn"}]
    ok = score_sheet(_base(order=[0, 2, 3, 5, 4, 1], eliminated=elim))
    assert ok["ok"], ok
    assert ok["places"][1] == 6 and ok["places"][4] == 5
    bad = score_sheet(_base(order=[0, 2, 3, 5, 1, 4], eliminated=elim))
    assert not bad["ok"] and "eliminated" in bad["error"]["message"]


def test_two_revolutions_void_the_game():
    """流局: two revolutions void the game, no score."""
    assert not score_sheet(_base(revolutions=[1, 2]))["ok"]
    res = score_sheet(_base(revolutions=[1, 2], void=True))
    assert res["ok"] and res["void"] and res["team_points"] == [0, 0]
    assert not score_sheet(_base(void=True))["ok"]


@pytest.mark.parametrize("sheet", [
    None, [], "x", {"format": "gouji-sheet/1"},
    {"format": "gouji-sheet/2", "order": [0, 1, 2, 3, 4, 5]},
    _base(order=[0, 0, 1, 2, 3, 4]), _base(order=[0, 1, 2, 3, 4]), _base(kaidian=[True] * 5),
    _base(kaidian=None), _base(extra=1), _base(rules="nope"), _base(leader=9),
    _base(burns=[{"burner": 0, "burned": 3, "counter": False}]),
    _base(eliminated=[{"seat": 2, "reason": "bored"}]),
    _base(declared=["x", None, None, None, None, None]),
    {"format": "gouji-sheet/1", "rules": "basic", "order": [0, 1, 2, 3, 4, 5],
     "kaidian": [True] * 6},
])
def test_bad_sheets_are_refused_with_a_reason(sheet):
    res = score_sheet(sheet)
    assert res["ok"] is False
    assert res["error"]["code"] == "bad_format" and res["error"]["message"]


def test_declaration_on_a_sheet_changes_the_dian_tribute():
    """明点: a declarer whose 对头 is 不开点 receives 2 点贡; 翻车 the other way round."""
    res = score_sheet(_base(order=[0, 1, 3, 2, 4, 5],
                            declared=[None, None, None, None, None, "mingdian"]))
    dian = {(t["from"], t["to"]): t["count"] for t in res["owed_tributes"] if t["kind"] == "dian"}
    assert dian[(2, 5)] == 2
    res = score_sheet(_base(order=[0, 1, 3, 2, 4, 5],
                            declared=["mingdian", None, None, None, None, None]))
    dian = {(t["from"], t["to"]): t["count"] for t in res["owed_tributes"] if t["kind"] == "dian"}
    assert dian[(0, 3)] == 2  # seat 3 开点ed: 翻车, the declarer pays
