"""Result sheets: a table's game result written down without the moves.

A sheet (``gouji-sheet/1``) is what a referee copies from the table after a game::

    {"format": "gouji-sheet/1", "rules": "dagang", "leader": 0,
     "order": [3, 0, 5, 2, 1, 4],          # seats from 头科 to 大落, revolutionaries included
     "revolutions": [], "eliminated": [{"seat": 4, "reason": "smothered"}],
     "kaidian": [true, false, true, true, false, false],   # null when 打点 is off
     "declared": [null, "mingdian", null, null, null, null],  # optional, 明点/预点
     "burns": [{"burner": 2, "burned": 5, "counter": false}],  # optional
     "smothers": [{"seat": 4, "by": 1}],   # optional; who beat the smothered seat (闷贡)
     "void": false}

:func:`score_sheet` checks that the sheet is possible under the rules (places, revolutions,
eliminations, 开点 flags) and scores it with the same code as a replayed record, returning the
result object of RECORD.md (or an error object). It never raises on bad data.
"""

from __future__ import annotations

import random

from .cards import deal
from .errors import IllegalAction
from .game import PLACE_WORD, Game, opp
from .game.state import is_seat
from .rules import Rules, RulesError

SHEET_KEYS = {"format", "rules", "leader", "order", "revolutions", "eliminated", "kaidian",
              "declared", "burns", "smothers", "void", "previous"}


def _err(message: str) -> dict:
    return {"ok": False, "error": {"where": "sheet", "index": None, "seat": None,
                                   "code": "bad_format", "message": message}}


def score_sheet(sheet: dict) -> dict:
    """Validate and score a result sheet; returns a RECORD.md result object or an error."""
    try:
        return _score(sheet)
    except IllegalAction as exc:
        return {"ok": False, "error": {"where": "sheet", "index": None, "seat": exc.seat,
                                       "code": exc.code, "message": exc.message}}


def sheet_of(result: dict, leader: int) -> dict:
    """The sheet a referee would copy from a finished game's result (without ``format`` and
    ``rules``, which the table's event gives)."""
    return {"order": result["order"], "revolutions": result["revolutions"],
            "eliminated": result["eliminated"], "kaidian": result["kaidian"],
            "burns": result["burns"], "leader": leader}


def _score(sheet) -> dict:
    if not isinstance(sheet, dict):
        return _err("a result sheet must be a JSON object")
    extra = set(sheet) - SHEET_KEYS
    if extra:
        return _err(f"unknown key in the sheet: {sorted(extra)[0]!r}")
    if sheet.get("format") != "gouji-sheet/1":
        return _err("format must be \"gouji-sheet/1\"")
    try:
        rules = Rules.from_spec(sheet.get("rules", "dagang"))
    except RulesError as exc:
        return _err(str(exc))
    revs = sheet.get("revolutions", [])
    if not isinstance(revs, list) or not all(is_seat(s) for s in revs) or len(set(revs)) != len(
            revs):
        return _err("revolutions must be a list of distinct seats")
    if revs and not rules["revolution"]:
        return _err("revolution (革命) is off in these rules")
    void = sheet.get("void", False)
    if type(void) is not bool:
        return _err("void must be true or false")
    if len(revs) >= 2 and not void:
        return _err("two or more revolutions void the game (流局): mark the sheet void")
    if void and len(revs) < 2:
        return _err("a game is void (流局) only after two or more revolutions")
    leader = sheet.get("leader", 0)
    if not is_seat(leader):
        return _err("leader must be a seat 0 to 5")
    if leader in revs and not void:
        return _err(f"seat {leader} revolted and cannot have led")
    g = Game(rules, deal(random.Random(0)), sheet.get("previous"), live=False)
    g.leader = leader
    for s in revs:
        g.revolutionaries.append(s)
        g.deactivate(s)
    if void:
        g.void = True
        g.state = "over"
        return g.result()
    order = sheet.get("order")
    if not isinstance(order, list) or sorted(order) != list(range(6)) or not all(
            is_seat(s) for s in order):
        return _err("order must list the six seats once each, from 头科 to 大落")
    elim = sheet.get("eliminated", [])
    if not isinstance(elim, list):
        return _err("eliminated must be a list")
    elim_seats = []
    for e in elim:
        if not isinstance(e, dict) or set(e) != {"seat", "reason"} or not is_seat(e["seat"]) \
                or e["reason"] not in ("failed_burn", "smothered"):
            return _err("each eliminated entry is {\"seat\": s, \"reason\": \"failed_burn\" | "
                        "\"smothered\"}")
        if e["reason"] == "smothered" and not (rules["bie3"] and rules["men"] == "last_place"):
            return _err(f"seat {e['seat']} cannot be eliminated as smothered (闷): these rules "
                        "do not eliminate smothered seats")
        if e["seat"] in revs or e["seat"] in elim_seats:
            return _err(f"seat {e['seat']} cannot be eliminated here")
        g.eliminated.append((e["seat"], e["reason"]))
        elim_seats.append(e["seat"])
        g.deactivate(e["seat"])
    finishers = [s for s in order if s not in revs and s not in elim_seats]
    g.finish_order = finishers
    for s in finishers:
        g.deactivate(s)
    g.state = "over"
    places = g.places()
    want = [0] * 6
    for i, s in enumerate(order):
        want[s] = i + 1
    if places != want:
        for s in revs:
            if places[s] != want[s]:
                return _err(f"seat {s} revolted, so it is placed {_place(places[s])}, not "
                            f"{_place(want[s])} (四科, or 三科 when its teammates are 头科 and "
                            f"二科)")
        for s in elim_seats:
            if places[s] != want[s]:
                return _err(f"seat {s} was eliminated, so it is placed {_place(places[s])}, not "
                            f"{_place(want[s])} (eliminated seats take the last places, a failed "
                            f"burn below a smother)")
        return _err("the order does not match the places the rules give")
    kd = sheet.get("kaidian")
    if rules["dadian"]:
        if not isinstance(kd, list) or len(kd) != 6 or not all(type(k) is bool for k in kd):
            return _err("kaidian must list true (开点) or false (不开点) for each of the six seats")
        for s in revs:
            if kd[s]:
                return _err(f"seat {s} revolted and is 不开点")
            if rules["revolution_kaidian"] == "auto" and not kd[opp(s)]:
                return _err(f"seat {opp(s)} is the 对头 of seat {s}, which revolted: with "
                            f"revolution_kaidian auto it 开点s automatically")
        g.kaidian = list(kd)
    elif kd is not None and any(k is not None for k in kd or []):
        return _err("kaidian must be null when 打点 (dadian) is off")
    declared = sheet.get("declared")
    if declared is not None:
        if not rules["dadian"]:
            return _err("declarations (明点/预点) need 打点 (dadian)")
        if not isinstance(declared, list) or len(declared) != 6 or not all(
                d in (None, "mingdian", "yudian") for d in declared):
            return _err("declared must list null, \"mingdian\" or \"yudian\" for each seat")
        g.declared = list(declared)
    burns = sheet.get("burns", [])
    if not isinstance(burns, list):
        return _err("burns must be a list")
    for b in burns:
        if not isinstance(b, dict) or set(b) != {"burner", "burned", "counter"} or not is_seat(
                b["burner"]) or not is_seat(b["burned"]) or type(b["counter"]) is not bool:
            return _err("each burn is {\"burner\": s, \"burned\": t, \"counter\": bool}")
        if b["burner"] in (b["burned"], opp(b["burned"])):
            return _err(f"seat {b['burner']} cannot burn seat {b['burned']} (itself or its 对头)")
        g.burns.append(dict(b))
    smothers = sheet.get("smothers", [])
    if not isinstance(smothers, list):
        return _err("smothers must be a list")
    for m in smothers:
        if not isinstance(m, dict) or set(m) != {"seat", "by"} or not is_seat(m["seat"]) or \
                not is_seat(m["by"]) or m["seat"] == m["by"]:
            return _err("each smother is {\"seat\": s, \"by\": t}")
        if not rules["bie3"]:
            return _err("smothers (闷) happen only under 憋3")
        g.smothers.append(m["seat"])
        if rules["men"] == "tribute":
            g.men_owed.append((m["seat"], m["by"]))
    for s in elim_seats:
        if dict(g.eliminated)[s] == "smothered" and s not in g.smothers:
            g.smothers.append(s)
    return g.result()


def _place(p: int) -> str:
    return PLACE_WORD.get(p, str(p))
