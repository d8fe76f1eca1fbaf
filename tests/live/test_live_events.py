"""Server-sent events of a live game (``GET /live/<id>/events/``): one ``view`` event per new
version for the asking seat (or the public), the same view ``GET /live/<id>/`` gives, never
another seat's cards; resumable with ``Last-Event-ID``; bounded by ``seconds``.

The stream is read in a thread while the main thread acts, so the tests are
``transaction=True``."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter

import pytest
from django.db import connections
from rest_framework.test import APIClient

from live import services as live
from live.models import LiveGame
from tests.live.helpers import (
    act_url,
    bot_pick,
    hidden_card_problems,
    live_url,
    make_live_table,
    server_game,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def started():
    lt = make_live_table(client_cls=APIClient)
    return lt, live.live_start(table=lt.table).pk


def events_url(live_id: int, **query) -> str:
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return f"/api/v1/live/{live_id}/events/" + (f"?{q}" if q else "")


def parse(chunks) -> list[dict]:
    """SSE frames → [{"id": int, "event": str, "data": dict}] (comments dropped)."""
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in chunks)
    out = []
    for frame in text.split("\n\n"):
        fields = {}
        for line in frame.split("\n"):
            if line and not line.startswith(":") and ": " in line:
                key, value = line.split(": ", 1)
                fields[key] = value
        if "data" in fields:
            out.append({"id": int(fields["id"]), "event": fields["event"],
                        "data": json.loads(fields["data"])})
    return out


def read_in_thread(client, url, want: int, **headers):
    """Read the stream in a thread until ``want`` view events came (or it ends)."""
    box = {"chunks": [], "views": 0}

    def run():
        try:
            r = client.get(url, HTTP_ACCEPT="text/event-stream", **headers)
            box["status"] = r.status_code
            box["type"] = r["Content-Type"]
            for chunk in r.streaming_content:
                box["chunks"].append(chunk)
                box["views"] = len(parse(box["chunks"]))
                if box["views"] >= want:
                    break
            r.close()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            box["error"] = repr(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def act_once(lt, live_id):
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    r = lt.clients[seat].post(act_url(live_id), {"version": game.version, **action},
                              format="json")
    assert r.status_code == 200, r.content
    return r.json()["version"]


def test_a_seat_gets_a_view_at_once_then_one_per_move_with_its_own_cards_only(started,
                                                                              waiting):
    lt, live_id = started
    watcher = 2
    thread, box = read_in_thread(lt.clients[watcher], events_url(live_id, seconds=20), want=4)
    versions = []
    for _ in range(3):
        assert waiting.acquire(timeout=10), "the stream never waited for the next move"
        versions.append(act_once(lt, live_id))
    thread.join(15)
    assert "error" not in box, box.get("error")
    assert box["status"] == 200 and box["type"].startswith("text/event-stream")
    views = parse(box["chunks"])
    assert len(views) == 4
    assert [v["id"] for v in views] == [v["data"]["version"] for v in views]
    assert [v["id"] for v in views][1:] == versions
    assert all(v["event"] == "view" for v in views)
    last = views[-1]["data"]
    # the same view as GET, and nothing of another seat's hand
    got = lt.clients[watcher].get(live_url(live_id)).json()
    assert {k: v for k, v in last.items() if k != "turn_deadline"} == \
        {k: v for k, v in got.items() if k != "turn_deadline"}
    game = server_game(live_id)
    assert hidden_card_problems(last, watcher, game) == []


def test_the_public_stream_shows_no_hidden_cards(started, waiting):
    lt, live_id = started
    thread, box = read_in_thread(lt.anon, events_url(live_id, seconds=20), want=3)
    for _ in range(2):
        assert waiting.acquire(timeout=10), "the stream never waited for the next move"
        act_once(lt, live_id)
    thread.join(15)
    views = parse(box["chunks"])
    assert len(views) == 3
    game = server_game(live_id)
    assert hidden_card_problems(views[-1]["data"], None, game) == []
    assert all("hand" not in v["data"] and "legal" not in v["data"] for v in views)


def test_last_event_id_resumes_after_the_version_the_client_had(started):
    lt, live_id = started
    first = act_once(lt, live_id)
    second = act_once(lt, live_id)
    r = lt.clients[0].get(events_url(live_id, seconds=0), HTTP_ACCEPT="text/event-stream",
                          HTTP_LAST_EVENT_ID=str(first))
    views = parse(list(r.streaming_content))
    assert [v["id"] for v in views] == [second]
    r = lt.clients[0].get(events_url(live_id, seconds=0, since=second),
                          HTTP_ACCEPT="text/event-stream")
    assert parse(list(r.streaming_content)) == []


def test_a_quiet_stream_ends_after_its_seconds(started):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    t0 = time.monotonic()
    r = lt.anon.get(events_url(live_id, seconds=1, since=version),
                    HTTP_ACCEPT="text/event-stream")
    body = b"".join(r.streaming_content)
    assert 0.8 < time.monotonic() - t0 < 5
    assert parse([body]) == []


@pytest.mark.parametrize("query", ["seconds=abc", "seconds=-5", "seconds=nan", "since=x"])
def test_odd_parameters_do_not_hang_or_fail(started, query):
    lt, live_id = started
    t0 = time.monotonic()
    r = lt.anon.get(f"/api/v1/live/{live_id}/events/?{query}&seconds=0"
                    if "seconds" not in query else f"/api/v1/live/{live_id}/events/?{query}",
                    HTTP_ACCEPT="text/event-stream")
    assert r.status_code == 200
    if "seconds=abc" in query or "nan" in query:
        r.close()  # the default length: do not read it all
    else:
        b"".join(r.streaming_content)
    assert time.monotonic() - t0 < 5


def test_an_unknown_or_unpublished_game_is_a_json_404(started):
    lt, _live_id = started
    r = lt.anon.get("/api/v1/live/999999/events/", HTTP_ACCEPT="text/event-stream")
    assert r.status_code == 404
    assert json.loads(r.content)["error"]["code"] == "not_found"


def _play_until_cards_are_played(lt, live_id, actions: int) -> None:
    """Act until the game's play has ``actions`` acts (its pre-play questions answered)."""
    for _ in range(200):
        if len(server_game(live_id).actions) >= actions:
            return
        act_once(lt, live_id)
    raise AssertionError("the game never reached its play")


def test_a_stream_asking_for_new_acts_sends_each_act_once(started, waiting):
    # given: a game some tricks into its play, and a seat's stream asking for new acts only
    lt, live_id = started
    _play_until_cards_are_played(lt, live_id, 3)
    watcher = 4
    thread, box = read_in_thread(lt.clients[watcher],
                                 events_url(live_id, seconds=20, actions="new"), want=5)
    # when: four more acts are made
    for _ in range(4):
        assert waiting.acquire(timeout=10), "the stream never waited for the next move"
        act_once(lt, live_id)
    thread.join(15)
    assert "error" not in box, box.get("error")
    views = [v["data"] for v in parse(box["chunks"])]
    # then: the first view has every act so far, each later one only the acts after it
    assert len(views) == 5
    assert views[0]["actions_from"] == 0 and len(views[0]["actions"]) >= 3
    have = []
    for view in views:
        assert view["actions_from"] == len(have)
        have += view["actions"]
    assert [len(v["actions"]) for v in views[1:]] == [1, 1, 1, 1]
    # and, the acts put together, the last view is GET's, and shows no other seat's cards
    last = dict(views[-1], actions=have)
    del last["actions_from"]
    got = lt.clients[watcher].get(live_url(live_id)).json()
    assert {k: v for k, v in last.items() if k != "turn_deadline"} == \
        {k: v for k, v in got.items() if k != "turn_deadline"}
    assert hidden_card_problems(views[-1], watcher, server_game(live_id)) == []


def test_a_resumed_stream_asking_for_new_acts_starts_with_all_of_them(started):
    lt, live_id = started
    _play_until_cards_are_played(lt, live_id, 2)
    before = LiveGame.objects.get(pk=live_id).version
    act_once(lt, live_id)
    r = lt.clients[1].get(events_url(live_id, seconds=0, actions="new"),
                          HTTP_ACCEPT="text/event-stream", HTTP_LAST_EVENT_ID=str(before))
    [view] = [v["data"] for v in parse(list(r.streaming_content))]
    assert view["actions_from"] == 0 and view["actions"] == server_game(live_id).actions
    # the default is every act in every view, without actions_from
    r = lt.clients[1].get(events_url(live_id, seconds=0), HTTP_ACCEPT="text/event-stream",
                          HTTP_LAST_EVENT_ID=str(before))
    [view] = [v["data"] for v in parse(list(r.streaming_content))]
    assert "actions_from" not in view and view["actions"] == server_game(live_id).actions


@pytest.mark.parametrize("value", ["old", "", "NEW"])
def test_an_unknown_actions_parameter_is_a_json_400_naming_it(started, value):
    lt, live_id = started
    r = lt.clients[0].get(events_url(live_id, seconds=0, actions=value),
                          HTTP_ACCEPT="text/event-stream")
    assert r.status_code == 400
    error = json.loads(r.content)["error"]
    assert error["code"] == "bad_actions" and "actions" in error["message"]


@pytest.mark.parametrize("rechecked", [False, True])
def test_streams_opened_together_end_apart(rechecked):
    """A stream's most is drawn between half its bound and all of it — MAX_STREAM for a stream
    that checks its access again, RECHECK for one that cannot — so streams opened in one
    moment (an event's start, a restart) do not all reconnect in one later moment; a shorter
    time asked for is kept."""
    from live.streams import MAX_STREAM, RECHECK, _stream_seconds

    most = MAX_STREAM if rechecked else RECHECK
    lasts = [_stream_seconds(float("inf"), rechecked) for _ in range(400)]
    assert all(most / 2 <= s <= most for s in lasts)
    assert max(lasts) - min(lasts) > most / 4  # spread, not one value
    assert all(most / 2 <= _stream_seconds(float("nan"), rechecked) <= most for _ in range(3))
    assert _stream_seconds(20.0, rechecked) == 20.0
    assert _stream_seconds(-5.0, rechecked) == 0.0


def test_streams_opened_together_check_their_access_at_an_even_rate():
    """Each stream's first check is drawn anywhere within its first RECHECK (then one every
    RECHECK): streams opened in one moment check at an even rate from the start, not all in
    the second half of the first RECHECK, and none waits longer than RECHECK."""
    from live.streams import RECHECK, _first_check

    firsts = [_first_check(1000.0) - 1000.0 for _ in range(2000)]
    assert all(0.0 <= f <= RECHECK for f in firsts)
    quarters = Counter(min(3, int(4 * f / RECHECK)) for f in firsts)
    assert all(350 <= quarters[q] <= 650 for q in range(4)), quarters  # ~500 each
