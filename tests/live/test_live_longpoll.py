"""Long-poll and conditional GET of a live game (``GET /live/<id>/?since=<v>&wait=<s>``,
``ETag`` = the version, ``If-None-Match`` → 304).

The waiting GET runs in a thread with its own database connection while the main thread acts,
so these tests are ``transaction=True`` (the waiting request must see the committed act).
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connections
from rest_framework.test import APIClient

from live import services as live
from live import streams
from live.models import LiveGame
from tests.live.helpers import (
    act_url,
    bot_pick,
    deleted_while_waiting,
    live_url,
    make_live_table,
    server_game,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def started():
    lt = make_live_table(client_cls=APIClient)
    return lt, live.live_start(table=lt.table).pk


def wait_in_thread(client, url, **headers):
    """GET ``url`` in a thread; return (thread, box) where box gets status, json, elapsed."""
    box = {}

    def run():
        t0 = time.monotonic()
        try:
            r = client.get(url, **headers)
            box.update(status=r.status_code, elapsed=time.monotonic() - t0,
                       body=r.json() if r.status_code == 200 else None, etag=r.get("ETag"))
        except BaseException as exc:
            box.update(status="exception", error=repr(exc), elapsed=time.monotonic() - t0)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, box


def test_a_waiting_seat_is_answered_as_soon_as_another_seat_acts(started, waiting):
    lt, live_id = started
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    watcher = (seat + 1) % 6
    # given a seat long-polling for the next version (up to 5 s)
    thread, box = wait_in_thread(lt.clients[watcher],
                                 f"{live_url(live_id)}?since={game.version}&wait=5")
    assert waiting.acquire(timeout=10), "the long-poll never waited"
    assert not box, "the long-poll answered before anything changed"

    # when the seat to act acts through its own client
    t_act = time.monotonic()
    r = lt.clients[seat].post(act_url(live_id), {"version": game.version, **action},
                              format="json")
    assert r.status_code == 200
    thread.join(10)

    # then the waiting seat gets the new version well before its 5 s
    assert box["status"] == 200, box
    assert box["body"]["version"] == r.json()["version"] > game.version
    assert box["body"]["seat"] == watcher and "hand" in box["body"]
    assert box["elapsed"] < 4.0, box["elapsed"]
    assert time.monotonic() - t_act < 1.5
    assert box["etag"] == f'"live-{live_id}-{box["body"]["version"]}"'


def test_a_long_poll_on_an_older_version_answers_at_once(started):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    for since in (version - 1, -1):
        t0 = time.monotonic()
        r = lt.anon.get(f"{live_url(live_id)}?since={since}&wait=5")
        assert r.status_code == 200 and r.json()["version"] == version
        assert time.monotonic() - t0 < 1.0


def test_a_long_poll_with_nothing_new_returns_after_its_wait(started):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    t0 = time.monotonic()
    r = lt.anon.get(f"{live_url(live_id)}?since={version}&wait=1")
    elapsed = time.monotonic() - t0
    assert r.status_code == 200 and r.json()["version"] == version
    assert 0.9 <= elapsed < 3.0, elapsed


def test_the_etag_is_the_version_and_if_none_match_gives_304(started):
    lt, live_id = started
    r = lt.clients[0].get(live_url(live_id))
    etag = r["ETag"]
    assert etag == f'"live-{live_id}-{r.json()["version"]}"'
    assert r["Cache-Control"] == "no-store"
    # the same version again: 304 with no body, for the seat and for the public
    for client in (lt.clients[0], lt.anon):
        again = client.get(live_url(live_id), HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304 and not again.content
        assert again["ETag"] == etag
    # once someone acts, the old ETag gets the new view
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    assert lt.clients[seat].post(act_url(live_id), {"version": game.version, **action},
                                 format="json").status_code == 200
    fresh = lt.clients[0].get(live_url(live_id), HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200 and fresh["ETag"] != etag


def test_a_long_poll_with_if_none_match_answers_200_when_the_version_moves(started, waiting):
    lt, live_id = started
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    etag = lt.anon.get(live_url(live_id))["ETag"]
    thread, box = wait_in_thread(lt.anon, f"{live_url(live_id)}?since={game.version}&wait=5",
                                 HTTP_IF_NONE_MATCH=etag)
    assert waiting.acquire(timeout=10), "the long-poll never waited"
    assert lt.clients[seat].post(act_url(live_id), {"version": game.version, **action},
                                 format="json").status_code == 200
    thread.join(10)
    assert box["status"] == 200 and box["elapsed"] < 4.0, box
    assert "hand" not in box["body"]


@pytest.mark.parametrize("query", ["?since=abc&wait=5", "?since={v}&wait=nan", "?wait=-3",
                                   "?since={v}&wait=-1", "?since={before}&wait=inf&x=1"])
def test_odd_long_poll_parameters_do_not_hang_or_fail(started, query):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    t0 = time.monotonic()
    r = lt.anon.get(live_url(live_id) + query.format(v=version, before=version - 1))
    assert r.status_code == 200, r.content[:200]
    assert r.json()["version"] == version
    assert time.monotonic() - t0 < 2.0


def test_a_game_deleted_while_a_seat_long_polls_is_a_404_not_an_error(started, monkeypatch):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    monkeypatch.setattr(streams, "wait_for_version", deleted_while_waiting)
    # when the game goes while the seat's long-poll waits
    r = lt.clients[0].get(f"{live_url(live_id)}?since={version}&wait=5")
    # then the answer is the API's 404, naming what happened
    assert r.status_code == 404, r.content[:300]
    assert r.json()["error"]["code"] == "not_found"
    assert "no longer exists" in r.json()["error"]["message"]


def test_a_seats_event_stream_ends_when_its_game_is_deleted(started, monkeypatch):
    lt, live_id = started
    monkeypatch.setattr(streams, "wait_for_version", deleted_while_waiting)
    lg = LiveGame.objects.defer("state").get(pk=live_id)
    # a stream that has sent the game as it is, then waits
    frames = list(streams.live_events(lg, 0, lg.version, 30))
    # ends when the game goes (its client's reconnection then finds the 404), no error
    assert len(frames) == 1 and frames[0].startswith(b"retry:")
