"""Redis down: what each of its uses does without it, and the breaker that keeps a dead Redis
from costing every request a timeout.

Redis holds three things here, none of them a record: the cache (``CACHE_URL``: the throttles'
counters, hints that save repeated work, the spectators' timeline), the Celery broker
(``CELERY_BROKER_URL``: standings, ratings, draws, 托管 timers) and live play's pub/sub
(``LIVE_PUBSUB_URL``: the announcements that wake streams). The results, the acts and the
logins are in the database, so a Redis outage degrades the service, never what it stores:

- the cache becomes the process's own memory (:class:`config.cache.RedisCache`): reads miss
  what was in Redis, writes stay in the process; every limit then holds *per process*
  (:func:`config.ratelimit.count_requests`), so a client gets at most the number of processes
  times its limit, and logins are still locked out by django-axes, whose failures are counted
  in the database. Failing open without a count would let a guesser through unbounded for as
  long as Redis is down; refusing every request after some seconds would turn a cache outage
  into an outage of the whole API — the failure this is here to prevent. A per-process count
  is the bound that costs nobody an answer;
- a task that cannot be queued is logged and left to the beat sweeps that find what it would
  have done once Redis is back (``standings-sweep``, ``draw-sweep``, ``live-sweep``); only a
  request whose whole point is a task — opening a round, whose draw runs on a worker — is
  refused, before anything is stored, with a 503 ``queue_unavailable`` and ``Retry-After``
  (:func:`config.celery.queue_ready`);
- announcements are skipped: streams and long-polls read the game's version every
  ``live.notify.FALLBACK_POLL`` seconds while pub/sub is down, and so catch up.

Each use has a :class:`Breaker`: after a failure the process leaves Redis alone for
:data:`RETRY_SECONDS`, then one caller tries again; every connection attempt gives up after
:data:`TIMEOUT` (connect and read). A dead Redis therefore costs each process one failed
attempt every few seconds, not one per request; and it is logged once per
:data:`LOG_SECONDS`, not once per request, with how many requests went without it.
"""

from __future__ import annotations

import logging
import threading
import time

from django.core.cache.backends.locmem import LocMemCache
from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)

#: seconds a Redis connection may take to connect, and a command to be answered
TIMEOUT = 0.5
#: seconds a process leaves Redis alone after a failure (and the ``Retry-After`` of a request
#: refused for it)
RETRY_SECONDS = 3
#: seconds between two warnings about one outage
LOG_SECONDS = 60.0


class Skipped(OperationalError):
    """A task not queued because the broker is known to be down (:data:`BROKER` open): raised
    at once, without a connection attempt, where kombu would raise after its own; the outage
    is logged by the breaker, not again by each caller."""


def redis_errors() -> tuple[type[BaseException], ...]:
    """What "Redis is not there" raises: redis-py's connection and timeout errors (a server
    loading its data, or a replica that refuses writes during a failover, among them; the
    socket's own errors come wrapped in them), and the broker's (kombu wraps those)."""
    import redis

    return redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError, OperationalError


class Breaker:
    """One use of Redis in this process (:data:`CACHE`, :data:`BROKER`, :data:`PUBSUB`): closed
    while Redis answers; open for :data:`RETRY_SECONDS` after a failure, when :meth:`allows`
    says to go without it. Then one caller is let through to try: its success closes it, its
    failure opens it again. Thread-safe; closed, a check is one attribute read."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self.down_since: float | None = None  # (time.monotonic())
        self._retry_at = 0.0
        self._logged_at = float("-inf")
        self._without = 0  # requests that went without Redis since the last warning

    @property
    def is_open(self) -> bool:
        return self.down_since is not None

    def allows(self) -> bool:
        """Whether to use Redis now: closed, or open and the time come for one more try (this
        caller's; the others go without it until that try is over)."""
        if self.down_since is None:
            return True
        now = time.monotonic()
        with self._lock:
            if now >= self._retry_at:
                self._retry_at = now + RETRY_SECONDS
                return True
            self._without += 1
            return False

    def failed(self, exc: BaseException, doing: str) -> None:
        """Redis failed ``doing`` something: open (again) for :data:`RETRY_SECONDS`; a warning
        at the first failure of an outage and then once per :data:`LOG_SECONDS`."""
        now = time.monotonic()
        with self._lock:
            self._without += 1
            if self.down_since is None:
                self.down_since = now
            self._retry_at = now + RETRY_SECONDS
            if now - self._logged_at < LOG_SECONDS:
                return
            self._logged_at, without, self._without = now, self._without, 0
            down = now - self.down_since
        first_line = (str(exc).strip().splitlines() or [""])[0][:200]
        log.warning("Redis (%s) unavailable for %.0f s, %d request(s) went without it since "
                    "the last line; last failure %s: %s: %s; trying again every %d s",
                    self.name, down, without, doing, type(exc).__name__, first_line,
                    RETRY_SECONDS)

    def succeeded(self) -> None:
        """Redis answered: closed (and the outage's end logged)."""
        if self.down_since is None:
            return
        with self._lock:
            if self.down_since is None:
                return
            down = time.monotonic() - self.down_since
            self.down_since, self._without = None, 0
            self._logged_at = float("-inf")
        log.warning("Redis (%s) is back after %.0f s", self.name, down)

    def reset(self) -> None:
        with self._lock:
            self.down_since, self._retry_at, self._without = None, 0.0, 0
            self._logged_at = float("-inf")


CACHE = Breaker("cache")
BROKER = Breaker("broker")
PUBSUB = Breaker("pub/sub")
BREAKERS = (CACHE, BROKER, PUBSUB)

#: the cache of this process while the shared one is down (:class:`config.cache.RedisCache`,
#: the throttles' counters of :mod:`config.ratelimit`)
local_cache = LocMemCache("gouji-redis-outage", {"OPTIONS": {"MAX_ENTRIES": 50_000}})


def reset() -> None:
    """Every breaker closed and the local cache emptied (tests)."""
    for breaker in BREAKERS:
        breaker.reset()
    local_cache.clear()
