"""Redis on the event loop (config/loopredis.py) and the throttles' counting there
(config.ratelimit.count_on_redis), against the local Redis: commands pipelined on one
connection each get their own reply, an error reply fails only its command, a Redis that does
not answer fails what waits on it and is replaced, and the loop counts exactly what the
cache's own client counts, on the same keys of the same database."""

from __future__ import annotations

import asyncio
import socket
import uuid
from types import SimpleNamespace

import pytest
import redis as redis_py

from config import loopredis, ratelimit
from tests.live.test_live_notify import redis_up

pytestmark = pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")

URL = "redis://127.0.0.1:6379/7"


@pytest.fixture
def silent_redis():
    """The URL of a server that accepts connections and never answers."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    yield f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
    silent.close()


def test_pipelined_commands_each_get_their_own_reply_and_an_error_fails_only_its_own():
    key = f"loopredis-test:{uuid.uuid4().hex}"

    async def run():
        redis = await loopredis.client(URL)
        assert await loopredis.client(URL) is redis  # (one connection for the loop)
        replies = await asyncio.gather(
            *(redis.call("INCRBY", key, n) for n in range(1, 51)),
            redis.call("LPUSH", key, "x"),  # (a number is not a list)
            redis.call("GET", key), return_exceptions=True)
        await redis.call("DEL", key)
        return replies

    replies = asyncio.run(run())
    assert replies[:50] == [n * (n + 1) // 2 for n in range(1, 51)]
    assert isinstance(replies[50], loopredis.RedisError) and "WRONGTYPE" in str(replies[50])
    assert replies[51] == b"1275"


def test_the_commands_of_one_turn_of_the_loop_go_out_in_one_write(caplog):
    """Commands sent in one turn of the loop — awaited or unanswered — are written together;
    an unanswered command's reply is read and dropped (an error one logged), and the commands
    awaited after it get their own replies."""
    key = f"loopredis-test:{uuid.uuid4().hex}"
    writes = []

    async def run():
        redis = await loopredis.client(URL)
        transport_write = redis._transport.write
        redis._transport.write = lambda data: (writes.append(data), transport_write(data))
        try:
            redis.send_unanswered(loopredis.packed("SET", key, "a word", "EX", 60))
            redis.send_unanswered(loopredis.packed("INCR", key))  # (not a number: refused)
            replies = await asyncio.gather(redis.write(loopredis.packed("APPEND", key, "s")),
                                           redis.write(loopredis.packed("GET", key)))
            redis.send_unanswered(loopredis.packed("DEL", key))
            return replies, await redis.call("EXISTS", key)
        finally:
            del redis._transport.write

    assert asyncio.run(run()) == ([7, b"a words"], 0)
    assert [data.count(b"\r\n*") + 1 for data in writes] == [4, 2]  # (two turns)
    assert "Redis refused a command sent unanswered" in caplog.text
    assert loopredis.client_now(URL) is None  # (off an event loop: the caller's own way)


def test_a_redis_that_owes_too_many_replies_is_dropped(monkeypatch, silent_redis):
    """Unanswered commands pile up only so far: past :data:`config.loopredis.UNANSWERED`
    replies owed, the connection is taken for dead, closed, and the next client is another."""
    monkeypatch.setattr(loopredis, "UNANSWERED", 3)

    async def run():
        redis = await loopredis.client(silent_redis)
        for _ in range(3):
            redis.send_unanswered(loopredis.packed("PING"))
        with pytest.raises(loopredis.RedisError, match="not answering"):
            redis.send_unanswered(loopredis.packed("PING"))
        assert redis.closed and loopredis.client_now(silent_redis) is None  # (opening another)
        return redis, await loopredis.client(silent_redis)

    first, second = asyncio.run(run())
    assert second is not first and not second.closed


def test_the_database_of_the_url_is_selected():
    key = f"loopredis-test:{uuid.uuid4().hex}"

    async def run():
        redis = await loopredis.client(URL)
        await redis.call("SET", key, "on seven", "EX", 60)

    asyncio.run(run())
    assert redis_py.Redis.from_url(URL).get(key) == b"on seven"
    assert redis_py.Redis.from_url("redis://127.0.0.1:6379/0").get(key) is None


def test_a_redis_that_does_not_answer_fails_the_waiting_commands_and_is_replaced(
        monkeypatch, silent_redis):
    """A server that accepts the connection and never answers: the command fails after the
    timeout, the connection is closed, and the next call opens a new one."""
    monkeypatch.setattr(loopredis, "TIMEOUT", 0.2)

    async def run():
        redis = await loopredis.client(silent_redis)
        with pytest.raises(loopredis.RedisError, match="not answered"):
            await redis.call("PING")
        assert redis.closed
        with pytest.raises(loopredis.RedisError, match="closed"):
            await redis.call("PING")
        return redis, await loopredis.client(silent_redis)

    first, second = asyncio.run(run())
    assert second is not first and not second.closed


def test_a_script_unknown_to_the_server_is_sent_whole_once():
    script = loopredis.Script(f"return '{uuid.uuid4().hex}'")
    sent = []

    async def run():
        redis = await loopredis.client(URL)
        call = redis.call

        async def recorded(*words):
            sent.append(words[0])
            return await call(*words)
        redis.call = recorded
        try:
            return [await script(redis, [], []) for _ in range(3)]
        finally:
            del redis.call

    results = asyncio.run(run())
    assert len(set(results)) == 1 and sent == ["EVALSHA", "EVAL", "EVALSHA", "EVALSHA"]


def test_the_loop_counts_on_the_counters_the_caches_own_client_counts(settings):
    """The throttles' counters counted on the loop and by :func:`count_requests` (the cache's
    client, in a thread) are the same counters: the loop takes a block of each counter's
    numbers (a twentieth of its limit) and hands them out one a request; the cache's client
    counts after the blocks."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": URL, "KEY_PREFIX": uuid.uuid4().hex}}
    counters = [("throttle_user_1:99", 61), ("throttle_live_1:99", 61)]
    assert ratelimit.count_requests(counters) == [1, 1]
    where = ratelimit.on_redis(counters, [3000, 1200])
    assert where[0] == URL and where[2] == [61, 61] and where[3] == [3000, 1200]

    async def run():
        return [await ratelimit.count_on_redis(*where) for _ in range(3)]

    assert asyncio.run(run()) == [[2, 2], [3, 3], [4, 4]]
    redis = redis_py.Redis.from_url(URL)
    assert [int(redis.get(key)) for key in where[1]] == [1 + 150, 1 + 60]  # (the blocks)
    assert ratelimit.count_requests(counters[:1]) == [152]
    assert 0 < redis.ttl(where[1][0]) <= 61


def _loop_counts(where, times: int, round_trips: list) -> list[list[int]]:
    """``times`` counts of ``where`` on one event loop, and the script calls they made."""
    script = ratelimit._LEASE_ON_LOOP

    async def run():
        async def recorded(redis, keys, args):
            round_trips.append(len(keys))
            return await script(redis, keys, args)

        ratelimit._LEASE_ON_LOOP = recorded
        try:
            return [await ratelimit.count_on_redis(*where) for _ in range(times)]
        finally:
            ratelimit._LEASE_ON_LOOP = script

    return asyncio.run(run())


def test_the_loop_hands_out_a_block_per_round_trip_and_never_past_the_limit(settings):
    """At 100 a window, blocks of 5: 100 requests in 20 round trips, numbered 1 to 100, then
    every request refused (its number past the limit) and counted, one round trip each."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": URL, "KEY_PREFIX": uuid.uuid4().hex}}
    where = ratelimit.on_redis([("throttle_live_2:99", 61)], [100])
    round_trips = []
    assert _loop_counts(where, 100, round_trips) == [[n] for n in range(1, 101)]
    assert round_trips == [1] * 20
    round_trips.clear()
    assert _loop_counts(where, 3, round_trips) == [[101], [102], [103]]
    assert round_trips == [1] * 3
    assert int(redis_py.Redis.from_url(URL).get(where[1][0])) == 103


def test_processes_taking_blocks_of_one_counter_let_through_no_more_than_the_limit(settings):
    """Two processes (each its own blocks) and the cache's own client, one request at a time
    in turn, at 70 a window (blocks of 3): together they let through at most the limit, and
    the blocks' leftovers cost at most a block a process."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": URL, "KEY_PREFIX": uuid.uuid4().hex}}
    limit = 70
    counter = [("throttle_live_3:99", 61)]
    where = ratelimit.on_redis(counter, [limit])
    mine, theirs = ratelimit.Leases(), ratelimit.Leases()
    admitted = 0
    try:
        for turn in range(120):
            if turn % 3 == 2:
                n = ratelimit.count_requests(counter)[0]
            else:
                ratelimit.leases = mine if turn % 3 == 0 else theirs
                n = _loop_counts(where, 1, [])[0][0]
            admitted += n <= limit
    finally:
        ratelimit.leases = ratelimit.Leases()
    assert limit - 2 * ratelimit.lease_size(limit) <= admitted <= limit


def test_a_block_of_an_ended_window_is_swept(monkeypatch):
    leases = ratelimit.Leases()
    assert leases.keep("a:1", 10, 5, 61) == 6 and leases.take("a:1") == 7
    later = ratelimit.time.time() + 62
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: later))
    assert leases.keep("b:2", 5, 5, 61) == 1
    assert leases.take("a:1") is None and leases.take("b:2") == 2


def test_another_cache_is_not_counted_on_the_loop(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert ratelimit.on_redis([("throttle_user_1:99", 61)], [3000]) is None


def test_a_redis_cache_whose_options_say_how_to_connect_counts_with_its_own_client(settings):
    """The loop's connection knows the cache's URL only: a database or a password given in
    ``OPTIONS`` would have it count elsewhere, so such a cache is not counted on the loop."""
    redis_cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": URL,
                   "OPTIONS": {"pool_class": "config.cache.SharedConnectionPool"}}
    settings.CACHES = {"default": redis_cache}
    assert ratelimit.on_redis([("throttle_user_1:99", 61)], [3000]) is not None
    settings.CACHES = {"default": {**redis_cache, "OPTIONS": {"db": 3}}}
    assert ratelimit.on_redis([("throttle_user_1:99", 61)], [3000]) is None


def test_the_servers_stop_closes_the_loops_connection(monkeypatch):
    from api import fast_act
    from config.asgi import Handler
    from tests.live.helpers import lifespan

    async def nothing():
        return None

    monkeypatch.setattr(fast_act, "warm", nothing)  # (no database: only Redis is looked at)

    async def served():
        comm, start, stop = lifespan(Handler())
        assert await start() == {"type": "lifespan.startup.complete"}
        redis = await loopredis.client(URL)
        assert await redis.call("PING") == b"PONG"
        # when: the server stops
        assert await stop() == {"type": "lifespan.shutdown.complete"}
        await comm.wait(5)
        # then: the loop's connection is closed; the next caller opens another
        assert redis.closed
        again = await loopredis.client(URL)
        assert again is not redis and await again.call("PING") == b"PONG"
        loopredis.close_all()
        assert again.closed

    asyncio.run(served())
