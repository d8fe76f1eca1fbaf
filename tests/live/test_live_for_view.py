"""live.queries.live_for_view: the live game as the API and the pages read it, in one
statement — its table, round and event with it, ``user_seat`` for the asking user, the state
and the round's draw data left unread."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from live import services as live
from live.models import LiveGame
from live.queries import live_for_view
from tests.live.helpers import make_live_table

pytestmark = pytest.mark.django_db


def test_the_game_with_its_table_round_event_and_the_users_seat_in_one_statement():
    lt = make_live_table()
    live_id = live.live_start(table=lt.table).pk
    stored = LiveGame.objects.select_related("table__round__event").get(pk=live_id)
    for seat, user in enumerate(lt.users):
        with CaptureQueriesContext(connection) as queries:
            lg = live_for_view(live_id, user)
            event = lg.table.round.event
        assert len(queries) == 1
        assert lg.user_seat == seat
        assert (lg.pk, lg.version, lg.status, lg.started_at, lg.turn_deadline) == \
            (stored.pk, stored.version, stored.status, stored.started_at, stored.turn_deadline)
        assert (lg.table, lg.table.round, event) == \
            (stored.table, stored.table.round, stored.table.round.event)
        assert event.slug == stored.table.round.event.slug and event.rules == lt.event.rules
        assert lg.table.round.status == stored.table.round.status
        assert {"state"} <= lg.get_deferred_fields()
        assert {"draw_entries", "draw_input"} <= lg.table.round.get_deferred_fields()
    assert live_for_view(live_id, lt.referee_user).user_seat is None
    assert live_for_view(live_id, AnonymousUser()).user_seat is None
    assert live_for_view(live_id, None).user_seat is None


def test_another_table_or_no_such_game_is_none():
    lt = make_live_table()
    live_id = live.live_start(table=lt.table).pk
    assert live_for_view(live_id, lt.users[0], table_id=lt.table.pk).pk == live_id
    assert live_for_view(live_id, lt.users[0], table_id=lt.table.pk + 1000) is None
    assert live_for_view(live_id + 1000, lt.users[0]) is None
