"""Redis on the event loop itself: a connection whose commands are written as they come and
whose replies, parsed by hiredis (Redis' own C parser, redis-py's too), resolve the commands'
futures in order, in the loop's own data callback — no thread, no task per command.

The stream server (config/asgi.py) uses it for the two things it asks of Redis on the loop:
the act's throttles, counted in the shared cache (:func:`config.ratelimit.count_on_redis`),
and the live games' pub/sub subscription (:class:`live.notify.Dispatcher`), which opens its
connection with :func:`connect`.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
import weakref

import hiredis

from config import outage

log = logging.getLogger(__name__)

#: replies a connection may owe for commands sent unanswered (:meth:`LoopRedis.send_unanswered`)
#: before it is taken for dead: a few seconds of a stream server's announcements
UNANSWERED = 10_000
#: seconds a connection may take to open, and a command to be answered (as redis-py's
#: timeouts of the cache and the pub/sub clients, :data:`config.outage.TIMEOUT`): past it the
#: connection is closed and every command waiting on it fails
TIMEOUT = outage.TIMEOUT


def packed(*words: str | bytes | int) -> bytes:
    """One command in Redis' protocol (RESP: an array of bulk strings)."""
    parts = [b"*%d\r\n" % len(words)]
    for word in words:
        data = word if isinstance(word, bytes) else str(word).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


async def connect(url: str, factory, *, select_db: bool = False
                  ) -> tuple[asyncio.Protocol, list[bytes]]:
    """A connection to the Redis of ``url`` (read by redis-py: ``redis://``, ``rediss://``,
    ``unix://``, a user and password, a database number) with the protocol ``factory()``
    makes, at most :data:`TIMEOUT` seconds to connect, and the commands to send on it before
    any other: ``AUTH`` if the URL names a password, and, with ``select_db``, ``SELECT`` of the
    URL's database."""
    from redis.connection import SSLConnection, UnixDomainSocketConnection, parse_url

    options = parse_url(url)
    loop = asyncio.get_running_loop()
    kind = options.get("connection_class")
    if kind is UnixDomainSocketConnection:
        connecting = loop.create_unix_connection(factory, options["path"])
    else:
        secure = None
        if kind is SSLConnection:
            import ssl

            secure = ssl.create_default_context()
            if str(options.get("ssl_cert_reqs", "required")).lower() in ("none", "0"):
                secure.check_hostname, secure.verify_mode = False, ssl.CERT_NONE
        connecting = loop.create_connection(factory, options.get("host", "localhost"),
                                            options.get("port", 6379), ssl=secure)
    _transport, protocol = await asyncio.wait_for(connecting, timeout=TIMEOUT)
    first = []
    if options.get("password") is not None:
        first.append(packed("AUTH", *([options["username"]] if options.get("username")
                                      else []), options["password"]))
    if select_db and options.get("db"):
        first.append(packed("SELECT", options["db"]))
    return protocol, first


class RedisError(Exception):
    """Redis answered a command with an error, or the connection failed before its reply."""


class LoopRedis(asyncio.Protocol):
    """One connection of the running loop: :meth:`call` writes a command and awaits its reply;
    :meth:`send_unanswered` writes one whose reply nobody waits for (an announcement's
    ``PUBLISH``). Commands from many requests share it, pipelined (Redis answers in order), and
    the commands of one turn of the loop go out in one write: a stream server behind on its
    acts sends their announcements, and their throttles' counts, together. A reply that does
    not come within :data:`TIMEOUT`, or a lost connection, fails every command waiting and
    closes it: the next :func:`client` call opens another. Made by :func:`client`."""

    def __init__(self):
        self._parser = hiredis.Reader()
        #: (future, its timer) of each command sent, in order; (None, None): no one waits
        self._waiting: collections.deque = collections.deque()
        self._outgoing: list[bytes] = []  # the commands of this turn of the loop, not written yet
        self._transport = None
        self.closed = False

    def write(self, data: bytes) -> asyncio.Future:
        """Send ``data`` (one command, :func:`packed`); the future of its reply."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append((future, loop.call_later(TIMEOUT, self._timed_out, future)))
        self._send(data, loop)
        return future

    def send_unanswered(self, data: bytes) -> None:
        """Send ``data`` (one command) without waiting for its reply: it is read and dropped
        (an error reply logged). More than :data:`UNANSWERED` replies outstanding — a Redis that
        takes commands and does not answer — close the connection."""
        if len(self._waiting) >= UNANSWERED:
            self.close("not answering")
            raise RedisError("the connection to Redis was not answering")
        self._waiting.append((None, None))
        self._send(data, asyncio.get_running_loop())

    def _send(self, data: bytes, loop: asyncio.AbstractEventLoop) -> None:
        self._outgoing.append(data)
        if len(self._outgoing) == 1:
            loop.call_soon(self._write_out)

    def _write_out(self) -> None:
        outgoing, self._outgoing = self._outgoing, []
        if outgoing and not self.closed:
            self._transport.write(b"".join(outgoing))

    async def call(self, *words: str | bytes | int):
        """Run one command: its reply (an error reply raises :class:`RedisError`)."""
        if self.closed:
            raise RedisError("the connection is closed")
        return await self.write(packed(*words))

    def close(self, why: str = "closed") -> None:
        self.closed = True
        if self._transport is not None:
            self._transport.close()
        self._outgoing = []
        while self._waiting:
            future, timer = self._waiting.popleft()
            if future is None:
                continue
            timer.cancel()
            if not future.done():
                future.set_exception(RedisError(f"the connection to Redis was {why}"))

    def _timed_out(self, future: asyncio.Future) -> None:
        if not future.done():
            self.close(f"not answered within {TIMEOUT} s")

    # -- asyncio.Protocol
    def connection_made(self, transport) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._parser.feed(data)
        while (reply := self._parser.gets()) is not False:
            if not self._waiting:  # (a reply nobody asked for: the stream is out of step)
                self.close("out of step")
                return
            future, timer = self._waiting.popleft()
            if future is None:
                if isinstance(reply, hiredis.ReplyError):
                    log.warning("Redis refused a command sent unanswered: %s", reply)
                continue
            timer.cancel()
            if future.done():
                continue  # (its caller was cancelled)
            if isinstance(reply, hiredis.ReplyError):
                future.set_exception(RedisError(str(reply)))
            else:
                future.set_result(reply)

    def connection_lost(self, exc) -> None:
        self.close("lost")


#: the loop -> the URL -> its open connection, or the future of the one opening
_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def client(url: str) -> LoopRedis:
    """The running loop's connection to the Redis of ``url`` (its database selected), opened
    by the first caller while the others wait for it."""
    loop = asyncio.get_running_loop()
    clients = _clients.setdefault(loop, {})
    got = clients.get(url)
    if isinstance(got, LoopRedis) and not got.closed:
        return got
    if isinstance(got, asyncio.Future):
        return await asyncio.shield(got)
    opening = clients[url] = loop.create_future()
    try:
        made, first = await connect(url, LoopRedis, select_db=True)
        try:
            for command in first:
                await made.write(command)
        except BaseException:
            made.close()
            raise
    except BaseException as exc:
        del clients[url]
        opening.set_exception(RedisError(f"could not connect to Redis: {type(exc).__name__}"))
        opening.exception()  # (retrieved: none may be waiting)
        raise
    clients[url] = made
    opening.set_result(made)
    return made


def client_now(url: str, breaker: outage.Breaker | None = None) -> LoopRedis | None:
    """The running loop's open connection to the Redis of ``url`` for code that cannot wait
    (:func:`client`'s), or ``None``: off an event loop (a thread), or while it is not open —
    then it is being opened, for the callers that follow (a failure to open it told to
    ``breaker``, which logs it once in a while, or else logged)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    got = _clients.get(loop, {}).get(url)
    if isinstance(got, LoopRedis) and not got.closed:
        return got
    if not isinstance(got, asyncio.Future):
        task = loop.create_task(_open_quietly(url, breaker))
        _openings.add(task)
        task.add_done_callback(_openings.discard)
    return None


_openings: set[asyncio.Task] = set()  # (the openings client_now started: kept from the GC)


async def _open_quietly(url: str, breaker: outage.Breaker | None = None) -> None:
    try:
        await client(url)
    except Exception as exc:  # (its callers went another way; the next one tries again)
        if breaker is not None:
            breaker.failed(exc, "connecting on the event loop")
        else:
            log.warning("could not connect to Redis on the event loop: %s", type(exc).__name__)


def close_all() -> None:
    """Close the running loop's connections (the server's stop): a command still waiting on
    one fails with :class:`RedisError`; a later :func:`client` call opens another."""
    for made in (_clients.pop(asyncio.get_running_loop(), None) or {}).values():
        if isinstance(made, LoopRedis):
            made.close("closed as the server stopped")


class Script:
    """A Lua script run by its digest (``EVALSHA``), sent whole (``EVAL``) the first time a
    server does not know it."""

    def __init__(self, source: str):
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    async def __call__(self, redis: LoopRedis, keys: list, args: list):
        try:
            return await redis.call("EVALSHA", self.sha, len(keys), *keys, *args)
        except RedisError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await redis.call("EVAL", self.source, len(keys), *keys, *args)
