"""The act's short path on the event loop (api/fast_act.py, live/aiodb.py), on PostgreSQL: a
common act whose game, facts, seat and token this process holds is checked and made on the
loop and stored by one statement awaited there, on the loop's own connection; its answer is
the view's, each act is stored once, and whatever fails there hands the act to the view."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
import redis
from asgiref.sync import async_to_sync
from django.db import OperationalError, connection

from api import fast_act
from live import aiodb
from live.models import LiveGame
from tests.api.test_fast_act import (  # noqa: F401
    act,
    act_request,
    asgi_async,
    asgi_urls,
    game,
    next_act,
    viewed,
)
from tests.live.helpers import lifespan
from tests.live.test_live_notify import redis_up

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not aiodb.LoopDatabase.usable(),
                       reason="the event loop's connection is PostgreSQL's (psycopg async)"),
]


@pytest.fixture
def paths(monkeypatch):
    """How each act was stored: ``loop`` statements run on the event loop, ``thread`` acts sent
    to a stream database thread."""
    taken = {"loop": 0, "thread": 0}
    rowcount, in_db_thread = aiodb.database.rowcount, fast_act.in_db_thread

    async def on_loop(sql, params, **kwargs):
        taken["loop"] += 1
        return await rowcount(sql, params, **kwargs)

    async def in_thread(fn, *args, **kwargs):
        if fn is fast_act._act:
            taken["thread"] += 1
        return await in_db_thread(fn, *args, **kwargs)

    monkeypatch.setattr(aiodb.database, "rowcount", on_loop)
    monkeypatch.setattr(fast_act, "in_db_thread", in_thread)
    return taken


def test_the_common_act_is_stored_on_the_event_loop(game, viewed, paths):  # noqa: F811
    """Once the process knows the seats' tokens (a seat's first act reads its token, in a
    thread), every act is stored on the loop, once, and answered as GET shows the seat."""
    lt, live_id, keys = game
    for _ in range(24):
        seat, payload = next_act(lt, live_id)
        status, _headers, body = act(live_id, keys[seat], payload)
        assert status == 200, body
        view = json.loads(body)
        assert view["version"] == LiveGame.objects.get(pk=live_id).version > payload["version"]
        assert lt.clients[seat].get(f"/api/v1/live/{live_id}/").json() == view
    assert viewed == []
    assert paths["thread"] <= 6  # at most each seat's first act
    assert paths["loop"] == 24 - paths["thread"] and paths["loop"] >= 18


@pytest.fixture
def redis_throttles(settings, monkeypatch):
    """The throttles count in Redis (``CACHE_URL``, as in production): the counts each act
    made on the event loop's own connection, by how many counters."""
    if not redis_up():
        pytest.skip("needs Redis on 127.0.0.1:6379")
    settings.CACHES = {"default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/7", "KEY_PREFIX": uuid.uuid4().hex}}
    counted, count_on_redis = [], fast_act.count_on_redis

    def on_loop(server, keys, timeouts, limits):
        counted.append(len(keys))
        return count_on_redis(server, keys, timeouts, limits)

    monkeypatch.setattr(fast_act, "count_on_redis", on_loop)
    return counted


def test_with_the_throttles_in_redis_the_act_is_counted_and_stored_on_the_loop(
        game, viewed, paths, redis_throttles):  # noqa: F811
    """Before, throttles that count in Redis sent every act to a stream database thread for
    that round trip; now it is awaited on the loop, on the loop's own connection."""
    lt, live_id, keys = game
    for _ in range(24):
        seat, payload = next_act(lt, live_id)
        status, _headers, body = act(live_id, keys[seat], payload)
        assert status == 200, body
    assert viewed == [] and paths["thread"] <= 6  # at most each seat's first act
    assert redis_throttles == [2] * paths["loop"] and paths["loop"] >= 18


def test_a_failed_count_in_redis_hands_the_act_to_the_view_which_stores_it_once(
        game, viewed, paths, redis_throttles, monkeypatch, caplog):  # noqa: F811
    """... and says so in one line (no traceback for every act while Redis is away)."""
    lt, live_id, keys = game
    for _ in range(8):  # (every seat's token known)
        seat, payload = next_act(lt, live_id)
        assert act(live_id, keys[seat], payload)[0] == 200

    async def broken(server, keys, timeouts, limits):
        raise redis.ConnectionError("the connection to Redis was lost")

    monkeypatch.setattr(fast_act, "count_on_redis", broken)
    seat, payload = next_act(lt, live_id)
    status, _headers, body = act(live_id, keys[seat], payload)
    assert status == 200, body
    assert viewed == [live_id]
    assert LiveGame.objects.get(pk=live_id).version == json.loads(body)["version"]  # once
    said = [r for r in caplog.records if r.name == "api.fast_act"]
    assert [(r.levelname, r.exc_info) for r in said] == [("WARNING", None)]
    assert "could not be counted in Redis (the connection to Redis was lost)" in said[0].message


def test_an_act_stored_on_the_loop_is_answered_in_the_requests_language(
        game, viewed, paths):  # noqa: F811
    """The loop's answer carries the headers of the request's language, as the view's does
    (no language is activated on the loop: the headers are made for it)."""
    lt, live_id, keys = game
    for _ in range(12):  # (each seat's first act reads its token, in a thread)
        seat, payload = next_act(lt, live_id)
        assert act(live_id, keys[seat], payload)[0] == 200
    for language in ("zh-hans", "en", "zh-hans"):
        on_loop = paths["loop"]
        seat, payload = next_act(lt, live_id)
        status, headers, _body = act(live_id, keys[seat], payload, **{"Accept-Language": language})
        assert status == 200 and paths["loop"] == on_loop + 1
        assert headers["content-language"] == language
    assert viewed == []


def test_with_the_setting_off_the_act_is_stored_in_a_thread(game, viewed, paths,  # noqa: F811
                                                             settings):
    settings.LIVE_ACT_ON_LOOP = False
    lt, live_id, keys = game
    for _ in range(8):
        seat, payload = next_act(lt, live_id)
        assert act(live_id, keys[seat], payload)[0] == 200
    assert paths == {"loop": 0, "thread": 8} and viewed == []


def test_a_failed_statement_hands_the_act_to_the_view_which_stores_it_once(
        game, viewed, paths, monkeypatch):  # noqa: F811
    lt, live_id, keys = game
    for _ in range(8):  # (every seat's token known)
        seat, payload = next_act(lt, live_id)
        assert act(live_id, keys[seat], payload)[0] == 200

    async def broken(sql, params, **kwargs):
        raise OperationalError("the server closed the connection")

    monkeypatch.setattr(aiodb.database, "rowcount", broken)
    seat, payload = next_act(lt, live_id)
    status, _headers, body = act(live_id, keys[seat], payload)
    assert status == 200, body
    assert viewed == [live_id]
    assert LiveGame.objects.get(pk=live_id).version == json.loads(body)["version"]  # once


def test_a_stale_act_changes_nothing_and_is_refused_by_the_view(game, viewed, paths):  # noqa: F811
    lt, live_id, keys = game
    for _ in range(8):
        seat, payload = next_act(lt, live_id)
        assert act(live_id, keys[seat], payload)[0] == 200
    seat, payload = next_act(lt, live_id)
    stale = {**payload, "version": payload["version"] - 1}
    status, _headers, body = act(live_id, keys[seat], stale)
    assert status == 409 and json.loads(body)["error"]["code"] == "stale_version"
    assert viewed == [live_id]
    assert LiveGame.objects.get(pk=live_id).version == payload["version"]


def test_the_loop_connections_are_the_running_loops():
    """At most ``size`` connections, opened for the loop in use and reused there; a new loop
    (a test's, or after a restart) closes the old loop's connections and opens its own."""
    db = aiodb.LoopDatabase(size=2)

    async def statements():
        together = await asyncio.gather(*(db.rowcount("SELECT pg_sleep(0.05)", [])
                                          for _ in range(5)))
        assert together == [1] * 5 and db.connections() == 2  # (five statements, two at once)
        assert await db.rowcount("SELECT 1", []) == 1 and db.connections() == 2
        return list(db._idle)

    first = asyncio.run(statements())
    second = asyncio.run(statements())
    assert all(c.closed for c in first) and not any(c.closed for c in second)
    assert second[0].info.dbname == connection.settings_dict["NAME"]
    db.close_now()
    assert db.connections() == 0 and all(c.closed for c in second)


def test_the_statements_that_wait_for_a_connection_go_together_as_one_transaction():
    """While the connection is busy, the statements that come wait; then they go at once, in
    the order of their ``order`` (the row each changes), and commit together: one round trip
    and one commit for the acts a busy host queued, not one each."""
    db = aiodb.LoopDatabase(size=1)

    async def statements():
        assert await db.rowcount("CREATE TEMPORARY TABLE sent (n serial, tag text, tx bigint)",
                                 []) == 0
        insert = "INSERT INTO sent (tag, tx) VALUES (%s, txid_current())"
        busy = asyncio.ensure_future(db.rowcount("SELECT pg_sleep(0.1)", []))
        await asyncio.sleep(0.02)  # (the connection is busy now)
        queued = [db.rowcount(insert, [tag], order=order) for tag, order in
                  (("c", 30), ("a", 10), ("b", 20))]
        assert await asyncio.gather(busy, *queued) == [1, 1, 1, 1]
        assert db.connections() == 1
        together = "SELECT 1 FROM sent HAVING count(DISTINCT tx) = 1 AND " \
                   "string_agg(tag, ',' ORDER BY n) = 'a,b,c'"
        assert await db.rowcount(together, []) == 1

    try:
        asyncio.run(statements())
    finally:
        db.close_now()


def test_a_failed_statement_stores_nothing_of_those_sent_with_it():
    """One statement of a batch refused: the batch's transaction is rolled back, each of its
    statements raises, its connection is closed, and the next statements run on another."""
    from psycopg import errors

    db = aiodb.LoopDatabase(size=1)

    async def statements():
        table = "loop_batch_probe"
        assert await db.rowcount(f"CREATE TABLE IF NOT EXISTS {table} (tag text)", []) == 0
        assert await db.rowcount(f"DELETE FROM {table}", []) == 0
        first = db._idle[0]
        busy = asyncio.ensure_future(db.rowcount("SELECT pg_sleep(0.1)", []))
        await asyncio.sleep(0.02)
        insert = f"INSERT INTO {table} VALUES (%s)"
        queued = asyncio.gather(
            db.rowcount(insert, ["kept?"], order=1),
            db.rowcount("SELECT 1 FROM no_such_table", [], order=2),
            db.rowcount(insert, ["kept too?"], order=3), return_exceptions=True)
        assert await busy == 1
        assert all(isinstance(e, errors.Error) for e in await queued)
        assert first.closed and db.connections() == 0
        assert await db.rowcount(f"SELECT 1 FROM {table}", []) == 0  # (nothing committed)
        assert db._idle[0] is not first
        assert await db.rowcount(f"DROP TABLE {table}", []) == 0

    try:
        asyncio.run(statements())
    finally:
        db.close_now()


def test_a_statement_takes_its_parameters_as_text_in_the_statements_types():
    """The parameters the act's statement gives (whole numbers of any size, text, aware
    datetimes, NULL, ``Json`` and ``Jsonb``) reach PostgreSQL as the values they are, in one
    prepared statement; ``%%`` is a percent sign."""
    import datetime

    from psycopg.types.json import Json, Jsonb

    db = aiodb.LoopDatabase(size=1)
    moment = datetime.datetime(2026, 12, 3, 21, 30, 1, 250000, tzinfo=datetime.UTC)
    sql = ("SELECT 1 WHERE %s::jsonb = '{\"seat\": 3, \"zh\": \"够级\"}'::jsonb "
           "AND %s::json::text = '{\"seat\":3,\"zh\":\"够级\"}' "
           "AND %s::timestamptz = '2026-12-03 21:30:01.25+00' AND %s::bigint >= 1 "
           "AND %s::text = 'a%%b' AND %s::int IS NULL AND %s::boolean")
    same = [Jsonb({"seat": 3, "zh": "够级"}), Json({"seat": 3, "zh": "够级"}), moment]
    prepared = "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%%够级%%'"

    async def statements():
        return [await db.rowcount(sql, [*same, number, "a%b", None, True])
                for number in (1, 70000, 9007199254740993)] + [await db.rowcount(prepared, [])]

    async def naive():
        await db.rowcount("SELECT %s::timestamptz", [datetime.datetime(2026, 12, 3)])

    try:
        assert asyncio.run(statements()) == [1, 1, 1, 1]
        with pytest.raises(Exception, match="naive"):
            asyncio.run(naive())
    finally:
        db.close_now()


def test_a_failed_statement_closes_its_connection_and_a_dropped_one_is_replaced():
    """A statement the server refuses raises the server's error and closes its connection; a
    connection the server ends while idle is seen before its next statement, which runs on
    another."""
    from psycopg import errors

    db, other = aiodb.LoopDatabase(size=1), aiodb.LoopDatabase(size=1)

    async def statements():
        assert await db.rowcount("SELECT 1", []) == 1
        first = db._idle[0]
        with pytest.raises(errors.UndefinedTable):
            await db.rowcount("SELECT 1 FROM no_such_table", [])
        assert first.closed and db.connections() == 0
        assert await db.rowcount("SELECT 1", []) == 1
        second = db._idle[0]
        pid = second.info.backend_pid
        assert await other.rowcount("SELECT pg_terminate_backend(%s)", [pid]) == 1
        for _ in range(100):  # (the server's end reaches the socket)
            if not aiodb._alive(second):
                break
            await asyncio.sleep(0.02)
        assert await db.rowcount("SELECT 1", []) == 1
        assert second.closed
        assert db._idle[0] is not second and db.connections() == 1

    try:
        asyncio.run(statements())
    finally:
        db.close_now()
        other.close_now()


def test_the_servers_start_opens_the_acts_connections_with_their_statement_prepared(
        game, viewed, paths, settings):  # noqa: F811
    """After a (re)start, the first acts used to wait for the loop's connections to open: the
    first 100 ms of play took 50-90 ms an act. The server's start opens them, each with the
    act's statement prepared — the one the acts then run, on those connections — and its stop
    closes them."""
    from config.asgi import Handler

    lt, live_id, keys = game
    for _ in range(8):  # (every seat's token known to this process)
        seat, payload = next_act(lt, live_id)
        assert act(live_id, keys[seat], payload)[0] == 200
    application = Handler()

    async def served():
        comm, start, stop = lifespan(application)
        assert await start() == {"type": "lifespan.startup.complete"}
        links = list(aiodb.database._idle)
        assert len(links) == settings.LIVE_LOOP_DB_CONNECTIONS
        assert [await _prepared(link) for link in links] == [[prepared]] * len(links)
        before = paths["loop"]
        for _ in range(6):
            seat, payload = await asyncio.to_thread(next_act, lt, live_id)
            answer = await asgi_async(application, *act_request(live_id, keys[seat], payload))
            assert answer[0] == 200
        assert paths["loop"] == before + 6  # (all six on the loop)
        assert sorted(map(id, aiodb.database._idle)) == sorted(map(id, links))
        assert [await _prepared(link) for link in links] == [[prepared]] * len(links)
        assert await stop() == {"type": "lifespan.shutdown.complete"}
        await comm.wait(5)
        return links

    prepared = fast_act._act_statement().replace("%s", "$")
    links = async_to_sync(served)()
    assert aiodb.database.connections() == 0 and all(link.closed for link in links)
    assert viewed == []


async def _prepared(conn) -> list[str]:
    """The statements prepared on ``conn``, their placeholders as ``$``."""
    import re

    cursor = await conn.execute("SELECT statement FROM pg_prepared_statements "
                                "WHERE statement NOT LIKE '%%pg_prepared_statements%%'")
    return [re.sub(r"\$\d+", "$", row[0]) for row in await cursor.fetchall()]


def test_the_server_starts_when_the_database_cannot_be_reached(monkeypatch, caplog):
    """No connection at start (the database down, or slow): the server starts anyway, and the
    connections open with the first acts, as they did before."""
    from config.asgi import Handler

    async def refused():
        raise OperationalError("connection refused")

    monkeypatch.setattr(aiodb, "_open", refused)

    async def served():
        comm, start, stop = lifespan(Handler())
        assert await start() == {"type": "lifespan.startup.complete"}
        assert aiodb.database.connections() == 0
        assert await stop() == {"type": "lifespan.shutdown.complete"}
        await comm.wait(5)

    async_to_sync(served)()
    assert "could not be opened at start-up" in caplog.text
