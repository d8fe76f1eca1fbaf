"""The database work of async stream code (ASGI, config/asgi.py), in a few threads.

Django's ORM is synchronous. An async stream that must read (its game moved on, the waiters'
versions are checked) hands the read to :func:`in_db_thread`, which runs it in one of
``LIVE_STREAM_DB_THREADS`` threads of this process (``sync_to_async(thread_sensitive=False)``
with its own executor). A Django connection belongs to the thread that opened it, so a process
holds at most that many connections for its streams, however many are open: 10,000 waiting
streams hold none while they wait, and 4 threads read for all of them.

Django closes connections at the start and end of each request only in the thread that serves
it (under ASGI, the thread of sync views); these threads serve no request. A thread keeps its
connection from one call to the next while it is busy, and a call that comes after the thread
was idle for ``IDLE_CHECK`` seconds first drops a connection that is too old or broken
(``close_old_connections``, as a request would: with a pool, the connection goes back and the
next one is checked out, and checked, afresh). Giving the connection back to the pool after
every read would make every read check one out again, with psycopg_pool's health check: a
round trip each, a third of a stream server's busy time at 10,000 streams. A call that fails makes the next one check first too: a
connection that died while the thread was busy (a database restart) fails one read, as it would
fail a request, and is replaced before the next. So a process holds at most
``LIVE_STREAM_DB_THREADS`` connections for its streams (kept while they read), however many
streams are open.
"""

from __future__ import annotations

import copy
import functools
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.exceptions import PermissionDenied
from django.db import close_old_connections
from django.http import Http404

from config.ratelimit import COUNTED

log = logging.getLogger(__name__)

T = TypeVar("T")

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_hop = None  # sync_to_async(_call) on the executor, built once


def executor() -> ThreadPoolExecutor:
    """This process's stream database threads (created with the first read)."""
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=settings.LIVE_STREAM_DB_THREADS,
                                           thread_name_prefix="live-db")
        return _executor


#: seconds a stream database thread may sit idle before its next call checks its connection
IDLE_CHECK = 1.0
_thread = threading.local()  # .done: when this stream database thread last finished a call well


def _call(fn: Callable[..., T], *args, **kwargs) -> T:
    _thread.keeps_connection = True
    if time.monotonic() - getattr(_thread, "done", float("-inf")) > IDLE_CHECK:
        close_old_connections()
    try:
        result = fn(*args, **kwargs)
    except BaseException:
        _thread.done = float("-inf")  # the next call checks the connection first, at once
        raise
    _thread.done = time.monotonic()
    return result


def keeps_connection() -> bool:
    """Whether this thread is a stream database thread, which keeps its connection between
    reads (:func:`live.streams.release_connection` then leaves it be)."""
    return getattr(_thread, "keeps_connection", False)


async def in_db_thread(fn: Callable[..., T], *args, **kwargs) -> T:
    """``fn(*args, **kwargs)`` in a stream database thread, awaited (asgiref carries the
    caller's context there: the language a request activated). The wrapper is built once:
    building it for every call was a tenth of the stream server's CPU with the acts served
    there (py-spy, ``bench_live --streams 10000 --act-server uvicorn``)."""
    global _hop
    if _hop is None:
        _hop = sync_to_async(_call, thread_sensitive=False, executor=executor())
    return await _hop(fn, *args, **kwargs)


def on_event_loop(request) -> bool:
    """Whether ``request`` came through an async view of :func:`waiting_view` (an ASGI server,
    config/asgi.py): then a stream view answers with :func:`live.streams.open_events_async`
    and waits on the event loop, not in a thread."""
    return getattr(request, "live_on_event_loop", False)


def waiting_view(view: Callable):
    """The ASGI form of a sync view that answers with a live stream: its checks (who may follow
    which seat) run in a stream database thread, then the stream it returns, built with
    :func:`live.streams.open_events_async`, is iterated on the event loop. The stream can check
    its access again later without its client reconnecting (:func:`reopener`)."""

    async def waiting(request, *args, **kwargs):
        request.live_on_event_loop = True
        request.live_reopen = functools.partial(_reopened, view, request, args, kwargs)
        return await in_db_thread(view, request, *args, **kwargs)

    waiting.csrf_exempt = True  # a GET; as csrf_exempt would mark it
    waiting.__name__ = getattr(view, "__name__", "waiting")
    return waiting


#: What a stream's opener notes instead of opening a stream, while its view runs again to check
#: the stream's access (:func:`_reopen`); ``None`` the rest of the time.
reopening: ContextVar[list | None] = ContextVar("reopening", default=None)


def reopener(request) -> Callable[[], Awaitable[tuple | None]] | None:
    """For a stream opened by a view of :func:`waiting_view`: a coroutine function that runs
    the view again, as if its client had reconnected with the same request, and gives what the
    view would open now — :func:`live.streams.open_events_for` notes its ``(game id, seat,
    spectator)`` in :data:`reopening` — or ``None`` if the view would refuse (the token deleted,
    the session signed out, the private link revoked, the seat given to someone else…).
    ``None`` for a request that came another way (a sync server's: :func:`reopener_in_thread`)."""
    return getattr(request, "live_reopen", None)


def reopener_in_thread(request) -> Callable[[], tuple | None] | None:
    """:func:`reopener` for a stream that a sync server serves (its thread waits, and may
    read): a function that runs the view that resolved ``request`` (Django's, or DRF's around
    it) again, in the stream's own thread, and gives what it would open now; ``None`` if the
    request was not resolved to a view."""
    request = getattr(request, "_request", request)
    match = getattr(request, "resolver_match", None)
    if match is None:
        return None
    return functools.partial(_reopen, match.func, request, match.args, match.kwargs)


async def _reopened(view: Callable, request, args: tuple, kwargs: dict) -> tuple | None:
    return await in_db_thread(_reopen, view, request, args, kwargs)


def _reopen(view: Callable, request, args: tuple, kwargs: dict) -> tuple | None:
    """In a stream database thread (or a sync server's stream's own): what ``view`` would open
    for ``request`` now (:func:`reopener`), its credentials read again (:func:`afresh`)."""
    noted: list = []
    token = reopening.set(noted)
    try:
        response = view(afresh(request), *args, **kwargs)
    except (Http404, PermissionDenied):
        return None
    except Exception:  # (the database, say: the stream ends, and its client reconnects)
        log.warning("a stream's access could not be checked again; the stream ends",
                    exc_info=True)
        return None
    finally:
        reopening.reset(token)
    return noted[0] if response.status_code == 200 and len(noted) == 1 else None


def afresh(request):
    """A copy of ``request`` whose session and user are read again, as the middleware reads
    them for a new request (a signed-out session, a deactivated user, a changed password show);
    its headers — an ``Authorization`` token, the session cookie — are the same. It is not
    another request of its client: the view's throttles let it through uncounted
    (:data:`config.ratelimit.COUNTED`), so a client that used up its rate does not lose its open
    stream at a check, and a check does not spend the client's rate."""
    again = copy.copy(request)
    again.scope = {**getattr(request, "scope", {}), COUNTED: True}
    for name in ("session", "user", "auser", "_cached_user", "_acached_user"):
        again.__dict__.pop(name, None)
    middleware = settings.MIDDLEWARE
    if "django.contrib.sessions.middleware.SessionMiddleware" in middleware:
        SessionMiddleware(_unused).process_request(again)
        if "django.contrib.auth.middleware.AuthenticationMiddleware" in middleware:
            AuthenticationMiddleware(_unused).process_request(again)
    return again


def _unused(request):  # (the get_response of a middleware whose process_request alone runs)
    raise AssertionError("not called")
