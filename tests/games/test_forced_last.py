"""A referee's 罚为大落 is a tournaments penalty whose result games rewrites: tournaments asks
through tournaments.signals.forced_last (it imports nothing of games), games.services answers."""

import pytest

from games.models import GameResult
from games.services import forced_last_received
from tests.factories import ResultFactory, SeatFactory, TableFactory, UserFactory
from tournaments.errors import ServiceError
from tournaments.models import Penalty
from tournaments.services.penalties import penalty_add
from tournaments.signals import forced_last

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    """A table of six whose game 1 is confirmed, and a referee of its event."""
    table = TableFactory()
    referee = UserFactory()
    result = ResultFactory(table=table, by=referee)
    return table, result, referee


def test_a_forced_last_is_placed_sixth_by_games(played):
    # given
    table, result, referee = played
    seat = SeatFactory(table=table, seat=next(s for s in result.engine_result["order"][:3]))

    # when
    penalty_add(event=table.round.event, entry=seat.entry, kind=Penalty.Kind.FORCED_LAST,
                         table=table, game_number=1, reason="showed cards", by=referee)

    # then
    result.refresh_from_db()
    assert result.version == 2 and result.places[seat.seat] == 6
    assert Penalty.objects.filter(kind=Penalty.Kind.FORCED_LAST).count() == 1


def test_a_forced_last_games_refuses_stores_no_penalty(played):
    # given: game 2 has no result
    table, _result, referee = played
    seat = SeatFactory(table=table, seat=0)

    # when
    with pytest.raises(ServiceError) as refused:
        penalty_add(event=table.round.event, entry=seat.entry,
                             kind=Penalty.Kind.FORCED_LAST, table=table, game_number=2,
                             reason="showed cards", by=referee)

    # then
    assert refused.value.code == "bad_penalty"
    assert not Penalty.objects.exists()


def test_without_the_receiver_a_forced_last_is_refused_not_stored_half(played):
    # given: nothing connected to rewrite the result (games' receiver taken off)
    table, result, referee = played
    seat = SeatFactory(table=table, seat=0)
    assert forced_last.disconnect(dispatch_uid="games_forced_last")
    try:
        # when
        with pytest.raises(Exception, match="nothing rewrites the result of a forced 大落"):
            penalty_add(event=table.round.event, entry=seat.entry,
                                 kind=Penalty.Kind.FORCED_LAST, table=table, game_number=1,
                                 reason="showed cards", by=referee)
    finally:
        forced_last.connect(forced_last_received, dispatch_uid="games_forced_last")

    # then
    assert not Penalty.objects.exists()
    assert GameResult.objects.get(pk=result.pk).version == 1
