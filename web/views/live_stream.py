"""The live table page's server-sent events: the seat's view each time the game moves on
(``…/live/<id>/events/``), from :func:`live.streams.open_events`, as the API's stream. A
reconnecting ``EventSource`` sends ``Last-Event-ID`` (the last version it saw): the stream then
starts with the views past it, so a page that lost the network catches up with what it missed.
The page asks for ``actions=new``: each view then carries only the acts it has not had yet
(:func:`live.streams.live_events`), and the page keeps the rest.

Under ASGI (config/asgi_urls.py) the same view runs through :func:`live.aio.waiting_view`: its
checks in a stream database thread, the stream on the event loop, no thread per open page;
who may follow which seat is :func:`web.views.live_table._my_live`'s (the holder's own seat
at their own table) and what the seat sees is :func:`live.services.live_view`'s.
"""

from __future__ import annotations

from django.urls import path
from django.views.decorators.http import require_GET

from config.eventstream import EventStreamResponse
from live import streams
from live.aio import waiting_view
from live.streams import MAX_STREAM
from tournaments.errors import ServiceError
from web.views.live_table import _my_live, refusal_response
from web.views.table import Holder, _guarded


def _number(text, default: float) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return default
    return value if value == value and abs(value) != float("inf") else default


@require_GET
def live_events(request, holder: Holder, live_id: int):
    try:
        new_acts = streams.new_acts_asked(request.GET.get("actions"))
    except ServiceError as exc:
        return refusal_response(exc)
    lg = _my_live(holder, live_id)
    since = int(_number(request.headers.get("Last-Event-ID") or request.GET.get("since"), -1))
    seconds = _number(request.GET.get("seconds"), MAX_STREAM)
    events = streams.open_events_for(request, lg, lg.user_seat, since, seconds,
                                     user=holder.user, new_acts=new_acts)
    return EventStreamResponse(events)


def player_urls(how: str) -> list:
    """The page's stream under ``/p/<token>/live/`` or ``/me/live/`` (beside
    :func:`web.views.live_table.player_urls`), named ``pages:<how>-live-events``."""
    by_link, signed_in = _guarded(live_events)
    view = by_link if how == "link" else signed_in
    return [path("<int:live_id>/events/", view, name=f"{how}-live-events")]


def asgi_urls() -> list:
    """The page's stream for an ASGI server (config/asgi_urls.py): the same guarded views (by
    private link, signed in), their checks in a stream database thread and the stream on the
    event loop (:func:`live.aio.waiting_view`)."""
    by_link, signed_in = _guarded(live_events)
    return [path("p/<str:token>/live/<int:live_id>/events/", waiting_view(by_link)),
            path("me/live/<int:live_id>/events/", waiting_view(signed_in))]
