"""The cheap paths of an act and of its streams' frames (docs/LIVE.md, "How it carries 10,000
open streams"): orjson gives the JSON DRF's encoder gave, a frame rendered once serves every stream
of the same view and no other, a stream renders from memory without a read when its process
has the game, the streams of one game woken together share one read, and the act's
serializer built once per thread refuses bad input as before."""

from __future__ import annotations

import asyncio
import datetime
import json
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from api.live_views import FastJSONRenderer, LiveActSerializer
from live import fastjson, streams
from live import services as live
from live.cache import games
from live.models import LiveGame
from tests.live.helpers import bot_pick, hidden_card_problems, play_on_server, warm_game

pytestmark = pytest.mark.django_db(transaction=True)  # on_commit fills the cache

SAMPLE = {"when": datetime.datetime(2026, 12, 1, 18, 0, 3, 250000, tzinfo=datetime.UTC),
          "noon": datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.UTC),
          "zh": "够级 大王\u2028", "cards": ["10H", "BJ"], "n": [0, None, True, 1.5],
          "nested": {"seats": [{"seat": 3, "hand": []}]}}


def test_fast_json_is_the_json_drf_rendered():
    assert FastJSONRenderer().render(SAMPLE) == JSONRenderer().render(SAMPLE)
    text = fastjson.dumps(SAMPLE)
    assert json.loads(text) == json.loads(JSONRenderer().render(SAMPLE))
    assert fastjson.loads(fastjson.dumps({"a": [1, {"b": "中"}]})) == {"a": [1, {"b": "中"}]}
    # indented output is DRF's own
    indented = FastJSONRenderer().render(SAMPLE, "application/json; indent=2", {})
    assert indented == JSONRenderer().render(SAMPLE, "application/json; indent=2", {})


def _row(lg: LiveGame) -> LiveGame:
    return LiveGame.objects.defer("state").get(pk=lg.pk)


def test_a_frame_is_rendered_once_per_view_and_never_given_to_another_seat(live_table,
                                                                           monkeypatch):
    lg, game = warm_game(live_table)
    calls = []
    real = live.live_view_parts
    monkeypatch.setattr(live, "live_view_parts",
                        lambda **kw: calls.append((kw["seat"], kw.get("public", True))) or real(**kw))
    frames = {seat: streams._view_frame(_row(lg), seat)[0] for seat in (None, 0, 1, 2, 3, 4, 5)}
    again = {seat: streams._view_frame(_row(lg), seat)[0] for seat in (None, 0, 1, 2, 3, 4, 5)}
    # each view once, the part every viewer sees encoded for the first only
    assert again == frames and calls == [(None, True), *((s, False) for s in range(6))]
    assert len(set(frames.values())) == 7
    stored = live.live_game(LiveGame.objects.get(pk=lg.pk))
    for seat in (None, 0, 1, 2, 3, 4, 5):
        data = json.loads(frames[seat].split(b"data: ", 1)[1])
        assert data == json.loads(JSONRenderer().render(live.live_view(live=_row(lg),
                                                                       seat=seat)))
        assert data["version"] == lg.version
        assert hidden_card_problems(data, seat, stored) == []  # its own cards only
    # 托管 switched on changes the view without a new version: a new frame, not the cached one
    live.live_host(live_id=lg.pk, on=True, seat=2, referee=True)
    hosted = streams._view_frame(_row(lg), None)[0]
    assert hosted != frames[None] and json.loads(hosted.split(b"data: ", 1)[1])[
        "hosted_seats"] == [2]


def _data(frame: bytes) -> dict:
    return json.loads(frame.split(b"data: ", 1)[1])


def test_a_whole_view_frame_is_the_json_get_answers_byte_for_byte(live_table):
    """A frame that carries every act splices its game's acts encoded once
    (live.services.acts_json) into the part every viewer sees: its data is still, byte for byte,
    what GET's renderer gives for the view — mid-game, and over, with the result after the
    acts."""
    lg, _game = warm_game(live_table)
    for finished in (False, True):
        lg, game = play_on_server(live_table, lg.pk,
                                  until=None if finished else lambda g: len(g.actions) >= 12)
        assert (lg.status == LiveGame.Status.FINISHED) is finished
        for seat in (None, 0, 3):
            streams.frames.clear()
            streams.publics.clear()
            data = streams._view_frame(_row(lg), seat)[0].split(b"data: ", 1)[1][:-2]
            assert data == JSONRenderer().render(live.live_view(live=_row(lg), seat=seat))
            assert streams.view_json_cached(_row(lg), seat) == data
        view = json.loads(data)
        assert list(view).index("actions") < list(view).index("outcome")
        assert len(view["actions"]) == len(game.actions) >= 12


def test_a_frame_of_new_acts_has_only_them_and_is_kept_apart_from_the_whole_view(live_table):
    # given: a game a few acts into its play
    lg, game = warm_game(live_table)
    while len(live.live_game(LiveGame.objects.get(pk=lg.pk)).actions) < 3:
        seat, act = _next(lg, live_table)
        lg = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
    stored = live.live_game(LiveGame.objects.get(pk=lg.pk))
    acts = len(stored.actions)
    # when: seat 2's view is rendered whole, and with the acts from index acts - 1 only
    whole, no_count = streams._view_frame(_row(lg), 2)
    newer, count = streams._view_frame(_row(lg), 2, acts - 1)
    # then: the second has the last act only, says where it starts, and is otherwise the first
    assert no_count == -1 and count == acts
    new_view, whole_view = _data(newer), _data(whole)
    assert new_view["actions_from"] == acts - 1 and new_view["actions"] == stored.actions[-1:]
    assert whole_view["actions"] == stored.actions and "actions_from" not in whole_view
    assert {k: v for k, v in new_view.items() if k not in ("actions", "actions_from")} == \
        {k: v for k, v in whole_view.items() if k != "actions"}
    assert hidden_card_problems(new_view, 2, stored) == []
    # a start past the game's acts (a client of an earlier game under this id): all of them
    assert _data(streams._view_frame(_row(lg), 2, acts + 5)[0])["actions_from"] == 0
    # the spectators' whole view after these: still whole (its public part is its own)
    assert _data(streams._view_frame(_row(lg), None)[0])["actions"] == stored.actions
    # and a stream woken on the event loop by the next act gets just that act
    since, row = lg.version, _row(lg)
    seat, act = _next(lg, live_table)
    moved = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
    frame, count = asyncio.run(streams._frame_after(row, moved.version, since, 2, acts))
    assert count == acts + 1 and _data(frame)["actions"] == \
        live.live_game(LiveGame.objects.get(pk=lg.pk)).actions[acts:]


def test_a_stream_renders_from_memory_without_a_read(live_table):
    lg, game = warm_game(live_table)
    stream_row = _row(lg)
    before = stream_row.version
    seat, act = _next(lg, live_table)
    moved = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
    streams.frames.clear()
    with CaptureQueriesContext(connection) as queries:
        known, frame = streams._memory_frame(stream_row, moved.version, before, 4)
    assert known and len(queries) == 0
    assert frame == streams._reach_frame(_row(moved), moved.version, before, 4)
    # nothing in memory: it says so, and the caller reads
    games.clear()
    streams.frames.clear()
    assert streams._memory_frame(_row(lg), moved.version, before, 4) == (False, None)


def _next(lg, lt):
    return bot_pick(live.live_game(LiveGame.objects.get(pk=lg.pk)), lt.bots)


def test_a_stream_that_resumes_at_the_games_version_brings_the_game_into_memory(live_table):
    """A stream opened with ``Last-Event-ID`` at the game's version sends no view, but its
    process holds the game from then on: its table's next act and frames need no read."""
    lg, game = warm_game(live_table)
    games.clear()
    streams.frames.clear()
    stream_row = _row(lg)
    assert streams._first_frame(stream_row, lg.version, 3) is None  # (the client has it)
    assert games.read_cached(_row(lg), lambda g: g.version) == lg.version
    other, act_row = _row(lg), _row(lg)
    with CaptureQueriesContext(connection) as queries:  # the table's other streams: no read
        assert streams._first_frame(other, lg.version, 4) is None
        assert streams._memory_frame(act_row, lg.version, lg.version - 1, 5)[0]
    assert len(queries) == 0
    # a stream a version behind gets the view at once
    frame = streams._first_frame(_row(lg), lg.version - 1, 2)
    assert frame == streams._view_frame(_row(lg), 2)


def test_the_streams_of_one_game_woken_together_share_one_read(live_table, monkeypatch):
    lg, game = warm_game(live_table)
    rows = {seat: _row(lg) for seat in (None, 0, 1, 2, 3, 4, 5)}
    since = lg.version
    seat, act = _next(lg, live_table)
    moved = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
    games.clear()  # as in the stream server: another process made the act
    hops = []

    async def in_thread(fn, *args):  # the stream database thread, counted
        hops.append(fn.__name__)
        return await asyncio.to_thread(fn, *args)

    monkeypatch.setattr(streams, "in_db_thread", in_thread)

    async def wake_all():
        return await asyncio.gather(*(streams._frame_after(row, moved.version, since, s)
                                      for s, row in rows.items()))

    got = asyncio.run(wake_all())
    assert hops == ["_reach_frame"]  # one read for the seven streams
    for (s, row), frame in zip(rows.items(), got, strict=True):
        assert row.version == moved.version
        assert frame == streams._reach_frame(_row(moved), moved.version, since, s)


def test_the_act_serializer_built_once_per_thread_still_refuses_bad_input():
    def check():
        ok = LiveActSerializer(data={"version": 3, "act": "play", "cards": ["3S"]})
        assert ok.is_valid() and ok.validated_data == {"version": 3, "act": "play",
                                                       "cards": ["3S"]}
        bad = LiveActSerializer(data={"version": -1, "cards": "3S", "seat": 9})
        assert not bad.is_valid()
        assert set(bad.errors) == {"version", "act", "cards", "seat"}
        again = LiveActSerializer(data={"version": 4, "act": "pass"})
        assert again.is_valid() and again.validated_data == {"version": 4, "act": "pass"}

    check()
    check()
    failed = []

    def in_other_thread():
        try:
            check()
        except BaseException as exc:  # noqa: BLE001 (reported to the test's thread)
            failed.append(exc)

    other = threading.Thread(target=in_other_thread)
    other.start()
    other.join()
    assert failed == []
    assert LiveActSerializer().fields is LiveActSerializer().fields
