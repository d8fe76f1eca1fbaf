"""A finished game's record as steps to watch again (复盘): the hands, the table and who could
answer after every act, and the result (RECORD.md).

:func:`replay_steps` replays a record with the engine and describes, after each act, what a
referee settling a dispute needs: the combo on top and its owner, whose turn it is, and for
every seat whether it may answer the top and why (对头, 无头, 四户乱缠, a burn (烧牌) that only
the 对头 may answer, a 够死级 nobody may answer, …), plus the seats that could burn it. All six
hands are in it: show it only once the game is over.

To keep it small, the hands are given once as play begins (after tributes), and each step names
only the hands it changed (the acting seat's, and any seat it put out of the game).
"""

from __future__ import annotations

from .cards import sort_cards
from .game import Game, opp
from .record import replay_game

#: why a seat may (or may not) answer the top; the viewer translates each code
WHY_CODES = (
    "owner",  # its own combo
    "out",  # finished, eliminated or revolted
    "gousiji",  # 够死级: nobody may answer it, only a burn can
    "luanchan",  # 四户乱缠: four or fewer play, anyone may answer
    "burning_opposite",  # the combo burns (烧牌): only the burner's 对头 may answer it (解烧)
    "burning_other",  # the combo burns and this seat is not the 对头
    "opposite",  # the owner's 对头 always may
    "passed",  # it passed in this round
    "restricted",  # played after 让牌: only the 对头 may answer
    "ordinary",  # not a 够级 combo: anyone who has not passed
    "no_head",  # 无头: its 对头 is out, so it may answer a 够级 combo
    "owner_no_head",  # the owner is 无头, so anyone may answer its 够级 combo
    "gouji",  # a 够级 combo: only the 对头 may answer
)


def answer_rights(game: Game) -> dict | None:
    """Whether each seat may answer the combo on top now (``may``, by seat) and the code of why
    (``why``, by seat: :data:`WHY_CODES`); ``None`` while nothing is on the table to answer."""
    if game.state != "play" or game.top is None or game.leading:
        return None
    owner = game.owner
    return {"may": [bool(game.active[s] and s != owner and game.may_answer(s)) for s in range(6)],
            "why": [_why(game, s, owner) for s in range(6)]}


def _why(game: Game, s: int, owner: int) -> str:
    if s == owner:
        return "owner"
    if not game.active[s]:
        return "out"
    if game.top_unbeatable:
        return "gousiji"
    if game.phase2():
        return "luanchan"
    if game.top_burning:
        return "burning_opposite" if s == opp(owner) else "burning_other"
    if s == opp(owner):
        return "opposite"
    if game.passed[s]:
        return "passed"
    if game.top_restricted:
        return "restricted"
    if not game.top.gouji:
        return "ordinary"
    if game.no_head(s):
        return "no_head"
    if game.no_head(owner):
        return "owner_no_head"
    return "gouji"


def _table(game: Game) -> dict:
    """The table after an act: the top, whose turn, answering rights, places so far."""
    to_act = game.to_act() if game.state != "over" else None
    places = [0] * 6
    for k, seat in enumerate(game.finish_order):
        places[seat] = k + 1
    return {
        "top": None if game.top is None else {"seat": game.owner, "cards": list(game.top.cards),
                                              "gouji": bool(game.top.gouji)},
        "turn": None if to_act is None else to_act["seat"],
        "acts": [] if to_act is None else list(to_act["acts"]),
        "burners": [] if to_act is None else list(to_act.get("burners") or []),
        "rights": answer_rights(game),
        "counts": list(game.count),
        "places": places,
        "luanchan": game.state == "play" and game.phase2(),
    }


def replay_steps(record: dict, *, first_game: bool = False) -> dict:
    """The record as steps (see the module's docstring): ``{"ok": true, "start": {...},
    "steps": [...], "result": {...}}``, or the engine's error object for a record it refuses.
    ``start`` has the dealt hands, the pre-play events, the hands as play begins and the leader;
    each step has the act (``seat``, ``act``, ``cards``), its ``round`` (一圈, from 1), the
    hands it changed (``hands``: seat → cards) and the table after it (:func:`_table`)."""
    if not isinstance(record, dict):
        return replay_game(record)[1]
    opening = dict(record, actions=[])
    game, error = replay_game(opening, first_game=first_game)
    if error is not None:
        return error
    start = {
        "deal": [sort_cards(h) for h in game.deal],
        "pre": [dict(e) for e in game.pre_events],
        "hands": [game.sorted_hand(s) for s in range(6)],
        "leader": game.leader,
        "void": game.state == "over",
        **_table(game),
    }
    steps = []
    round_number = 1
    for index, action in enumerate(record.get("actions") or []):
        if not isinstance(action, dict) or type(action.get("seat")) is not int:
            return replay_game(record, first_game=first_game)[1]  # the engine's error
        before = list(game.count)
        leading = game.state == "play" and game.leading and index > 0
        try:
            game.act(action["seat"], action)
        except Exception:  # an illegal act: the engine's own error object for the record
            return replay_game(record, first_game=first_game)[1]
        if leading:
            round_number += 1
        seat = action["seat"]
        changed = {s for s in range(6) if game.count[s] != before[s]} | (
            {seat} if action.get("act") in ("play", "burn") else set())
        steps.append({
            "index": index, "seat": seat, "act": action.get("act"),
            "cards": list(game.actions[-1].get("cards", [])),
            "auto": bool(action.get("auto")), "round": round_number,
            "hands": {str(s): game.sorted_hand(s) for s in sorted(changed)},
            **_table(game),
        })
    return {"ok": True, "start": start, "steps": steps, "result": game.result()}
