"""Spectators cannot starve seated players (issue 15, finding 4).

Before, 110 anonymous event streams held every thread of the stream server, and a seated
player's view waited 21.8 s behind them. Now spectators — neither seated at the table nor its
referee — hold at most ``LIVE_SPECTATOR_WAITERS`` waiting requests per process and
``LIVE_SPECTATOR_WAITERS_PER_ADDRESS`` per client address (live.streams.SpectatorSlots), well
below a stream worker's threads; seated players and referees take no slot and are never
refused."""

from __future__ import annotations

import pytest

from live import services as live
from live import streams
from tests.live.helpers import make_live_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def started():
    lt = make_live_table()
    return lt, live.live_start(table=lt.table).pk


@pytest.fixture
def small_caps(settings, monkeypatch, same_connection_across_requests):
    """Three spectator slots, two per address, fresh for the test (and every one given back at
    its end). The test closes streamed responses itself, as a server does when a client
    leaves."""
    settings.LIVE_SPECTATOR_WAITERS = 3
    settings.LIVE_SPECTATOR_WAITERS_PER_ADDRESS = 2
    monkeypatch.setattr(streams, "spectators", streams.SpectatorSlots())
    yield settings
    assert streams.spectators.held() == 0, "a slot was not given back"


def open_stream(client, live_id: int, address: str):
    return client.get(f"/api/v1/live/{live_id}/events/", HTTP_ACCEPT="text/event-stream",
                      REMOTE_ADDR=address)


def test_slots_count_in_all_and_per_address(small_caps):
    # given: two slots taken from one address
    first = streams.spectators.take("10.0.0.1")
    second = streams.spectators.take("10.0.0.1")

    # then: a third from it is refused, another address gets the last one, then none is left
    assert first and second
    assert streams.spectators.take("10.0.0.1") is None
    third = streams.spectators.take("10.0.0.2")
    assert third is not None
    assert streams.spectators.take("10.0.0.3") is None

    # when one is given back (twice: the second time changes nothing)
    first()
    first()

    # then exactly one slot is free again
    fourth = streams.spectators.take("10.0.0.3")
    assert fourth is not None and streams.spectators.take("10.0.0.4") is None
    for give_back in (second, third, fourth):
        give_back()


def test_a_crowd_of_anonymous_streams_gets_only_the_spectator_slots(started, small_caps):
    # given: 110 anonymous streams opened from 55 addresses (the attack)
    lt, live_id = started
    opened = [open_stream(lt.anon, live_id, f"10.1.0.{i // 2}") for i in range(110)]

    # then: three are open, the rest refused in the JSON error shape with a Retry-After
    assert [r.status_code for r in opened].count(200) == 3
    refused = [r for r in opened if r.status_code != 200]
    assert {r.status_code for r in refused} == {429}
    assert refused[0]["Content-Type"] == "application/json"
    assert refused[0].json()["error"]["code"] == "spectators_busy"
    assert int(refused[0]["Retry-After"]) > 0
    assert streams.spectators.held() == 3

    # when: every seated player and the referee open their streams meanwhile
    seated = [open_stream(client, live_id, "10.1.0.1") for client in lt.clients]
    referee = open_stream(lt.referee, live_id, "10.1.0.1")

    # then: none of them is refused or counted
    assert [r.status_code for r in seated + [referee]] == [200] * 7
    assert streams.spectators.held() == 3
    for response in seated + [referee]:
        response.close()

    # when: a spectator's stream ends, its slot is free for the next one
    next(iter(opened[0].streaming_content))
    opened[0].close()
    assert streams.spectators.held() == 2
    again = open_stream(lt.anon, live_id, "10.9.9.9")
    assert again.status_code == 200
    for response in [again, *opened[1:]]:
        response.close()


def test_one_address_gets_its_share_only(started, small_caps):
    lt, live_id = started
    first, second, third = (open_stream(lt.stranger, live_id, "10.2.0.1") for _ in range(3))
    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 429]
    elsewhere = open_stream(lt.anon, live_id, "10.2.0.2")
    assert elsewhere.status_code == 200
    for response in (first, second, elsewhere):
        response.close()


def test_a_spectators_long_poll_beyond_the_slots_answers_at_once(started, small_caps,
                                                                 monkeypatch):
    # given: every spectator slot is held
    lt, live_id = started
    held = [streams.spectators.take(f"10.3.0.{i}") for i in range(3)]
    waited = []
    monkeypatch.setattr(streams, "wait_past", lambda live, since, timeout, watched=None:
                        waited.append(live.pk) or False)
    version = lt.anon.get(f"/api/v1/live/{live_id}/").json()["version"]

    # when: a spectator long-polls, and a seated player does
    spectator = lt.anon.get(f"/api/v1/live/{live_id}/?since={version}&wait=20",
                            REMOTE_ADDR="10.3.0.9")
    player = lt.clients[0].get(f"/api/v1/live/{live_id}/?since={version}&wait=20",
                               REMOTE_ADDR="10.3.0.9")

    # then: the spectator gets the view at once without waiting; the player waited
    assert spectator.status_code == 200 and player.status_code == 200
    assert waited == [live_id]
    for give_back in held:
        give_back()


def test_a_spectators_long_poll_in_a_free_slot_waits_and_gives_it_back(started, small_caps,
                                                                       monkeypatch):
    lt, live_id = started
    seen = []
    monkeypatch.setattr(streams, "wait_past", lambda live, since, timeout, watched=None:
                        seen.append(streams.spectators.held()) or False)
    version = lt.anon.get(f"/api/v1/live/{live_id}/").json()["version"]
    response = lt.anon.get(f"/api/v1/live/{live_id}/?since={version}&wait=20")
    assert response.status_code == 200
    assert seen == [1]  # it held one slot while it waited, and gave it back (small_caps)
