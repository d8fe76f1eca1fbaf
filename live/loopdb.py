"""A database connection for the event loop itself, on PostgreSQL, for the act's short path
(api/fast_act.py), which stores a common act with one conditional ``UPDATE`` awaited on the loop.

Before, the act went to a stream database thread (live/aio.py) for its checks and its
statement, and came back. With 10,000 streams open that hop cost more than the act: the
threads of each process passing the GIL back and forth with the loop, and the hand-offs'
system calls. With the act on the loop, the stream servers' CPU an act fell from 2.5-3.0 ms
to 2.3 ms (``bench_live --streams 10000``, docs/BENCHMARKS.md "Seventh pass").

Django's ORM is not used here: its connections are synchronous and refuse to be used on an
event loop. :class:`LoopDatabase` holds a few connections for the loop they were made on
(``LIVE_LOOP_DB_CONNECTIONS``, 2), in autocommit, opened by psycopg's ``AsyncConnection`` with
Django's own connection parameters (the same database, user and options) when a statement
needs one. A statement is run on libpq itself (psycopg's ``pq``, :class:`_Link`): prepared on
the server when first run on a connection, sent with its parameters as text, and its result
read when the connection's socket, watched by the loop for as long as the connection is open,
has it. psycopg's async cursor took 166 µs of CPU for the act's ``UPDATE`` (its query
conversion, its adapters and its generator-driven waiting, which registers and unregisters the
socket with the loop for every wait); this, 77 µs (the statement alone on uvloop, a 5 KB
state: docs/BENCHMARKS.md, "Eighth pass"). A statement that fails closes its connection (the
next opens a new one) and raises: the caller knows nothing was stored or cannot know, and hands
the act to the view, whose conditional update stores it at most once.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import re

from django.conf import settings
from django.db import connections
from psycopg import errors, pq
from psycopg.types.json import Json as _Json
from psycopg.types.json import Jsonb as _Jsonb

from live import fastjson

log = logging.getLogger(__name__)


class LoopDatabase:
    """A few connections to the default database, for the event loop in use: at most ``size``
    statements run at once (each on a connection of its own), the others wait for one. A
    single connection made every act wait for the one before it, whose answer the loop only
    reads when it comes round to it: with 10,000 streams, a queue of seconds."""

    def __init__(self, size: int | None = None):
        self._size = size
        self._idle: list[_Link] = []  # open and free
        self._busy: set[_Link] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None

    @staticmethod
    def usable() -> bool:
        """Whether the default database is PostgreSQL (psycopg)."""
        return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")

    async def rowcount(self, sql: str, params: list) -> int:
        """Run ``sql`` with ``params`` (``%s`` placeholders, Django's raw SQL; ``None``, whole
        numbers, text, aware datetimes and psycopg's ``Json`` and ``Jsonb``) and answer how many
        rows it changed (or, for a ``SELECT``, gave)."""
        loop = self._bind()
        async with self._slots:
            link = self._open_idle() or await _Link.open(loop)
            self._busy.add(link)
            try:
                count = await link.rowcount(sql, params)
            except BaseException:
                self._busy.discard(link)
                link.close()
                raise
            self._busy.discard(link)
            if link.closed:
                link.close()
            else:
                self._idle.append(link)
            return count

    async def warm(self, statements: list[str] = ()) -> None:
        """Open the connections now, each with ``statements`` prepared, so that the first
        statements after a (re)start do not wait for them: opening four on demand held the
        first 100 ms of acts 50-90 ms (``bench_live --streams 10000``, docs/BENCHMARKS.md,
        "Ninth pass"). The server calls it as it starts; a failure leaves the connections to
        open on demand, as before."""
        loop = self._bind()
        while self.connections() < self._slots_size():
            link = await _Link.open(loop)
            try:
                for sql in statements:
                    await link.prepare(sql)
            except BaseException:
                link.close()
                raise
            self._idle.append(link)

    def _bind(self) -> asyncio.AbstractEventLoop:
        """The running loop, whose connections these are (a new loop: the old one's cannot
        serve it, and are closed)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self.close_now()
            self._loop = loop
            self._slots = asyncio.Semaphore(self._slots_size())
        return loop

    def _slots_size(self) -> int:
        return self._size or settings.LIVE_LOOP_DB_CONNECTIONS

    def _open_idle(self) -> _Link | None:
        """An idle connection still open (one the server ended meanwhile is let go)."""
        while self._idle:
            link = self._idle.pop()
            if not link.closed:
                return link
            link.close()
        return None

    def connections(self) -> int:
        """How many connections are open."""
        return len(self._idle) + len(self._busy)

    def close_now(self) -> None:
        """Close the connections from any thread, without their loop (which may be gone): their
        sockets are closed at once."""
        held, self._idle, self._busy = [*self._idle, *self._busy], [], set()
        for link in held:
            link.close()


#: a ``%s`` placeholder of Django's raw SQL, or its escaped ``%``
_PLACEHOLDER = re.compile(r"%(%|s)")


def numbered(sql: str) -> str:
    """``sql`` with Django's ``%s`` placeholders numbered as PostgreSQL's (``$1``, ``$2``…)."""
    count = 0

    def number(match: re.Match) -> str:
        nonlocal count
        if match.group(1) == "%":
            return "%"
        count += 1
        return f"${count}"

    return _PLACEHOLDER.sub(number, sql)


def as_text(value) -> bytes | None:
    """A parameter in PostgreSQL's text format (its type is the one the statement gives it)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return b"t" if value else b"f"
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise TypeError("a naive datetime is not a moment: give it a time zone")
        return value.isoformat().encode()
    if isinstance(value, (_Json, _Jsonb)):
        return fastjson.encode(value.obj)
    raise TypeError(f"no text form here for a parameter of type {type(value).__name__}")


class _Link:
    """One connection of :class:`LoopDatabase`: psycopg's ``AsyncConnection`` opened it (and
    closes it); its statements go through its libpq connection (``pgconn``) directly, one at
    a time, and the loop watches its socket from when it opens until it closes, so a statement
    registers nothing. A connection the server closes is seen at once (its socket reads the
    end) and is not used again."""

    def __init__(self, connection, loop: asyncio.AbstractEventLoop):
        self.connection = connection
        self._pgconn = connection.pgconn
        self._loop = loop
        self._fd = self._pgconn.socket
        self._prepared: dict[str, bytes] = {}  # sql -> the name it is prepared under
        self._waiter: asyncio.Future | None = None
        self._last = None  # the command's last result so far
        self._pgconn.nonblocking = 1
        loop.add_reader(self._fd, self._readable)

    @classmethod
    async def open(cls, loop: asyncio.AbstractEventLoop) -> _Link:
        import psycopg

        params = connections["default"].get_connection_params()
        params.pop("cursor_factory", None)  # (Django's synchronous cursor)
        return cls(await psycopg.AsyncConnection.connect(autocommit=True, **params), loop)

    @property
    def closed(self) -> bool:
        return self.connection.closed

    async def rowcount(self, sql: str, params: list) -> int:
        name = self._prepared.get(sql) or await self.prepare(sql)
        result = self._check(await self._run(self._pgconn.send_query_prepared, name,
                                             [as_text(value) for value in params]))
        return int(result.command_tuples or 0)

    async def prepare(self, sql: str) -> bytes:
        """The name ``sql`` is prepared under on the server, prepared now if it is not yet:
        as tournaments.sqlrows.prepared_cursor does (planning the act's ``UPDATE`` each time
        doubled PostgreSQL's CPU at 10,000 streams)."""
        name = self._prepared.get(sql)
        if name is None:
            name = b"loop_%d" % len(self._prepared)
            self._check(await self._run(self._pgconn.send_prepare, name,
                                        numbered(sql).encode()))
            self._prepared[sql] = name
        return name

    async def _run(self, send, *args):
        """Send one command (``send(*args)``) and wait for its last result."""
        if self._waiter is not None or self.closed:
            raise RuntimeError("a loop connection runs one statement at a time, open")
        send(*args)
        while self._pgconn.flush():  # (more than the socket's buffer: wait until it drains)
            drained = self._loop.create_future()
            self._loop.add_writer(self._fd, _resolve, drained)
            try:
                await drained
            finally:
                self._loop.remove_writer(self._fd)
        self._waiter = self._loop.create_future()
        try:
            return await self._waiter
        finally:
            self._waiter = None

    def _readable(self) -> None:
        """The socket has something: the command's results, once whole, to its waiter; the
        connection's end (or a failure) closes it and fails the waiter."""
        pgconn, waiter = self._pgconn, self._waiter
        try:
            pgconn.consume_input()
            while not pgconn.is_busy():
                result = pgconn.get_result()
                if result is None:  # (the command's results are all in)
                    last, self._last = self._last, None
                    if waiter is not None and not waiter.done():
                        waiter.set_result(last)
                    return
                self._last = result
        except Exception as exc:  # (the server closed the connection, or it broke)
            self.close()
            if waiter is not None and not waiter.done():
                waiter.set_exception(exc)

    @staticmethod
    def _check(result):
        if result is None or result.status not in (pq.ExecStatus.COMMAND_OK,
                                                    pq.ExecStatus.TUPLES_OK):
            if result is None:
                raise errors.OperationalError("the loop connection gave no result")
            raise errors.error_from_result(result)
        return result

    def close(self) -> None:
        """Stop watching the socket and close it at once (from any thread, or after the loop
        is gone)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                self._loop.remove_reader(fd)
            except Exception:  # (the loop is closed, or in another thread: the socket goes)
                log.debug("unwatching a loop connection", exc_info=True)
        if not self.connection.closed:
            self.connection.pgconn.finish()


def _resolve(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)


#: this process's loop connection (a process runs one event loop: uvicorn's)
database = LoopDatabase()
