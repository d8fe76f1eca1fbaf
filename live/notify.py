"""Wake long-polling clients when a live game moves on (``GET /live/<id>/?since=&wait=``).

A waiting request must not poll the database: 300 seats re-reading their games five times a
second would be most of the server's work. Instead every committed change of a live game is
announced with :func:`announce` and waiters block in :func:`wait_for_version`:

- within one process, a :class:`threading.Condition` wakes the waiters at once;
- across processes (several gunicorn workers, Celery's 托管 worker), the announcement goes out
  on Redis pub/sub (``LIVE_PUBSUB_URL``; by default the Celery broker when it is Redis). Each
  process runs one listener thread, started with its first waiter, that feeds the same
  condition. If Redis is unreachable, or none is configured, waiters fall back to reading the
  game's version (one indexed integer) every ``FALLBACK_POLL`` seconds.

Announcements carry ``(id, version)`` and, for an act of the play, that act (:func:`announce`'s
``act``: the seat, its cards or its pass, the next turn's deadline, the seats in 托管), so that
a stream server holding the game one version back moves it on in memory instead of reading
the row and its whole state (:meth:`live.cache.GameCache.advance`). An act of the play
is what every seat and spectator sees at once; nothing hidden ever goes through Redis (no hand,
no pre-play act: tributes and 买3 are never carried). A carried act is signed with a key derived
from ``SECRET_KEY``: one not signed so is dropped (its version still wakes), and read instead.

Async waiters (the streams an ASGI server serves, config/asgi.py) wait in
:func:`wait_for_version_async` on their event loop's :class:`Dispatcher`: one Redis connection
subscribed to every game's channel, however many thousand streams wait; the versions they would
read now and then are read in one query for all of them.

The same listeners hear revocations (:data:`REVOKED_CHANNEL`, live.access): a private link
revoked, a sign-out, a deleted token, a seat's player given another login. An open stream or
long-poll watches the keys of the access it was opened on (:func:`watch`: its user's, its
event's); a revocation of one of them wakes it, and it checks its access at once
(live.streams). They are logged in the database too (:class:`live.models.Revocation`), and each
process reads that log (:func:`catch_up_revocations`) when it reads the versions: every
``FALLBACK_POLL`` seconds while pub/sub is down or none is configured, just after it
(re)subscribes, and every ``SAFETY_READ`` seconds all the same. So a revocation reaches every
process's streams within a second even while Redis is unreachable, for one indexed read per
process, not one per stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
import math
import os
import threading
import time
import weakref
from collections import OrderedDict
from datetime import timedelta

from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import transaction
from django.utils import timezone
from redis.exceptions import ResponseError

from config import loopredis, outage
from live import fastjson

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "gouji:live:"
FALLBACK_POLL = 0.25  # seconds between version reads when there is no pub/sub
SAFETY_READ = 5.0  # with pub/sub, seconds between version reads all the same
FRESH = 2.0  # seconds after (re)subscribing in which a waiter reads the version once first
#: an async wait of at least a second (a stream's keep-alive, a long-poll) ends within this
#: many seconds after its timeout: the waits that end in one such slice share one timer
#: (:meth:`Dispatcher.expire_at`)
EXPIRY_SLICE = 0.25
#: seconds from which an async wait's timeout is one of those shared timers (a shorter wait,
#: say a stream's last moments before its access check, has a timer of its own: its end late by
#: up to a slice would be a large part of it)
SHARED_TIMER_FROM = 1.0

_lock = threading.Lock()
_latest: dict[int, int] = {}  # live game id -> highest version announced to this process
_waiters: dict[int, set[threading.Event]] = {}  # live game id -> its waiters' events
_listener: threading.Thread | None = None
_listener_ok = threading.Event()
_subscribed_at = float("-inf")  # when Redis confirmed the subscription (time.monotonic())
_client = None
_dispatchers: dict[int, Dispatcher] = {}  # id(event loop) -> its dispatcher (async waiters)
#: (live game id, version) -> the act of the play that made that version, as announced
_acts: OrderedDict[tuple[int, int], dict] = OrderedDict()
ACTS_KEPT = 8192  # about the last 15 s of acts at 556 a second
#: what a carried act holds besides the act: the next deadline, the game's start, 托管 seats
ROW_KEYS = ("d", "t", "h")


def _redis_url() -> str | None:
    return getattr(settings, "LIVE_PUBSUB_URL", None) or None


def _redis():
    global _client
    if _client is None:
        import redis

        _client = redis.Redis.from_url(_redis_url(), socket_connect_timeout=outage.TIMEOUT,
                                       socket_timeout=2, health_check_interval=30)
    return _client


class Publisher:
    """This process's announcements to Redis, on a connection of its own: each ``PUBLISH`` is
    written without waiting for its reply (how many subscribers heard it, which nothing here
    uses); the replies are read :attr:`UNREAD` at a time, by then already arrived (waiting for
    each reply cost about 75 µs of CPU an act, ``bench_live --streams``).

    A failure (Redis gone, an error reply) raises, drops the connection (the next publish
    opens another) and may lose the announcements sent since the last replies were read, as a
    publish lost with a broken connection always could: waiters elsewhere read the version
    every ``SAFETY_READ`` seconds all the same. A forked child opens its own connection."""

    UNREAD = 32

    def __init__(self):
        self._lock = threading.Lock()
        self._connection = None
        self._pid = None
        self._url = None
        self._unread = 0

    def publish(self, channel: str, data: bytes) -> None:
        with self._dropped_on_failure():
            connection = self._connected()
            connection.send_packed_command([_publish_command(channel.encode(), data)],
                                           check_health=False)
            self._unread += 1
            if self._unread >= self.UNREAD:
                self._read_replies()

    def flush(self) -> None:
        """Read the replies still unread (an error reply raises)."""
        with self._dropped_on_failure():
            if self._connection is not None and self._pid == os.getpid():
                self._read_replies()

    @contextlib.contextmanager
    def _dropped_on_failure(self):
        """The lock held; whatever fails drops the connection, and raises."""
        with self._lock:
            try:
                yield
            except BaseException:
                self._drop()
                raise

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _connected(self):
        url = _redis_url()
        if self._connection is not None and (self._pid, self._url) != (os.getpid(), url):
            self._drop()  # (a parent's connection is the parent's: not closed here)
        if self._connection is None:
            import redis

            connection = redis.ConnectionPool.from_url(
                url, socket_connect_timeout=outage.TIMEOUT,
                socket_timeout=outage.TIMEOUT).make_connection()
            connection.connect()
            self._connection, self._pid, self._url, self._unread = (
                connection, os.getpid(), url, 0)
        return self._connection

    def _read_replies(self) -> None:
        while self._unread:
            self._unread -= 1
            reply = self._connection.read_response()
            if isinstance(reply, Exception):
                raise reply

    def _drop(self) -> None:
        connection, self._connection, self._unread = self._connection, None, 0
        if connection is not None and self._pid == os.getpid():
            try:
                connection.disconnect()
            except Exception:  # (already broken)
                pass


_publisher = Publisher()


def _publish(channel: str, data: bytes) -> bool:
    """Publish ``data`` on ``channel``: on an event loop (a stream server's acts), through the
    loop's :class:`LoopPublisher`, which sends the announcements of a turn of the loop
    together — a server behind on its acts announces the acts a batch stored (live/aiodb.py)
    in one write, not one each; elsewhere on :data:`_publisher`'s connection. Whether it was
    sent here (on the loop, its failure goes to :data:`config.outage.PUBSUB` later)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        _publisher.publish(channel, data)
        return True
    LoopPublisher.of(loop, _redis_url()).publish(channel, data)
    return False


class LoopPublisher:
    """An event loop's announcements to the Redis of one URL, without their callers waiting,
    on a redis.asyncio connection of their own (:func:`config.loopredis.connection`): those of
    one turn of the loop go out in one write, and those that come while it is written in the
    next. As :class:`Publisher`, each ``PUBLISH`` is packed at once (:func:`_publish_command`)
    and the replies are read :attr:`UNREAD` at a time, by then arrived; the write and the reads
    have one timer each, not the task redis-py's ``socket_timeout`` makes for every write (a
    pipeline of redis-py's cost 120 µs of CPU an announcement). An error reply is logged. A
    failure — Redis gone, or a write or the replies not done within
    :data:`config.loopredis.TIMEOUT` — opens :data:`config.outage.PUBSUB`, drops the
    connection and loses the announcements since the last replies read and those waiting, as
    a publish lost with a broken connection always could: waiters elsewhere read the version
    every ``SAFETY_READ`` seconds all the same. Get one with :meth:`of`."""

    UNREAD = 32

    def __init__(self, url: str):
        self.url = url
        self._waiting: list[tuple[str, bytes]] = []
        self._sending: asyncio.Task | None = None
        self._connection = None
        self._unread = 0

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop, url: str) -> LoopPublisher:
        publishers = _loop_publishers.get(loop)
        if publishers is None:
            publishers = _loop_publishers[loop] = {}
        found = publishers.get(url)
        if found is None:
            found = publishers[url] = cls(url)
        return found

    def publish(self, channel: str, data: bytes) -> None:
        self._waiting.append((channel, data))
        if self._sending is None:
            self._sending = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        try:
            if self._connection is None:
                self._connection = loopredis.connection(self.url, closed_at_stop=True,
                                                        socket_timeout=None)
                async with asyncio.timeout(loopredis.TIMEOUT):
                    await self._connection.connect()
            connection = self._connection
            while self._waiting:
                batch, self._waiting = self._waiting, []
                async with asyncio.timeout(loopredis.TIMEOUT):
                    await connection.send_packed_command(
                        b"".join([_publish_command(channel.encode(), data)
                                  for channel, data in batch]), check_health=False)
                outage.PUBSUB.succeeded()
                self._unread += len(batch)
                if self._unread >= self.UNREAD:
                    async with asyncio.timeout(loopredis.TIMEOUT):
                        await self._read_replies(connection)
        except Exception as exc:
            self._waiting = []
            await self.close()
            outage.PUBSUB.failed(exc, "announcing on the event loop")
        finally:
            self._sending = None

    async def _read_replies(self, connection) -> None:
        while self._unread:
            self._unread -= 1
            try:
                await connection.read_response()
            except ResponseError as exc:
                log.warning("live pub/sub: Redis refused an announcement: %s", exc)

    async def close(self) -> None:
        connection, self._connection, self._unread = self._connection, None, 0
        if connection is not None:
            await connection.disconnect(nowait=True)


#: the loop -> the URL -> its :class:`LoopPublisher`
_loop_publishers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _publish_command(channel: bytes, data: bytes) -> bytes:
    """``PUBLISH channel data`` in Redis's protocol (RESP: an array of three bulk strings),
    as redis-py's ``pack_command`` writes it for bytes, in one formatting step (its general
    packing was a third of an announcement's cost, ``bench_live --streams``)."""
    return b"*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (
        len(channel), channel, len(data), data)


def _wake(events) -> None:
    for event in events:
        event.set()


@functools.cache
def _signing_key() -> bytes:
    """The key that signs the acts announcements carry, derived from ``SECRET_KEY``."""
    return hashlib.sha256(b"gouji.live.notify.act:" + settings.SECRET_KEY.encode()).digest()


def _signature(live_id: int, body: bytes) -> bytes:
    # (hmac.digest: one call in C, not an HMAC object built and finished for each announcement)
    return hmac.digest(_signing_key(), b"%d %s" % (live_id, body), "sha256").hex()[:32].encode()


def _message(live_id: int, version: int, act: dict | None) -> bytes:
    """A pub/sub message's data: the version, then, if any, the act of the play as JSON and
    its signature: the stream servers play a carried act on their copy of the game, so one
    written into Redis by anyone without the app's secret must not be taken (a false position
    on every stream until the next read)."""
    if act is None:
        return str(version).encode()
    body = b"%d %s" % (version, fastjson.dumps(act).encode())
    return b"%s %s" % (body, _signature(live_id, body))


def _announcement(msg: dict, wanted=None) -> tuple[int, int, dict | None] | None:
    """The (game, version, act or ``None``) a pub/sub message announces, or ``None`` for one
    that is malformed (an act that does not parse, or is not signed with this app's key, is
    dropped: the version still wakes). ``wanted(game, version)``: whether its act is worth
    checking and parsing here (:func:`_wanted`); when not, it is left out."""
    try:
        live_id = int(msg["channel"].rsplit(b":", 1)[1])
        data = bytes(msg["data"])
        version, _sep, act = data.partition(b" ")
        version = int(version)
    except (KeyError, ValueError, IndexError, TypeError, AttributeError):
        return None
    if act and wanted is not None and not wanted(live_id, version):
        return live_id, version, None
    body, _sep, signature = data.rpartition(b" ")
    if not act or not hmac.compare_digest(signature, _signature(live_id, body)):
        return live_id, version, None
    try:
        act = fastjson.loads(act.rpartition(b" ")[0])
    except ValueError:
        return live_id, version, None
    return live_id, version, act if _public_act(act) else None


def _wanted(live_id: int, version: int) -> bool:
    """Whether an act announced for ``version`` of the game can serve this process: a newer
    version than it knows (not the echo of its own act) of a game that someone here waits on
    (a process that serves other games' streams hears every game's acts: checking each one's
    signature and parsing it was most of what it did with them)."""
    with _lock:
        if version <= _latest.get(live_id, -1):
            return False
        if live_id in _waiters:
            return True
    return any(live_id in hub._waiters for hub in list(_dispatchers.values()))


def _public_act(act) -> bool:
    """Whether ``act`` is an act of the play as the engine records it: a seat and a play
    (its cards) or a pass, nothing else (a malformed message must not reach the engine)."""
    return (isinstance(act, dict)
            and set(act) <= {"seat", "act", "cards", "auto", *ROW_KEYS}
            and isinstance(act.get("seat"), int) and isinstance(act.get("act"), str)
            and all(isinstance(act.get(k), int) for k in ROW_KEYS))


def announced_act(live_id: int, version: int) -> dict | None:
    """The act of the play that made ``version`` of the game, if an announcement carried it
    to this process lately: the engine's recorded action, ``d``, the next turn's deadline, and
    ``t``, the game's start time (a reused id is another game), in microseconds since the
    epoch (UTC), and ``h``, the seats in 托管 (bits)."""
    with _lock:
        return _acts.get((live_id, version))


def _seen(live_id: int, version: int, act: dict | None = None) -> None:
    with _lock:
        if act is not None:
            _acts[(live_id, version)] = act
            if len(_acts) > ACTS_KEPT:
                _acts.popitem(last=False)
        if version <= _latest.get(live_id, -1):
            # nothing any waiter waits for: the echo of this process's own announcement, a
            # safety read of an unchanged version. Waking the game's waiters for it made each
            # re-arm its wait (a future and a timer): with 10,000 streams, a safety read every
            # SAFETY_READ seconds woke all of them, and every act woke its table's twice
            return
        _latest[live_id] = version
        if len(_latest) > 20_000:  # finished games: forget the oldest half
            for key in list(_latest)[:10_000]:
                del _latest[key]
        _wake(_waiters.get(live_id, ()))
    for dispatcher in list(_dispatchers.values()):
        dispatcher.notify(live_id)


def latest(live_id: int) -> int:
    """The highest version of the game announced to this process (-1: none)."""
    with _lock:
        return _latest.get(live_id, -1)


def announce(live_id: int, version: int, act: dict | None = None) -> None:
    """Tell every waiter (here and in other processes) that the game is at ``version``, once
    the current transaction commits, and, inside a request, once its answer is sent
    (:func:`after_response`). ``act``: the act of the play that made this version, as the
    engine recorded it, with ``d``, ``t`` and ``h`` (:func:`announced_act`); only an
    act every seat sees may be given."""
    transaction.on_commit(lambda: announce_committed(live_id, version, act))


def announce_committed(live_id: int, version: int, act: dict | None = None) -> None:
    """:func:`announce` for a version already committed (by a statement outside Django's
    transactions: api/fast_act.py on the event loop), inside a request once its answer is sent."""

    def send():
        _seen(live_id, version, act)
        if _redis_url() and outage.PUBSUB.allows():
            try:
                answered = _publish(f"{CHANNEL_PREFIX}{live_id}",
                                    _message(live_id, version, act))
            except Exception as exc:  # waiters elsewhere fall back to polling
                outage.PUBSUB.failed(exc, "announcing a live act")
            else:
                if answered:
                    outage.PUBSUB.succeeded()

    after_response(send)


_request = threading.local()  # .pending: announcements of the request in hand, or None


def after_response(send) -> None:
    """Run ``send`` now, or, inside a request, when its response is closed (sent): the seat
    that acted has its answer before the six streams of its table wake and take the CPU to
    render their views. The act is committed either way; waiters also read the version now and
    then (``SAFETY_READ``), so an announcement lost with a dying worker delays, never loses."""
    pending = getattr(_request, "pending", None)
    if pending is None:
        send()
    else:
        pending.append(send)


def _request_started(**kwargs) -> None:
    _flush()  # (what a response never closed left behind)
    _request.pending = []


def _flush(**kwargs) -> None:
    pending, _request.pending = getattr(_request, "pending", None), None
    for send in pending or ():
        send()


request_started.connect(_request_started, dispatch_uid="live_notify_request_started")
request_finished.connect(_flush, dispatch_uid="live_notify_request_finished")


def _listen() -> None:
    """The process's listener thread: Redis messages into :func:`_seen`; reconnects. It counts
    as working once Redis confirms the subscription: what was published before that is lost."""
    global _listener, _subscribed_at
    while True:
        if not _redis_url():  # pub/sub switched off (settings changed, as tests do): stop
            with _lock:
                _listener = None
                _listener_ok.clear()
            return
        try:
            pubsub = _redis().pubsub()
            pubsub.psubscribe(f"{CHANNEL_PREFIX}*")
            for msg in pubsub.listen():
                kind = msg.get("type")
                if kind == "psubscribe":
                    _subscribed_at = time.monotonic()
                    _listener_ok.set()
                    outage.PUBSUB.succeeded()
                    continue
                if kind != "pmessage":
                    continue
                if msg.get("channel") == REVOKED:
                    _revocation_message(msg.get("data"))
                    continue
                announced = _announcement(msg, _wanted)
                if announced is not None:
                    _seen(*announced)
        except Exception as exc:
            _listener_ok.clear()
            outage.PUBSUB.failed(exc, "listening for live announcements")  # (a line a minute)
            with _lock:  # waiters switch to polling until it is back
                _wake([e for events in _waiters.values() for e in events])
            time.sleep(1.0)


def _ensure_listener() -> bool:
    """Start the listener thread once; whether pub/sub is working now."""
    global _listener
    if not _redis_url():
        return False
    with _lock:
        if _listener is None:
            _listener = threading.Thread(target=_listen, name="live-pubsub", daemon=True)
            _listener.start()
    return _listener_ok.wait(timeout=0.5)


def wait_for_version(live_id: int, since: int, timeout: float, read_version,
                     watched: Watch | None = None) -> int | None:
    """Block until the game is past version ``since`` or ``timeout`` seconds pass; returns the
    version it is known to have reached, or ``None`` if it did not move (or ``watched``, a
    :class:`Watch` of the waiter's access, heard a revocation: the caller checks it).

    The caller has just read the game at ``since`` (or later). With pub/sub working since
    before that read, any change since then has been or will be announced to this process
    (``_latest`` keeps the highest version announced), so no read is needed before waiting;
    ``read_version()`` (the stored version) is read first when the subscription is new (for
    ``FRESH`` seconds after it is confirmed), is the fallback while pub/sub is down, and a check
    now and then in case a message was lost. A watched waiter reads the revocations' log then
    too (:func:`catch_up_revocations`, at most once per such interval in the process)."""
    entered = time.monotonic()
    deadline = entered + timeout
    pubsub = _ensure_listener()
    event = threading.Event() if watched is None else watched.event
    with _lock:
        _waiters.setdefault(live_id, set()).add(event)
    try:
        # without pub/sub, or just (re)subscribed: the caller's read may predate the
        # subscription, and a change made in between was announced to no one here
        if not pubsub or entered - _subscribed_at < FRESH:
            if watched is not None:
                catch_up_revocations(FALLBACK_POLL)
            version = read_version()
            if version > since:
                return version
        last_read = time.monotonic()
        while True:
            with _lock:
                known = _latest.get(live_id, -1)
                if known > since:
                    return known
                event.clear()
            if watched is not None and watched.revoked:  # (after the clear: a later one sets it)
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            event.wait(timeout=min(left, SAFETY_READ if pubsub else FALLBACK_POLL))
            pubsub = _listener_ok.is_set()
            now = time.monotonic()
            # without pub/sub: poll; with it, a read now and then in case a message was lost
            # (Redis pub/sub delivers at most once, e.g. not while the listener reconnects)
            if not pubsub or now - last_read >= SAFETY_READ:
                last_read = now
                if watched is not None:
                    catch_up_revocations(SAFETY_READ if pubsub else FALLBACK_POLL)
                version = read_version()
                if version > since:
                    return version
    finally:
        with _lock:
            waiting = _waiters.get(live_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del _waiters[live_id]


def forget() -> None:
    """Forget the versions and acts announced so far, and the revocations heard (tests, where
    ids are reused after a rollback), and what this thread holds back for a response never closed: a view that
    raised in Django's test client sends no ``request_finished``, and the thread's later
    announcements outside any request would wait for the next one."""
    global _log_read_at
    with _lock:
        _latest.clear()
        _acts.clear()
    with _revoked_lock:
        _revoked_at.clear()
        _logged.clear()
        _log_read_at = float("-inf")
    _request.pending = None


# ----------------------------------------------------------------------------- revocations
#: the channel of revocations (live.access.revoke): heard with the games' (``CHANNEL_PREFIX*``)
REVOKED_CHANNEL = f"{CHANNEL_PREFIX}revoked"
REVOKED = REVOKED_CHANNEL.encode()
#: seconds after a revocation of a key in which a new watch of it counts as revoked already:
#: the stream's view checked its access a moment before it began to watch, perhaps before
#: the revocation committed (a false alarm costs the stream one check)
OPENING = 5.0
#: seconds of the revocations' log each read covers (:func:`catch_up_revocations`): its
#: rows are told once each, and a row written by a server whose clock is behind by less than
#: this is still read
LOG_WINDOW = 60.0

_revoked_lock = threading.Lock()
_watches: dict[str, set[Watch]] = {}  # key -> the watches of it
_revoked_at: dict[str, float] = {}  # key -> when a revocation of it was last heard (monotonic)
_logged: dict[int, float] = {}  # the revocations' log rows heard here -> when (monotonic)
_log_read = threading.Lock()
_log_read_at = float("-inf")


class Watch:
    """What one open stream or long-poll watches: revocations of its ``keys`` (the access it
    was opened on: live.access.stream_keys). When one is heard, :attr:`revoked` is set and its
    wait is woken, from any thread — ``event`` for a waiting thread (:func:`wait_for_version`),
    the future it awaits on ``loop`` (:func:`wait_for_version_async`); the stream then checks
    its access before it sends anything more, and clears :attr:`revoked` as it does."""

    __slots__ = ("keys", "revoked", "loop", "event", "waiter")

    def __init__(self, keys: tuple[str, ...], loop: asyncio.AbstractEventLoop | None = None):
        self.keys = keys
        self.revoked = False
        self.loop = loop
        self.event = threading.Event() if loop is None else None
        self.waiter: asyncio.Future | None = None

    def hear(self) -> None:
        self.revoked = True
        if self.loop is None:
            self.event.set()
            return
        try:
            self.loop.call_soon_threadsafe(self._wake)
        except RuntimeError:  # (its loop closed: the stream is gone)
            pass

    def _wake(self) -> None:
        if self.waiter is not None:
            _resolve(self.waiter)


def watch(keys: tuple[str, ...], loop: asyncio.AbstractEventLoop | None = None
          ) -> Watch | None:
    """A :class:`Watch` of ``keys`` (``loop``: for a waiter on that event loop), revoked
    already if one of them was revoked in the last :data:`OPENING` seconds; ``None`` without
    keys. :func:`unwatch` it when the stream ends."""
    if not keys:
        return None
    watched = Watch(tuple(keys), loop)
    now = time.monotonic()
    with _revoked_lock:
        for key in watched.keys:
            _watches.setdefault(key, set()).add(watched)
        watched.revoked = any(now - _revoked_at.get(key, -math.inf) < OPENING
                              for key in watched.keys)
    return watched


def unwatch(watched: Watch | None) -> None:
    if watched is None:
        return
    with _revoked_lock:
        for key in watched.keys:
            watches = _watches.get(key)
            if watches is not None:
                watches.discard(watched)
                if not watches:
                    del _watches[key]


def watching() -> bool:
    """Whether any stream or long-poll of this process watches for revocations."""
    return bool(_watches)


def revoked(keys, logged: int = 0) -> int:
    """A revocation of ``keys`` heard (or made) here: every watch of one of them is told.
    ``logged``: its row in the revocations' log, told now (a later read of the log leaves it).
    Returns how many watches were told."""
    now = time.monotonic()
    with _revoked_lock:
        if logged:
            if logged in _logged:
                return 0  # (heard already: pub/sub, and then the log, or the other way)
            _logged[logged] = now
        for key in keys:
            _revoked_at[key] = now
        if len(_revoked_at) > 10_000:
            for key, at in list(_revoked_at.items()):
                if now - at >= OPENING:
                    del _revoked_at[key]
        told = {w for key in keys for w in _watches.get(key, ())}
    for watched in told:
        watched.hear()
    return len(told)


def _revocation_message(data) -> None:
    """A revocation heard on pub/sub: ``<log row> <key> <key>…`` (the row 0 when the log could
    not be written). A message only ever makes streams check their access: one forged or
    malformed costs checks, never a stream."""
    try:
        logged, *keys = bytes(data).decode("ascii").split()
        logged = int(logged)
    except (TypeError, ValueError, UnicodeDecodeError):
        return
    revoked([key[:40] for key in keys[:100]], logged)


def publish_revocation(logged: int, keys) -> None:
    """Tell the other processes of a revocation of ``keys`` (written to the log as ``logged``),
    through Redis when it is configured; a failure is logged, and they read it from the log."""
    url = _redis_url()
    if not url:
        return
    data = b"%d %s" % (logged, " ".join(keys).encode())
    try:
        if _publish(REVOKED_CHANNEL, data):
            _publisher.flush()  # (answered: a command-line revocation may exit next)
    except Exception as exc:
        log.warning("live pub/sub: a revocation was not published (%s); the other processes "
                    "read it from the database", type(exc).__name__)


def catch_up_revocations(every: float = 0.0) -> None:
    """Tell the watches of the revocations logged (:class:`live.models.Revocation`) in the
    last :data:`LOG_WINDOW` seconds that this process has not heard: how revocations reach it
    while pub/sub is down, before it subscribes, or when a message is lost. One query, and at
    most one every ``every`` seconds in the process (a thread that finds another reading goes
    on without waiting). A failed read is logged; the next tries again."""
    global _log_read_at
    if not _log_read.acquire(blocking=False):
        return
    try:
        now = time.monotonic()
        if now - _log_read_at < every:
            return
        _log_read_at = now
        try:
            rows = _read_revocations(timezone.now() - timedelta(seconds=LOG_WINDOW))
        except Exception as exc:
            log.warning("live revocations read failed: %s", type(exc).__name__)
            return
        with _revoked_lock:
            for logged, at in list(_logged.items()):
                if now - at > 2 * LOG_WINDOW:
                    del _logged[logged]
            rows = [(logged, keys) for logged, keys in rows if logged not in _logged]
    finally:
        _log_read.release()
    for logged, keys in rows:
        revoked(keys.split(), logged)


def _read_revocations(since) -> list[tuple[int, str]]:
    """The revocations' log rows written since ``since`` (a datetime): (id, keys)."""
    from live.models import Revocation

    return list(Revocation.objects.filter(at__gte=since).order_by().values_list("pk", "keys"))


class Dispatcher:
    """The async waiters of one event loop and what wakes them: ONE Redis pub/sub connection
    (:class:`_Subscriber`, subscribed to every game's channel) for all of them, a fan-out to the
    waiters of the game each message names, and one query that reads the stored versions of
    every game waited on when a read is due:

    - just after the subscription is (re)confirmed, and for the waiters that arrive in the
      ``FRESH`` seconds after it (what was published before the subscription is lost);
    - every ``SAFETY_READ`` seconds while subscribed (Redis pub/sub delivers at most once);
    - every ``FALLBACK_POLL`` seconds while Redis is down or none is configured.

    So 10,000 waiting streams make no more reads than one: a version read is one query of the
    ids waited on (:func:`_read_versions`), in a stream database thread (:mod:`live.aio`),
    with the revocations' log while a stream watches (:func:`catch_up_revocations`).
    Announcements of this process (acts served here) wake the waiters at once through
    :func:`_seen`, from whichever thread made them. Get a loop's dispatcher with
    :func:`dispatcher`."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self._loop = weakref.ref(loop)
        self._waiters: dict[int, set[asyncio.Future]] = {}
        self._read_due = asyncio.Event()
        self._expiring: dict[int, set[asyncio.Future]] = {}  # slice -> the waits ending in it
        self.subscribed = False  # the subscription is confirmed and the connection alive
        self.subscribed_at = float("-inf")
        self.subscriptions = 0  # how many times it subscribed (one connection each time)
        self.reads = 0  # version reads made for all waiters
        self._tasks = [loop.create_task(self._listen(), name="live-pubsub-async"),
                       loop.create_task(self._poll(), name="live-version-reads")]

    # -- waiters (called on the loop)
    def add(self, live_id: int, waiter: asyncio.Future) -> None:
        self._waiters.setdefault(live_id, set()).add(waiter)
        if not self.subscribed or time.monotonic() - self.subscribed_at < FRESH:
            self._read_due.set()  # its read may predate the subscription: read for it soon

    def discard(self, live_id: int, waiter: asyncio.Future) -> None:
        waiting = self._waiters.get(live_id)
        if waiting is not None:
            waiting.discard(waiter)
            if not waiting:
                del self._waiters[live_id]

    def expire_at(self, deadline: float, waiter: asyncio.Future) -> set[asyncio.Future]:
        """Resolve ``waiter`` (with ``None``) at loop time ``deadline``, or up to
        :data:`EXPIRY_SLICE` later: the waits that end in one slice share one timer. A timer
        per wait — made and freed by uvloop for every wait, six an act — costs a stream server
        4 % of its CPU at 10,000 streams. Returns the slice's set, from which the waiter that ends first
        discards itself."""
        slot = math.ceil(deadline / EXPIRY_SLICE)
        expiring = self._expiring.get(slot)
        if expiring is None:
            expiring = self._expiring[slot] = set()
            self._loop().call_at(slot * EXPIRY_SLICE, self._expire, slot)
        expiring.add(waiter)
        return expiring

    def _expire(self, slot: int) -> None:
        for waiter in self._expiring.pop(slot, ()):
            _resolve(waiter)

    def waiting(self) -> int:
        """How many waiters wait now (over all games)."""
        return sum(len(events) for events in self._waiters.values())

    def _wake(self, live_id: int) -> None:
        for waiter in list(self._waiters.get(live_id, ())):
            _resolve(waiter)

    # -- from any thread
    def notify(self, live_id: int) -> None:
        """A version of ``live_id`` was announced to this process (in :func:`_seen`)."""
        loop = self._loop()
        if loop is None or loop.is_closed() or live_id not in self._waiters:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake(live_id)
        else:
            try:
                loop.call_soon_threadsafe(self._wake, live_id)
            except RuntimeError:  # the loop closed meanwhile
                pass

    # -- the two tasks
    async def _listen(self) -> None:
        """Redis messages into :func:`_seen`; reconnects after a second when Redis is lost."""
        while _redis_url():
            subscriber = _Subscriber(_redis_url())
            try:
                await subscriber.subscribe()
                self.subscriptions += 1
                await subscriber.held(self._reply)
                outage.PUBSUB.failed(ConnectionError("the subscription's connection was lost"),
                                     "listening for live announcements (async)")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # (logged a line a minute, not one a second)
                outage.PUBSUB.failed(exc, "listening for live announcements (async)")
            finally:
                self.subscribed = False
                self._read_due.set()  # the waiters read until it is back
                await subscriber.close()
            await asyncio.sleep(1.0)

    def _reply(self, reply) -> None:
        """One reply of the subscription: its confirmation, or a message."""
        kind = reply[0]
        if kind == b"pmessage" and reply[2] == REVOKED:
            _revocation_message(reply[3])
        elif kind == b"pmessage":
            announced = _announcement({"channel": reply[2], "data": reply[3]}, _wanted)
            if announced is not None:
                _seen(*announced)
        elif kind == b"psubscribe":
            self.subscribed, self.subscribed_at = True, time.monotonic()
            self._read_due.set()
            outage.PUBSUB.succeeded()

    async def _poll(self) -> None:
        """The versions of every game waited on, in one query, and the revocations' log,
        when a read is due."""
        from live.aio import in_db_thread

        while True:
            every = SAFETY_READ if self.subscribed else FALLBACK_POLL
            try:  # (not wait_for: on 3.11 it swallows a cancellation that comes as the
                # event is set, and the loop's close then waits for this task for ever)
                async with asyncio.timeout(every):
                    await self._read_due.wait()
            except TimeoutError:
                pass
            self._read_due.clear()
            ids = list(self._waiters)
            watched = watching()
            if not ids and not watched:
                continue
            try:
                versions = await in_db_thread(_reads, ids, watched)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is down: the next read tries again
                log.warning("live version read failed: %s", type(exc).__name__)
                await asyncio.sleep(FALLBACK_POLL)
                continue
            self.reads += 1
            for live_id, version in versions:
                _seen(live_id, version)
            if not self.subscribed:
                await asyncio.sleep(FALLBACK_POLL)  # at most one read per FALLBACK_POLL

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()


class _Subscriber:
    """The connection of a :class:`Dispatcher`'s subscription (redis.asyncio's, of its own:
    :func:`config.loopredis.connection`): ``PSUBSCRIBE`` to every game's channel, and each
    reply read off it as it comes. Read on the connection itself, not through redis.asyncio's
    ``PubSub``, whose retry and timeout layers cost about 80 µs of a stream server's CPU for
    every act of every game (beed985:docs/BENCHMARKS.md, "Eighth pass"). A quiet connection is
    pinged every :attr:`HEALTH` seconds, and one that does not answer by the next is given up, as
    redis-py's ``health_check_interval`` did."""

    HEALTH = 30.0  # seconds

    def __init__(self, url: str):
        self._connection = loopredis.connection(url)

    async def subscribe(self) -> None:
        """Connect (at most :data:`config.loopredis.TIMEOUT`, signed in and the database
        selected as the URL says) and subscribe."""
        await self._connection.connect()
        await self._connection.send_command("PSUBSCRIBE", f"{CHANNEL_PREFIX}*")

    async def held(self, on_reply) -> None:
        """Each reply (a list: the subscription's confirmation, a message, a ping's answer) to
        ``on_reply``, until the connection is lost (which raises), stops answering, or Redis
        refuses the subscription."""
        pinged = False
        while True:
            try:
                reply = await self._connection.read_response(timeout=self.HEALTH,
                                                             disconnect_on_error=False)
            except ResponseError as exc:
                log.warning("live pub/sub (async): Redis said %s", exc)
                return
            if reply is None:  # (nothing for HEALTH seconds)
                if pinged:
                    return
                await self._connection.send_command("PING", check_health=False)
                pinged = True
                continue
            pinged = False
            if isinstance(reply, list) and reply:
                on_reply(reply)

    async def close(self) -> None:
        await self._connection.disconnect(nowait=True)


def _reads(ids: list[int], watched: bool) -> list[tuple[int, int]]:
    """A dispatcher's reads, in one stream database thread: the versions of the games ``ids``
    and, when a stream is ``watched``, the revocations' log (:func:`catch_up_revocations`)."""
    if watched:
        catch_up_revocations()
    return _read_versions(ids) if ids else []


def _read_versions(ids: list[int]) -> list[tuple[int, int]]:
    """The stored versions of the games ``ids``: on PostgreSQL one prepared statement with the
    ids as one array (the ORM built an ``IN`` of up to 1,667 parameters each time, 8 % of the
    stream server's CPU with 10,000 streams open)."""
    from django.db import connection

    from live.models import LiveGame
    from tournaments.sqlrows import array_literal, prepared_cursor

    if connection.vendor != "postgresql":
        return list(LiveGame.objects.filter(pk__in=ids).values_list("pk", "version"))
    q, meta = connection.ops.quote_name, LiveGame._meta
    key, version = q(meta.pk.column), q(meta.get_field("version").column)
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT {key}, {version} FROM {q(meta.db_table)} "
                       f"WHERE {key} = ANY(%s::bigint[])",
                       [array_literal(ids)])
        return cursor.fetchall()


def dispatcher() -> Dispatcher:
    """The running event loop's :class:`Dispatcher` (started with its first waiter)."""
    loop = asyncio.get_running_loop()
    found = _dispatchers.get(id(loop))
    if found is None or found._loop() is not loop:
        for key, old in list(_dispatchers.items()):  # loops closed since (tests make many)
            old_loop = old._loop()
            if old_loop is None or old_loop.is_closed():
                del _dispatchers[key]
        found = _dispatchers[id(loop)] = Dispatcher(loop)
    return found


async def wait_for_version_async(live_id: int, since: int, timeout: float,
                                 watched: Watch | None = None) -> int | None:
    """:func:`wait_for_version` on the event loop: wait until the game is past version
    ``since`` or ``timeout`` seconds pass; the version it is known to have reached, or
    ``None`` if it did not move (or ``watched``, a :class:`Watch` on this loop, heard a
    revocation). The caller has just read the game at ``since`` (or later); the
    waiter reads nothing itself (its loop's :class:`Dispatcher` reads for every waiter).

    A waiter is a bare future (``asyncio.wait_for`` makes a task per wait: with 10,000 streams
    sending a comment every 15 s, it was a third of the server's time), whose timeout is one
    of the dispatcher's shared timers (:meth:`Dispatcher.expire_at`) when it is
    :data:`SHARED_TIMER_FROM` or more, else a timer of its own."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    hub = dispatcher()
    while True:
        known = latest(live_id)
        if known > since:
            return known
        if watched is not None and watched.revoked:
            return None
        left = deadline - loop.time()
        if left <= 0:
            return None
        waiter = loop.create_future()
        hub.add(live_id, waiter)
        if watched is not None:  # (told from another thread through the loop: see Watch)
            watched.waiter = waiter
        if left < SHARED_TIMER_FROM:
            timer, expiring = loop.call_at(deadline, _resolve, waiter), None
        else:
            timer, expiring = None, hub.expire_at(deadline, waiter)
        try:
            await waiter
        finally:
            if timer is not None:
                timer.cancel()
            else:
                expiring.discard(waiter)
            hub.discard(live_id, waiter)
            if watched is not None:
                watched.waiter = None


def _resolve(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)
