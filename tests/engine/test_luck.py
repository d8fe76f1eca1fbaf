"""The luck figures (engine.luck, ``python -m engine luck``): the cards' share of a 联邦's
score without and with duplicate scoring."""

from __future__ import annotations

import json
import random

import pytest

from engine.cli import main
from engine.luck import duplicate_groups, icc, luck, play_deal


def test_icc_is_the_between_group_share_of_the_variance():
    # groups that differ only by their level: all the variance is between them
    assert icc([[1.0, 1.0], [5.0, 5.0], [-3.0, -3.0]]) == pytest.approx(1.0)
    # the same values in every group: none is
    assert icc([[1.0, 5.0], [5.0, 1.0], [1.0, 5.0]]) < 0
    # a known case: group effect of variance 4, noise of variance 1 → 0.8
    rng = random.Random(1)
    groups = []
    for _ in range(3000):
        level = rng.gauss(0, 2)
        groups.append([level + rng.gauss(0, 1) for _ in range(4)])
    assert icc(groups) == pytest.approx(0.8, abs=0.03)


def test_the_twins_differ_only_by_the_bots_choices():
    """Without trembling, six careful bots play a deal the same way at every table: the
    cards decide everything, and every duplicate score is 0."""
    plays = play_deal("dagang", 3, 0, twins=2, noise=0.0)
    assert len(plays) == 4 and len(set(plays)) == 1
    assert duplicate_groups([plays]) == [[0.0, 0.0]]
    trembling = [play_deal("dagang", 3, d, twins=2, noise=0.05) for d in range(4)]
    assert any(len(set(p)) > 1 for p in trembling)


def test_duplicate_scores_compare_each_table_with_its_twin():
    assert duplicate_groups([[4, -2, 1, 1]]) == [[6.0, 0.0]]
    assert duplicate_groups([[12, 0, 0, 3]], "imp") == [[6.0, -3.0]]


def test_the_luck_command_reports_both_shares_with_intervals(capsys):
    assert main(["luck", "--deals", "12", "--seed", "2", "--resamples", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 48 and out["noise"] == 0.01
    for key in ("plain", "duplicate", "duplicate_imp"):
        lo, hi = out[key]["ci95"]
        assert lo <= hi and out[key]["variance"] >= 0
    assert main(["luck", "--deals", "2"]) == 2
    assert "at least 3" in capsys.readouterr().err


def test_duplicate_scoring_takes_most_of_the_cards_share_away():
    out = luck("dagang", deals=40, seed=5, noise=0.005, resamples=100)
    assert out["plain"]["share"] > 0.4
    assert out["duplicate"]["share"] < out["plain"]["share"] / 2
