"""Counting requests in fixed windows, and the client's address: what every HTTP room (the API's
throttles, the pages' limits) shares, so it is written once, here beside the settings it reads.

Requests are counted with the cache's atomic ``add`` and ``incr``: each request takes its number
first and is refused past the limit, however many arrive at once (DRF's own throttles read the
history and write it back: 8 clients got 517 of 900 requests through a limit of 300). The
windows are on the shared cache (``CACHE_URL``) when there is one.

The client's address is REMOTE_ADDR unless ``TRUSTED_PROXY_COUNT`` proxies stand in front of
the server: a client can write any X-Forwarded-For, so only the addresses our proxies added
count (:func:`client_address`).
"""

from __future__ import annotations

import pickle
import time
import zlib

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.locmem import LocMemCache
from redis.exceptions import RedisError

from config import loopredis, outage


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


def window_phase(ident: str) -> float:
    """Where the windows of the client ``ident`` names start, as a share of a window (0 to 1),
    the same in every process. Windows that start together for everyone end together too, and
    then every client's first request finds its counters new: a stream server would take a new
    block (:class:`Leases`) for nearly every live act at the same moment. Each client's
    windows still hold its limit; they end at the client's own moment."""
    return zlib.crc32(ident.encode()) / 2**32


def key_phase(key: str) -> float:
    """:func:`window_phase` of the counter ``key``: of whom it counts — its ident, the last
    field of a throttle's ``cache_format`` (``throttle_<scope>_<ident>``) — never of who sends
    the request, so that one username's counter is one counter from every address. One
    client's counters (its user's or its address's, in every scope) share the phase: one round
    trip renews them all (:func:`count_on_redis`)."""
    return window_phase(key.rpartition("_")[2])


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
        (:meth:`counter`, in its key's windows: :func:`key_phase`); ``None`` when this
        throttle does not count it (no rate, no key, or counted before it reached the view)."""
        if self.rate is None or counted_already(request):
            return None
        key = self.get_cache_key(request, view)
        return None if key is None else self.counter(key, key_phase(key))

    def counter(self, key: str, phase: float = 0.0) -> tuple[str, int]:
        """The counter of ``key`` in the current window, and its timeout: windows of the rate's
        duration that start ``phase`` of a window after the clock's (0 ≤ ``phase`` < 1)."""
        now = time.time() / self.duration + phase
        window = int(now)
        self.wait_seconds = (window + 1 - now) * self.duration
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
#: the Redis cache's ``OPTIONS`` that do not change where or how it connects (its timeouts
#: are the loop clients' too: :data:`config.loopredis.TIMEOUT`)
_NOT_CONNECTING = {"pool_class", "parser_class", "serializer", "socket_connect_timeout",
                   "socket_timeout"}


def count_request(counter: str, timeout: int) -> int:
    """Add one to ``counter`` (created at 1, expiring after ``timeout`` seconds); its new
    value. On Redis one script call, one round trip (the cache's ``add`` then ``incr`` were
    three); elsewhere the cache's atomic ``add`` and ``incr``. While Redis is down, in this
    process's memory (:func:`count_requests`)."""
    return count_requests([(counter, timeout)])[0]


def count_requests(counters: list[tuple[str, int]]) -> list[int]:
    """:func:`count_request` on each (counter, timeout) of ``counters``: their new values. On
    Redis one round trip for all of them (the writes of Django's Redis cache all go to its
    first server).

    While Redis is down (its breaker open, or this call finding it so) the counters are this
    process's, in :data:`config.outage.local_cache`: each limit then holds per process, and
    the requests go on (:mod:`config.outage` says why neither a 503 nor no count at all)."""
    from django.core.cache.backends.redis import RedisCache

    if not counters:
        return []
    backend = caches[DEFAULT_CACHE_ALIAS]
    if isinstance(backend, RedisCache):
        if outage.CACHE.allows():
            try:
                counts = _count_on_redis_cache(backend, counters)
            except outage.redis_errors() as exc:
                outage.CACHE.failed(exc, "counting requests")
            else:
                outage.CACHE.succeeded()
                return counts
        return count_locally([(backend.make_and_validate_key(counter), timeout)
                              for counter, timeout in counters])
    if type(backend) is LocMemCache:  # (the backend looked up once: a context-local lookup)
        return [_count_in_local_memory(backend, counter, timeout)
                for counter, timeout in counters]
    return [_count_in_cache(counter, timeout) for counter, timeout in counters]


def _count_on_redis_cache(backend, counters: list[tuple[str, int]]) -> list[int]:
    keys = [backend.make_and_validate_key(counter) for counter, _timeout in counters]
    client = backend._cache.get_client(keys[0], write=True)
    script = _scripts.get("count")
    if script is None:  # (the script's digest; each call runs it on the client given)
        script = _scripts["count"] = client.register_script(_COUNT_SCRIPT)
    return [int(n) for n in script(keys=keys, args=[t for _c, t in counters], client=client)]


def count_locally(counters: list[tuple[str, int]]) -> list[int]:
    """:func:`count_requests` in this process's memory, while Redis is down: each (key, timeout)
    of ``counters``, the key as the Redis cache makes it (so that the event loop's counts and
    the views' meet on one counter)."""
    return [_count_in_local_memory(outage.local_cache, counter, timeout)
            for counter, timeout in counters]


def on_redis(counters: list[tuple[str, int]], limits: list[int]
             ) -> tuple[str, list[str], list[int], list[int]] | None:
    """What :func:`count_on_redis` counts ``counters`` (``(counter, timeout)``, their throttles'
    ``limits`` beside them) with: the cache's first server (where its writes go), the
    counters' keys, their timeouts and the limits, as :func:`count_requests` counts them;
    ``None`` when the cache is not Redis, or its ``OPTIONS`` say how to connect (a database,
    a password…) beyond what its URL says: the loop's connection knows the URL only, so the
    cache's own client counts then."""
    from django.core.cache.backends.redis import RedisCache

    backend = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(backend, RedisCache) or set(backend._options) - _NOT_CONNECTING:
        return None
    return (backend._servers[0], [backend.make_and_validate_key(c) for c, _t in counters],
            [timeout for _c, timeout in counters], list(limits))


#: the share of a throttle's limit the event loop takes from a Redis counter at once
#: (:class:`Leases`): a block of a twentieth, at least one number
LEASE_SHARE = 20

#: Redis: take a block of numbers of each counter — ``ARGV`` holds, for each key, the block
#: wanted, the counter's timeout and its limit — never past the limit (at least one number, so
#: a request past it is counted, as :data:`_COUNT_SCRIPT` counts it); a new counter gets its
#: expiry. The reply: each counter's new value (the block's last number) and the block's size.
_LEASE_SCRIPT = """
local out = {}
for i, key in ipairs(KEYS) do
  local have = tonumber(redis.call('GET', key) or '0')
  local take = math.max(1, math.min(tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i]) - have))
  local n = redis.call('INCRBY', key, take)
  if n == take then redis.call('EXPIRE', key, ARGV[3 * i - 1]) end
  out[2 * i - 1] = n
  out[2 * i] = take
end
return out"""
_lease_script = None  # (an AsyncScript: its digest; each call runs it on the client given)


class Leases:
    """The blocks of the throttles' counters (their numbers in the current window) this
    process took from Redis and has not handed out yet, on its event loop (one loop: no lock).

    The live act is the only request the event loop counts (api/fast_act.py). A round trip to
    Redis for each act cost a tenth of a stream server's CPU, so the loop takes a block of a
    counter's numbers — :data:`LEASE_SHARE` of its limit, never past it — and hands them to the
    requests that follow in the same window. Nothing gets past a limit: every number handed
    out was taken from the shared counter first. A number taken and not handed out (the
    window ended, another process's block came first) counts as a request, so a client spread
    over several processes may be refused up to a block a process before its limit; one that
    sends a game's acts to one process (docs/DEPLOY.md's layout) is refused exactly at it."""

    def __init__(self):
        #: key -> [the next number to hand out, the block's last, when its counter expires]
        self._blocks: dict[str, list] = {}
        self._swept = time.time()

    def take(self, key: str) -> int | None:
        """The next number of ``key``'s block, or ``None`` when none is left here."""
        block = self._blocks.get(key)
        if block is None or block[0] > block[1]:
            return None
        block[0] += 1
        return block[0] - 1

    def keep(self, key: str, last: int, taken: int, timeout: int) -> int:
        """Note the block of ``taken`` numbers up to ``last`` that Redis gave ``key``; the
        first of them, for the request that asked."""
        now = time.time()
        if now - self._swept > SWEEP_SECONDS:  # (the windows that ended: their keys are dead)
            self._blocks = {k: b for k, b in self._blocks.items() if b[2] > now}
            self._swept = now
        first = last - taken + 1
        if taken > 1:
            self._blocks[key] = [first + 1, last, now + timeout]
        return first


#: seconds between the sweeps of the blocks of ended windows (:meth:`Leases.keep`)
SWEEP_SECONDS = 60
leases = Leases()


def lease_size(limit: int) -> int:
    """How many numbers of a counter whose throttle allows ``limit`` the loop takes at once."""
    return max(1, limit // LEASE_SHARE)


async def count_on_redis(server: str, keys: list[str], timeouts: list[int],
                         limits: list[int]) -> list[int]:
    """:func:`count_requests` on Redis (:func:`on_redis` gave the arguments) from the running
    event loop, without a thread: each counter's number for this request, from the block this
    process holds (:class:`Leases`) or, when none is left, from a new block taken in one
    script call on the loop's client (:func:`config.loopredis.client`) for all the
    counters that need one. A number past a limit means the request is refused, as with
    :func:`count_requests`. While Redis is down (:data:`config.outage.CACHE`), or when it
    fails or does not answer here, the counters that needed a new block are counted in this
    process's memory instead, as :func:`count_requests` counts them then (a failed call may
    have counted in Redis too: one request counted twice, never none).

    It runs on the event loop because the production layout counts throttles in Redis: a hop
    to a thread for this one round trip would cost more than the act."""
    counts: list[int | None] = [leases.take(key) for key in keys]
    due = [i for i, n in enumerate(counts) if n is None]
    if due:
        reply = None
        if outage.CACHE.allows():
            args = []
            for i in due:
                args += [lease_size(limits[i]), timeouts[i], limits[i]]
            try:
                reply = await _lease_on_loop(loopredis.client(server), [keys[i] for i in due],
                                             args)
            except (RedisError, OSError) as exc:  # (OSError: the socket's own)
                outage.CACHE.failed(exc, "counting an act's requests on the event loop")
            else:
                outage.CACHE.succeeded()
        if reply is None:
            for i, n in zip(due, count_locally([(keys[i], timeouts[i]) for i in due]),
                            strict=True):
                counts[i] = n
        else:
            for j, i in enumerate(due):
                counts[i] = leases.keep(keys[i], int(reply[2 * j]), int(reply[2 * j + 1]),
                                        timeouts[i])
    return counts


async def _lease_on_loop(redis, keys: list[str], args: list) -> list:
    """:data:`_LEASE_SCRIPT` on ``redis`` (redis.asyncio's script: ``EVALSHA``, the source
    sent whole the first time a server does not know it)."""
    global _lease_script
    if _lease_script is None:
        _lease_script = redis.register_script(_LEASE_SCRIPT)
    return await _lease_script(keys=keys, args=args, client=redis)


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
    made the key three times and pickled four times, a twentieth of a live act's CPU on the
    ASGI server (``bench_live --streams``)."""
    key = backend.make_key(counter)
    with backend._lock:
        if backend._has_expired(key):
            backend._set(key, pickle.dumps(1, backend.pickle_protocol), timeout)
            return 1
        count = pickle.loads(backend._cache[key]) + 1
        backend._cache[key] = pickle.dumps(count, backend.pickle_protocol)
        backend._cache.move_to_end(key, last=False)
        return count
