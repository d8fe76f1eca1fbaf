"""The duplicate tournament (engine.duel, ``python -m engine duel``)."""

from __future__ import annotations

import json

from engine.cli import main
from engine.duel import duel, play_deals


def test_a_bot_against_itself_scores_exactly_zero_on_every_deal():
    """Bridge method: with the same (deterministic) bot on both sides, the two plays of a deal
    are the same game with the teams swapped, so every deal scores 0."""
    stats = duel("dagang", "heuristic", "heuristic", deals=6, seed=3)
    assert stats.deals == 6 and stats.games == 12
    assert stats.scores == [0.0] * 6
    assert stats.wins[0] == stats.wins[1]
    assert stats.smothers[0] == stats.smothers[1]


def test_deals_are_independent_so_ranges_add_up():
    """Each deal has its own seed: two halves played apart give the whole duel's scores."""
    whole = play_deals("online", "careful", "heuristic", 5, 0, 4)
    first = play_deals("online", "careful", "heuristic", 5, 0, 2)
    first.add(play_deals("online", "careful", "heuristic", 5, 2, 4))
    assert first.scores == whole.scores
    assert first.smothers == whole.smothers and first.wins == whole.wins


def test_the_duel_command_prints_points_per_deal_with_an_interval(capsys):
    assert main(["duel", "--games", "4", "--seed", "1", "--rules", "basic", "--a", "careful",
                 "--b", "heuristic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deals"] == 4 and out["games"] == 8
    lo, hi = out["ci95"]
    assert lo <= out["points_per_deal"] <= hi
    assert out["decision_ms"]["p99"] >= out["decision_ms"]["p50"] >= 0
    assert main(["duel", "--games", "1"]) == 2  # too few deals: a clear error
    assert "at least 2" in capsys.readouterr().err


def test_the_bench_command_reports_replay_against_a_json_round_trip(capsys):
    assert main(["bench", "--seconds", "0", "--games", "5", "--repeat", "1", "--rules",
                 "dagang", "--bot", "careful"]) == 0
    out = capsys.readouterr().out
    assert "x JSON" in out and "careful-bot games" in out and "per CPU second" in out


def test_without_duplicate_each_deal_is_played_once_on_alternate_sides(capsys):
    """``--no-duplicate``: one game a deal, bot ``a`` on team 0 in even deals and team 1 in
    odd ones; a bot against itself then scores the plain game's points, not 0."""
    stats = duel("dagang", "heuristic", "heuristic", deals=6, seed=3, duplicate=False)
    assert stats.deals == 6 and stats.games == 6
    twice = duel("dagang", "heuristic", "heuristic", deals=6, seed=3)
    assert twice.scores == [0.0] * 6
    assert any(score != 0 for score in stats.scores)  # the cards' luck is back in the score
    assert main(["duel", "--games", "4", "--seed", "1", "--no-duplicate", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["duplicate"] is False and out["deals"] == 4 and out["games"] == 4
