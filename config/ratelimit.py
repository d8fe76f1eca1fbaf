"""Counting requests in fixed windows, and the client's address: what every HTTP room (the API's
throttles, the pages' limits) shares, so it is written once, here beside the settings it reads.

Requests are counted with the cache's atomic ``add`` and ``incr``: each request takes its number
first and is refused past the limit, however many arrive at once (DRF's own throttles read the
history and write it back, so requests arriving together all passed: 8 clients got 517 of 900
requests through a limit of 300 a minute). The windows are on the shared cache (``CACHE_URL``)
when there is one.

The client's address is REMOTE_ADDR unless ``TRUSTED_PROXY_COUNT`` proxies stand in front of
the server: a client can write any X-Forwarded-For, so only the addresses our proxies added
count (:func:`client_address`).
"""

from __future__ import annotations

import pickle
import time

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.locmem import LocMemCache

from config import loopredis


def client_address(request) -> str:
    """The client's address as our ``TRUSTED_PROXY_COUNT`` proxies saw it: each of them
    appends the address it was reached from to X-Forwarded-For, so the client is that many
    entries from the right; whatever the client wrote further left is ignored. With no proxy,
    the connection's own address."""
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies and forwarded:
        addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
        if addresses:
            return addresses[-min(proxies, len(addresses))]
    return request.META.get("REMOTE_ADDR", "")


#: set in an ASGI request's scope by a path that has counted the request against the view's
#: throttles already and then hands it to the view (api/fast_act.py): the view's throttles let
#: it through without counting it twice (a client cannot set a key of the scope)
COUNTED = "gouji.counted"


def counted_already(request) -> bool:
    """Whether ``request`` (Django's, or DRF's around it) was counted before it reached the
    view (:data:`COUNTED`)."""
    scope = getattr(getattr(request, "_request", request), "scope", None)
    return bool(scope and scope.get(COUNTED))


class AtomicWindowMixin:
    """``allow_request`` on fixed windows of the rate's duration, counted atomically."""

    def get_ident(self, request):
        return client_address(request)

    def allow_request(self, request, view):
        counter = self.counter_for(request, view)
        return counter is None or count_request(*counter) <= self.num_requests

    def counter_for(self, request, view) -> tuple[str, int] | None:
        """The counter of the current window that ``request`` counts on, with its timeout
        (:meth:`counter`); ``None`` when this throttle does not count it (no rate, no key, or
        counted before it reached the view)."""
        if self.rate is None or counted_already(request):
            return None
        key = self.get_cache_key(request, view)
        return None if key is None else self.counter(key)

    def counter(self, key: str) -> tuple[str, int]:
        """The counter of ``key`` in the current window, and its timeout."""
        now = time.time()
        window = int(now // self.duration)
        self.wait_seconds = (window + 1) * self.duration - now
        return f"{key}:{window}", self.duration + 1

    def wait(self):
        return self.wait_seconds


#: Redis: count one request on each counter and give a new counter its expiry, in one atomic
#: round trip
_COUNT_SCRIPT = """
local counts = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('EXPIRE', key, ARGV[i]) end
  counts[i] = n
end
return counts"""
_scripts: dict = {}
_COUNT_ON_LOOP = loopredis.Script(_COUNT_SCRIPT)
#: the Redis cache's ``OPTIONS`` that do not change where or how it connects
_NOT_CONNECTING = {"pool_class", "parser_class", "serializer"}


def count_request(counter: str, timeout: int) -> int:
    """Add one to ``counter`` (created at 1, expiring after ``timeout`` seconds); its new
    value. On Redis one script call, one round trip: the cache's ``add`` then ``incr`` (which
    asks whether the key exists first) were three for most requests, three per throttle, six
    for every authenticated API request (``bench_live``'s acts, py-spy). Elsewhere the cache's
    atomic ``add`` and ``incr``."""
    return count_requests([(counter, timeout)])[0]


def count_requests(counters: list[tuple[str, int]]) -> list[int]:
    """:func:`count_request` on each (counter, timeout) of ``counters``: their new values. On
    Redis one round trip for all of them (the writes of Django's Redis cache all go to its
    first server): a live act's throttles, two round trips, each waited for in a thread that
    then had to win the GIL back from the event loop (``bench_live --streams``)."""
    from django.core.cache.backends.redis import RedisCache

    if not counters:
        return []
    backend = caches[DEFAULT_CACHE_ALIAS]
    if isinstance(backend, RedisCache):
        keys = [backend.make_and_validate_key(counter) for counter, _timeout in counters]
        client = backend._cache.get_client(keys[0], write=True)
        script = _scripts.get("count")
        if script is None:  # (the script's digest; each call runs it on the client given)
            script = _scripts["count"] = client.register_script(_COUNT_SCRIPT)
        return [int(n) for n in script(keys=keys, args=[t for _c, t in counters],
                                       client=client)]
    if type(backend) is LocMemCache:  # (the backend looked up once: a context-local lookup)
        return [_count_in_local_memory(backend, counter, timeout)
                for counter, timeout in counters]
    return [_count_in_cache(counter, timeout) for counter, timeout in counters]


def on_redis(counters: list[tuple[str, int]]) -> tuple[str, list[str], list[int]] | None:
    """What :func:`count_on_redis` counts ``counters`` (``(counter, timeout)``) with: the
    cache's first server (where its writes go), the counters' keys and their timeouts, as
    :func:`count_requests` counts them; ``None`` when the cache is not Redis, or its
    ``OPTIONS`` say how to connect (a database, a password…) beyond what its URL says: the
    loop's connection knows the URL only, so the cache's own client counts then."""
    from django.core.cache.backends.redis import RedisCache

    backend = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(backend, RedisCache) or set(backend._options) - _NOT_CONNECTING:
        return None
    return (backend._servers[0], [backend.make_and_validate_key(c) for c, _t in counters],
            [timeout for _c, timeout in counters])


async def count_on_redis(server: str, keys: list[str], timeouts: list[int]) -> list[int]:
    """:func:`count_requests` on Redis (:func:`on_redis` gave the arguments) from the running
    event loop, without a thread: the same script on the same keys, sent on the loop's own
    connection (:func:`config.loopredis.client`). A Redis that fails or does not answer raises
    :class:`config.loopredis.RedisError` (the counters may have counted).

    A stream server whose throttles count in Redis — the production layout: one cache for
    every process — sent every act to a stream database thread for this one round trip, and the
    hops cost more than the act (``bench_live --streams 10000 --broker …``,
    docs/BENCHMARKS.md, "Sixteenth pass")."""
    if not keys:
        return []
    redis = await loopredis.client(server)
    return [int(n) for n in await _COUNT_ON_LOOP(redis, keys, timeouts)]


def counts_in_process() -> bool:
    """Whether :func:`count_requests` counts in this process's memory (the local-memory cache:
    no round trip, so code on an event loop may count there)."""
    return isinstance(caches[DEFAULT_CACHE_ALIAS], LocMemCache)


def _count_in_cache(counter: str, timeout: int) -> int:
    # add() creates the counter only if it is absent, incr() raises if it has gone (a window
    # that just expired): both are single atomic operations on the other caches.
    if cache.add(counter, 1, timeout=timeout):
        return 1
    try:
        return cache.incr(counter)
    except ValueError:
        return 1 if cache.add(counter, 1, timeout=timeout) else cache.incr(counter)


def _count_in_local_memory(backend: LocMemCache, counter: str, timeout: int) -> int:
    """:func:`_count_in_cache` on Django's local-memory cache in one step under its lock, as
    its ``add`` and ``incr`` leave the counter (a pickled number, with its expiry): those two
    made the key three times, checked it for memcached's sake each time (a warning only, for
    keys of ours) and pickled four times — a twentieth of a live act's CPU on the ASGI server,
    where its throttles count in the process (``bench_live --streams``)."""
    key = backend.make_key(counter)
    with backend._lock:
        if backend._has_expired(key):
            backend._set(key, pickle.dumps(1, backend.pickle_protocol), timeout)
            return 1
        count = pickle.loads(backend._cache[key]) + 1
        backend._cache[key] = pickle.dumps(count, backend.pickle_protocol)
        backend._cache.move_to_end(key, last=False)
        return count
