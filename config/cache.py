"""One Redis connection pool per process for Django's cache (``CACHE_URL``).

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

import threading

import redis


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
