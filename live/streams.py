"""Waiting for a live game to move on: the long-poll (``GET /live/<id>/?since=&wait=``) and the
server-sent events (``GET /live/<id>/events/``) the API answers with.

Spectators — anyone neither seated at the table nor its referee — hold at most
``LIVE_SPECTATOR_WAITERS`` waiting requests per process, and ``LIVE_SPECTATOR_WAITERS_PER_ADDRESS``
per client address (:class:`SpectatorSlots`): a crowd of watchers cannot take every thread of a
stream worker, so a seated player's or a referee's request never queues behind theirs. A
spectator's stream beyond the cap is refused (429, ``spectators_busy``); a spectator's long-poll
beyond it answers at once, without waiting.

A waiting request reads nothing: it blocks in :func:`live.notify.wait_for_version` until the
game's next version is announced, then brings its row to that version (:meth:`GameCache.reach
<live.cache.GameCache.reach>`: the table's streams woken together share one read). With a
connection pool, the connection goes back to the pool while it waits.

Each has an async twin for an ASGI server (config/asgi.py; "async (ASGI)" below): the same
frames and rules, but an open stream is a coroutine waiting on its process's one pub/sub
subscription (:class:`live.notify.Dispatcher`), not a thread, and reads in one of a few database
threads (:mod:`live.aio`). Any view wraps them — the API's (api/live_views.py) and a page's:

- :func:`open_events_for` → a view's stream: :func:`open_events_async`, an async iterator of
  server-sent event frames for a ``StreamingHttpResponse`` (raises :class:`SpectatorsBusy`
  before anything is sent), or :func:`open_events` under a sync server;
- :func:`seat_events` → the bare async generator of one seat's (or the public) frames;
- :func:`long_poll_async` → the long-poll's wait, then answer with the view as usual.

A stream or long-poll watches for revocations of the access it was opened on (live.access: a
private link revoked, a sign-out, a deleted token, a seat given to another login…): one heard
makes it check that access at once, before it sends anything more, and end (a long-poll:
answer as a request made now) if it no longer holds — on either server, whichever process the
revocation was made in.
"""

from __future__ import annotations

import asyncio
import math
import random
import threading
import time
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

from django.conf import settings
from django.db import connection
from django.utils.translation import gettext as _

from live import fastjson, notify, services
from live.access import stream_keys
from live.aio import (
    in_db_thread,
    keeps_connection,
    on_event_loop,
    reopener,
    reopener_in_thread,
    reopening,
)
from live.cache import GameGone, Recent, games
from live.models import LiveGame
from live.notify import Watch, wait_for_version, wait_for_version_async
from tournaments.errors import ServiceError

MAX_WAIT = 25.0  # seconds a long-poll waits at most
#: Seconds an event stream follows a game on the access it was opened with, unless a
#: revocation (live.access) makes it check at once. A stream on the event loop checks that
#: access again every RECHECK seconds, the first time at a moment drawn within its first
#: RECHECK (:func:`_first_check`): its view runs again, its credentials read afresh
#: (:func:`live.aio.reopener`), and the stream goes on if the view would open the same stream,
#: or ends; a sync server's stream checks only when a revocation is heard, and ends within
#: RECHECK. So what no revocation announces (a session deleted by hand) stops a stream within
#: this, and the client's reconnect (``Last-Event-ID``) gets the view's answer.
RECHECK = 300.0
#: seconds an event stream stays open at most (each draws half to all of it:
#: :func:`_stream_seconds`); the client reconnects with Last-Event-ID
MAX_STREAM = 3600.0
KEEP_ALIVE = 15.0  # seconds between comment lines on a quiet stream


def _pooled() -> bool:
    return bool(connection.settings_dict.get("OPTIONS", {}).get("pool"))


def release_connection() -> None:
    """With a connection pool, give the connection back while waiting (hundreds of waiting
    requests then need no more connections than the pool); without one, each thread keeps its
    own persistent connection anyway. A stream database thread of an ASGI server keeps its
    connection (:mod:`live.aio`)."""
    if _pooled() and not connection.in_atomic_block and not keeps_connection():
        connection.close()


def read_version(live_id: int) -> int:
    """The game's stored version (what a waiter reads when no announcement can reach it); the
    connection is released again after the read."""
    version = LiveGame.objects.values_list("version", flat=True).get(pk=live_id)
    release_connection()
    return version


def wait_past(live: LiveGame, since: int, timeout: float, watched: Watch | None = None) -> bool:
    """Wait until ``live`` is past version ``since``, at most ``timeout`` seconds (or until
    ``watched`` hears a revocation); whether it moved (then ``live`` is at its new version, or
    later)."""
    release_connection()  # nothing to read while waiting
    moved = wait_for_version(live.pk, since, timeout, lambda: read_version(live.pk), watched)
    if moved is None:
        return False
    games.reach(live, moved)
    return True


class SpectatorSlots:
    """The waiting requests spectators hold in this process: at most ``total`` in all and
    ``per_address`` from one client address (the limits are read from the settings when a slot
    is taken, so a test may change them). Seated players and referees take no slot."""

    def __init__(self):
        self._lock = threading.Lock()
        self._by_address: Counter[str] = Counter()

    def take(self, address: str) -> Callable[[], None] | None:
        """A slot for one waiting request from ``address``: the function that gives it back
        (call it once the request stops waiting), or ``None`` when none is free."""
        with self._lock:
            if (self._by_address.total() >= settings.LIVE_SPECTATOR_WAITERS
                    or self._by_address[address] >= settings.LIVE_SPECTATOR_WAITERS_PER_ADDRESS):
                return None
            self._by_address[address] += 1
        given_back = threading.Event()

        def give_back() -> None:
            if given_back.is_set():
                return
            given_back.set()
            with self._lock:
                self._by_address[address] -= 1
                if self._by_address[address] <= 0:
                    del self._by_address[address]
        return give_back

    def held(self) -> int:
        """How many slots are taken now."""
        with self._lock:
            return self._by_address.total()


spectators = SpectatorSlots()


class SpectatorsBusy(ServiceError):
    """Every spectator slot of this process (or of the client's address) is taken."""

    status = 429

    def __init__(self):
        super().__init__("spectators_busy", _(
            "too many spectators are following live games from here right now; try again "
            "shortly"), {"retry_after": int(KEEP_ALIVE)})


def long_poll(live: LiveGame, since: int, wait: float, *, address: str = "",
              spectator: bool = False, keys: tuple[str, ...] = ()) -> bool:
    """The long-poll: if ``live`` is not past ``since``, wait for its next version, at most
    ``wait`` seconds (capped at :data:`MAX_WAIT`). A ``spectator`` waits only in a free slot of
    :data:`spectators`; without one the answer comes at once. Whether a revocation of ``keys``
    (:func:`live.access.stream_keys`) ended the wait: its access may have ended, and the
    answer must be the one a request made now gets."""
    if not must_wait(live, since, wait):
        return False
    wait = min(MAX_WAIT, wait)
    give_back = spectators.take(address) if spectator else None
    if spectator and give_back is None:
        return False
    watched = notify.watch(keys)
    try:
        wait_past(live, since, wait, watched)
    finally:
        notify.unwatch(watched)
        if give_back is not None:
            give_back()
    return watched is not None and watched.revoked


class _SlotHeld:
    """An event stream that gives its spectator slot back when it ends or is closed (the WSGI
    server closes a response's iterator however the client left; Django registers ``close``)."""

    def __init__(self, events: Iterator[bytes], give_back: Callable[[], None]):
        self._events = events
        self._give_back = give_back

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        try:
            return next(self._events)
        except BaseException:
            self._give_back()
            raise

    def close(self) -> None:
        try:
            self._events.close()
        finally:
            self._give_back()


def open_events(live: LiveGame, seat: int | None, since: int, seconds: float, *,
                address: str = "", spectator: bool = False, new_acts: bool = False,
                reopen: Callable[[], tuple | None] | None = None,
                keys: tuple[str, ...] = ()) -> Iterator[bytes]:
    """The server-sent events of :func:`live_events`; a ``spectator``'s stream holds a slot of
    :data:`spectators` until it ends, and none free raises :class:`SpectatorsBusy`. With
    ``reopen`` (:func:`live.aio.reopener_in_thread`), a revocation of ``keys`` heard makes the
    stream check its access at once, and end unless the view would open the same stream."""
    still_open = None
    if reopen is not None:
        opened = (live.pk, seat, spectator)

        def still_open() -> bool:
            return reopen() == opened

    events = live_events(live, seat, since, seconds, new_acts, still_open, keys)
    if not spectator:
        return events
    give_back = spectators.take(address)
    if give_back is None:
        raise SpectatorsBusy()
    return _SlotHeld(events, give_back)


class UnknownActsChoice(ServiceError):
    """A stream's ``actions`` parameter is neither ``all`` nor ``new``."""

    def __init__(self, value: str):
        super().__init__("bad_actions", _(
            'actions: "all" (every act so far in each view) or "new" (only the acts the '
            'stream has not sent yet), not "%(value)s"') % {"value": value[:40]})


def new_acts_asked(value: str | None) -> bool:
    """Whether a stream's ``actions`` parameter asks for only its new acts in each view
    (``new``) rather than every act so far (``all``, the default); anything else raises
    :class:`UnknownActsChoice`."""
    if value is None or value == "all":
        return False
    if value == "new":
        return True
    raise UnknownActsChoice(value)


class BadActsFrom(ServiceError):
    """An act's ``actions_from`` parameter is not a count of acts."""

    def __init__(self, value: str):
        super().__init__("bad_actions_from", _(
            'actions_from: the number of acts you have (a whole number, 0 or more), so that '
            'the answer carries only the acts from that index on; not "%(value)s"') % {
            "value": value[:40]})


#: the most acts a game could have (at most 216 cards, one or more a play, and passes):
#: ``actions_from`` beyond it is refused, not carried through as a huge number
MAX_ACTS_FROM = 100_000


def acts_from_asked(value: str | None) -> int | None:
    """An act's ``actions_from`` parameter: ``None`` when absent (the answer carries every act
    so far), else the index from which the answer's ``actions`` start (``actions_from`` in the
    answer; every act if the game has fewer), as a stream's views with ``actions=new`` carry
    them. Anything but a whole number from 0 to :data:`MAX_ACTS_FROM` raises
    :class:`BadActsFrom`."""
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_ACTS_FROM:
        raise BadActsFrom(value)
    return int(value)


def _drawn(most: float) -> float:
    """A time drawn between half ``most`` and all of it: streams opened together — an event's
    start, a restart, a network drop — then end apart, not together: 10,000 streams
    reopening at once would hold up every table's acts while they reconnect."""
    return most * random.uniform(0.5, 1.0)


def _first_check(start: float) -> float:
    """When a stream opened at ``start`` (monotonic) first checks its access: at a moment drawn
    between then and :data:`RECHECK` later, each stream its own, and every RECHECK after it.
    Streams opened together (an event's round, a restart) so check at an even rate from the
    start — 10,000 streams, 33 checks a second — and never more than RECHECK apart. (Drawing
    each interval between half RECHECK and all of it would bring every first check into the
    second half of the first RECHECK: twice the rate.)"""
    return start + random.uniform(0.0, RECHECK)


def _stream_seconds(seconds: float, rechecked: bool = False) -> float:
    """How long a stream stays open: ``seconds`` (NaN: the most), at most a time drawn up to
    :data:`MAX_STREAM` — or, for a stream that does not check its access again (not
    ``rechecked``), up to :data:`RECHECK`."""
    most = _drawn(MAX_STREAM) if rechecked else min(_drawn(MAX_STREAM), _drawn(RECHECK))
    return min(most, max(0.0, seconds)) if seconds == seconds else most


#: A ``view`` event as sent, and how many acts its game had then: where the next event of a
#: stream that sends only new acts starts them (-1 in a whole view, which needs no start).
Frame = tuple[bytes, int]


class _Frames(Recent):
    """The ``view`` frames this process rendered lately, by game, version, the row's other
    fields the view shows, seat, and the acts left out (those its stream sent already; ``None``:
    the whole view): the streams that show one view (a seat's several tabs, every spectator's
    public view) share one rendering. A frame is a function of its key (the game at a state
    version is one state: :class:`live.cache.GameCache`), so a cached one is what rendering
    again would give."""

    @staticmethod
    def key(live: LiveGame, seat: int | None, after: int | None = None) -> tuple:
        return (live.pk, live.started_at, live.version, live.status, live.turn_deadline,
                live.result_id, live.hosted, after is None, seat, after)


frames = _Frames(2048)
#: the part of the views of a game at a version (and row) that every viewer sees alike, as
#: JSON: encoded once for the six seats' frames and the spectators', by :meth:`_Frames.key`
#: without the seat (with every act of the game so far, most of a whole view; a stream that
#: sends only new acts has them in the seat's part)
publics = Recent(512)


def _frame_of(live: LiveGame, seat: int | None, read: bool = True,
              after: int | None = None) -> Frame | None:
    """The ``view`` event of ``live`` at its version for ``seat``, encoded once (the streams
    that show it share it, and send it as is); ``read=False``: from memory only (``None`` when
    the game at that version is not held). Its data is the view's JSON (what GET answers, as
    JSON): the seat's own part encoded, then the part every viewer sees, encoded once for all
    of them (:data:`publics`). ``after``: the acts from that index on only
    (:func:`live.services.live_view_parts`' ``acts_after``)."""
    key = frames.key(live, None, after)[:-2]
    public = publics.get(key)
    parts = services.live_view_parts(live=live, seat=seat, public=public is None, read=read,
                                     acts_after=after, acts_encoded=True)
    if parts is None:
        return None
    own, shown = parts
    if public is None:
        public = fastjson.dumps_bytes(shown)
        publics.put(key, public)
    acts = own["actions_from"] + len(own["actions"]) if after is not None else -1
    return b"id: %d\nevent: view\ndata: %s,%s\n\n" % (
        live.version, fastjson.dumps_bytes(own)[:-1], public[1:]), acts


def _view_frame(live: LiveGame, seat: int | None, after: int | None = None) -> Frame:
    """The ``view`` event of ``live`` at its version for ``seat`` (what GET answers; with
    ``after``, only the acts from that index on)."""
    key = frames.key(live, seat, after)
    frame = frames.get(key)
    if frame is None:
        frame = _frame_of(live, seat, after=after)
        frames.put(key, frame)
    release_connection()
    return frame


def _opening(live: LiveGame) -> bytes:
    return b"retry: 1000\n: %d\n\n" % live.pk


KEEP_ALIVE_FRAME = b": keep-alive\n\n"


def live_events(live: LiveGame, seat: int | None, since: int, seconds: float,
                new_acts: bool = False, still_open: Callable[[], bool] | None = None,
                keys: tuple[str, ...] = ()) -> Iterator[bytes]:
    """The server-sent events of one seat's (or the public) view: one ``view`` event per new
    version (``id:`` is the version), comment lines while nothing happens; ends when the game
    is over or after ``seconds`` (capped at a time drawn up to :data:`RECHECK`: a sync stream
    does not check its access periodically). With ``still_open`` (whether the stream's access
    still holds), a revocation of ``keys`` heard makes the stream ask it before it sends
    anything more, and end when it says no. ``new_acts``: each event's
    ``actions`` are only those the stream has not sent yet, from index ``actions_from`` (its
    first event has them all): a view does not grow with the game."""
    deadline = time.monotonic() + _stream_seconds(seconds)
    after = 0 if new_acts else None
    watched = notify.watch(keys) if still_open is not None else None
    try:
        yield _opening(live)
        while True:
            if watched is not None and watched.revoked:
                watched.revoked = False  # (one heard while it checks sets it again)
                if not still_open():
                    return
            if live.version > since:
                since = live.version
                frame, acts = _view_frame(live, seat, after)
                after = acts if new_acts else None
                yield frame
                if live.status == LiveGame.Status.FINISHED:
                    return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                moved = wait_past(live, since, min(left, KEEP_ALIVE), watched)
            except GameGone:
                return
            if not moved and not (watched is not None and watched.revoked):
                yield KEEP_ALIVE_FRAME
    finally:
        notify.unwatch(watched)


# ----------------------------------------------------------------------------- async (ASGI)
# The same streams and long-polls for an ASGI server (config/asgi.py), where an open stream is
# a coroutine, not a thread: it waits on its event loop's pub/sub dispatcher
# (live.notify.Dispatcher: one Redis connection for all of the process's waiters) holding no
# database connection, and reads only when its game moves, in one of the few stream database
# threads (live.aio). The rules are the ones above: who sees what (live.services.live_view),
# spectators' slots, resuming after ``since`` (Last-Event-ID), comment lines every KEEP_ALIVE
# seconds, MAX_STREAM and MAX_WAIT.
#
# The API (for any view, api/ or web/):
#
#   events = open_events_for(request, live, seat, since, seconds, user=..., address=...,
#                            spectator=...)
#   return EventStreamResponse(events)
#
# in a view wrapped by live.aio.waiting_view (served by uvicorn, config/asgi.py), where it is
# open_events_async, with the stream's access checked again every RECHECK seconds and when a
# revocation of it is heard; under a sync server (gunicorn, runserver) it is open_events, as a
# sync server cannot iterate an async stream without buffering it whole (checked when a
# revocation is heard). ``live`` is the game's row read without its state
# (live.queries.live_for_view), ``seat`` the asking user's seat at its table or None (the
# public view: no hidden cards), ``user`` whose access opens it. It raises
# SpectatorsBusy at once when a spectator finds no free slot; the iterator gives the slot back
# however the stream ends. ``seat_events`` is the bare async generator (no slot), and
# ``long_poll_async`` the long-poll's wait.

def _reach_frame(live: LiveGame, version: int, since: int, seat: int | None,
                 after: int | None = None) -> Frame | None:
    """Bring ``live`` to ``version`` (or later) and its frame; ``None`` if its stored version
    is not past ``since`` after all (an announcement of a reused id, after a restore)."""
    games.reach(live, version)
    return _view_frame(live, seat, after) if live.version > since else None


def _memory_frame(live: LiveGame, version: int, since: int, seat: int | None,
                  after: int | None = None) -> tuple[bool, Frame | None]:
    """:func:`_reach_frame` from this process's memory only, for the event loop:
    ``(True, frame or None)`` when memory sufficed, ``(False, None)`` when a read is due."""
    if not games.row_at(live, version) and not games.advance(live, version):
        return False, None  # (not held, nor to be moved on by the acts announced: a read)
    if live.version <= since:
        return True, None
    frame = _cached_frame(live, seat, after)
    return frame is not None, frame


def _cached_frame(live: LiveGame, seat: int | None, after: int | None = None) -> Frame | None:
    """The ``view`` frame of ``live`` at its version for ``seat``, from this process's memory
    only (``None``: its cache does not hold the game at that version)."""
    key = frames.key(live, seat, after)
    frame = frames.get(key)
    if frame is None:
        frame = _frame_of(live, seat, read=False, after=after)
        if frame is None:
            return None
        frames.put(key, frame)
    return frame


def view_json_cached(live: LiveGame, seat: int | None, after: int | None = None
                     ) -> bytes | None:
    """``seat``'s view of ``live`` at its version as JSON (what GET answers, compact; with
    ``after``, only the acts from that index on), from memory only (``None``: not held): the
    data of the seat's stream frame, rendered once for both — the act's answer on its short
    path (api/fast_act.py) is the frame its seat's stream is about to send. An answer asked
    with ``actions_from`` at the count of acts its client has is the very frame of that
    client's stream (``actions=new``): one rendering for the two."""
    frame = _cached_frame(live, seat, after)
    return None if frame is None else frame[0][frame[0].index(b"\ndata: ") + 7:-2]


# (loop -> (game id, version) -> the read under way): the streams of one game woken together
# wait for one read in a database thread, then render from memory on the loop
_reads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def _frame_after(live: LiveGame, version: int, since: int, seat: int | None,
                       after: int | None = None) -> Frame | None:
    """:func:`_reach_frame` for a stream: from memory if this process has the game at
    ``version`` (no thread hop), else after the one read of it under way or started here."""
    known, frame = _memory_frame(live, version, since, seat, after)
    if known:
        return frame
    reads = _reads.setdefault(asyncio.get_running_loop(), {})
    key = (live.pk, version)
    pending = reads.get(key)
    if pending is None:
        pending = reads[key] = asyncio.ensure_future(
            in_db_thread(_reach_frame, live, version, since, seat, after))
        pending.add_done_callback(lambda _: reads.pop(key, None))
        return await asyncio.shield(pending)  # a stream that ends leaves the others' read be
    await asyncio.wait([pending])
    known, frame = _memory_frame(live, version, since, seat, after)
    if known:
        return frame
    return await in_db_thread(_reach_frame, live, version, since, seat, after)


def _first_frame(live: LiveGame, since: int, seat: int | None,
                 after: int | None = None) -> Frame | None:
    """An async stream's first ``view`` frame (``None``: the client has the version already,
    as one resuming with ``Last-Event-ID`` has): the game brought into this process's memory
    either way (:meth:`GameCache.reach <live.cache.GameCache.reach>`, one read for the streams
    of a table). The process that holds a game's streams serves its acts (docs/DEPLOY.md's
    layout): without this, after a restart every table's first act read and rebuilt its game
    in a stream database thread, behind the others' (``bench_live --streams``: acts p99 of
    1.8 s in the first 10 s of play)."""
    games.reach(live, live.version)
    return _view_frame(live, seat, after) if live.version > since else None


async def wait_past_async(live: LiveGame, since: int, timeout: float,
                          watched: Watch | None = None) -> bool:
    """:func:`wait_past` on the event loop: whether ``live`` moved past ``since`` within
    ``timeout`` seconds (then it is at its new version, or later) before ``watched`` heard a
    revocation."""
    moved = await wait_for_version_async(live.pk, since, timeout, watched)
    if moved is None:
        return False
    if not games.row_at(live, moved) and not games.advance(live, moved):
        await in_db_thread(games.reach, live, moved)
    return True


async def seat_events(live: LiveGame, seat: int | None, since: int, seconds: float,
                      new_acts: bool = False,
                      still_open: Callable[[], Awaitable[bool]] | None = None,
                      keys: tuple[str, ...] = ()) -> AsyncIterator[bytes]:
    """:func:`live_events` as an async generator: the same frames, the same rules. With
    ``still_open`` (whether the stream's access still holds), the stream asks it every
    :data:`RECHECK` seconds (:func:`_first_check`), and at once, before it sends anything
    more, when a revocation of ``keys`` is heard; it ends when it says no, else runs up to
    :data:`MAX_STREAM`. Without it, it ends at its first check."""
    start = time.monotonic()
    deadline = start + _stream_seconds(seconds, rechecked=still_open is not None)
    check_at = _first_check(start) if still_open is not None else math.inf
    after = 0 if new_acts else None
    watched = (notify.watch(keys, asyncio.get_running_loop())
               if still_open is not None else None)
    try:
        try:  # (before the opening line: a client that has it has a stream ready for the acts)
            frame = await in_db_thread(_first_frame, live, since, seat, after)
        except GameGone:
            return
        yield _opening(live)
        while True:
            now = time.monotonic()
            revoked = watched is not None and watched.revoked
            if revoked or now >= check_at:
                if watched is not None:
                    watched.revoked = False  # (one heard while it checks sets it again)
                if not await still_open():
                    return
                if not revoked:
                    check_at = max(check_at + RECHECK, time.monotonic())
            if frame is not None:
                since = live.version
                frame, acts = frame
                after = acts if new_acts else None
                yield frame
                if live.status == LiveGame.Status.FINISHED:
                    return
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                return
            moved = await wait_for_version_async(
                live.pk, since, min(left, KEEP_ALIVE, max(0.0, check_at - now)), watched)
            if moved is None:
                frame = None
                if not (watched is not None and watched.revoked):
                    yield KEEP_ALIVE_FRAME
                continue
            try:
                frame = await _frame_after(live, moved, since, seat, after)
            except GameGone:
                return
            if frame is None:  # announced, not stored: no busy loop on it
                await asyncio.sleep(min(KEEP_ALIVE, max(0.0, deadline - time.monotonic())))
                yield KEEP_ALIVE_FRAME
    finally:
        notify.unwatch(watched)


class _AsyncSlotHeld:
    """An async event stream that gives its spectator slot back however it ends: run out,
    failed or cancelled (the client left while it waited), closed by the response, or dropped
    unstarted (garbage-collected)."""

    def __init__(self, events: AsyncIterator[bytes], give_back: Callable[[], None]):
        self._events = events
        self._give_back = give_back
        weakref.finalize(self, give_back)

    def __aiter__(self):
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self._events.__anext__()
        except BaseException:
            self._give_back()
            raise

    async def aclose(self) -> None:
        try:
            await self._events.aclose()
        finally:
            self._give_back()

    def close(self) -> None:  # (Django closes a response's content with it)
        self._give_back()


def open_events_async(live: LiveGame, seat: int | None, since: int, seconds: float, *,
                      address: str = "", spectator: bool = False, new_acts: bool = False,
                      reopen: Callable[[], Awaitable[tuple | None]] | None = None,
                      keys: tuple[str, ...] = ()) -> AsyncIterator[bytes]:
    """:func:`open_events` for an ASGI view: an async iterator of the frames of
    :func:`seat_events`; a ``spectator``'s stream holds a slot of :data:`spectators` until it
    ends, and none free raises :class:`SpectatorsBusy` (before anything is sent). ``reopen``
    (:func:`live.aio.reopener`) runs the view again: the stream then checks its access every
    :data:`RECHECK` seconds, and at once when a revocation of ``keys`` is heard, and goes on
    while the view would open the same stream (the same game, seat, and spectator or not),
    instead of ending for its client to reconnect."""
    still_open = None
    if reopen is not None:
        opened = (live.pk, seat, spectator)

        async def still_open() -> bool:
            return await reopen() == opened

    events = seat_events(live, seat, since, seconds, new_acts, still_open, keys)
    if not spectator:
        return events
    give_back = spectators.take(address)
    if give_back is None:
        raise SpectatorsBusy()
    return _AsyncSlotHeld(events, give_back)


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield  # (an async generator that yields nothing)


def open_events_for(request, live: LiveGame, seat: int | None, since: int, seconds: float, *,
                    user, **options) -> Iterator[bytes] | AsyncIterator[bytes]:
    """The stream a view answers ``request`` with, on ``user``'s access (the request's, or a
    private link's player's login): :func:`open_events_async` when the request came through
    :func:`live.aio.waiting_view` (an ASGI server), with the check of its access
    (:func:`live.aio.reopener`), else :func:`open_events` (a sync server, which cannot iterate
    an async stream; its check runs in its thread: :func:`live.aio.reopener_in_thread`); each
    watches for revocations of that access (:func:`live.access.stream_keys`). ``options``:
    theirs (``address``, ``spectator``, ``new_acts``). Called by the check of an open stream
    (:data:`live.aio.reopening` set), it notes what it would open and opens nothing."""
    noted = reopening.get()
    if noted is not None:
        noted.append((live.pk, seat, options.get("spectator", False)))
        return _nothing() if on_event_loop(request) else iter(())
    keys = stream_keys(user, live)
    if on_event_loop(request):
        return open_events_async(live, seat, since, seconds, reopen=reopener(request),
                                 keys=keys, **options)
    return open_events(live, seat, since, seconds, reopen=reopener_in_thread(request),
                       keys=keys, **options)


def must_wait(live: LiveGame, since: int, wait: float) -> bool:
    """Whether a long-poll at ``since`` asking to wait ``wait`` seconds waits at all."""
    return live.version <= since and min(MAX_WAIT, max(0.0, wait)) > 0  # NaN: no wait


async def long_poll_async(live: LiveGame, since: int, wait: float, *, address: str = "",
                          spectator: bool = False, keys: tuple[str, ...] = ()) -> bool:
    """:func:`long_poll` on the event loop (the same rules: at most :data:`MAX_WAIT`, a
    spectator only in a free slot; whether a revocation of ``keys`` ended the wait)."""
    if not must_wait(live, since, wait):
        return False
    wait = min(MAX_WAIT, wait)
    give_back = spectators.take(address) if spectator else None
    if spectator and give_back is None:
        return False
    watched = notify.watch(keys, asyncio.get_running_loop())
    try:
        await wait_past_async(live, since, wait, watched)
    finally:
        notify.unwatch(watched)
        if give_back is not None:
            give_back()
    return watched is not None and watched.revoked
