"""Live play's waiting requests served by the ASGI server (config/asgi.py): the async event
stream and long-poll views (api.live_views, on live.streams' async API) under Django's
AsyncClient with the ASGI server's URLs. The rules are the WSGI views': one ``view`` event per
new version with the asking seat's cards only, ``Last-Event-ID`` resume, spectators' slots
(429, and given back when the stream ends), the long-poll's wait and ETag.

Waiters here are woken by this process's announcements alone (the act runs in a thread through
the WSGI test client); the dispatcher's version reads are switched off (``quiet_reads``), as
SQLite's shared in-memory test database locks a table a reader is on."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import AsyncClient
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from live import notify
from live import services as live
from live.models import LiveGame
from live.streams import spectators
from tests.live.helpers import (
    act_url,
    bot_pick,
    hidden_card_problems,
    lifespan,
    live_url,
    make_live_table,
    server_game,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def asgi_urls(settings, monkeypatch):
    settings.ROOT_URLCONF = "config.asgi_urls"
    settings.LIVE_PUBSUB_URL = None


@pytest.fixture
def quiet_reads(monkeypatch):
    """The dispatcher's reads (the games' versions, the revocations' log) find nothing."""
    reads = []
    monkeypatch.setattr(notify, "_read_versions", lambda ids: reads.append(ids) or [])
    monkeypatch.setattr(notify, "_read_revocations", lambda since: [], raising=False)
    return reads


@pytest.fixture
def started():
    lt = make_live_table(client_cls=APIClient)
    return lt, live.live_start(table=lt.table).pk


class TokenAsyncClient(AsyncClient):
    """An AsyncClient that sends a user's API token with every request."""

    def __init__(self, key: str):
        super().__init__()
        self.key = key

    async def get(self, path, headers=None, **kwargs):
        return await super().get(path, headers={"Authorization": f"Token {self.key}",
                                                **(headers or {})}, **kwargs)


def async_client(user=None) -> AsyncClient:
    if user is None:
        return AsyncClient()
    token, _ = Token.objects.get_or_create(user=user)
    return TokenAsyncClient(token.key)


def parse(text: str) -> list[dict]:
    out = []
    for frame in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in frame.split("\n")
                      if line and not line.startswith(":") and ": " in line)
        if "data" in fields:
            out.append({"id": int(fields["id"]), "event": fields["event"],
                        "data": json.loads(fields["data"])})
    return out


def act_once(lt, live_id) -> int:
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    r = lt.clients[seat].post(act_url(live_id), {"version": game.version, **action},
                              format="json")
    assert r.status_code == 200, r.content
    return r.json()["version"]


async def until_waiting(live_id: int, n: int = 1, timeout: float = 10.0) -> None:
    """Until ``n`` async waiters wait for the game (instead of sleeping a guessed time)."""
    deadline = time.monotonic() + timeout
    while len(notify.dispatcher()._waiters.get(live_id, ())) < n:
        assert time.monotonic() < deadline, "the stream never waited for the next move"
        await asyncio.sleep(0.01)


async def read_views(response, want: int, timeout: float = 15.0) -> list[dict]:
    text = ""
    async with asyncio.timeout(timeout):
        async for chunk in response.streaming_content:
            text += chunk.decode()
            if len(parse(text)) >= want:
                break
    return parse(text)


def test_a_seat_streams_one_view_per_move_with_its_own_cards_only(started, quiet_reads):
    lt, live_id = started
    watcher = 2
    client = async_client(lt.users[watcher])

    async def scenario():
        r = await client.get(f"/api/v1/live/{live_id}/events/?seconds=20",
                             headers={"Accept": "text/event-stream"})
        assert r.status_code == 200 and r["Content-Type"].startswith("text/event-stream")
        assert r["X-Accel-Buffering"] == "no"
        reading = asyncio.ensure_future(read_views(r, want=4))
        versions = []
        for _ in range(3):
            await until_waiting(live_id)
            versions.append(await sync_to_async(act_once, thread_sensitive=False)(lt, live_id))
        views = await reading
        await r.streaming_content.aclose()
        return versions, views

    versions, views = async_to_sync(scenario)()
    assert [v["id"] for v in views] == [v["data"]["version"] for v in views]
    assert [v["id"] for v in views][1:] == versions
    last = views[-1]["data"]
    got = lt.clients[watcher].get(live_url(live_id)).json()  # the same view as GET
    assert {k: v for k, v in last.items() if k != "turn_deadline"} == \
        {k: v for k, v in got.items() if k != "turn_deadline"}
    game = server_game(live_id)
    assert hidden_card_problems(last, watcher, game) == []
    # the public stream, too, shows no hidden card
    public = parse(async_to_sync(_all)(AsyncClient(), f"/api/v1/live/{live_id}/events/?seconds=0"))
    assert hidden_card_problems(public[-1]["data"], None, game) == []
    assert all("hand" not in v["data"] for v in public)


async def _all(client, url, **headers) -> str:
    r = await client.get(url, headers={"Accept": "text/event-stream", **headers})
    assert r.status_code == 200, r.content
    return "".join([chunk.decode() async for chunk in r.streaming_content])


def test_last_event_id_resumes_after_the_version_the_client_had(started, quiet_reads):
    lt, live_id = started
    first = act_once(lt, live_id)
    second = act_once(lt, live_id)
    client = async_client(lt.users[0])
    url = f"/api/v1/live/{live_id}/events/?seconds=0"
    views = parse(async_to_sync(_all)(client, url, **{"Last-Event-ID": str(first)}))
    assert [v["id"] for v in views] == [second]
    assert parse(async_to_sync(_all)(client, f"{url}&since={second}")) == []


def test_a_quiet_stream_sends_comments_and_ends_after_its_seconds(started, quiet_reads):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    t0 = time.monotonic()
    text = async_to_sync(_all)(AsyncClient(),
                               f"/api/v1/live/{live_id}/events/?seconds=1&since={version}")
    assert 0.8 < time.monotonic() - t0 < 5
    assert parse(text) == [] and text.startswith("retry: 1000\n")
    assert "\n: keep-alive\n" in text


def test_a_spectator_beyond_the_cap_is_refused_and_a_slot_comes_back(started, settings,
                                                                     quiet_reads):
    lt, live_id = started
    settings.LIVE_SPECTATOR_WAITERS = 1
    version = LiveGame.objects.get(pk=live_id).version
    url = f"/api/v1/live/{live_id}/events/?seconds=10&since={version}"
    player = async_client(lt.users[1])

    async def scenario():
        first = await AsyncClient().get(url, headers={"Accept": "text/event-stream"})
        assert first.status_code == 200
        chunks = aiter(first.streaming_content)
        await anext(chunks)  # the opening lines: the stream holds its slot
        assert spectators.held() == 1
        second = await AsyncClient().get(url, headers={"Accept": "text/event-stream"})
        assert second.status_code == 429
        assert json.loads(second.content)["error"]["code"] == "spectators_busy"
        # a seated player is never counted nor refused
        seated = await player.get(url, headers={"Accept": "text/event-stream"})
        assert seated.status_code == 200
        await seated.streaming_content.aclose()
        waiting = asyncio.ensure_future(anext(chunks))
        await until_waiting(live_id)
        waiting.cancel()  # the client leaves while the stream waits (the server cancels it)
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        return spectators.held()

    assert async_to_sync(scenario)() == 0


def test_the_long_poll_waits_on_the_event_loop_for_the_next_version(started, quiet_reads):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    client = async_client(lt.users[3])

    async def scenario():
        polling = asyncio.ensure_future(
            client.get(f"/api/v1/live/{live_id}/?since={version}&wait=10"))
        await until_waiting(live_id)
        assert not polling.done()
        moved = await sync_to_async(act_once, thread_sensitive=False)(lt, live_id)
        r = await asyncio.wait_for(polling, 5)
        again = await client.get(f"/api/v1/live/{live_id}/", headers={"If-None-Match": r["ETag"]})
        quick = await client.get(f"/api/v1/live/{live_id}/?since={moved}&wait=0")
        return moved, r, again, quick

    moved, r, again, quick = async_to_sync(scenario)()
    assert r.status_code == 200 and r.json()["version"] == moved
    assert r["ETag"] == f'"live-{live_id}-{moved}"' and r["Cache-Control"] == "no-store"
    assert hidden_card_problems(r.json(), 3, server_game(live_id)) == []
    assert again.status_code == 304
    assert quick.status_code == 200 and quick.json()["version"] == moved


def test_an_unknown_game_is_the_apis_json_404(started, quiet_reads):
    async def scenario():
        return (await AsyncClient().get("/api/v1/live/999999/events/",
                                        headers={"Accept": "text/event-stream"}),
                await AsyncClient().get("/api/v1/live/999999/?since=1&wait=5"))

    for r in async_to_sync(scenario)():
        assert r.status_code == 404
        assert json.loads(r.content)["error"]["code"] == "not_found"


def test_the_asgi_application_holds_no_thread_per_open_stream(started, quiet_reads):
    """config/asgi.py's application, as uvicorn calls it: 24 open streams (public and seated)
    each get their opening frames, and the process has no more threads than before they
    opened but the few shared ones (Django would give each request a thread of its own for
    its sync code, held as long as the stream is open)."""
    import threading

    from asgiref.testing import ApplicationCommunicator

    from config.asgi import application

    lt, live_id = started
    keys = [Token.objects.get_or_create(user=u)[0].key for u in lt.users]

    def scope(key: str | None):
        headers = [(b"accept", b"text/event-stream"), (b"host", b"testserver")]
        if key:
            headers.append((b"authorization", f"Token {key}".encode()))
        return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                "method": "GET", "scheme": "http", "path": f"/api/v1/live/{live_id}/events/",
                "raw_path": f"/api/v1/live/{live_id}/events/".encode(),
                "query_string": b"seconds=30", "root_path": "", "headers": headers,
                "client": ("127.0.0.1", 50000), "server": ("testserver", 80)}

    async def scenario():
        opened = []
        warm = threading.active_count()
        for k in range(24):
            # four spectators (the cap per address), twenty seated
            comm = ApplicationCommunicator(application, scope(keys[k % 6] if k % 6 else None))
            await comm.send_input({"type": "http.request", "body": b""})
            start = await comm.receive_output(10)
            first = await comm.receive_output(10)
            view = await comm.receive_output(10)
            opened.append((comm, start["status"], first["body"] + view["body"]))
            if k == 0:
                warm = threading.active_count()  # the shared threads exist now
        await until_waiting(live_id, n=24)
        during = threading.active_count()
        for comm, _status, _body in opened:
            await comm.send_input({"type": "http.disconnect"})
            await comm.wait(5)
        return opened, warm, during

    opened, warm, during = async_to_sync(scenario)()
    assert [status for _c, status, _b in opened] == [200] * 24
    frames = [parse(body.decode()) for _c, _s, body in opened]
    assert all(len(f) == 1 and f[0]["event"] == "view" for f in frames)
    assert [f[0]["data"]["seat"] for f in frames[:6]] == [None, 1, 2, 3, 4, 5]
    assert all("hand" not in f[0]["data"] for f in frames[::6])
    assert during - warm <= 4, f"{during - warm} more threads for 23 more open streams"


def test_the_live_table_pages_stream_runs_on_the_event_loop_with_its_seats_cards_only(
        started, quiet_reads):
    """The page's stream (``/p/<token>/live/<id>/events/``) under the ASGI server's URLs: the
    private link's seat gets its own hand only, one view per move, resuming after
    ``Last-Event-ID``; a wrong token gets a 404."""
    from tests.pages.test_live_table_views import links_of

    lt, live_id = started
    links = links_of(lt.table)
    watcher = 4
    url = f"{links[watcher]}live/{live_id}/events/?seconds=20"
    first = act_once(lt, live_id)

    async def scenario():
        missing = await AsyncClient().get(f"/p/not-a-token/live/{live_id}/events/")
        r = await AsyncClient().get(url, headers={"Last-Event-ID": str(first - 1)})
        assert r.status_code == 200 and r["Content-Type"].startswith("text/event-stream")
        reading = asyncio.ensure_future(read_views(r, want=3))
        versions = []
        for _ in range(2):
            await until_waiting(live_id)
            versions.append(await sync_to_async(act_once, thread_sensitive=False)(lt, live_id))
        views = await reading
        await r.streaming_content.aclose()
        return missing.status_code, versions, views

    missing, versions, views = async_to_sync(scenario)()
    assert missing == 404
    assert [v["id"] for v in views] == [first, *versions]  # resumed after Last-Event-ID
    assert {v["data"]["seat"] for v in views} == {watcher}
    assert hidden_card_problems(views[-1]["data"], watcher, server_game(live_id)) == []


def test_an_event_stream_hands_its_frames_to_the_server_as_they_are():
    """config.eventstream.EventStreamResponse: an async stream's frames (bytes, rendered once
    and shared) go to Django's ASGI sender without being wrapped or encoded per part; a sync
    stream (WSGI) is Django's, encoded as ever; both are never stored or buffered."""
    from config.eventstream import EventStreamResponse

    async def frames():
        yield b"retry: 1000\n: 1\n\n"
        yield b"id: 2\nevent: view\ndata: {}\n\n"

    agen = frames()
    response = EventStreamResponse(agen)
    assert aiter(response) is agen
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-store" and response["X-Accel-Buffering"] == "no"
    sync = EventStreamResponse(iter([b"a\n\n", b"b\n\n"]))
    assert b"".join(sync) == b"a\n\nb\n\n"


def test_the_servers_chunks_of_a_part_are_djangos():
    """config.asgi.Handler.chunk_bytes hands a part no larger than a chunk on as it is and
    splits a larger one as Django does: the same chunks, the same last flags."""
    from django.core.handlers.asgi import ASGIHandler

    from config.asgi import Handler

    size = ASGIHandler.chunk_size
    for data in (b"", b"x", b"y" * size, b"z" * (size + 1), b"w" * (3 * size + 5)):
        assert list(Handler.chunk_bytes(data)) == list(ASGIHandler.chunk_bytes(data))


def test_the_stream_server_collects_its_older_generations_rarely_and_its_young_one_often():
    """config.asgi.GC_THRESHOLDS: with Python's default thresholds, 10,000 open streams made
    the collector walk the whole heap every few seconds (0.8 s each, the event loop stopped).
    The young generation is collected by the loop every quarter of a second (its count, the
    allocations less the deallocations, barely moves in steady play: a young collection every
    15-20 s walked every stream's wait, 40-80 ms); the older generations wait for minutes."""
    import gc

    import config.asgi

    young, middle, old = config.asgi.GC_THRESHOLDS
    assert gc.get_threshold() == config.asgi.GC_THRESHOLDS
    assert young <= 10_000  # (a backstop: a burst of allocations is collected at once)
    assert config.asgi.YOUNG_EVERY <= 0.5
    assert middle * config.asgi.YOUNG_EVERY >= 300  # (minutes between middle collections)
    assert old >= 10


def test_a_thread_running_python_gives_the_stream_servers_event_loop_the_gil_back_soon():
    """config.asgi.SWITCH_INTERVAL: the event loop gives the GIL up at every system call and
    must ask for it back; with Python's default (5 ms) a thread running Python — a database
    thread's read, the view of an act off the short path — kept it that long each time: with
    10,000 streams, the acts' p99 was 382–673 ms in the 10 s in which a game ended."""
    import sys

    import config.asgi

    assert sys.getswitchinterval() == pytest.approx(config.asgi.SWITCH_INTERVAL)
    assert config.asgi.SWITCH_INTERVAL <= 0.001  # (a fifth of the default at most)


def test_the_event_loop_collects_the_young_generation_until_the_server_stops():
    import gc

    from config.asgi import YoungCollections

    young = YoungCollections(every=0.02)

    async def served():
        before = gc.get_stats()[0]["collections"]
        young.start()
        await asyncio.sleep(0.3)
        during = gc.get_stats()[0]["collections"] - before
        young.stop()
        stopped = gc.get_stats()[0]["collections"]
        await asyncio.sleep(0.2)
        return during, gc.get_stats()[0]["collections"] - stopped

    gc.disable()  # (only the loop's collections are counted)
    try:
        during, after = asyncio.run(served())
    finally:
        gc.enable()
    assert during >= 5 and after == 0


def test_the_server_answers_the_lifespan_protocol():
    """uvicorn tells the application it starts and stops (ASGI lifespan; Django's handler
    refuses it): both are answered, and what the start opened for the acts is closed at the
    stop (tests/api/test_fast_act_loop.py has the connections on PostgreSQL)."""
    from config.asgi import Handler
    from live import aiodb

    async def served():
        comm, start, stop = lifespan(Handler())
        assert await start() == {"type": "lifespan.startup.complete"}
        assert await stop() == {"type": "lifespan.shutdown.complete"}
        await comm.wait(5)

    async_to_sync(served)()
    assert aiodb.database.connections() == 0


# ----------------------------------------------------------------------------- access checked again
# An open stream checks its access again every RECHECK seconds (the first time within the first
# RECHECK, drawn): its view runs again with the credentials read afresh (live.aio.reopener), and
# the stream goes on while the view would open the same stream, instead of ending for its client
# to reconnect.

class _Checks(list):
    """The checks' answers, with when each began (``times``, monotonic)."""

    def __init__(self):
        super().__init__()
        self.times = []


@pytest.fixture
def rechecks(monkeypatch):
    """RECHECK shortened to 0.3 s (the first check within 0.3 s, then every 0.3 s); the checks'
    answers, listed."""
    from live import aio, streams

    monkeypatch.setattr(streams, "RECHECK", 0.3)
    answers = _Checks()
    reopen = aio._reopen

    def counted(*args):
        answers.times.append(time.monotonic())
        answers.append(reopen(*args))
        return answers[-1]

    monkeypatch.setattr(aio, "_reopen", counted)
    return answers


async def _until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        await asyncio.sleep(0.02)


def test_a_stream_whose_access_holds_goes_on_past_its_checks(started, quiet_reads, rechecks):
    lt, live_id = started
    client = async_client(lt.users[2])

    async def scenario():
        opened = time.monotonic()
        r = await client.get(f"/api/v1/live/{live_id}/events/?seconds=30",
                             headers={"Accept": "text/event-stream"})
        reading = asyncio.ensure_future(read_views(r, want=2))
        await _until(lambda: len(rechecks) >= 3)  # about a second: three checks passed
        await until_waiting(live_id)
        moved = await sync_to_async(act_once, thread_sensitive=False)(lt, live_id)
        views = await reading
        await r.streaming_content.aclose()
        return opened, moved, views

    opened, moved, views = async_to_sync(scenario)()
    assert views[-1]["id"] == moved and views[-1]["data"]["seat"] == 2
    assert set(rechecks) == {(live_id, 2, False)}
    # the first check within RECHECK of the opening, then one every RECHECK, never sooner
    assert rechecks.times[-1] - opened >= 0.3 * (len(rechecks) - 1)
    assert hidden_card_problems(views[-1]["data"], 2, server_game(live_id)) == []


def test_a_check_is_not_a_request_of_the_client_and_spends_none_of_its_rate(
        started, quiet_reads, rechecks, monkeypatch):
    """A client allowed two requests a minute of the stream's view (the ``live`` rate) opens a
    stream (one): the stream's checks run the view again without counting against that rate —
    it goes on past three of them — and the client still has its second stream afterwards,
    not a third."""
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "live": "2/min"})
    lt, live_id = started
    client = async_client(lt.users[4])

    async def scenario():
        r = await client.get(f"/api/v1/live/{live_id}/events/?seconds=30",
                             headers={"Accept": "text/event-stream"})
        assert r.status_code == 200
        reading = asyncio.ensure_future(read_views(r, want=2))  # (reading: the stream goes on)
        await _until(lambda: len(rechecks) >= 3)
        await until_waiting(live_id)
        moved = await sync_to_async(act_once, thread_sensitive=False)(lt, live_id)
        views = await reading
        url = f"/api/v1/live/{live_id}/events/?seconds=0"
        again = await client.get(url, headers={"Accept": "text/event-stream"})
        third = await client.get(url, headers={"Accept": "text/event-stream"})
        await r.streaming_content.aclose()
        return moved, views, again.status_code, third.status_code

    moved, views, again, third = async_to_sync(scenario)()
    assert set(rechecks) == {(live_id, 4, False)}  # each check: the same stream, not a 429
    assert views[-1]["id"] == moved and views[-1]["data"]["seat"] == 4
    assert (again, third) == (200, 429)  # the rate is the client's own: two, then refused


def _stream_ends(client, url: str, change, timeout: float = 10.0) -> float:
    """Open ``url``'s stream, make ``change`` (sync, in a thread) once it waits; the seconds
    until the stream ended after it."""

    async def scenario():
        r = await client.get(url, headers={"Accept": "text/event-stream"})
        assert r.status_code == 200, r.content

        async def to_the_end():
            async for _chunk in r.streaming_content:
                pass

        reading = asyncio.ensure_future(to_the_end())
        await until_waiting(live_id_of(url))
        await sync_to_async(change, thread_sensitive=False)()
        t0 = time.monotonic()
        await asyncio.wait_for(reading, timeout)
        return time.monotonic() - t0

    return async_to_sync(scenario)()


def live_id_of(url: str) -> int:
    return int(url.rstrip("/").split("/live/")[1].split("/")[0])


def test_a_deleted_token_ends_its_stream_at_the_next_check(started, quiet_reads, rechecks):
    lt, live_id = started
    client = async_client(lt.users[1])
    took = _stream_ends(client, f"/api/v1/live/{live_id}/events/?seconds=30",
                        lambda: Token.objects.filter(user=lt.users[1]).delete())
    assert took < 2 and rechecks[-1] is None
    again = async_to_sync(client.get)(f"/api/v1/live/{live_id}/events/")
    assert again.status_code == 401  # what the client's reconnect gets


def test_a_seat_given_to_another_player_ends_its_stream(started, quiet_reads, rechecks):
    """The seat's player is replaced at the table (the seat's row names another user): the
    stream, which showed that seat's hand, ends; the old player's reconnect gets the public
    view."""
    from tournaments.models import Player, Seat

    lt, live_id = started
    client = async_client(lt.users[3])
    seat = Seat.objects.select_related("player").get(table=lt.table, seat=3)
    stranger = type(lt.users[3]).objects.create_user("stand-in")

    took = _stream_ends(client, f"/api/v1/live/{live_id}/events/?seconds=30",
                        lambda: Player.objects.filter(pk=seat.player_id).update(user=stranger))
    assert took < 2 and rechecks[-1] == (live_id, None, True)
    views = parse(async_to_sync(_all)(client, f"/api/v1/live/{live_id}/events/?seconds=0"))
    assert views[-1]["data"]["seat"] is None and "hand" not in views[-1]["data"]


def test_a_revoked_private_link_ends_the_pages_stream(started, quiet_reads, rechecks):
    from tests.pages.test_live_table_views import links_of
    from tournaments.models import Seat
    from tournaments.services.links import entry_link_revoke

    lt, live_id = started
    link = links_of(lt.table)[5]
    seat = Seat.objects.select_related("entry", "player").get(table=lt.table, seat=5)
    took = _stream_ends(AsyncClient(), f"{link}live/{live_id}/events/?seconds=30",
                        lambda: entry_link_revoke(entry=seat.entry,
                                                              player=seat.player))
    assert took < 2 and rechecks[-1] is None
    assert async_to_sync(AsyncClient().get)(f"{link}live/{live_id}/events/").status_code == 404


def test_a_changed_password_ends_the_signed_in_pages_stream(started, quiet_reads, rechecks):
    """The page's stream for a signed-in player (``/me/live/<id>/events/``): the session is
    read again at each check, so a password changed elsewhere (Django then signs the session
    out) ends it."""
    lt, live_id = started
    user = lt.users[0]
    client = AsyncClient()
    async_to_sync(client.aforce_login)(user)

    def change_password():
        user.set_password("another secret 1")
        user.save()

    took = _stream_ends(client, f"/me/live/{live_id}/events/?seconds=30", change_password)
    assert took < 2 and rechecks[-1] is None
    assert async_to_sync(client.get)(f"/me/live/{live_id}/events/").status_code == 302


def test_a_spectators_check_takes_no_second_slot(started, settings, quiet_reads, rechecks):
    """A spectator's stream holds its one slot past its checks: the view runs again without
    opening a stream, so the cap (here one) does not refuse it."""
    lt, live_id = started
    settings.LIVE_SPECTATOR_WAITERS = 1

    async def scenario():
        r = await AsyncClient().get(f"/api/v1/live/{live_id}/events/?seconds=30",
                                    headers={"Accept": "text/event-stream"})
        assert r.status_code == 200
        reading = asyncio.ensure_future(read_views(r, want=2))
        await _until(lambda: len(rechecks) >= 3)
        held = spectators.held()
        await until_waiting(live_id)
        moved = await sync_to_async(act_once, thread_sensitive=False)(lt, live_id)
        views = await reading
        await r.streaming_content.aclose()
        return held, moved, views

    held, moved, views = async_to_sync(scenario)()
    assert held == 1 and views[-1]["id"] == moved and "hand" not in views[-1]["data"]
    assert set(rechecks) == {(live_id, None, True)}
    assert spectators.held() == 0
