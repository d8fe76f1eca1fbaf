"""Redis on the event loop (config/loopredis.py: each loop's redis.asyncio client, on a
capped pool) and the throttles' counting there (config.ratelimit.count_on_redis), against the
local Redis: one client a loop and a URL, its database selected; however many acts count at
once, no more than :data:`config.loopredis.MAX_CONNECTIONS` connections; a Redis that does not
answer fails within the timeout, without a retry; and the loop counts exactly what the cache's
own client counts, on the same keys of the same database."""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from types import SimpleNamespace

import pytest
import redis as redis_py

from config import loopredis, outage, ratelimit
from live import notify
from tests.live.test_live_notify import redis_up

pytestmark = pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")

URL = "redis://127.0.0.1:6379/12"


@pytest.fixture
def silent_redis():
    """The URL of a server that accepts connections and never answers."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    yield f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
    silent.close()


def _loop_connections() -> int:
    """The connections of this database that the loops' clients opened (their name)."""
    return sum(1 for c in redis_py.Redis.from_url(URL).client_list()
               if c["name"] == loopredis.NAME and c["db"] == "12")


def test_a_loop_has_one_client_a_url_and_it_selects_the_urls_database():
    key = f"loopredis-test:{uuid.uuid4().hex}"

    async def run():
        redis = loopredis.client(URL)
        assert loopredis.client(URL) is redis
        await redis.set(key, "on twelve", ex=60)
        await loopredis.close_all()
        return redis

    first = asyncio.run(run())
    assert redis_py.Redis.from_url(URL).get(key) == b"on twelve"
    assert redis_py.Redis.from_url("redis://127.0.0.1:6379/0").get(key) is None

    async def again():
        return loopredis.client(URL)

    assert asyncio.run(again()) is not first  # (another loop, another client)


def test_concurrent_acts_and_announcements_share_a_few_connections(settings):
    """300 acts counted at once, each taking a new block of its own counters, and 300
    announcements: every count right, every announcement sent, and the loop opened
    :data:`config.loopredis.MAX_CONNECTIONS` connections at most for the throttles (an uncapped
    pool opened one for each act waiting on a round trip) and one for the announcements."""
    settings.LIVE_PUBSUB_URL = URL
    prefix = uuid.uuid4().hex
    heard = redis_py.Redis.from_url(URL).pubsub(ignore_subscribe_messages=True)
    heard.subscribe(f"loopredis-test:{prefix}")

    async def run():
        before = _loop_connections()
        counted = asyncio.gather(*(
            ratelimit.count_on_redis(URL, [f"loopredis-test:{prefix}:{n}:{k}" for k in "ab"],
                                     [60, 60], [3000, 1200]) for n in range(300)))
        for n in range(300):
            notify._publish(f"loopredis-test:{prefix}", str(n).encode())
        counts = await counted
        while notify.LoopPublisher.of(asyncio.get_running_loop(), URL)._sending is not None:
            await asyncio.sleep(0.01)
        opened = _loop_connections() - before
        await loopredis.close_all()
        return counts, opened

    outage.reset()
    try:
        counts, opened = asyncio.run(run())
        got = []
        deadline = time.monotonic() + 5
        while len(got) < 300 and time.monotonic() < deadline:
            message = heard.get_message(timeout=0.5)
            if message:
                got.append(int(message["data"]))
    finally:
        heard.close()
    assert counts == [[1, 1]] * 300 and not outage.CACHE.is_open
    assert got == list(range(300))
    assert 2 <= opened <= 3 and loopredis.MAX_CONNECTIONS == 2  # (the pool's, the publisher's)


def test_a_redis_that_does_not_answer_fails_within_the_timeout_without_a_retry(silent_redis):
    """A server that takes the connection and never answers: the command fails after
    :data:`config.loopredis.TIMEOUT` (once: no retry), and an act's throttles are counted in
    the process instead, the cache's breaker open."""

    async def run():
        started = time.monotonic()
        with pytest.raises(redis_py.RedisError):
            await loopredis.client(silent_redis).ping()
        failed_after = time.monotonic() - started
        outage.reset()
        counts = await ratelimit.count_on_redis(silent_redis, ["loopredis-test:silent"], [60],
                                                [100])
        await loopredis.close_all()
        return failed_after, counts

    try:
        failed_after, counts = asyncio.run(run())
        assert loopredis.TIMEOUT * 0.9 <= failed_after < loopredis.TIMEOUT * 1.9
        assert counts == [1] and outage.CACHE.is_open
    finally:
        outage.reset()


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
    script = ratelimit._lease_on_loop

    async def run():
        async def recorded(redis, keys, args):
            round_trips.append(len(keys))
            return await script(redis, keys, args)

        ratelimit._lease_on_loop = recorded
        try:
            return [await ratelimit.count_on_redis(*where) for _ in range(times)]
        finally:
            ratelimit._lease_on_loop = script
            await loopredis.close_all()

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


def test_the_servers_stop_closes_the_loops_connections(monkeypatch):
    from api import fast_act
    from config.asgi import Handler
    from tests.live.helpers import lifespan

    async def nothing():
        return None

    monkeypatch.setattr(fast_act, "warm", nothing)  # (no database: only Redis is looked at)

    async def served():
        comm, start, stop = lifespan(Handler())
        assert await start() == {"type": "lifespan.startup.complete"}
        redis = loopredis.client(URL)
        assert await redis.ping()
        (connection,) = redis.connection_pool._available_connections
        held = loopredis.connection(URL, closed_at_stop=True)
        await held.connect()
        # when: the server stops
        assert await stop() == {"type": "lifespan.shutdown.complete"}
        await comm.wait(5)
        # then: the loop's connections are closed; the next caller has another client
        assert not connection.is_connected and not held.is_connected
        again = loopredis.client(URL)
        assert again is not redis and await again.ping()
        await loopredis.close_all()

    asyncio.run(served())
