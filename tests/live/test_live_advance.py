"""A stream server moves its copy of a game on from the acts the announcements carry
(live.notify, live.cache.GameCache.advance) instead of reading the row and its whole state:
the frames it renders are byte for byte those a read gives, an announcement carries nothing
but an act of the play every seat sees, and whatever does not add up (a gap, another game
under a reused id, a forged or malformed act) falls back to the read."""

from __future__ import annotations

import contextlib
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from live import notify, streams
from live import services as live
from live.cache import GameCache, micros
from live.models import LiveGame
from tests.live.helpers import bot_pick, warm_game

pytestmark = pytest.mark.django_db(transaction=True)  # on_commit fills the cache

SEATS = (None, 0, 1, 2, 3, 4, 5)


@pytest.fixture(autouse=True)
def _fresh_announcements(settings):
    settings.LIVE_PUBSUB_URL = None  # announcements reach this process only, through _seen
    notify.forget()
    yield
    notify.forget()


@contextlib.contextmanager
def stream_server(cache: GameCache):
    """Run the block as another process, a stream server with ``cache`` for its games."""
    saved = streams.games, live.games
    streams.games = live.games = cache
    streams.frames.clear()
    try:
        yield
    finally:
        streams.games, live.games = saved
        streams.frames.clear()


def _row(lg) -> LiveGame:
    return LiveGame.objects.defer("state").get(pk=lg.pk)


def _read_frames(lg, version: int) -> dict:
    """Each view's frame at ``version`` as a stream server with nothing in memory renders it."""
    with stream_server(GameCache()):
        return {seat: streams._reach_frame(_row(lg), version, version - 1, seat)
                for seat in SEATS}


def _act(lt, lg):
    """One bot act through the service as its seat's user (the path the API takes)."""
    game = live.live_game(LiveGame.objects.get(pk=lg.pk))
    seat, act = bot_pick(game, lt.bots)
    return live.live_act(live_id=lg.pk, user=lt.users[seat], action=act, version=lg.version)


def _playing(lt):
    """A warm game (:func:`warm_game`) past its pre-play questions: cards are being played."""
    lg, _game = warm_game(lt)
    while live.live_game(LiveGame.objects.get(pk=lg.pk)).state != "play":
        lg = _act(lt, lg)
    return lg


def _followed(lt, seat):
    """A game in play (:func:`_playing`), and a stream server that has read it once for a
    stream of ``seat``: ``(the game's row, the server's cache, the stream's row)``."""
    lg = _playing(lt)
    server = GameCache()
    row = _row(lg)
    with stream_server(server):
        streams._reach_frame(row, lg.version, lg.version - 1, seat)
    return lg, server, row


def test_a_whole_game_is_followed_from_the_announced_acts_as_a_read_would_render_it(
        live_table):
    lg, game = warm_game(live_table)
    server = GameCache()
    with stream_server(server):  # the streams open: one read
        rows = {seat: _row(lg) for seat in SEATS}
        for seat, row in rows.items():
            streams._reach_frame(row, lg.version, lg.version - 1, seat)
    from_memory = reads = 0
    while lg.status == LiveGame.Status.RUNNING:
        since = lg.version
        lg = _act(live_table, lg)
        carried = notify.announced_act(lg.pk, lg.version)
        with stream_server(server), CaptureQueriesContext(connection) as queries:
            got = {seat: streams._memory_frame(row, lg.version, since, seat)
                   for seat, row in rows.items()}
        if all(known for known, _frame in got.values()):
            assert carried is not None and len(queries) == 0
            from_memory += 1
            assert {seat: frame for seat, (_k, frame) in got.items()} == \
                _read_frames(lg, lg.version)
        else:  # not carried (a pre-play act, the act that ends the game): the stream reads
            assert carried is None
            reads += 1
            with stream_server(server):
                for seat, row in rows.items():
                    streams._reach_frame(row, lg.version, since, seat)
    stored = live.live_game(LiveGame.objects.get(pk=lg.pk))
    assert stored.state == "over"
    # every act of the play but the last (it ends the game, under the lock) was carried
    assert from_memory == len(stored.actions) - len(game.actions) - 1 and reads >= 1


def test_an_announcement_carries_nothing_but_an_act_of_the_play(live_table, monkeypatch):
    sent = []

    class FakePublisher:
        def publish(self, channel, data):
            sent.append((channel.encode(), data))

    monkeypatch.setattr(notify, "_redis_url", lambda: "redis://fake")
    monkeypatch.setattr(notify, "_publisher", FakePublisher())
    lg, _game = warm_game(live_table)
    while lg.status == LiveGame.Status.RUNNING:
        lg = _act(live_table, lg)
    stored = live.live_game(LiveGame.objects.get(pk=lg.pk))
    carried = 0
    for channel, data in sent:
        live_id, version, act = notify._announcement({"channel": channel, "data": data})
        assert live_id == lg.pk
        if act is None:
            assert data == str(version).encode()
            continue
        carried += 1
        # the act as the record keeps it (what every seat saw played), the deadline, the start
        index = len(stored.actions) - (stored.version - version) - 1
        record = {k: v for k, v in act.items() if k not in ("d", "t", "h")}
        assert record == stored.actions[index] and set(record) <= {"seat", "act", "cards"}
        assert act["t"] == micros(lg.started_at) and act["h"] == 0
    assert carried > 20


def test_a_gap_in_the_announced_acts_makes_the_stream_read(live_table):
    lg, server, row = _followed(live_table, 0)
    since = lg.version
    lg = _act(live_table, lg)
    lg = _act(live_table, lg)
    with notify._lock:  # the first of the two announcements was lost
        del notify._acts[(lg.pk, lg.version - 1)]
    with stream_server(server), CaptureQueriesContext(connection) as queries:
        assert streams._memory_frame(row, lg.version, since, 0) == (False, None)
        assert len(queries) == 0  # (the caller reads, in a database thread)
        frame = streams._reach_frame(row, lg.version, since, 0)
    assert frame == _read_frames(lg, lg.version)[0]


def test_two_acts_announced_are_both_applied_in_order(live_table):
    lg, server, row = _followed(live_table, 3)
    since = lg.version
    for _ in range(2):
        lg = _act(live_table, lg)
    with stream_server(server), CaptureQueriesContext(connection) as queries:
        known, frame = streams._memory_frame(row, lg.version, since, 3)
    assert known and len(queries) == 0 and row.version == lg.version
    assert frame == _read_frames(lg, lg.version)[3]


@pytest.mark.parametrize("spoil", ["another game", "forged seat", "forged cards"])
def test_an_announced_act_that_does_not_add_up_is_not_applied(live_table, spoil):
    lg, server, row = _followed(live_table, 1)
    since = lg.version
    lg = _act(live_table, lg)
    key = (lg.pk, lg.version)
    act = dict(notify._acts[key])
    if spoil == "another game":  # the same id and version, another start: a reused id
        act["t"] += 1
    elif spoil == "forged seat":
        act["seat"] = (act["seat"] + 1) % 6
    else:
        act.update(act="play", cards=["BJ"] * 9)
    with notify._lock:
        notify._acts[key] = act
    with stream_server(server):
        assert streams._memory_frame(row, lg.version, since, 1) == (False, None)
        frame = streams._reach_frame(row, lg.version, since, 1)
    assert frame == _read_frames(lg, lg.version)[1]


def _signed(live_id: int, body: bytes) -> bytes:
    """``body`` as this app's announcements send it: signed with its key."""
    return b"%s %s" % (body, notify._signature(live_id, body))


@pytest.mark.parametrize("body", [
    b"12 {not json", b'12 {"seat": 1}', b'12 ["x"]',
    b'12 {"seat": 1, "act": "pass", "d": 1, "t": 2, "h": 0, "hand": []}',  # more than an act
    b'12 {"seat": 1, "act": "pass", "d": 1, "t": 2}'])  # no 托管 seats
def test_a_malformed_act_in_a_message_is_dropped_and_the_version_still_wakes(body):
    assert notify._announcement({"channel": b"gouji:live:7",
                                 "data": _signed(7, body)}) == (7, 12, None)


def test_an_act_not_signed_with_the_apps_key_is_dropped_and_the_version_still_wakes(settings):
    act = {"seat": 2, "act": "pass", "d": 5, "t": 6, "h": 0}
    good = notify._message(7, 12, act)
    assert notify._announcement({"channel": b"gouji:live:7", "data": good}) == (7, 12, act)
    body = good.rpartition(b" ")[0]
    forged = [body,  # unsigned
              body + b" " + b"0" * 32,  # a made-up signature
              _signed(8, body),  # signed for another game's channel
              body.replace(b'"pass"', b'"play"') + b" " + good.rpartition(b" ")[2]]  # altered
    ours = settings.SECRET_KEY
    notify._signing_key.cache_clear()
    settings.SECRET_KEY = "another app's secret, of fifty characters or more, for the test"
    try:
        forged.append(notify._message(7, 12, act))  # signed with another app's key
    finally:
        settings.SECRET_KEY = ours
        notify._signing_key.cache_clear()
    for data in forged:
        assert notify._announcement({"channel": b"gouji:live:7", "data": data}) == \
            (7, 12, None), data


def test_a_listener_takes_an_act_only_for_a_newer_version_of_a_game_waited_on_here():
    """The act a message carries is checked and parsed only when it can serve this process
    (:func:`live.notify._wanted`): not for a game nobody here waits on (another process serves
    its streams), nor for a version already known (the echo of this process's own act)."""
    import threading

    act = {"seat": 2, "act": "pass", "d": 5, "t": 6, "h": 0}
    message = {"channel": b"gouji:live:7", "data": notify._message(7, 12, act)}
    assert notify._announcement(message, notify._wanted) == (7, 12, None)  # nobody waits
    with notify._lock:
        notify._waiters[7] = {threading.Event()}
    try:
        assert notify._announcement(message, notify._wanted) == (7, 12, act)
        notify._seen(7, 12)
        assert notify._announcement(message, notify._wanted) == (7, 12, None)  # known
    finally:
        with notify._lock:
            del notify._waiters[7]


def test_a_message_with_only_a_version_is_read_as_before():
    assert notify._announcement({"channel": b"gouji:live:7", "data": b"12"}) == (7, 12, None)
    assert notify._announcement({"channel": b"gouji:live:7", "data": b"x"}) is None


def test_a_bot_act_for_a_seat_in_tuoguan_is_followed_from_its_announcement(live_table):
    """托管: the bot's act (marked ``auto``, under the lock, a hosted turn's deadline) is
    carried too, and the stream's copy marks the seat as the stored game does."""
    lg, server, row = _followed(live_table, None)
    game = live.live_game(LiveGame.objects.get(pk=lg.pk))
    seat, act = bot_pick(game, live_table.bots)
    live.live_host(live_id=lg.pk, on=True, seat=seat, referee=True)
    since = lg.version
    lg = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version, auto=True)
    assert notify.announced_act(lg.pk, lg.version)["auto"] is True
    with stream_server(server), CaptureQueriesContext(connection) as queries:
        known, frame = streams._memory_frame(row, lg.version, since, None)
    assert known and len(queries) == 0
    with stream_server(server):
        streams.frames.clear()
        assert streams._memory_frame(row, lg.version, since, None)[1] == \
            _read_frames(lg, lg.version)[None]
        assert seat in server.read_cached(row, lambda g: g.auto_seats)


@pytest.mark.parametrize("path", ["from the announced act", "from a read"])
def test_a_stream_shows_a_seat_put_in_tuoguan_after_it_opened_at_the_next_version(
        live_table, path):
    """The seats in 托管 (``hosted_seats``) are the row's at each version, in memory or read:
    a stream opened before a referee switched a seat into 托管 shows it from the next act on
    (before, a stream kept the 托管 seats it opened with for as long as it lived)."""
    lg, server, row = _followed(live_table, 2)
    game = live.live_game(LiveGame.objects.get(pk=lg.pk))
    away = (game.to_act()["seat"] + 3) % 6  # not the seat to act: its turn is not the next
    live.live_host(live_id=lg.pk, on=True, seat=away, referee=True)
    since = lg.version
    lg = _act(live_table, lg)
    if path == "from a read":
        with notify._lock:
            notify._acts.clear()
    with stream_server(server):
        known, frame = streams._memory_frame(row, lg.version, since, 2)
        assert known == (path == "from the announced act")
        if not known:
            frame = streams._reach_frame(row, lg.version, since, 2)
    assert json.loads(frame[0].split(b"data: ", 1)[1])["hosted_seats"] == [away]
    assert frame == _read_frames(lg, lg.version)[2]


def test_a_waiting_request_in_a_sync_server_follows_the_announced_act_unread_too(live_table):
    """The long-poll and the event stream of a gunicorn worker (``reach``) take the same
    path as the stream server's event loop: no read when the announcement carried the act."""
    lg, server, row = _followed(live_table, 5)
    since = lg.version
    lg = _act(live_table, lg)
    with stream_server(server), CaptureQueriesContext(connection) as queries:
        assert streams.wait_past(row, since, 1.0)
        frame = streams._reach_frame(row, lg.version, since, 5)
    # (without pub/sub, the waiter reads the stored version: one integer, never the state)
    assert row.version == lg.version and all('"state"' not in q["sql"] for q in queries)
    assert frame == _read_frames(lg, lg.version)[5]
