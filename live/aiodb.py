"""The event loop's own PostgreSQL connections, for the act's short path (api/fast_act.py): a
common act is stored by one conditional ``UPDATE`` awaited on the loop, not in a stream database
thread (the hop to a thread cost more than the act: beed985:docs/BENCHMARKS.md, "Seventh pass").

psycopg's ``AsyncConnection``, in autocommit, with Django's connection parameters, every
statement prepared on the server. Statements that arrive while every connection is busy go
together on the next free one, in pipeline mode, as one transaction: a server behind on its acts
pays one round trip and one commit for them. Whatever fails closes its connection and raises in
every statement sent with it: the caller hands the act to the view, whose conditional update
stores it at most once; an idle connection the server ended is let go before use.
"""

from __future__ import annotations

import asyncio
import datetime
import re
import select

from django.conf import settings
from django.db import connections
from psycopg import AsyncConnection, adapt
from psycopg.types.json import Json, Jsonb

from live import fastjson


class LoopDatabase:
    """At most ``size`` connections (``LIVE_LOOP_DB_CONNECTIONS``) for the running event loop."""

    def __init__(self, size: int | None = None):
        self._size = size
        self._idle: list[AsyncConnection] = []
        self._busy: set[AsyncConnection] = set()
        self._opening = 0
        self._waiting: list[tuple[int, str, list, asyncio.Future]] = []
        self._tasks: set[asyncio.Task] = set()  # (kept from the GC)
        self._loop: asyncio.AbstractEventLoop | None = None

    @staticmethod
    def usable() -> bool:
        """Whether the default database is PostgreSQL."""
        return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")

    async def rowcount(self, sql: str, params: list, *, order: int = 0) -> int:
        """Run ``sql`` (Django's ``%s`` placeholders) and answer how many rows it changed (or
        gave). It may share a transaction with statements that waited with it, run in the
        order of their ``order`` (the row each changes: one lock order, no deadlock)."""
        future = self._bind().create_future()
        self._waiting.append((order, sql, params, future))
        self._dispatch()
        return await future

    async def warm(self, statements: list[str] = ()) -> None:
        """Open the connections now, each with ``statements`` prepared: opened on demand, they
        held the first acts after a restart 50-90 ms (beed985:docs/BENCHMARKS.md, "Ninth pass")."""
        self._bind()
        while self.connections() + self._opening < self._slots():
            self._opening += 1
            try:
                conn = await _open()
            finally:
                self._opening -= 1
            try:
                for sql in statements:  # (NULL parameters: it changes nothing)
                    await conn.execute(sql, [None] * _placeholders(sql))
            except BaseException:
                _close(conn)
                raise
            self._idle.append(conn)
        self._dispatch()

    def connections(self) -> int:
        """How many connections are open."""
        return len(self._idle) + len(self._busy)

    def close_now(self) -> None:
        """Close the connections at once, from any thread, their loop running or gone."""
        held, self._idle, self._busy = [*self._idle, *self._busy], [], set()
        for conn in held:
            _close(conn)

    def _bind(self) -> asyncio.AbstractEventLoop:
        """The running loop (a new one: the old loop's connections cannot serve it)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self.close_now()
            self._loop, self._waiting, self._tasks, self._opening = loop, [], set(), 0
        return loop

    def _slots(self) -> int:
        return self._size or settings.LIVE_LOOP_DB_CONNECTIONS

    def _spawn(self, coroutine) -> None:
        task = self._loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _dispatch(self) -> None:
        """The waiting statements together on a free connection, or one opened for them."""
        self._waiting = [w for w in self._waiting if not w[3].done()]  # (not cancelled)
        if not self._waiting:
            return
        while self._idle and not _alive(self._idle[-1]):
            _close(self._idle.pop())
        if self._idle:
            conn = self._idle.pop()
            batch, self._waiting = sorted(self._waiting, key=lambda w: w[0]), []
            self._busy.add(conn)
            self._spawn(self._run(conn, batch))
        elif self.connections() + self._opening < self._slots():
            self._opening += 1
            self._spawn(self._open_for_waiting(self._loop))

    async def _open_for_waiting(self, loop) -> None:
        try:
            conn = await _open()
        except Exception as exc:  # the waiting statements fail with the reason
            if self._loop is loop:
                self._opening -= 1
                waiting, self._waiting = self._waiting, []
                for *_w, future in waiting:
                    _fail(future, exc)
            return
        if self._loop is not loop:
            _close(conn)
            return
        self._opening -= 1
        self._idle.append(conn)
        self._dispatch()

    async def _run(self, conn: AsyncConnection, batch: list) -> None:
        try:
            if len(batch) == 1:
                _order, sql, params, future = batch[0]
                counts = [max((await conn.execute(sql, params)).rowcount, 0)]
            else:
                async with conn.pipeline(), conn.transaction():
                    cursors = [await conn.execute(sql, params) for _o, sql, params, _f in batch]
                counts = [max(cursor.rowcount, 0) for cursor in cursors]
        except BaseException as exc:
            _close(conn)
            for *_w, future in batch:
                _fail(future, exc)
            if not isinstance(exc, Exception):
                raise
        else:
            for (*_w, future), count in zip(batch, counts, strict=True):
                if not future.done():
                    future.set_result(count)
            if self._loop is asyncio.get_running_loop() and conn in self._busy:
                self._idle.append(conn)
        finally:
            self._busy.discard(conn)
            if self._loop is asyncio.get_running_loop():
                self._dispatch()


class _Text(adapt.Dumper):
    """A parameter as text of no declared type: PostgreSQL gives it the statement's type, so a
    statement is prepared once, whatever the size of its numbers (psycopg's own dumpers make
    smallint, integer or bigint statements of one)."""

    oid = 0

    def dump(self, obj) -> bytes:
        if isinstance(obj, (Json, Jsonb)):
            return fastjson.encode(obj.obj)
        if isinstance(obj, datetime.datetime):
            if obj.tzinfo is None:
                raise TypeError("a naive datetime is not a moment: give it a time zone")
            return obj.isoformat().encode()
        if isinstance(obj, bool):
            return b"t" if obj else b"f"
        return str(obj).encode()


async def _open() -> AsyncConnection:
    params = connections["default"].get_connection_params()
    params.pop("cursor_factory", None)  # (Django's synchronous cursor)
    params["prepare_threshold"] = 0  # every statement prepared on the server, at its first run
    conn = await AsyncConnection.connect(autocommit=True, **params)
    for kind in (bool, int, str, Json, Jsonb, datetime.datetime):
        conn.adapters.register_dumper(kind, _Text)
    return conn


def _alive(conn: AsyncConnection) -> bool:
    """Whether an idle connection is still the server's: it has nothing to read, unless the
    server ended it (a restart): then its next statement would fail."""
    if conn.closed:
        return False
    poll = select.poll()
    poll.register(conn.pgconn.socket, select.POLLIN)
    return not poll.poll(0)


def _close(conn: AsyncConnection) -> None:
    if not conn.closed:
        conn.pgconn.finish()


def _fail(future: asyncio.Future, exc: BaseException) -> None:
    if future.done():
        return
    if isinstance(exc, asyncio.CancelledError):
        future.cancel()
    else:
        future.set_exception(exc)


def _placeholders(sql: str) -> int:
    """How many ``%s`` placeholders ``sql`` has (``%%`` is a percent sign)."""
    return sum(1 for match in re.finditer(r"%(%|s)", sql) if match.group(1) == "s")


#: this process's loop connections (a process runs one event loop: uvicorn's)
database = LoopDatabase()
