"""A live game is dealt with every seat present (issue 52): a seated player deals it only once
the other five said they are at the table (``POST /api/v1/tables/<id>/live/ready/``) within
``READY_SECONDS``; a referee deals it at once. Else the server would deal it to absent seats,
托管 would play them when their clocks run out, and the result would be recorded as confirmed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from live import services as live
from live.models import LiveGame, SeatReady
from live.selectors import READY_SECONDS
from tests.live.helpers import all_ready, make_live_table, ready_url, start_url
from tournaments.errors import Conflict

pytestmark = pytest.mark.django_db


@pytest.fixture
def lt():
    return make_live_table()


def test_a_player_cannot_deal_while_seats_are_missing(lt):
    # given: 2号位 and 4号位 said they are at the table
    answers = [lt.clients[seat].post(ready_url(lt.table.pk), {}, format="json").json()
               for seat in (1, 3)]
    assert [a["ready"] for a in answers] == [[1], [1, 3]]

    # when: 1号位 deals
    r = lt.clients[0].post(start_url(lt.table.pk), {}, format="json")

    # then: 409 with the seats (0–5) still missing; the dealer's own seat counts as present
    assert r.status_code == 409, r.content
    error = r.json()["error"]
    assert error["code"] == "seats_not_ready"
    assert error["detail"] == {"number": 1, "missing": [2, 4, 5]}
    assert not LiveGame.objects.filter(table=lt.table).exists()


def test_once_every_seat_is_ready_a_player_deals_and_the_marks_are_cleared(lt):
    # given
    all_ready(lt)
    assert lt.clients[0].get(ready_url(lt.table.pk)).json() == {
        "ready": [0, 1, 2, 3, 4, 5], "missing": [], "ready_seconds": READY_SECONDS}

    # when
    r = lt.clients[4].post(start_url(lt.table.pk), {}, format="json")

    # then: dealt; the next game asks again
    assert r.status_code == 201, r.content
    assert r.json()["number"] == 1 and r.json()["seat"] == 4
    assert lt.clients[0].get(ready_url(lt.table.pk)).json()["ready"] == []
    assert not SeatReady.objects.filter(table=lt.table).exists()


def test_a_ready_said_too_long_ago_does_not_count(lt):
    all_ready(lt)
    SeatReady.objects.filter(table=lt.table, seat=5).update(
        at=timezone.now() - timedelta(seconds=READY_SECONDS + 1))
    r = lt.clients[0].post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 409 and r.json()["error"]["detail"]["missing"] == [5]
    assert lt.clients[5].post(ready_url(lt.table.pk), {}, format="json").status_code == 200
    assert lt.clients[0].post(start_url(lt.table.pk), {}, format="json").status_code == 201


def test_a_seat_that_is_no_longer_ready_is_missing_again(lt):
    all_ready(lt)
    r = lt.clients[2].post(ready_url(lt.table.pk), {"ready": False}, format="json")
    assert r.json()["missing"] == [2]
    with pytest.raises(Conflict) as info:
        live.live_start(table=lt.table, by=lt.users[0])
    assert info.value.detail["missing"] == [2]


def test_a_referee_deals_without_anyone_ready(lt):
    r = lt.referee.post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 201, r.content
    assert "hand" not in r.json()  # (the referee has no seat)


def test_only_the_tables_players_say_ready_and_see_who_is(lt):
    r = lt.stranger.post(ready_url(lt.table.pk), {}, format="json")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_seated"
    assert lt.stranger.get(ready_url(lt.table.pk)).status_code == 403
    assert lt.anon.post(ready_url(lt.table.pk), {}, format="json").status_code == 401
    assert lt.referee.get(ready_url(lt.table.pk)).json()["ready"] == []
    r = lt.clients[0].post(ready_url(lt.table.pk), {"ready": "maybe"}, format="json")
    assert r.status_code == 400
    assert not SeatReady.objects.exists()
