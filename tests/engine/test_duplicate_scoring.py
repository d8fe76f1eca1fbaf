"""Duplicate (复式) scoring (engine/duplicate.py): matchpoints and the IMP-like scale."""

import pytest

from engine.duplicate import (
    IMP_SCALE,
    compare,
    cross_imps,
    imps,
    matchpoints,
    net_points,
    score_board,
)


def test_net_points_is_the_teams_difference():
    assert net_points([6, 0], 0) == 6 and net_points([6, 0], 1) == -6
    assert net_points([0, 12], 1) == 12


def test_matchpoints_are_the_share_of_the_field_beaten_ties_half():
    assert matchpoints(4, [2, 4, 6, -2]) == pytest.approx((1 + 0.5 + 0 + 1) / 4)
    assert matchpoints(12, [0]) == 1.0 and matchpoints(-12, [0]) == 0.0
    assert matchpoints(3, []) is None


def test_the_imp_scale_grows_slower_than_the_difference():
    assert [imps(d) for d in range(0, 25)] == [
        0, 1, 2, 3, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8]
    assert imps(-6) == -4 and imps(2.5) == 2
    assert imps(24) < 2 * imps(12) < 4 * imps(6)
    assert IMP_SCALE[0] == (0, 0)


def test_cross_imps_average_over_the_field():
    assert cross_imps(6, [0, 6, 12]) == pytest.approx((4 + 0 - 4) / 3)
    assert cross_imps(0, []) is None


def test_a_board_scores_every_entry_against_the_others():
    board = {"A": 6, "B": 0, "C": 0, "D": -6}
    mp = score_board(board, "mp")
    assert mp == {"A": 1.0, "B": 0.5, "C": 0.5, "D": 0.0}
    imp = score_board(board, "imp")
    assert imp["A"] == pytest.approx((4 + 4 + 6) / 3) and imp["B"] == pytest.approx(0.0)
    assert sum(imp.values()) == pytest.approx(0.0)  # the scale is odd: a board is zero-sum


def test_an_unknown_method_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown duplicate scoring 'x': one of mp, imp"):
        compare(1, [0], "x")
