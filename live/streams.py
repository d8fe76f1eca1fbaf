"""Waiting for a live game to move on: the long-poll (``GET /live/<id>/?since=&wait=``) and the
server-sent events (``GET /live/<id>/events/``) the API answers with.

A waiting request reads nothing: it blocks in :func:`live.notify.wait_for_version` until the
game's next version is announced, then brings its row to that version (:meth:`GameCache.reach
<live.cache.GameCache.reach>`: the table's streams woken together share one read). With a
connection pool, the connection goes back to the pool while it waits.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

from django.db import connection
from rest_framework.utils.encoders import JSONEncoder

from live import services
from live.cache import games
from live.models import LiveGame
from live.notify import wait_for_version

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


def long_poll(live: LiveGame, since: int, wait: float) -> None:
    """The long-poll: if ``live`` is not past ``since``, wait for its next version, at most
    ``wait`` seconds (capped at :data:`MAX_WAIT`)."""
    wait = min(MAX_WAIT, max(0.0, wait))
    if live.version <= since and wait > 0:
        wait_past(live, since, wait)


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
