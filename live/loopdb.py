"""A database connection for the event loop itself: psycopg's async connection, on PostgreSQL,
for the act's short path (api/fast_act.py), which stores a common act with one conditional
``UPDATE`` awaited on the loop.

Before, the act went to a stream database thread (live/aio.py) for its checks and its
statement, and came back. With 10,000 streams open that hop cost more than the act: the
threads of each process passing the GIL back and forth with the loop, and the hand-offs'
system calls. With the act on the loop, the stream servers' CPU an act fell from 2.5-3.0 ms
to 2.3 ms, and a move every 3 s carried 534 acts/s of 556 against 383-491
(``bench_live --streams 10000``, docs/BENCHMARKS.md "Seventh pass").

Django's ORM is not used here: its connections are synchronous and refuse to be used on an
event loop. :class:`LoopDatabase` holds a few ``psycopg.AsyncConnection`` for the loop they
were made on (``LIVE_LOOP_DB_CONNECTIONS``, 4), in autocommit, opened with Django's own
connection parameters (the same database, user and options) when a statement needs one, each
statement prepared on the server when first run. A statement that fails closes its connection
(the next opens a new one) and raises: the caller knows nothing was stored or
cannot know, and hands the act to the view, whose conditional update stores it at most once.
"""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)


class LoopDatabase:
    """A few async connections to the default database, for the event loop in use: at most
    ``size`` statements run at once (each on a connection of its own), the others wait for one.
    A single connection made every act wait for the one before it, whose answer the loop only
    reads when it comes round to it: with 10,000 streams, a queue of seconds."""

    def __init__(self, size: int | None = None):
        self._size = size
        self._idle: list = []  # psycopg.AsyncConnection, open and free
        self._busy: set = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None

    @staticmethod
    def usable() -> bool:
        """Whether the default database is PostgreSQL (psycopg's async connection)."""
        return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")

    async def rowcount(self, sql: str, params: list) -> int:
        """Run ``sql`` with ``params`` (``%s`` placeholders, Django's raw SQL) and answer how
        many rows it changed."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # (a new loop: the old one's connections cannot serve it)
            self.close_now()
            self._loop = loop
            self._slots = asyncio.Semaphore(self._size or settings.LIVE_LOOP_DB_CONNECTIONS)
        async with self._slots:
            connection = self._idle.pop() if self._idle else await self._open()
            self._busy.add(connection)
            try:
                async with connection.cursor() as cursor:
                    await cursor.execute(sql, params)
                    count = cursor.rowcount
            except BaseException:
                self._busy.discard(connection)
                await self._close(connection)
                raise
            self._busy.discard(connection)
            if not connection.closed:
                self._idle.append(connection)
            return count

    @staticmethod
    async def _open():
        import psycopg

        params = connections["default"].get_connection_params()
        params.pop("cursor_factory", None)  # (Django's synchronous cursor)
        # prepared on the server at their first run, as tournaments.sqlrows.prepared_cursor
        # does (Django's parameters prepare nothing): planning the act's UPDATE each time
        # doubled PostgreSQL's CPU at 10,000 streams
        params["prepare_threshold"] = 0
        return await psycopg.AsyncConnection.connect(autocommit=True, **params)

    @staticmethod
    async def _close(connection) -> None:
        try:
            await connection.close()
        except Exception:  # (already broken)
            log.debug("closing a failed loop connection", exc_info=True)

    def connections(self) -> int:
        """How many connections are open."""
        return len(self._idle) + len(self._busy)

    def close_now(self) -> None:
        """Close the connections from any thread, without their loop (which may be gone): their
        sockets are closed at once."""
        held, self._idle, self._busy = [*self._idle, *self._busy], [], set()
        for connection in held:
            if not connection.closed:
                connection.pgconn.finish()


#: this process's loop connection (a process runs one event loop: uvicorn's)
database = LoopDatabase()
