"""The response of a server-sent event stream, for every room that serves one (the API's and the
live table page's streams of a live game): ``text/event-stream``, never stored or buffered on
the way, its frames already encoded (live.streams renders each once, and the streams that show
it share it).

On an ASGI server (config/asgi.py) Django sends a streaming response's parts through two async
generators and an encoding step per part (``StreamingHttpResponse.__aiter__``,
``streaming_content``, ``make_bytes``): with 10,000 open streams and six frames an act, those
layers were a tenth of the stream server's time (py-spy, ``bench_live --streams``). An async
stream of bytes is handed to Django's sender as it is; anything else is Django's as ever."""

from __future__ import annotations

from django.http import StreamingHttpResponse


class EventStreamResponse(StreamingHttpResponse):
    """A stream of server-sent events: ``frames`` yields each frame as bytes (an async iterator
    on an ASGI server, a plain one under WSGI)."""

    def __init__(self, frames):
        super().__init__(frames, content_type="text/event-stream")
        self["Cache-Control"] = "no-store"
        self["X-Accel-Buffering"] = "no"  # no proxy buffering
        self._frames = frames

    def __aiter__(self):
        if self.is_async:
            return aiter(self._frames)  # bytes already: nothing to wrap or encode
        return super().__aiter__()
