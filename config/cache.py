"""Django's cache on Redis (``CACHE_URL``): one connection pool per process, and a Redis outage
that fails no request (:class:`RedisCache`).

Django keeps a cache backend per thread, and under ASGI per request (its connection handlers
are context-local), and each :class:`~django.core.cache.backends.redis.RedisCache` builds its
own connection pool: every request served by uvicorn opened a Redis connection of its own and
held it while it lived. An open event stream lives for minutes, so 10,000 streams held 10,000
connections (Redis refuses clients past ``maxclients``, 10,000 by default); ``bench_live``'s
smoke counted 63 for 60 streams. :class:`SharedConnectionPool` (the backend's ``pool_class``,
config/settings.py) hands every backend of the process the same pool for the same address and
options, so the process holds only the connections in use at once.
"""

from __future__ import annotations

import functools
import threading

import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

from config import outage


class SharedConnectionPool(redis.ConnectionPool):
    """A ``redis.ConnectionPool`` whose :meth:`from_url` gives the process's one pool for that
    URL and those options (redis-py's pool itself notices a fork and starts afresh)."""

    _pools: dict[tuple, SharedConnectionPool] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs) -> SharedConnectionPool:
        key = (url, tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
        with cls._lock:
            pool = cls._pools.get(key)
            if pool is None:
                pool = cls._pools[key] = super().from_url(url, **kwargs)
            return pool


#: the operations of Django's Redis cache (BaseCache's others — get_or_set, decr, the async
#: ones — are made of these)
_OPERATIONS = ("add", "get", "set", "touch", "delete", "get_many", "has_key", "incr",
               "set_many", "delete_many", "clear")


class RedisCache(DjangoRedisCache):
    """Django's Redis cache, on this process's memory while Redis is down
    (:data:`config.outage.local_cache`; :mod:`config.outage` says why): an operation that
    fails to reach Redis, or that the breaker (:data:`config.outage.CACHE`) keeps from trying,
    is done on the local cache instead, whose answers have the same meaning (``add`` is true
    only for the process's first). What was in Redis is missed, and what is written meanwhile
    stays in the process and expires there; every use of the cache here is a count or a hint
    that a miss only makes repeat (the standings' and ratings' queued marks, a 托管 timer's,
    the spectators' timeline, the pages' small caches)."""


def _degrading(name: str):
    on_redis = getattr(DjangoRedisCache, name)

    @functools.wraps(on_redis)
    def operation(self, *args, **kwargs):
        if outage.CACHE.allows():
            try:
                result = on_redis(self, *args, **kwargs)
            except outage.redis_errors() as exc:
                outage.CACHE.failed(exc, f"cache.{name}")
            else:
                outage.CACHE.succeeded()
                return result
        return getattr(outage.local_cache, name)(*args, **kwargs)

    return operation


for _name in _OPERATIONS:
    setattr(RedisCache, _name, _degrading(_name))
