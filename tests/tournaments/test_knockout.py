"""Knockout finals (淘汰赛) of team events: seeded bracket, best-of-N with a deciding extra game
on a tie, winners advance, standings stay the Swiss standings."""

from __future__ import annotations

import pytest

from games import services as game_services
from games.models import GameResult
from tests.factories import EventFactory, PlayerFactory, UserFactory
from tournaments import standings
from tournaments.errors import ServiceError
from tournaments.models import Round
from tournaments.services.draws import round_draw, round_verify
from tournaments.services.entries import entry_check_in
from tournaments.services.events import event_create
from tournaments.services.matches import match_score, round_missing_results
from tournaments.services.rounds import round_create
from tournaments.services.teams import team_register

pytestmark = pytest.mark.django_db

TEAM0_WINS = {"order": [0, 2, 4, 1, 3, 5], "kaidian": [True] * 6}  # 串三户: 12 : 0
TEAM1_WINS = {"order": [1, 3, 5, 0, 2, 4], "kaidian": [True] * 6}
TIE = {"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6}  # 4+0-2 = 2 : 0


@pytest.fixture
def team_event():
    event = EventFactory(format="team", games_per_match=2, rounds_planned=2, knockout_teams=4,
                         bye_points=0)
    for t in range(8):
        entry = team_register(event=event, name=f"Team {t}",
                                       players=[PlayerFactory() for _ in range(3)])
        entry_check_in(entry=entry)
    return event


def _play_round(rnd, referee, sheets):
    for table in rnd.tables.order_by("number"):
        for number, sheet in enumerate(sheets(table), start=1):
            res = game_services.result_submit(table=table, number=number, sheet=sheet,
                                              by=referee)
            game_services.result_confirm(result=res, by=referee, as_referee=True)


def _draw(event, knockout=False):
    rnd = round_create(event=event, knockout=knockout)
    return round_draw(round_id=rnd.pk)


def test_knockout_bracket_seeds_one_against_four(team_event):
    """The finals seat the Swiss ranking in bracket order: 1 v 4 and 2 v 3 for four teams."""
    referee = UserFactory()
    for _ in range(2):
        _play_round(_draw(team_event), referee, lambda t: [TEAM0_WINS, TEAM1_WINS])
    ranked = [r.entry_id for r in standings.compute(team_event)]
    ko = _draw(team_event, knockout=True)
    assert ko.stage == Round.Stage.KNOCKOUT
    pairs = [(t.team_a.entry.pk, t.team_b.entry.pk) for t in ko.tables.order_by("number")]
    assert pairs == [(ranked[0], ranked[3]), (ranked[1], ranked[2])]
    assert round_verify(round=ko) == []


def test_tied_match_needs_a_deciding_extra_game(team_event):
    """加赛: a match tied after its games goes on with one extra game at a time; the round is
    not finished until every match is decided."""
    referee = UserFactory()
    for _ in range(2):
        _play_round(_draw(team_event), referee, lambda t: [TEAM0_WINS, TEAM1_WINS])
    ko = _draw(team_event, knockout=True)
    first, second = ko.tables.order_by("number")
    _play_round(ko, referee, lambda t: [TEAM0_WINS, TEAM1_WINS] if t == first
                else [TEAM0_WINS, TIE])
    assert match_score(table=first) == {
        "points_a": 12, "points_b": 12, "games": 2, "decided": False, "winner": None,
        "extra_games": 0}
    assert round_missing_results(round=ko) == 1
    with pytest.raises(ServiceError) as exc:
        round_create(event=team_event, knockout=True)
    assert exc.value.code == "previous_unfinished"
    with pytest.raises(ServiceError):  # game 4 before game 3
        game_services.result_submit(table=first, number=4, sheet=TIE, by=referee)
    extra = game_services.result_submit(table=first, number=3, sheet=TEAM1_WINS, by=referee)
    game_services.result_confirm(result=extra, by=referee, as_referee=True)
    score = match_score(table=first)
    assert score["decided"] and score["winner"] == first.team_b.entry.pk
    assert score["extra_games"] == 1
    with pytest.raises(ServiceError):  # decided: no more games
        game_services.result_submit(table=first, number=4, sheet=TIE, by=referee)
    final = _draw(team_event, knockout=True)
    (table,) = final.tables.all()
    assert {table.team_a.entry.pk, table.team_b.entry.pk} == {
        first.team_b.entry.pk, second.team_a.entry.pk}


def test_knockout_results_do_not_change_the_swiss_standings(team_event):
    referee = UserFactory()
    for _ in range(2):
        _play_round(_draw(team_event), referee, lambda t: [TEAM0_WINS, TEAM1_WINS])
    before = [(r.entry_id, r.points) for r in standings.compute(team_event)]
    ko = _draw(team_event, knockout=True)
    _play_round(ko, referee, lambda t: [TEAM0_WINS, TEAM0_WINS])
    assert GameResult.objects.filter(table__round=ko).count() == 4
    assert [(r.entry_id, r.points) for r in standings.compute(team_event)] == before


def test_finals_end_after_the_final_and_swiss_rounds_close(team_event):
    referee = UserFactory()
    for _ in range(2):
        _play_round(_draw(team_event), referee, lambda t: [TEAM0_WINS, TEAM1_WINS])
    with pytest.raises(ServiceError) as exc:
        round_create(event=team_event)
    assert exc.value.code == "no_more_rounds"
    _play_round(_draw(team_event, knockout=True), referee, lambda t: [TEAM0_WINS] * 2)
    _play_round(_draw(team_event, knockout=True), referee, lambda t: [TEAM0_WINS] * 2)
    with pytest.raises(ServiceError) as exc:
        round_create(event=team_event, knockout=True)
    assert exc.value.code == "knockout_over"


def test_knockout_only_for_team_events():
    with pytest.raises(ServiceError):
        event_create(name="x", slug="ko-x", knockout_teams=4)
    with pytest.raises(ServiceError):
        event_create(name="y", slug="ko-y", format="team", knockout_teams=3)
