"""The database work of async stream code (ASGI, config/asgi.py), in a few threads.

Django's ORM is synchronous. An async stream that must read (its game moved on, the waiters'
versions are checked) hands the read to :func:`in_db_thread`, which runs it in one of
``LIVE_STREAM_DB_THREADS`` threads of this process (``sync_to_async(thread_sensitive=False)``
with its own executor). A Django connection belongs to the thread that opened it, so a process
holds at most that many connections for its streams, however many are open: 10,000 waiting
streams hold none while they wait, and 4 threads read for all of them.

Django closes connections at the start and end of each request only in the thread that serves
it (under ASGI, the thread of sync views); these threads serve no request, so each call first
drops a connection that is too old or broken (``close_old_connections``, as a request would),
and with a connection pool gives it back after the read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection

T = TypeVar("T")

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def executor() -> ThreadPoolExecutor:
    """This process's stream database threads (created with the first read)."""
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=settings.LIVE_STREAM_DB_THREADS,
                                           thread_name_prefix="live-db")
        return _executor


def _call(fn: Callable[..., T], *args, **kwargs) -> T:
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        if connection.settings_dict.get("OPTIONS", {}).get("pool") and \
                not connection.in_atomic_block:
            connection.close()  # back to the pool


async def in_db_thread(fn: Callable[..., T], *args, **kwargs) -> T:
    """``fn(*args, **kwargs)`` in a stream database thread, awaited."""
    return await sync_to_async(_call, thread_sensitive=False, executor=executor())(
        fn, *args, **kwargs)


def on_event_loop(request) -> bool:
    """Whether ``request`` came through an async view of :func:`waiting_view` (an ASGI server,
    config/asgi.py): then a stream view answers with :func:`live.streams.open_events_async`
    and waits on the event loop, not in a thread."""
    return getattr(request, "live_on_event_loop", False)


def waiting_view(view: Callable):
    """The ASGI form of a sync view that answers with a live stream: its checks (who may follow
    which seat) run in a stream database thread, then the stream it returns, built with
    :func:`live.streams.open_events_async`, is iterated on the event loop."""

    async def waiting(request, *args, **kwargs):
        request.live_on_event_loop = True
        return await in_db_thread(view, request, *args, **kwargs)

    waiting.csrf_exempt = True  # a GET; as csrf_exempt would mark it
    waiting.__name__ = getattr(view, "__name__", "waiting")
    return waiting
