"""The factories build what the services build (tests/factories.py)."""

import pytest

from games.models import GameResult
from live.models import LiveGame
from tests.factories import (
    EventFactory,
    LiveGameFactory,
    ResultFactory,
    RoundFactory,
    SeatFactory,
    TableFactory,
    TeamFactory,
)
from tournaments.models import Entry, Event, Round, Seat, TeamMember

pytestmark = pytest.mark.django_db


def test_a_round_is_committed_and_drawn_through_the_services():
    # when
    rnd = RoundFactory()

    # then: 12 checked-in players at two full tables, and the seed revealed
    assert rnd.status == Round.Status.DRAWN and rnd.number == 1 and rnd.seed
    assert rnd.tables.count() == 2
    assert Seat.objects.filter(table__round=rnd).count() == 12
    assert rnd.event.entries.filter(status=Entry.Status.CHECKED_IN).count() == 12


def test_a_later_round_reuses_the_events_entries_and_may_stay_committed():
    # given: round 1 published, each of its games confirmed
    first = RoundFactory(published=True)
    for table in first.tables.all():
        ResultFactory(table=table, number=1)
        ResultFactory(table=table, number=2)

    # when
    second = RoundFactory(event=first.event, drawn=False)

    # then
    assert first.status == Round.Status.PUBLISHED
    assert second.number == 2 and second.status == Round.Status.COMMITTED
    assert first.event.entries.count() == 12


def test_a_team_is_registered_complete_and_a_team_round_seats_teams():
    # given
    team = TeamFactory()

    # when
    rnd = RoundFactory(event=EventFactory(format=Event.Format.TEAM), players=6)

    # then
    assert team.event.format == Event.Format.TEAM
    assert TeamMember.objects.filter(team=team, status=TeamMember.Status.ACCEPTED).count() == 3
    assert team.entry.status == Entry.Status.CHECKED_IN
    table = rnd.tables.get()
    assert table.team_a_id and table.team_b_id


def test_a_table_and_its_seats_come_from_the_draw():
    # when
    seat = SeatFactory(seat=3)

    # then
    assert seat.seat == 3 and seat.table.number == 1 and seat.entry.event == seat.table.round.event
    assert seat.table.round.status == Round.Status.DRAWN
    assert Seat.objects.filter(table=seat.table).count() == 6


def test_results_are_submitted_and_confirmed_through_the_services():
    # given
    table = TableFactory()

    # when
    first = ResultFactory(table=table)
    second = ResultFactory(table=table, number=2, confirmed=False)

    # then
    assert first.status == GameResult.Status.CONFIRMED
    assert second.status == GameResult.Status.SUBMITTED
    assert first.versions.count() == 1 and second.versions.count() == 1
    assert first.table.round.event.referees.count() == 2  # (each result's submitter)


def test_a_live_game_is_dealt_at_a_published_table():
    # when
    game = LiveGameFactory()

    # then
    assert game.number == 1 and game.table.round.status == Round.Status.PUBLISHED
    assert LiveGame.objects.filter(table=game.table).count() == 1
