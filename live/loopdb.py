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
state: docs/BENCHMARKS.md, "Eighth pass"). The statements that wait for a connection go
together, as one transaction (libpq's pipeline mode): a server behind on its acts stores the
acts that queued in one round trip and one commit. A statement that fails closes its
connection (the next opens a new one) and raises, and so do the others sent with it: the
caller knows nothing was stored or cannot know, and hands the act to the view, whose
conditional update stores it at most once.
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.db import connections
from psycopg import errors, pq
from psycopg.types.json import Json as _Json
from psycopg.types.json import Jsonb as _Jsonb

from live import fastjson

log = logging.getLogger(__name__)


class LoopDatabase:
    """A few connections to the default database, for the event loop in use (``size``). A
    statement goes out at once on a free connection; the statements that come while every
    connection is busy wait, and go together on the first to be free, in one write, as one
    transaction (:class:`_Link`: libpq's pipeline mode). A single connection made every act
    wait for the one before it, whose answer the loop only reads when it comes round to it:
    with 10,000 streams, a queue of seconds. With one statement a connection at a time, a
    host short of CPU queued its acts for the connections, each act then a round trip, a
    wake-up of its server and a commit of its own, costing the most exactly when it was
    behind; together, the acts that waited cost one of each."""

    def __init__(self, size: int | None = None):
        self._size = size
        self._idle: list[_Link] = []  # open and free
        self._busy: set[_Link] = set()  # running a batch of statements
        self._opening = 0  # connections being opened
        self._waiting: list[_Statement] = []  # statements waiting for a free connection
        self._tasks: set[asyncio.Task] = set()  # (the openings under way: kept from the GC)
        self._loop: asyncio.AbstractEventLoop | None = None

    @staticmethod
    def usable() -> bool:
        """Whether the default database is PostgreSQL (psycopg)."""
        return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")

    async def rowcount(self, sql: str, params: list, *, order: int = 0) -> int:
        """Run ``sql`` with ``params`` (``%s`` placeholders, Django's raw SQL; ``None``, whole
        numbers, text, aware datetimes and psycopg's ``Json`` and ``Jsonb``) and answer how many
        rows it changed (or, for a ``SELECT``, gave). It may run in one transaction with other
        statements that waited with it, in the order of their ``order`` (the row they change:
        transactions that lock rows in one order cannot deadlock); if any of them fails, none
        is stored, each raises, and its connection is closed."""
        loop = self._bind()
        statement = _Statement(sql, [as_text(value) for value in params], order,
                               loop.create_future())
        self._waiting.append(statement)
        self._dispatch()
        return await statement.future

    async def warm(self, statements: list[str] = ()) -> None:
        """Open the connections now, each with ``statements`` prepared, so that the first
        statements after a (re)start do not wait for them: opening four on demand held the
        first 100 ms of acts 50-90 ms (``bench_live --streams 10000``, docs/BENCHMARKS.md,
        "Ninth pass"). The server calls it as it starts; a failure leaves the connections to
        open on demand, as before."""
        loop = self._bind()
        while self.connections() + self._opening < self._slots_size():
            self._opening += 1
            try:
                link = await _Link.open(loop)
            finally:
                self._opening -= 1
            try:
                for sql in statements:
                    await link.prepare(sql)
            except BaseException:
                link.close()
                raise
            self._idle.append(link)
        self._dispatch()

    def _bind(self) -> asyncio.AbstractEventLoop:
        """The running loop, whose connections these are (a new loop: the old one's cannot
        serve it, and are closed)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self.close_now()
            self._loop, self._waiting, self._tasks, self._opening = loop, [], set(), 0
        return loop

    def _slots_size(self) -> int:
        return self._size or settings.LIVE_LOOP_DB_CONNECTIONS

    def _dispatch(self) -> None:
        """Send the waiting statements together on a free connection, or open one for them if
        there may be more; else they wait for the next connection to be free."""
        self._waiting = [s for s in self._waiting if not s.future.done()]  # (not cancelled)
        if not self._waiting:
            return
        link = self._open_idle()
        if link is None:
            if self.connections() + self._opening < self._slots_size():
                self._opening += 1
                task = self._loop.create_task(self._open(self._loop))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            return
        batch, self._waiting = sorted(self._waiting, key=_Statement.key), []
        self._busy.add(link)
        link.run(batch, self._finished)

    async def _open(self, loop: asyncio.AbstractEventLoop) -> None:
        """Open a connection for the waiting statements; if it cannot be, they fail with the
        reason."""
        try:
            link = await _Link.open(loop)
        except BaseException as exc:
            if self._loop is loop:
                self._opening -= 1
                waiting, self._waiting = self._waiting, []
                for statement in waiting:
                    statement.fail(exc)
            if not isinstance(exc, Exception):
                raise
            return
        if self._loop is not loop:  # (closed meanwhile: another loop's now)
            link.close()
            return
        self._opening -= 1
        self._idle.append(link)
        self._dispatch()

    def _finished(self, link: _Link) -> None:
        """``link``'s batch is answered (or failed): it takes the statements that waited."""
        self._busy.discard(link)
        if link.closed:
            link.close()
        else:
            self._idle.append(link)
        self._dispatch()

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


class _Statement:
    """A statement of :meth:`LoopDatabase.rowcount`: its SQL, its parameters as text, its place
    in a batch (``order``) and the future of its row count (``params`` ``None``: prepare the
    SQL only, :meth:`_Link.prepare`)."""

    __slots__ = ("sql", "params", "order", "future")

    def __init__(self, sql: str, params: list | None, order: int, future: asyncio.Future):
        self.sql, self.params, self.order, self.future = sql, params, order, future

    def key(self) -> int:
        return self.order

    def answer(self, count: int) -> None:
        if not self.future.done():
            self.future.set_result(count)

    def fail(self, exc: BaseException) -> None:
        if self.future.done():
            return
        if isinstance(exc, asyncio.CancelledError):
            self.future.cancel()
        else:
            self.future.set_exception(exc)


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
    closes it); its statements go through its libpq connection (``pgconn``) directly, in
    pipeline mode, one batch at a time: the batch's statements (each prepared on the server
    the first time) and a sync point, written at once; the server runs them as one implicit
    transaction, committed at the sync. The loop watches its socket from when it opens until
    it closes, so a batch registers nothing. A connection the server closes is seen at once
    (its socket reads the end) and is not used again; a batch that fails closes it too."""

    def __init__(self, connection, loop: asyncio.AbstractEventLoop):
        self.connection = connection
        self._pgconn = connection.pgconn
        self._loop = loop
        self._fd = self._pgconn.socket
        self._prepared: dict[str, bytes] = {}  # sql -> the name it is prepared under
        #: the batch sent: for each command, its statement (``None``: the prepare of the
        #: statement that follows) — ``None`` while no batch is out
        self._batch: list[_Statement | None] | None = None
        self._results: list = []  # the batch's results so far, one a command
        self._done: Callable[[_Link], None] | None = None
        self._failure: BaseException | None = None  # why the last batch failed, if it did
        self._writing = False
        self._pgconn.nonblocking = 1
        self._pgconn.enter_pipeline_mode()
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

    async def prepare(self, sql: str) -> None:
        """Prepare ``sql`` on the server now, as tournaments.sqlrows.prepared_cursor does
        (planning the act's ``UPDATE`` each time doubled PostgreSQL's CPU at 10,000 streams);
        a batch prepares the statements it runs that are not yet."""
        finished = self._loop.create_future()
        self.run([_Statement(sql, None, 0, self._loop.create_future())],
                 lambda link: finished.set_result(None))
        await finished
        if self._failure is not None:
            raise self._failure

    def run(self, batch: list[_Statement], done: Callable[[_Link], None]) -> None:
        """Send ``batch`` (a statement's ``params`` ``None``: only prepared) and, once its
        results are in — or it failed, each of its statements then failing —, call
        ``done(self)``."""
        if self._batch is not None or self.closed:
            raise RuntimeError("a loop connection runs one batch at a time, open")
        self._done, self._failure, commands = done, None, []
        try:
            for statement in batch:
                name = self._prepared.get(statement.sql)
                if name is None:
                    name = self._prepared[statement.sql] = b"loop_%d" % len(self._prepared)
                    self._pgconn.send_prepare(name, numbered(statement.sql).encode())
                    commands.append(None)
                if statement.params is not None:
                    self._pgconn.send_query_prepared(name, statement.params)
                    commands.append(statement)
            self._pgconn.pipeline_sync()
        except Exception as exc:  # (the connection broke as the batch went)
            self._batch = [s for s in batch if s.params is not None]
            self._fail(exc)
            return
        self._batch = commands
        self._flush()

    def _flush(self) -> None:
        """Write what libpq holds of the batch; the rest when the socket takes more."""
        try:
            more = self._pgconn.flush()
        except Exception as exc:
            self._fail(exc)
            return
        if more and not self._writing:
            self._loop.add_writer(self._fd, self._flush)
            self._writing = True
        elif not more and self._writing:
            self._loop.remove_writer(self._fd)
            self._writing = False

    def _readable(self) -> None:
        """The socket has something: the batch's results, each to its statement once the sync
        point's is in (the commit); the connection's end (or a failure) closes it and fails
        the batch."""
        pgconn = self._pgconn
        try:
            pgconn.consume_input()
            ends = 0  # (libpq marks each command's end with no result; two in a row: no more)
            while self._batch is not None and ends < 2 and not pgconn.is_busy():
                result = pgconn.get_result()
                if result is None:
                    ends += 1
                elif result.status == pq.ExecStatus.PIPELINE_SYNC:
                    self._answer()
                else:
                    ends = 0
                    self._results.append(result)
        except Exception as exc:  # (the server closed the connection, or it broke)
            self._fail(exc)

    def _answer(self) -> None:
        """The sync point's result is in: each statement its row count; if a command failed,
        nothing was committed — each statement fails (with its own error, its prepare's, or
        one that says another failed) and the connection is closed."""
        batch, results = self._batch, self._results
        self._batch, self._results = None, []
        failed = next((r for r in results if r.status not in _DONE), None)
        if failed is None and len(results) == len(batch):
            for statement, result in zip(batch, results, strict=True):
                if statement is not None:
                    statement.answer(int(result.command_tuples or 0))
        else:
            self._failure = _error(failed) if failed is not None else errors.OperationalError(
                "the loop connection gave no result")
            prepare_error = None
            for statement, result in itertools.zip_longest(batch, results[:len(batch)]):
                own = _error(result) if result is not None and \
                    result.status == pq.ExecStatus.FATAL_ERROR else None
                if statement is None:
                    prepare_error = own
                    continue
                statement.fail(own or prepare_error or errors.OperationalError(
                    f"not stored: a statement run with it failed ({self._failure})"))
                prepare_error = None
            self.close()
        self._finish()

    def _fail(self, exc: BaseException) -> None:
        """The connection broke: the batch's statements fail with ``exc`` (stored or not, they
        cannot know), and it is closed."""
        batch, self._batch, self._results = self._batch or [], None, []
        self._failure = exc
        self.close()
        for statement in batch:
            if statement is not None:
                statement.fail(exc)
        self._finish()

    def _finish(self) -> None:
        done, self._done = self._done, None
        if done is not None:
            done(self)

    def close(self) -> None:
        """Stop watching the socket and close it at once (from any thread, or after the loop
        is gone)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                self._loop.remove_reader(fd)
                if self._writing:
                    self._loop.remove_writer(fd)
            except Exception:  # (the loop is closed, or in another thread: the socket goes)
                log.debug("unwatching a loop connection", exc_info=True)
        if not self.connection.closed:
            self.connection.pgconn.finish()


#: a command's results that are not a failure
_DONE = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)


def _error(result) -> Exception:
    return errors.error_from_result(result)


#: this process's loop connection (a process runs one event loop: uvicorn's)
database = LoopDatabase()
