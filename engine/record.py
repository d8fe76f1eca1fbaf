"""Replaying game and match records (RECORD.md) into result objects.

Bad data never raises: :func:`replay` and :func:`replay_match` return the error object.
"""

from __future__ import annotations

from .errors import IllegalAction
from .game import Game
from .rules import Rules, RulesError

RECORD_KEYS = {"format", "rules", "opening_seat", "previous", "deal", "pre", "leader", "agreed",
               "actions"}
MATCH_KEYS = {"format", "rules", "opening_seat", "games"}


def _error(code, message, where=None, index=None, seat=None) -> dict:
    return {"ok": False, "error": {"where": where, "index": index, "seat": seat, "code": code,
                                   "message": message}}


def replay(record: dict, *, first_game: bool = False, rules_default=None) -> dict:
    """Replay one game record and return its result (or an error object).

    ``first_game`` marks a table's first game (亮3 decides the leader under ``first_lead =
    loser``); a standalone record's leader is otherwise taken as given unless ``previous`` is set.
    """
    game, err = _build_and_run(record, first_game=first_game, rules_default=rules_default)
    if err is not None:
        return err
    return game.result()


def replay_game(record: dict, **kw) -> tuple[Game | None, dict | None]:
    """Like :func:`replay` but also return the :class:`Game` (``None`` on error)."""
    return _build_and_run(record, **kw)


def _build_and_run(record, *, first_game=False, rules_default=None):
    if not isinstance(record, dict):
        return None, _error("bad_format", "a game record must be a JSON object")
    extra = set(record) - RECORD_KEYS
    if extra:
        return None, _error("bad_format", f"unknown key in the record: {sorted(extra)[0]!r}")
    if record.get("format") != "gouji-record/1":
        return None, _error("bad_format", "format must be \"gouji-record/1\"")
    for key in ("deal", "actions"):
        if key not in record:
            return None, _error("bad_format", f"the record has no {key!r}")
    rules_spec = record.get("rules", rules_default)
    if rules_spec is None:
        rules_spec = "dagang"  # the default preset (RULES.md §13)
    try:
        rules = Rules.from_spec(rules_spec)
    except RulesError as exc:
        return None, _error("bad_format", str(exc))
    pre = record.get("pre", [])
    actions = record["actions"]
    if not isinstance(pre, list) or not isinstance(actions, list):
        return None, _error("bad_format", "pre and actions must be lists")
    agreed = record.get("agreed")
    if agreed is not None and (not isinstance(agreed, list) or not all(
            type(s) is int and 0 <= s <= 5 for s in agreed) or len(set(agreed)) != len(agreed)):
        return None, _error("bad_format", "agreed must be a list of distinct seats")
    try:
        game = Game(rules, record["deal"], record.get("previous"), record.get("opening_seat", 0),
                    first_game=first_game, live=False)
    except IllegalAction as exc:
        return None, _error(exc.code, exc.message, exc.where or "deal", None, exc.seat)
    game.agreed = agreed
    for i, ev in enumerate(pre):
        try:
            game.apply_pre_event(ev)
        except IllegalAction as exc:
            return None, _error(exc.code, exc.message, "pre", i, _ev_seat(ev, exc))
    if game.state == "over":  # void (流局)
        if actions:
            return None, _error("game_over", "the game is void (流局): two or more revolutions; "
                                "no card may be played", "actions", 0, None)
        return game, None
    leader = record.get("leader")
    try:
        game.begin_play(leader)
    except IllegalAction as exc:
        where = exc.where if exc.where in ("pre", "leader") else "leader"
        idx = len(pre) if where == "pre" else None  # where the missing event belongs
        return None, _error(exc.code, exc.message, where, idx, exc.seat)
    for i, a in enumerate(actions):
        if not isinstance(a, dict) or type(a.get("seat")) is not int:
            return None, _error("bad_format", "every action needs an integer \"seat\" and an "
                                "\"act\"", "actions", i, None)
        try:
            game.act(a["seat"], a)
        except IllegalAction as exc:
            return None, _error(exc.code, exc.message, "actions", i, exc.seat)
    return game, None


def _ev_seat(ev, exc):
    if exc.seat is not None:
        return exc.seat
    if isinstance(ev, dict):
        for key in ("seat", "from"):
            if type(ev.get(key)) is int:
                return ev[key]
    return None


def replay_match(match: dict) -> dict:
    """Replay a match record (``gouji-match/1``): each game's ``previous`` is the result of the
    game before it, so tributes, returns and leaders are checked across the match."""
    if not isinstance(match, dict):
        return {"ok": False, "game": None,
                "error": _error("bad_format", "a match record must be a JSON object")["error"]}
    extra = set(match) - MATCH_KEYS
    if extra or match.get("format") != "gouji-match/1" or not isinstance(match.get("games"), list):
        msg = (f"unknown key in the match: {sorted(extra)[0]!r}" if extra else
               "a match needs format \"gouji-match/1\" and a list of games")
        return {"ok": False, "game": None, "error": _error("bad_format", msg)["error"]}
    previous = None
    results = []
    totals = [0, 0]
    for k, rec in enumerate(match["games"]):
        if not isinstance(rec, dict):
            return {"ok": False, "game": k, "error": _error("bad_format",
                                                            "a game must be an object")["error"]}
        rec = dict(rec)
        if "opening_seat" not in rec and "opening_seat" in match:
            rec["opening_seat"] = match["opening_seat"]
        if k > 0:
            if rec.get("previous") not in (None, previous):
                return {"ok": False, "game": k, "error": _error(
                    "bad_format", "a match game's previous must be the result of the game "
                    "before it (or be left out)")["error"]}
            rec["previous"] = previous
        res = replay(rec, first_game=(k == 0), rules_default=match.get("rules"))
        if not res["ok"]:
            return {"ok": False, "game": k, "error": res["error"]}
        if not res["complete"]:
            return {"ok": False, "game": k, "error": _error(
                "bad_format", f"game {k} of the match is not finished")["error"]}
        results.append(res)
        totals[0] += res["team_points"][0]
        totals[1] += res["team_points"][1]
        previous = res
    return {"ok": True, "games": results, "team_points": totals}
