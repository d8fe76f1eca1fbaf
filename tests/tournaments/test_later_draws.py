"""``tournaments.services.draws.later_draws`` (issue 51, item 9): each round drawn after a closed
one, held against the results as they stand now — drawn again from its published seed with
the scores the standings give now, and compared with the stored seating."""

from __future__ import annotations

import pytest

from games import services as game_services
from games.models import GameResult
from tests.factories import UserFactory
from tests.tournaments.test_knockout import TEAM0_WINS, TEAM1_WINS, _draw, _play_round
from tests.tournaments.test_knockout import team_event as team_event  # (the fixture)
from tournaments import draw as draw_module
from tournaments.models import Penalty
from tournaments.selectors import round_seating
from tournaments.services.draws import LaterDraw, later_draws, round_verify
from tournaments.services.penalties import penalty_add

pytestmark = pytest.mark.django_db


@pytest.fixture
def referee():
    return UserFactory()


@pytest.fixture
def two_swiss_rounds(team_event, referee, monkeypatch):
    """Round 1 played (team A of every table wins both games) and round 2 drawn: teams paired
    by match points, from one seed on every run. Returns round 1."""
    monkeypatch.setattr(draw_module, "new_seed", lambda: "5eed" * 16)
    round_1 = _draw(team_event)
    _play_round(round_1, referee, lambda t: [TEAM0_WINS, TEAM0_WINS])
    _draw(team_event)
    return round_1


def test_nothing_changed_nothing_would_differ(two_swiss_rounds):
    assert later_draws(two_swiss_rounds) == [LaterDraw(2, "standings", False)]


def test_a_team_events_pairing_follows_a_corrected_match(two_swiss_rounds, referee):
    # when the referee turns table 1's match round: team B won both games
    table = two_swiss_rounds.tables.get(number=1)
    for result in GameResult.objects.filter(table=table):
        game_services.result_correct(result=result, sheet=TEAM1_WINS, by=referee,
                                     as_referee=True, reason="the teams were swapped")
    # then round 2, paired by match points, would be paired otherwise
    (later,) = later_draws(two_swiss_rounds)
    assert (later.number, later.basis, later.changed) == (2, "standings", True)
    assert later.tables
    # and nothing was written: the stored round 2 still verifies
    rnd = two_swiss_rounds.event.rounds.get(number=2)
    assert round_verify(round=rnd) == []
    assert len(round_seating(rnd)["tables"]) == 4


def test_a_penalty_given_after_a_round_was_opened_is_not_held_against_its_draw(
        two_swiss_rounds, referee):
    """Its draw could not know it: the re-draw takes the penalties given before it opened."""
    entry = two_swiss_rounds.event.entries.order_by("pk").first()
    penalty_add(event=two_swiss_rounds.event, entry=entry, reason="late",
                         kind=Penalty.Kind.POINT_DEDUCTION, points=50, by=referee)
    assert later_draws(two_swiss_rounds) == [LaterDraw(2, "standings", False)]


def test_a_knockout_round_is_named_not_drawn_again(team_event, referee):
    for _ in range(2):
        _play_round(_draw(team_event), referee, lambda t: [TEAM0_WINS, TEAM1_WINS])
    _draw(team_event, knockout=True)
    first = team_event.rounds.get(number=1)
    assert later_draws(first) == [LaterDraw(2, "standings", False),
                                  LaterDraw(3, "knockout", None)]
