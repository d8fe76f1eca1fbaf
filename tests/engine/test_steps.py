"""engine.steps: a finished record as the steps a replay viewer shows (issue 19)."""

from __future__ import annotations

import random
from collections import Counter

import engine
from engine.bots import play_match
from engine.steps import WHY_CODES, replay_steps


def test_replay_steps_say_who_may_answer_and_why():
    game = engine.bot_game("dagang", seed=4)
    body = replay_steps(game.record(), first_game=True)
    whys = Counter(w for s in body["steps"] if s["rights"] for w in s["rights"]["why"])
    assert {"opposite", "ordinary", "passed", "owner"} <= set(whys)
    for step in body["steps"]:
        rights = step["rights"]
        if rights is None:
            continue
        for seat in range(6):
            # the 对头 of the owner may always answer (unless 够死级 or out)
            if rights["why"][seat] in ("opposite", "luanchan", "no_head", "ordinary",
                                       "owner_no_head", "burning_opposite"):
                assert rights["may"][seat], (step["index"], seat, rights)
            if rights["why"][seat] in ("passed", "out", "owner", "gouji", "burning_other",
                                       "restricted", "gousiji"):
                assert not rights["may"][seat], (step["index"], seat, rights)
    assert replay_steps({"format": "nope"})["ok"] is False


def test_replay_steps_follow_a_match_game_with_tributes_and_end_at_the_engines_result():
    first, second = play_match("dagang", 2, random.Random(7))
    record = second.record()
    body = replay_steps(record)
    assert body["ok"] and body["start"]["pre"] == record["pre"]
    assert body["result"] == engine.replay(record)
    assert [s["index"] for s in body["steps"]] == list(range(len(record["actions"])))
    assert {w for s in body["steps"] if s["rights"] for w in s["rights"]["why"]} <= set(WHY_CODES)
    # rounds only go up, by one at a time
    rounds = [s["round"] for s in body["steps"]]
    assert rounds[0] == 1
    assert all(b - a in (0, 1) for a, b in zip(rounds, rounds[1:], strict=False))


def test_replay_steps_return_the_engines_error_for_an_illegal_record():
    record = engine.bot_game("dagang", seed=2).record()
    record["actions"][3] = {"seat": record["actions"][3]["seat"], "act": "play", "cards": ["RJ"] * 9}
    body = replay_steps(record, first_game=True)
    assert body["ok"] is False and body["error"]["where"] == "actions"
