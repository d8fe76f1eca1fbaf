"""Redis on the event loop: each loop's redis.asyncio clients, one per Redis URL, on a capped
connection pool.

The stream server (config/asgi.py) asks Redis three things on its loop: the act's throttles
(:func:`config.ratelimit.count_on_redis`, on the loop's client), and on connections of their
own (:func:`connection`) its announcements (``live.notify.LoopPublisher``) and the live
games' pub/sub subscription (``live.notify.Dispatcher``). The pool is capped at
:data:`MAX_CONNECTIONS` — an uncapped one opened a connection for each concurrent act, up to
78 a run against 18 — and every connection, and every command, fails after :data:`TIMEOUT`
rather than retrying: the callers' breakers (:mod:`config.outage`) decide when to try again.
"""

from __future__ import annotations

import asyncio
import weakref

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from config import outage

#: seconds a connection may take to open, a command to be answered, and a caller to wait for a
#: free connection of the pool (:data:`config.outage.TIMEOUT`, as the cache's clients)
TIMEOUT = outage.TIMEOUT
#: connections a loop's client of one Redis may hold (each command holds one for its round
#: trip only)
MAX_CONNECTIONS = 2
#: the name the loop's connections give Redis (``CLIENT LIST``)
NAME = "gouji-loop"

#: the loop -> the URL -> its client
_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _options() -> dict:
    """The connections' options: RESP2 (as the cache's clients; a subscription's messages are
    then replies, not push frames) and no retry."""
    return {"socket_connect_timeout": TIMEOUT, "socket_timeout": TIMEOUT, "protocol": 2,
            "retry": Retry(NoBackoff(), 0), "client_name": NAME}


def client(url: str) -> Redis:
    """The running loop's client of the Redis of ``url`` (redis-py reads it: ``redis://``,
    ``rediss://``, ``unix://``, a user and password, a database number). It connects as its
    commands need: made here, it has not touched the network yet."""
    clients = _clients.setdefault(asyncio.get_running_loop(), {})
    made = clients.get(url)
    if made is None:
        pool = BlockingConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS,
                                               timeout=TIMEOUT, **_options())
        made = clients[url] = Redis(connection_pool=pool)
    return made


def connection(url: str, *, closed_at_stop: bool = False, **options):
    """A connection of its own to the Redis of ``url``, not connected yet (one held for good:
    a subscription's, the announcements'), with the loop clients' options but ``options``;
    ``closed_at_stop``: closed by :func:`close_all` too."""
    made = BlockingConnectionPool.from_url(url, **{**_options(), **options}).make_connection()
    if closed_at_stop:
        _held.setdefault(asyncio.get_running_loop(), weakref.WeakSet()).add(made)
    return made


#: the loop -> the connections :func:`close_all` closes besides its clients'
_held: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def close_all() -> None:
    """Close the running loop's clients and their connections, and those made
    ``closed_at_stop`` (the server's stop): a later :func:`client` call makes another."""
    loop = asyncio.get_running_loop()
    for made in (_clients.pop(loop, None) or {}).values():
        await made.connection_pool.disconnect()
    for held in list(_held.pop(loop, ())):
        await held.disconnect(nowait=True)
