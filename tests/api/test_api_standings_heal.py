"""Standings over HTTP heal themselves: a read that finds them behind the confirmed results (the
recompute queued by a confirmation was lost: broker down, worker gone) answers at once with what
is stored and queues a recompute, once per event for many reads (debounced through the cache).
A broker down when a confirmation commits does not fail that request."""

from __future__ import annotations

import logging

import pytest
from kombu.exceptions import OperationalError as BrokerError

from games.models import GameResult
from tests.api.helpers import client_for, seats_of, sheet
from tournaments import standings
from tournaments.models import Event
from tournaments.tasks import standings_recompute_task

pytestmark = pytest.mark.django_db


def standings_url(event):
    return f"/api/v1/events/{event.slug}/standings/"


def refuse(*args, **kwargs):
    raise BrokerError("Error 111 connecting to redis:6379. Connection refused.")


@pytest.fixture
def confirmed_with_the_broker_down(table, monkeypatch, caplog):
    """Game 1 of table 1 submitted and confirmed over HTTP while the broker refuses messages:
    the confirmation answers 200 and is stored; its standings recompute is not queued."""
    seats = seats_of(table)
    r = client_for(seats[0].player.user).post(
        f"/api/v1/tables/{table.pk}/results/",
        {"number": 1, "sheet": sheet([0, 1, 2, 3, 4, 5])}, format="json")
    assert r.status_code == 201, r.content
    result_id = r.json()["id"]
    real_delay = standings_recompute_task.delay
    monkeypatch.setattr(standings_recompute_task, "delay", refuse)
    with caplog.at_level(logging.WARNING, logger="tournaments.standings"):
        r = client_for(seats[1].player.user).post(f"/api/v1/results/{result_id}/confirm/")
    assert r.status_code == 200, r.content
    warnings = [x for x in caplog.records if x.name == "tournaments.standings"]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert GameResult.objects.get(pk=result_id).status == GameResult.Status.CONFIRMED
    event = Event.objects.get(pk=table.round.event_id)
    assert standings.standings_are_stale(event)
    return event, real_delay


def test_a_confirmation_with_the_broker_down_succeeds_and_a_later_read_heals(
        confirmed_with_the_broker_down, monkeypatch):
    event, real_delay = confirmed_with_the_broker_down
    client = client_for(None)
    stale = client.get(standings_url(event))  # the broker still down: answered all the same
    assert stale.status_code == 200 and stale.json()["results"] == []
    monkeypatch.setattr(standings_recompute_task, "delay", real_delay)  # the broker is back
    r = client.get(standings_url(event))
    assert r.status_code == 200
    assert r.json()["results"] == [] and r["ETag"] == stale["ETag"]  # what was stored…
    healed = client.get(standings_url(event), HTTP_IF_NONE_MATCH=r["ETag"])  # …then healed
    assert healed.status_code == 200 and healed["ETag"] != r["ETag"]
    rows = healed.json()["results"]
    assert len(rows) == 12 and [row["points"] for row in rows[:3]] == [2, 2, 2]
    event.refresh_from_db()
    assert not standings.standings_are_stale(event)


def test_many_reads_of_stale_standings_queue_one_recompute(confirmed_with_the_broker_down,
                                                           monkeypatch):
    event, _ = confirmed_with_the_broker_down
    queued: list[int] = []
    monkeypatch.setattr(standings_recompute_task, "delay",
                        lambda event_id, *a, **kw: queued.append(event_id))
    client = client_for(None)
    etag = None
    for _ in range(10):
        r = client.get(standings_url(event))
        assert r.status_code == 200
        etag = r["ETag"]
    assert client.get(standings_url(event), HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert queued == [event.pk]


def test_a_304_of_stale_standings_heals_them_too(confirmed_with_the_broker_down, monkeypatch):
    event, real_delay = confirmed_with_the_broker_down
    monkeypatch.setattr(standings_recompute_task, "delay", real_delay)
    r = client_for(None).get(standings_url(event),
                             HTTP_IF_NONE_MATCH=f'"standings-{event.pk}-0"')
    assert r.status_code == 304
    event.refresh_from_db()
    assert not standings.standings_are_stale(event)
