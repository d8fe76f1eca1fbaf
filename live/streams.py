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
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db import connection
from django.utils.translation import gettext as _
from rest_framework.utils.encoders import JSONEncoder

from live import services
from live.cache import games
from live.models import LiveGame
from live.notify import wait_for_version
from tournaments.errors import ServiceError

MAX_WAIT = 25.0  # seconds a long-poll waits at most
MAX_STREAM = 300.0  # seconds one event stream stays open; the client reconnects (Last-Event-ID)
KEEP_ALIVE = 15.0  # seconds between comment lines on a quiet stream


def _pooled() -> bool:
    return bool(connection.settings_dict.get("OPTIONS", {}).get("pool"))


def release_connection() -> None:
    """With a connection pool, give the connection back while waiting (hundreds of waiting
    requests then need no more connections than the pool); without one, each thread keeps its
    own persistent connection anyway."""
    if _pooled() and not connection.in_atomic_block:
        connection.close()


def read_version(live_id: int) -> int:
    """The game's stored version (what a waiter reads when no announcement can reach it); the
    connection is released again after the read."""
    version = LiveGame.objects.values_list("version", flat=True).get(pk=live_id)
    release_connection()
    return version


def wait_past(live: LiveGame, since: int, timeout: float) -> bool:
    """Wait until ``live`` is past version ``since``, at most ``timeout`` seconds; whether it
    moved (then ``live`` is at its new version, or later)."""
    release_connection()  # nothing to read while waiting
    moved = wait_for_version(live.pk, since, timeout, lambda: read_version(live.pk))
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
              spectator: bool = False) -> None:
    """The long-poll: if ``live`` is not past ``since``, wait for its next version, at most
    ``wait`` seconds (capped at :data:`MAX_WAIT`). A ``spectator`` waits only in a free slot of
    :data:`spectators`; without one the answer comes at once."""
    wait = min(MAX_WAIT, max(0.0, wait))
    if live.version > since or wait <= 0:
        return
    give_back = spectators.take(address) if spectator else None
    if spectator and give_back is None:
        return
    try:
        wait_past(live, since, wait)
    finally:
        if give_back is not None:
            give_back()


class _SlotHeld:
    """An event stream that gives its spectator slot back when it ends or is closed (the WSGI
    server closes a response's iterator however the client left; Django registers ``close``)."""

    def __init__(self, events: Iterator[str], give_back: Callable[[], None]):
        self._events = events
        self._give_back = give_back

    def __iter__(self):
        return self

    def __next__(self) -> str:
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
                address: str = "", spectator: bool = False) -> Iterator[str]:
    """The server-sent events of :func:`live_events`; a ``spectator``'s stream holds a slot of
    :data:`spectators` until it ends, and none free raises :class:`SpectatorsBusy`."""
    events = live_events(live, seat, since, seconds)
    if not spectator:
        return events
    give_back = spectators.take(address)
    if give_back is None:
        raise SpectatorsBusy()
    return _SlotHeld(events, give_back)


def live_events(live: LiveGame, seat: int | None, since: int, seconds: float) -> Iterator[str]:
    """The server-sent events of one seat's (or the public) view: one ``view`` event per new
    version (``id:`` is the version), comment lines while nothing happens; ends when the game
    is over or after ``seconds`` (capped at :data:`MAX_STREAM`)."""
    seconds = min(MAX_STREAM, max(0.0, seconds)) if seconds == seconds else MAX_STREAM
    deadline = time.monotonic() + seconds
    yield f"retry: 1000\n: {live.pk}\n\n"
    while True:
        if live.version > since:
            data = json.dumps(services.live_view(live=live, seat=seat), cls=JSONEncoder,
                              separators=(",", ":"))
            release_connection()
            since = live.version
            yield f"id: {since}\nevent: view\ndata: {data}\n\n"
            if live.status == LiveGame.Status.FINISHED:
                return
        left = deadline - time.monotonic()
        if left <= 0:
            return
        if not wait_past(live, since, min(left, KEEP_ALIVE)):
            yield ": keep-alive\n\n"
