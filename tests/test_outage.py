"""config/outage.py: the breaker of each use of Redis, the cache that falls back to the
process's memory and comes back to Redis, and the event loop's counting of an act's throttles
while Redis is down (api/fast_act.py's short path)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from config import outage, ratelimit
from config.cache import RedisCache
from tests.redisserver import PrivateRedis


def test_an_open_breaker_lets_one_caller_try_per_interval(monkeypatch, caplog):
    now = [1000.0]
    monkeypatch.setattr(outage.time, "monotonic", lambda: now[0])
    breaker = outage.Breaker("test")
    assert breaker.allows() and not breaker.is_open
    with caplog.at_level(logging.WARNING, logger="config.outage"):
        breaker.failed(ConnectionError("refused"), "testing")
        assert [breaker.allows() for _ in range(5)] == [False] * 5
        now[0] += outage.RETRY_SECONDS
        assert [breaker.allows() for _ in range(3)] == [True, False, False]  # one try
        breaker.failed(ConnectionError("refused"), "testing")  # within LOG_SECONDS: no line
        now[0] += outage.LOG_SECONDS
        breaker.failed(ConnectionError("refused"), "testing")  # a minute on: a line
        breaker.succeeded()
    assert breaker.allows() and not breaker.is_open
    lines = [r.getMessage() for r in caplog.records if r.name == "config.outage"]
    assert len(lines) == 3, lines
    assert lines[0].startswith("Redis (test) unavailable for 0 s")
    # (the five skipped, the two while one tried, and the two failures since the first line)
    assert "unavailable for 63 s, 9 request(s) went without it" in lines[1]
    assert lines[2] == "Redis (test) is back after 63 s"


@pytest.fixture
def private_redis():
    server = PrivateRedis()
    if server.binary is None:
        pytest.skip("redis-server is not installed")
    server.start()
    yield server
    server.close()


def test_the_cache_falls_back_to_the_process_and_comes_back_to_redis(private_redis,
                                                                     monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(outage.time, "monotonic", lambda: now[0])
    cache = RedisCache(private_redis.url(), {"OPTIONS": {"socket_connect_timeout": 0.5,
                                                         "socket_timeout": 0.5}})
    cache.set("kept", 1)
    assert cache.get("kept") == 1
    private_redis.kill()
    assert cache.get("kept") is None  # Redis gone: a miss, not an error…
    assert outage.CACHE.is_open
    assert cache.add("mark", 1) is True and cache.add("mark", 1) is False  # …the process's
    cache.set("meanwhile", 2)
    assert cache.get("meanwhile") == 2
    private_redis.start()
    assert cache.get("kept") is None  # still the process's until the breaker's try is due
    now[0] += outage.RETRY_SECONDS
    assert cache.get("meanwhile") is None  # back on Redis (which lost everything)
    assert not outage.CACHE.is_open
    cache.set("kept", 3)
    assert cache.get("kept") == 3


def test_the_event_loop_counts_an_acts_throttles_in_the_process_while_redis_is_down(
        redis_down):
    """``count_on_redis`` (the short path's throttles): a Redis that refuses counts here, and
    the limit still holds; with the breaker open, no connection is even tried."""
    server = redis_down.url
    counters = [("throttle_live_user:7:123", 61)]

    async def count(n):
        return [(await ratelimit.count_on_redis(server, [key for key, _t in counters],
                                                [t for _k, t in counters], [3]))[0]
                for _ in range(n)]

    assert asyncio.run(count(5)) == [1, 2, 3, 4, 5]
    assert outage.CACHE.is_open
