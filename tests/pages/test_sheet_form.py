"""The one result-sheet form (web/forms/sheet.py) both the players' phone form and the referee
desk use: what it turns fields into, and the engine's refusals put back on fields."""

from __future__ import annotations

import engine
from web.forms.sheet import SheetForm, seat_label

RULES = engine.Rules.from_spec("dagang")
SEATS = [{"seat": s, "label": seat_label(s), "name": f"P{s}"} for s in range(6)]


def form(order, **fields) -> SheetForm:
    data = {f"place_{i}": str(s) for i, s in enumerate(order)} | {"leader": "0"}
    data.update({f"kaidian_{s}": "yes" for s in range(6)})
    data.update(fields)
    return SheetForm(data, rules=RULES, seats=SEATS)


def score(f: SheetForm) -> dict:
    return engine.score_sheet({"format": "gouji-sheet/1", "rules": RULES.spec(), **f.sheet()})


def test_two_failed_burns_are_listed_as_the_engine_places_them():
    # given: seat 4 is 大落 and seat 1 二落, both eliminated by failed burns (诈烧)
    f = form([0, 2, 3, 5, 1, 4], out_1="failed_burn", out_4="failed_burn")
    assert f.is_valid(), f.errors
    # then: listed from the bottom place up, and the engine accepts the sheet as written
    assert f.sheet()["eliminated"] == [{"seat": 4, "reason": "failed_burn"},
                                       {"seat": 1, "reason": "failed_burn"}]
    result = score(f)
    assert result["ok"], result
    assert result["places"][4] == 6 and result["places"][1] == 5


def test_a_void_game_needs_no_finishing_order():
    f = SheetForm({"leader": "1", "void": "on", "revolution_0": "on", "revolution_3": "on"},
                  rules=RULES, seats=SEATS)
    assert f.is_valid(), f.errors
    assert f.sheet() == {"revolutions": [0, 3], "void": True, "leader": 1}
    assert score(f)["void"] is True


def test_a_missing_place_and_a_seat_placed_twice_are_refused_on_their_fields():
    f = form([0, 1, 2, 3, 4])
    assert not f.is_valid() and "place_5" in f.errors
    f = form([0, 0, 2, 3, 4, 5])
    assert not f.is_valid() and "place_0" in f.errors


def test_a_stored_sheet_fills_the_form_again():
    f = form([0, 2, 3, 5, 1, 4], out_1="failed_burn", out_4="failed_burn",
             burn_0_burner="2", burn_0_burned="1")
    assert f.is_valid(), f.errors
    again = SheetForm(SheetForm.initial_from(f.sheet()) | {}, rules=RULES, seats=SEATS)
    assert again.is_valid(), again.errors
    assert again.sheet() == f.sheet()


# ----------------------------------------------------------------------------- 开点 (issue 52)
def test_kaidian_is_asked_of_every_seat_and_never_assumed():
    # given: the finishing order only, no seat's 开点 answered
    f = SheetForm({f"place_{i}": str(s) for i, s in enumerate([0, 2, 4, 1, 3, 5])}
                  | {"leader": "0"}, rules=RULES, seats=SEATS)
    # then: refused, each seat named — an unanswered seat is not taken as 不开点 (which would
    # owe 点贡 in the next game)
    assert not f.is_valid()
    assert sorted(f.errors) == [f"kaidian_{s}" for s in range(6)]
    assert f.errors["kaidian_2"] == ["answer 开点 or 不开点 for seat 3"]


def test_kaidian_answers_are_what_the_sheet_says_and_none_is_preselected():
    f = form([0, 2, 4, 1, 3, 5], kaidian_1="no", kaidian_4="no")
    assert f.is_valid(), f.errors
    assert f.sheet()["kaidian"] == [True, False, True, True, False, True]
    blank = str(SheetForm(rules=RULES, seats=SEATS)["kaidian_0"])
    assert blank.count('type="radio"') == 2 and "checked" not in blank


def test_the_rules_answer_a_revolted_seat_and_with_auto_its_opposite():
    # given: seat 1 (2号位) revolted; nobody answers 开点 for it (dagang: rights) ...
    data = {f"place_{i}": str(s) for i, s in enumerate([0, 2, 4, 1, 3, 5])} | {
        "leader": "0", "revolution_1": "on"}
    data |= {f"kaidian_{s}": "yes" for s in (0, 2, 3, 4, 5)}
    f = SheetForm(data, rules=RULES, seats=SEATS)
    assert f.is_valid(), f.errors
    assert f.sheet()["kaidian"] == [True, False, True, True, True, True]
    # ... and under revolution_kaidian "auto" (online) its 对头, seat 4 (5号位), 开点s: neither
    # needs an answer
    online = engine.Rules.from_spec("online")
    data.pop("kaidian_4")
    f = SheetForm(data, rules=online, seats=SEATS)
    assert f.is_valid(), f.errors
    assert f.sheet()["kaidian"] == [True, False, True, True, True, True]
    # an answer the rules contradict goes to the engine, which refuses it by name
    f = SheetForm(data | {"kaidian_1": "yes"}, rules=online, seats=SEATS)
    assert f.is_valid() and f.sheet()["kaidian"][1] is True


def test_without_dadian_there_is_no_kaidian_question():
    basic = engine.Rules.from_spec("basic")
    f = SheetForm({f"place_{i}": str(s) for i, s in enumerate([0, 2, 4, 1, 3, 5])}
                  | {"leader": "0"}, rules=basic, seats=SEATS)
    assert not any(name.startswith("kaidian_") for name in f.fields)
    assert f.is_valid(), f.errors
    assert "kaidian" not in f.sheet()
