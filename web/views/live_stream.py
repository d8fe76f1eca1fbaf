"""The live table page's server-sent events: the seat's view each time the game moves on
(``…/live/<id>/events/``), from :func:`live.streams.open_events`, as the API's stream. A
reconnecting ``EventSource`` sends ``Last-Event-ID`` (the last version it saw): the stream then
starts with the views past it, so a page that lost the network catches up with what it missed.

Kept in its own module so that the asynchronous serving of streams (ASGI) wires this one view;
who may follow which seat is :func:`web.views.live_table._my_live`'s (the holder's own seat
at their own table) and what the seat sees is :func:`live.services.live_view`'s.
"""

from __future__ import annotations

from django.http import StreamingHttpResponse
from django.views.decorators.http import require_GET

from live import streams
from live.streams import MAX_STREAM
from web.views.live_table import _my_live
from web.views.table import Holder


def _number(text, default: float) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return default
    return value if value == value and abs(value) != float("inf") else default


@require_GET
def live_events(request, holder: Holder, live_id: int):
    lg = _my_live(holder, live_id)
    since = int(_number(request.headers.get("Last-Event-ID") or request.GET.get("since"), -1))
    seconds = _number(request.GET.get("seconds"), MAX_STREAM)
    events = streams.open_events(lg, lg.user_seat, since, seconds)
    response = StreamingHttpResponse(events, content_type="text/event-stream")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # no proxy buffering
    return response
