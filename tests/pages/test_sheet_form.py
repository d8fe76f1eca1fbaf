"""The one result-sheet form (web/forms/sheet.py) both the players' phone form and the referee
desk use: what it turns fields into, and the engine's refusals put back on fields."""

from __future__ import annotations

import engine
from web.forms.sheet import SheetForm, seat_label

RULES = engine.Rules.from_spec("dagang")
SEATS = [{"seat": s, "label": seat_label(s), "name": f"P{s}"} for s in range(6)]


def form(order, **fields) -> SheetForm:
    data = {f"place_{i}": str(s) for i, s in enumerate(order)} | {"leader": "0"}
    data.update({f"kaidian_{s}": "on" for s in range(6)})
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
