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

import gc
import os
import re

import django
from django.core.handlers.asgi import ASGIHandler

from config.serving import freeze_what_loading_made, refuse_the_development_key

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

URLCONF = "config.asgi_urls"

#: the cyclic garbage collector's thresholds in this server (``gc.set_threshold``). Under
#: Python's default, (700, 10, 10), a young collection every 700 allocations moved what lives
#: a fraction of a second (an act's views and frames, a stream's wake-up) into the older
#: generations, which were then collected every 7,000 allocations, and the whole heap each
#: time the old generation grew by a quarter: with 10,000 open streams, 0.8-0.9 s with the
#: event loop stopped, every few seconds in each process (gc callbacks, ``bench_live --streams
#: 10000``, docs/BENCHMARKS.md "Sixth pass"). The middle generation now waits for 5,000,000
#: allocations (500 young collections) and the whole heap for ten times that. The young one
#: is collected every 10,000: it is walked whole each time, and at 100,000 (as in the sixth
#: pass) each young collection stopped the loop 80-190 ms every 4-5 s, at 10,000 20-30 ms
#: ("Seventh pass").
GC_THRESHOLDS = (10_000, 500, 10)


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
        (:func:`api.fast_act.warm`), and they are closed as the server stops."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await fast_act.warm()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                fast_act.cool()
                await send({"type": "lifespan.shutdown.complete"})
                return

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
