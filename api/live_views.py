"""Live-play endpoints: say a seat is at the table, start a game, read a seat's (or the public)
view, long-poll, act, switch 托管."""

from __future__ import annotations

import json

from django.http import Http404
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView

from api.serializers import FieldsOncePerThread
from api.views.common import ERRORS, require_table_visible, table_or_404
from config.eventstream import EventStreamResponse
from config.ratelimit import client_address
from live import fastjson, spectate, streams
from live import services as live
from live.access import stream_keys
from live.aio import afresh, in_db_thread, on_event_loop, waiting_view
from live.cache import GameGone, games
from live.models import LiveGame
from live.queries import live_for_view
from live.selectors import READY_SECONDS, ready_seats
from live.streams import MAX_STREAM, MAX_WAIT, RECHECK
from tournaments.boards import board_hidden
from tournaments.errors import Forbidden, ServiceError
from tournaments.selectors import is_referee, public_seat_of


class LiveStartSerializer(serializers.Serializer):
    number = serializers.IntegerField(min_value=1, max_value=99, required=False,
                                      help_text="game number; default: the table's next game")


class LiveActSerializer(FieldsOncePerThread, serializers.Serializer):
    version = serializers.IntegerField(min_value=0, help_text="the state version you acted on")
    act = serializers.CharField(max_length=20)
    cards = serializers.ListField(child=serializers.CharField(max_length=4), required=False,
                                  max_length=54)
    kind = serializers.CharField(max_length=10, required=False)
    give = serializers.CharField(max_length=4, required=False)
    seat = serializers.IntegerField(min_value=0, max_value=5, required=False,
                                    help_text="your seat (optional: acting for another is "
                                              "refused)")


#: :class:`LiveActSerializer`'s text fields and their longest lengths
_PLAIN_TEXT = {"act": 20, "kind": 10, "give": 4}


def plain_act(data) -> tuple[dict, int, int | None] | None:
    """What :class:`LiveActSerializer` gives for ``data`` — ``(action, version, seat)``, as
    :class:`LiveActApi` takes them from its validated data — when ``data`` is an act in its
    plainest form: only the serializer's fields, whole numbers as JSON numbers (not text),
    text without surrounding spaces. ``None`` for anything else, which only the serializer
    decides (it accepts ``"12"`` for 12 and trims spaces, and refuses what is wrong with its
    own messages). Building and running the serializer was a sixth of the act's short path
    (api/fast_act.py); ``tests/api/test_fast_act.py`` holds this to the serializer."""
    if type(data) is not dict or not data.keys() <= _PLAIN_FIELDS:
        return None
    version, seat = data.get("version"), data.get("seat", 0)
    if type(version) is not int or version < 0 or type(seat) is not int or not 0 <= seat <= 5:
        return None
    action = {}
    for name in ("act", "cards", "kind", "give"):
        if name not in data:
            continue
        value = data[name]
        if name == "cards":
            if type(value) is not list or len(value) > 54 or \
                    not all(_plain_text(card, 4) for card in value):
                return None
            value = list(value)
        elif not _plain_text(value, _PLAIN_TEXT[name]):
            return None
        action[name] = value
    if "act" not in action:
        return None
    return action, version, data.get("seat")


_PLAIN_FIELDS = frozenset(("version", "act", "cards", "kind", "give", "seat"))


def _plain_text(value, longest: int) -> bool:
    """Whether ``value`` is text a ``CharField(max_length=longest)`` gives back as it is."""
    return (type(value) is str and 0 < len(value) <= longest and value == value.strip()
            and "\x00" not in value)


class LiveHostSerializer(serializers.Serializer):
    on = serializers.BooleanField(help_text="true: the bot plays the seat (托管) as its turns "
                                            "come; false: its player takes it back")
    seat = serializers.IntegerField(min_value=0, max_value=5, required=False,
                                    help_text="the seat: a referee names any; a player switches "
                                              "only their own (the default)")




def _live(request, pk) -> LiveGame:
    """The live game, 404 for whoever may not see its table, with the seat the user has at it
    (``user_seat``). A seat is remembered for the player's acts in this process (their update
    checks it again): a player opens the game's stream before acting, so the first act need
    not read it."""
    lg = live_for_view(pk, request.user)
    if lg is None:
        raise Http404("No LiveGame matches the given query.")  # (as get_object_or_404)
    require_table_visible(request, lg.table)
    if lg.user_seat is not None:
        games.remember(lg, request.user)
    elif board_hidden(lg.deal_label) and _spectator(request, lg):
        raise Forbidden("board_hidden", _(
            "this game is a duplicate (复式) board: it is watched once every table of its "
            "group has finished it"))
    return lg


class SpectatorsDelayed(ServiceError):
    """The event shows its live games to spectators late (``Event.spectator_delay``): the
    stream of every act as it is made is for the players and referees only."""

    status = 409

    def __init__(self):
        super().__init__("spectators_delayed", _(
            "spectators of this event follow its live games with a delay: use GET on the game "
            "(or the table's spectator page)"))


def _spectator(request, lg: LiveGame) -> bool:
    """Whether the user only watches ``lg``: neither seated at its table nor its referee
    (spectators' waiting requests are capped, live.streams.SpectatorSlots)."""
    return lg.user_seat is None and not is_referee(request.user, lg.table.round.event)


class LiveStartApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=LiveStartSerializer, responses={201: OpenApiTypes.OBJECT, **ERRORS})
    def post(self, request, pk):
        """Deal and start the table's next game live: a referee at once; a seated player once
        every other seat is ready (``POST …/live/ready/``), else 409 ``seats_not_ready`` with
        ``detail.missing``, the seats (0–5) not ready."""
        table = table_or_404(request, pk)
        seat = public_seat_of(request.user, table)
        if seat is None and not is_referee(request.user, table.round.event):
            raise PermissionDenied("only players of this table or referees start its games")
        ser = LiveStartSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        lg = live.live_start(table=table, number=ser.validated_data.get("number"),
                             by=request.user)
        return Response(live.live_view(live=lg, seat=None if seat is None else seat.seat),
                        status=status.HTTP_201_CREATED)


class LiveReadySerializer(serializers.Serializer):
    ready = serializers.BooleanField(default=True, help_text="true: your seat is at the table "
                                     "for its next live game; false: no longer")


def _ready_answer(ready: set[int]) -> dict:
    return {"ready": sorted(ready), "missing": sorted(set(range(6)) - ready),
            "ready_seconds": READY_SECONDS}


class LiveReadyApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def get(self, request, pk):
        """Which seats (0–5) are ready for the table's next live game (each for
        ``ready_seconds`` after saying so): for its players and referees."""
        table = table_or_404(request, pk)
        if public_seat_of(request.user, table) is None and not is_referee(
                request.user, table.round.event):
            raise PermissionDenied("only players of this table or referees see who is ready")
        return Response(_ready_answer(ready_seats(table)))

    @extend_schema(request=LiveReadySerializer, responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def post(self, request, pk):
        """Say your seat is ready for the table's next live game (or, ``ready: false``, no
        longer): a player deals it once all six are."""
        table = table_or_404(request, pk)
        ser = LiveReadySerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        return Response(_ready_answer(live.live_ready(
            table=table, user=request.user, ready=ser.validated_data["ready"])))


class LiveGameApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(parameters=[
        OpenApiParameter("since", int, description="wait until the version is above this"),
        OpenApiParameter("wait", float, description=f"seconds to wait (at most {MAX_WAIT:.0f})")],
        responses={200: OpenApiTypes.OBJECT, 304: None, **ERRORS})
    def get(self, request, pk):
        """Your seat's view (your cards only) — or, for anyone not seated, the public view with
        no hidden cards. With ``since`` and ``wait`` it long-polls for the next change. When the
        event delays spectators (``spectator_delay``), anyone neither seated nor a referee gets
        ``{"view", "delay", "next_in"}`` instead: the public view as it was ``delay`` seconds
        ago (``null`` until one is that old; ``next_in``: seconds until a newer one is)."""
        lg = _live(request, pk)
        delay = lg.table.round.event.spectator_delay
        if delay and _spectator(request, lg):  # held back as on the spectator page
            resp = Response(spectate.spectator_view(live=lg, delay=delay))
            resp["Cache-Control"] = "no-store"
            return resp
        try:
            since = int(request.query_params.get("since", -1))
            wait = float(request.query_params.get("wait", 0))
        except ValueError:
            since, wait = -1, 0.0
        if getattr(request, "live_waited", False):  # (asked again: see again())
            wait = 0.0
        address, spectator = client_address(request), _spectator(request, lg)
        keys = stream_keys(request.user, lg)
        if on_event_loop(request) and streams.must_wait(lg, since, wait):
            return WaitThenAnswer(self, request, lg, since, wait, address, spectator, keys)
        if streams.long_poll(lg, since, wait, address=address, spectator=spectator, keys=keys):
            return self.get(self.again(request, pk), pk)
        return self.answer(request, lg)

    def again(self, request, pk):
        """``request`` as if made now, its credentials read afresh (live.aio.afresh: its
        throttles let it through uncounted), and not to wait: a long-poll's access may have
        ended while it waited (a revocation, live.access), so it is answered as a request made
        now — 401, 404, or the view its access gives now — never with the seat it waited on."""
        fresh = afresh(request._request)
        fresh.live_waited = True
        fresh = self.initialize_request(fresh, pk=pk)
        self.initial(fresh, pk=pk)  # (authentication, permissions, throttles)
        return fresh

    def answer(self, request, lg: LiveGame) -> Response:
        # the version, and the seats in 托管 (switching it makes no new version)
        etag = f'"live-{lg.pk}-{lg.version}{f"-h{lg.hosted}" if lg.hosted else ""}"'
        if request.headers.get("If-None-Match") == etag:
            resp = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:
            resp = Response(live.live_view(live=lg, seat=lg.user_seat))
        resp["ETag"] = etag
        resp["Cache-Control"] = "no-store"
        return resp


class WaitThenAnswer(Response):
    """What :class:`LiveGameApi` returns to :func:`live_game_async` when a long-poll must wait:
    the request is checked (authenticated, throttled, the game visible to the user), and the
    wait happens on the event loop, not in a thread; :meth:`answer` then answers as the sync
    view would have. Never sent itself."""

    def __init__(self, view: LiveGameApi, request, lg: LiveGame, since: int, wait: float,
                 address: str, spectator: bool, keys: tuple[str, ...]):
        super().__init__(status=status.HTTP_200_OK)
        self.view, self.drf_request, self.lg = view, request, lg
        self.since, self.wait, self.address, self.spectator = since, wait, address, spectator
        self.keys, self.revoked = keys, False
        self.gone: GameGone | None = None

    async def wait_async(self) -> None:
        try:
            self.revoked = await streams.long_poll_async(
                self.lg, self.since, self.wait, address=self.address, spectator=self.spectator,
                keys=self.keys)
        except GameGone as gone:  # deleted while it waited: answered as the sync view would
            self.gone = gone

    def answer(self):
        try:
            if self.gone is not None:
                raise self.gone
            if self.revoked:  # (its access may have ended: answered as a request made now)
                pk = self.lg.pk
                resp = self.view.get(self.view.again(self.drf_request, pk), pk)
            else:
                resp = self.view.answer(self.drf_request, self.lg)
        except Exception as exc:
            resp = self.view.handle_exception(exc)
        return self.view.finalize_response(self.drf_request, resp)


class FastJSONRenderer(JSONRenderer):
    """DRF's JSON renderer with orjson (live.fastjson): the same JSON, compact, for the act's
    answer (its encoding was a tenth of an act's CPU); indented output (``?indent``,
    ``Accept: …; indent=2``) stays DRF's."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None or self.get_indent(accepted_media_type, renderer_context or {}):
            return super().render(data, accepted_media_type, renderer_context)
        return fastjson.dumps_bytes(data)


class LiveActApi(APIView):
    permission_classes = [IsAuthenticated]
    renderer_classes = [FastJSONRenderer, *APIView.renderer_classes[1:]]
    throttle_scope = "live"

    @extend_schema(request=LiveActSerializer,
                   parameters=[OpenApiParameter("actions_from", {
                       "type": "integer", "minimum": 0, "maximum": streams.MAX_ACTS_FROM},
                       description=(
                       "the number of acts you have: the answer's `actions` are then only "
                       "those from that index on, from index `actions_from` (every act if the "
                       "game has fewer), as a stream's views with `actions=new` have them; "
                       "without it, every act so far"))],
                   responses={200: OpenApiTypes.OBJECT,
                              409: OpenApiResponse(description="stale version or game over"),
                              422: OpenApiResponse(description="illegal act (engine's code)"),
                              **ERRORS})
    def post(self, request, pk):
        """Act for your own seat: play, pass, yield, burn, or a pre-play choice. Name the
        ``version`` you saw; a stale one is refused (409) and nothing changes. The answer is
        your view after the act (with ``actions_from``, only the acts you do not have)."""
        acts_from = streams.acts_from_asked(request.query_params.get("actions_from"))
        ser = LiveActSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        data = dict(ser.validated_data)
        version, named = data.pop("version"), data.pop("seat", None)
        try:
            lg = live.live_act(live_id=pk, user=request.user, action=data, version=version,
                               seat=named)
        except live.NotSeated:
            _live(request, pk)  # 404 for whoever may not see the table at all
            raise
        return Response(live.live_view(live=lg, seat=lg.user_seat, acts_after=acts_from))


class LiveHostApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "live"

    @extend_schema(request=LiveHostSerializer,
                   responses={200: OpenApiTypes.OBJECT,
                              409: OpenApiResponse(description="game over"), **ERRORS})
    def post(self, request, pk):
        """Switch 托管 for a seat: while it is on, the bot plays the seat's turns as they come
        (marked ``auto`` in the record), until it is switched off or the seat's player acts. A
        seated player switches their own seat; a referee of the event names any seat, e.g. for
        an absent player. The state version does not change; ``hosted_seats`` in the view says
        which seats are in 托管."""
        lg = _live(request, pk)  # 404 for whoever may not see the table
        ser = LiveHostSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        lg = live.live_host(live_id=lg.pk, on=ser.validated_data["on"],
                            seat=ser.validated_data.get("seat"), user=request.user,
                            referee=is_referee(request.user, lg.table.round.event))
        return Response(live.live_view(live=lg, seat=lg.user_seat))


SSE_EVENT = {
    "type": "object",
    "description": "One server-sent event: `event: view`, `id: <version>`, `data: <the view "
                   "as JSON, as GET /api/v1/live/{id}/ answers>`; comment lines keep it open.",
    "properties": {"event": {"type": "string", "enum": ["view"]},
                   "id": {"type": "string", "pattern": "^[0-9]+$"},
                   "data": {"type": "string", "description": "the view, as JSON"}},
    "required": ["event", "id", "data"],
}


class EventStreamRenderer(BaseRenderer):
    """Lets a client ask for ``text/event-stream`` (as ``EventSource`` does); an error answer
    is still the one JSON error object."""

    media_type = "text/event-stream"
    format = "event-stream"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data, cls=JSONEncoder).encode() if data is not None else b""


class LiveEventsApi(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "live"
    renderer_classes = [EventStreamRenderer, JSONRenderer]

    def handle_exception(self, exc):
        # an error (no such game, throttled) is the API's JSON error, whatever the client
        # accepts: an EventSource asks for text/event-stream only
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)

    @extend_schema(parameters=[
        OpenApiParameter("since", int, description="send views of versions above this "
                                                   "(default: the current view at once)"),
        OpenApiParameter("Last-Event-ID", int, OpenApiParameter.HEADER,
                         description="as since, sent by a reconnecting EventSource"),
        OpenApiParameter("seconds", float, description=(
            f"how long the stream stays open (at most {MAX_STREAM / 2:.0f} to "
            f"{MAX_STREAM:.0f}, drawn for each stream so that streams opened together end "
            f"apart); the server checks again that the stream's credentials still open "
            f"it, with the same seat, at once when they may have ended (a private link "
            f"revoked, a sign-out, a token deleted, the seat given to another login) and "
            f"at least every {RECHECK:.0f} seconds, and ends it if not: the client's "
            f"reconnect then gets the answer")),
        OpenApiParameter("actions", str, enum=["all", "new"], description=(
            "`all` (default): each view has every act so far in `actions`; `new`: each view "
            "has only the acts this stream has not sent yet, from index `actions_from` (the "
            "first view of a connection has them all), so a view does not grow with the "
            "game"))],
        responses={(200, "text/event-stream"): SSE_EVENT, **ERRORS})
    def get(self, request, pk):
        """Server-sent events: your seat's view (or the public view) each time the game moves
        on — one open request instead of a long-poll after every move. Each event is
        ``event: view``, ``id: <version>`` and the view as JSON, exactly as ``GET`` returns it
        (with ``actions=new``, only the acts the stream has not sent yet)."""
        new_acts = streams.new_acts_asked(request.query_params.get("actions"))
        lg = _live(request, pk)
        if lg.table.round.event.spectator_delay and _spectator(request, lg):
            raise SpectatorsDelayed()
        try:
            since = int(request.headers.get("Last-Event-ID")
                        or request.query_params.get("since", -1))
        except ValueError:
            since = -1
        try:
            seconds = float(request.query_params.get("seconds", MAX_STREAM))
        except ValueError:
            seconds = MAX_STREAM
        events = streams.open_events_for(request, lg, lg.user_seat, since, seconds,
                                         user=request.user, address=client_address(request),
                                         spectator=_spectator(request, lg), new_acts=new_acts)
        return EventStreamResponse(events)


# ----------------------------------------------------------------------------- ASGI
# The ASGI server's views of the two waiting requests (config/asgi_urls.py). Each runs the DRF
# view above (authentication, throttles, who may see the game: the same checks, the same
# errors) in a stream database thread (live.aio: a few threads read for every stream of the
# process, each with at most one connection), then waits on the event loop: the stream's
# frames come from live.streams.open_events_async, the long-poll waits in
# live.streams.long_poll_async and is answered by the view's ``answer``.
_live_game_view = LiveGameApi.as_view()
_live_events_view = LiveEventsApi.as_view()


@csrf_exempt
async def live_game_async(request, pk):
    request.live_on_event_loop = True
    response = await in_db_thread(_live_game_view, request, pk=pk)
    if isinstance(response, WaitThenAnswer):
        await response.wait_async()
        response = await in_db_thread(response.answer)
    return response


live_events_async = waiting_view(_live_events_view)
