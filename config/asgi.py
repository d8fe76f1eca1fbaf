"""The ASGI entry point (``uvicorn config.asgi:application``): live play's event streams and
long-polls, where an open stream is a coroutine on the event loop, not a thread.

Every request is resolved with config/asgi_urls.py: the stream (``GET /api/v1/live/<id>/events/``)
and the long-poll (``GET /api/v1/live/<id>/``) are async views there (api/live_views.py, on
live/streams.py's async API); everything else is the same Django app as under WSGI, its sync
views run in Django's one thread for sync code. An act (``POST /api/v1/live/<id>/act/``)
takes its short path (api/fast_act.py: the common act stored and answered without Django's
middleware and DRF's dispatch) or, for anything else, the DRF view. The README's production
layout sends ``/api/v1/live/<id>/…`` here, a game's requests to one process (docs/BENCHMARKS.md,
"Many open streams", says why), and the rest to gunicorn.
"""

import asyncio
import gc
import os
import re
import sys

import django
from django.core.handlers.asgi import ASGIHandler

from config import loopredis
from config.serving import freeze_what_loading_made, refuse_the_development_key

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

URLCONF = "config.asgi_urls"

#: the cyclic garbage collector's thresholds in this server (``gc.set_threshold``). Under
#: Python's default, (700, 10, 10), a young collection every 700 allocations moved what lives
#: a fraction of a second (an act's views and frames, a stream's wake-up) into the older
#: generations, which were then collected every 7,000 allocations, and the whole heap each
#: time the old generation grew by a quarter: with 10,000 open streams, 0.8-0.9 s with the
#: event loop stopped, every few seconds in each process (gc callbacks, ``bench_live --streams
#: 10000``, beed985:docs/BENCHMARKS.md "Sixth pass"). At 100,000 allocations (the sixth
#: pass) each young collection stopped the loop 80-190 ms every 4-5 s; at 10,000, 20-30 ms
#: ("Seventh pass").
#:
#: But the young count is allocations less deallocations, and in steady play the two balance:
#: 10,000 came only every 15-20 s, when the young generation held everything made since and
#: still alive — every open stream's wait (its future, timer, coroutine: a dozen objects),
#: some 60,000 objects a process — and each collection stopped the loop 40-80 ms ("Ninth
#: pass"). So the loop collects the young generation itself every :data:`YOUNG_EVERY` seconds
#: (:class:`YoungCollections`: 2-8 ms each), the count staying as a backstop; the middle
#: generation waits for 2,400 of those (ten minutes) and the whole heap for 100 times that.
GC_THRESHOLDS = (10_000, 2_400, 100)
#: seconds between the young collections the event loop makes (:class:`YoungCollections`)
YOUNG_EVERY = 0.25

#: how long a thread running Python keeps the GIL from another that asks for it, in this server
#: (``sys.setswitchinterval``; Python's default is 5 ms). The event loop gives the GIL up at
#: every system call (each socket read and write, each ``epoll``) and must ask for it back;
#: while a thread runs Python — a database thread's read or access check, the sync thread's
#: view for an act off the short path (the act that ends a game: 110–550 ms of CPU when it
#: recomputes the event's standings in-process) — each time is a wait of up to the whole
#: interval, so the loop served a socket every few milliseconds and its 5,000 streams and their
#: acts fell behind: with 10,000 streams, the acts' p99 was 382–673 ms in the 10 s in which a
#: game ended, 66–274 ms at a tenth of the interval (``bench_live --streams 10000``,
#: beed985:docs/BENCHMARKS.md, "Fifteenth pass").
SWITCH_INTERVAL = 0.0005


class YoungCollections:
    """The young generation collected every ``every`` seconds on the running event loop, from
    :meth:`start` until :meth:`stop` (the server's lifespan): each collection then walks a
    quarter of a second's survivors, not a quarter of a minute's."""

    def __init__(self, every: float = YOUNG_EVERY):
        self.every = every
        self._loop = None
        self._handle = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._handle = self._loop.call_later(self.every, self._collect)

    def _collect(self) -> None:
        gc.collect(0)
        self._handle = self._loop.call_later(self.every, self._collect)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


#: the waiting requests: the event stream and the long-poll of a live game, and the live table
#: page's stream (another view that streams belongs here too, in asgi_urls.py, and in the
#: proxy's uvicorn routes)
WAITING = re.compile(r"^/api/v1/live/\d+/(?:events/)?$|^/(?:p/[^/]+|me)/live/\d+/events/$")


class Handler(ASGIHandler):
    """Django's ASGI handler, resolving with :data:`URLCONF`.

    Django gives each request a thread of its own for its sync code (middleware, DRF's checks)
    for as long as the request lasts (``ThreadSensitiveContext``): an open stream would hold an
    idle thread, and that thread's database connection, for its whole life. The waiting
    requests (:data:`WAITING`) run their middleware's sync code in the process's one shared
    thread instead, and their views' checks and reads in the stream database threads
    (live/aio.py): 10,000 open streams, a handful of threads and connections."""

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
        elif scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and \
                WAITING.match(scope["path"]):
            await self.handle(scope, receive, send)
        elif settings.LIVE_ACT_SHORT_PATH and (act := fast_act.handles(scope)) is not None:
            await fast_act.serve(scope, receive, send, super().__call__, *act)
        else:
            await super().__call__(scope, receive, send)

    @staticmethod
    async def lifespan(receive, send):
        """The server's start and stop (ASGI lifespan, which Django's handler refuses): the act's
        short path gets its database connections ready before the first request
        (:func:`api.fast_act.warm`), and they are closed as the server stops, with the loop's
        Redis connection for the throttles (:func:`config.loopredis.close_all`); in between,
        the loop collects the young generation (:class:`YoungCollections`)."""
        young = YoungCollections()
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await fast_act.warm()
                young.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                young.stop()
                fast_act.cool()
                await loopredis.close_all()
                await send({"type": "lifespan.shutdown.complete"})
                return

    @classmethod
    def chunk_bytes(cls, data):
        """Django's chunks of a response's part, ``(chunk, last)``: a part no larger than a
        chunk — every frame of an event stream but a first lead's — as it is, without a
        generator made for it (six frames an act: 1 % of the stream server's samples)."""
        if len(data) <= cls.chunk_size:
            return ((data, True),)
        return super().chunk_bytes(data)

    async def get_response_async(self, request):
        request.urlconf = URLCONF
        return await super().get_response_async(request)


django.setup(set_prefix=False)
from django.conf import settings  # noqa: E402 (the apps are loaded now)

from api import fast_act  # noqa: E402

refuse_the_development_key()
application = Handler()
freeze_what_loading_made(URLCONF)
gc.set_threshold(*GC_THRESHOLDS)
sys.setswitchinterval(SWITCH_INTERVAL)
