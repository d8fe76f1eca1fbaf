"""The rating model (ratings.model) and its honest figures on bot-played events whose bots'
strengths are known: the rating must rank the stronger bots above."""

from __future__ import annotations

import pytest

from ratings.botevent import available_bots, bot_event, bot_strength_summary
from ratings.model import (
    RatedGame,
    State,
    place_weights,
    prediction_figures,
    rate_all,
    rate_game,
    win_probability,
)

PLAYERS = (1, 2, 3, 4, 5, 6)


def test_the_winners_rise_and_their_top_place_rises_most():
    states: dict[int, State] = {}
    # 联邦 0 (seats 0, 2, 4) wins; seat 2 is 头科, seat 0 third; seat 5 is 大落
    rate_game(states, RatedGame(key=(1,), players=PLAYERS, points_a=12, points_b=0,
                                places=(3, 2, 1, 4, 5, 6)))
    assert all(states[p].mu > 25 for p in (1, 3, 5))
    assert all(states[p].mu < 25 for p in (2, 4, 6))
    assert states[3].mu > states[1].mu > states[5].mu  # 头科 > 3rd > 5th among the winners
    assert states[6].mu < states[4].mu < states[2].mu  # 大落 loses most among the losers
    assert all(states[p].games == 1 for p in PLAYERS)
    assert [states[p].wins for p in PLAYERS] == [1, 0, 1, 0, 1, 0]


def test_place_weights_run_from_head_to_last_and_ties_weigh_one():
    weights = place_weights((1, 2, 3, 4, 5, 6), winner=0)
    assert weights == pytest.approx([1.5, 1.3, 1.1, 0.9, 0.7, 0.5])
    assert place_weights((1, 2, 3, 4, 5, 6), winner=None) == [1.0] * 6
    assert place_weights((0,) * 6, winner=1) == [1.0] * 6


def test_a_void_game_is_not_rated_and_a_tie_moves_no_mean_much():
    states: dict[int, State] = {}
    assert not rate_game(states, RatedGame(key=(1,), players=PLAYERS, points_a=0, points_b=0,
                                           void=True))
    assert states == {}
    rate_game(states, RatedGame(key=(1,), players=PLAYERS, points_a=0, points_b=0))
    assert all(abs(states[p].mu - 25) < 1e-9 for p in PLAYERS)
    assert all(states[p].sigma < 25 / 3 for p in PLAYERS)


def test_games_are_rated_in_key_order_whatever_the_input_order():
    games = [RatedGame(key=(r, 1, g), players=PLAYERS, points_a=12 * ((r + g) % 2),
                       points_b=12 * ((r + g + 1) % 2), places=(1, 2, 3, 4, 5, 6))
             for r in range(1, 4) for g in range(1, 3)]
    forward = rate_all(games)
    backward = rate_all(list(reversed(games)))
    assert {p: (s.mu, s.sigma) for p, s in forward.items()} == {
        p: (s.mu, s.sigma) for p, s in backward.items()}


def test_an_unknown_player_is_predicted_at_even_odds():
    assert win_probability({}, PLAYERS) == pytest.approx(0.5)


@pytest.fixture(scope="module")
def played():
    """A small bot-played event (seeded): 12 of every bot the engine has, 6 rounds."""
    bots = available_bots()
    assert bots[:2] == ["random", "heuristic"]
    return bot_event(bots=dict.fromkeys(bots, 12), rounds=6, games_per_match=4, seed="test")


def test_the_rating_ranks_the_stronger_bots_above(played):
    states = rate_all(played.games)
    summary = bot_strength_summary(played, states)

    # weakest first (ratings.botevent.BOT_STRENGTH_ORDER): each kind rates above the one before
    ratings = [row["mean_rating"] for row in summary]
    ranks = [row["mean_rank"] for row in summary]
    assert ratings == sorted(ratings)
    assert ranks == sorted(ranks, reverse=True)


def test_the_rating_predicts_better_than_a_coin_flip(played):
    rating, coin, points, _plain = prediction_figures(played.games)
    assert rating.games == coin.games == points.games > 50
    assert coin.accuracy == 0.5
    assert rating.accuracy > 0.6
    assert rating.log_loss < coin.log_loss
