"""API views: translate HTTP to service calls and back (no business rule here)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q, prefetch_related_objects
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

import engine
from api import serializers as s
from api.csv_export import CsvApi, csv_response
from api.filters import EntryFilter, EventFilter
from api.permissions import ReadOnlyOrAuthenticated, player_of
from games import services as game_services
from games.models import GameResult, ResultProposal
from games.selectors import (
    RESULT_HISTORY_PREFETCH,
    record_access,
    result_first_submission,
    result_table_with_viewer,
    round_tables_with_results,
)
from live.queries import with_running_live_game
from tournaments import imports
from tournaments.errors import ServiceError
from tournaments.locks import lock_table_with_viewer
from tournaments.models import (
    ROUND_DRAW_DATA,
    Entry,
    Event,
    Penalty,
    Player,
    Round,
    Standing,
    Table,
    TeamMember,
)
from tournaments.selectors import (
    can_create_event,
    can_see_event,
    can_see_seating,
    can_see_table,
    is_organizer,
    is_referee,
    knockout_matches,
    public_seat_of,
)
from tournaments.services.entries import entry_check_in, entry_register, entry_withdraw
from tournaments.services.events import event_create, event_publish, event_staff_add, event_update
from tournaments.services.imports import entries_import
from tournaments.services.penalties import penalty_add
from tournaments.services.players import player_create
from tournaments.services.rounds import round_open, round_publish
from tournaments.services.teams import (
    team_invitation_accept,
    team_invitation_decline,
    team_register,
)
from tournaments.standings import public_standings, standings_etag, standings_heal

ERRORS = {400: OpenApiResponse(description="invalid request (error shape)"),
          403: OpenApiResponse(description="not allowed for this role"),
          404: OpenApiResponse(description="not found")}


def _event(request, slug) -> Event:
    event = get_object_or_404(Event, slug=slug)
    if not can_see_event(request.user, event):
        raise NotFound("no such event")
    return event


def _require(ok: bool, message: str):
    if not ok:
        raise PermissionDenied(message)


# ----------------------------------------------------------------------------- events
class EventListCreateApi(generics.ListCreateAPIView):
    """Events: the public sees published ones; staff also see their own."""

    serializer_class = s.EventSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "writes"
    filterset_class = EventFilter  # ?event_format=, ?status=
    format_filter_values = tuple(Event.Format.values)  # an older ?format=team (api/negotiation)
    search_fields = ["name", "slug"]

    def get_queryset(self):
        user = self.request.user
        q = Q(published=True)
        if user.is_authenticated:
            if user.is_superuser:
                return Event.objects.all()
            q |= Q(organizers=user) | Q(referees=user)
        return Event.objects.filter(q).distinct()

    def perform_create(self, serializer):
        user = self.request.user
        _require(can_create_event(user), "only organizers may create events")
        data = serializer.validated_data
        serializer.instance = event_create(organizer=user, **data)


class EventDetailApi(generics.RetrieveUpdateAPIView):
    serializer_class = s.EventUpdateSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    http_method_names = ["get", "patch", "head", "options"]
    lookup_field = "slug"
    throttle_scope = "writes"

    def get_object(self):
        return _event(self.request, self.kwargs["slug"])

    def perform_update(self, serializer):
        event = serializer.instance
        _require(is_organizer(self.request.user, event), "only the event's organizers may")
        serializer.instance = event_update(event=event, **serializer.validated_data)


class EventPublishApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=s.PublishSerializer, responses={200: s.EventSerializer, **ERRORS})
    def post(self, request, slug):
        """Publish the event (its pages and data become public)."""
        event = _event(request, slug)
        _require(is_organizer(request.user, event), "only the event's organizers may publish")
        ser = s.PublishSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        event_publish(event=event, published=ser.validated_data["published"])
        return Response(s.EventSerializer(event).data)


class EventStaffApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=s.StaffSerializer, responses={204: None, **ERRORS})
    def post(self, request, slug):
        """Make a user an organizer or a referee of this event."""
        event = _event(request, slug)
        _require(is_organizer(request.user, event), "only the event's organizers may")
        ser = s.StaffSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        user = get_user_model().objects.filter(username=ser.validated_data["username"]).first()
        if user is None:
            raise ServiceError("no_such_user", "no user with that name", status=404)
        event_staff_add(event=event, user=user, role=ser.validated_data["role"])
        return Response(status=status.HTTP_204_NO_CONTENT)


# ----------------------------------------------------------------------------- players
class PlayerListCreateApi(generics.ListCreateAPIView):
    """Players, for the staff of events: an organizer or referee lists the players entered in
    (or named in a 联邦 team of) the events they organize or referee; a superuser, or a user the
    admin shows every player to (``tournaments.view_player``), lists all. ``/players/me/`` is a
    player's own profile."""

    serializer_class = s.PlayerSerializer
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"
    search_fields = ["name", "club", "=number"]

    def _staff(self):
        u = self.request.user
        return u.is_staff or u.organized_events.exists() or u.refereed_events.exists()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Player.objects.none()
        _require(self._staff(), "only organizers and referees list players")
        user = self.request.user
        if user.is_superuser or user.has_perm("tournaments.view_player"):
            return Player.objects.all()
        events = Event.objects.filter(Q(organizers=user) | Q(referees=user))
        return Player.objects.filter(Q(entries__event__in=events)
                                     | Q(memberships__event__in=events)).distinct()

    def perform_create(self, serializer):
        _require(self._staff(), "only organizers create players for others; use /players/me/")
        serializer.instance = player_create(**serializer.validated_data)


class PlayerMeApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(responses={200: s.PlayerSerializer, **ERRORS})
    def get(self, request):
        """The player profile of the logged-in user."""
        player = player_of(request.user)
        if player is None:
            raise NotFound("you have no player profile yet; POST one")
        return Response(s.PlayerSerializer(player).data)

    @extend_schema(request=s.PlayerSerializer, responses={201: s.PlayerSerializer, **ERRORS})
    def post(self, request):
        """Create your own player profile (self-registration)."""
        if player_of(request.user) is not None:
            raise ServiceError("already_registered", "you already have a player profile",
                               status=409)
        ser = s.PlayerSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        player = player_create(user=request.user, **ser.validated_data)
        return Response(s.PlayerSerializer(player).data, status=status.HTTP_201_CREATED)


class InvitationListApi(generics.ListAPIView):
    """Your pending invitations to 联邦 teams (邀请): accept one to play for that team."""

    serializer_class = s.InvitationSerializer
    permission_classes = [IsAuthenticated]
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return TeamMember.objects.none()
        return (TeamMember.objects.filter(player=player_of(self.request.user),
                                          status=TeamMember.Status.INVITED)
                .select_related("event", "team").prefetch_related("team__members__player")
                .order_by("pk"))


def _my_player(request) -> Player:
    """The logged-in user's player profile (404 without one: they have no invitations)."""
    me = player_of(request.user)
    if me is None:
        raise NotFound("no such invitation")
    return me


class InvitationAcceptApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={200: s.EntrySerializer, **ERRORS})
    def post(self, request, pk):
        """Accept an invitation: you play for that team (its entry); your other invitations
        in the event are declined (their teams are dissolved)."""
        membership = team_invitation_accept(membership_id=pk,
                                                     player=_my_player(request))
        return Response(s.EntrySerializer(_entries(membership.event).get(
            team_id=membership.team_id)).data)


class InvitationDeclineApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={204: None, **ERRORS})
    def post(self, request, pk):
        """Decline an invitation: the team that sent it is dissolved."""
        team_invitation_decline(membership_id=pk, player=_my_player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


# ----------------------------------------------------------------------------- entries
def _entries(event):
    return (Entry.objects.filter(event=event).select_related("player", "team")
            .prefetch_related("team__members__player").order_by("pk"))


class EntryListCreateApi(generics.ListCreateAPIView):
    """An event's entries; a player registers themselves, an organizer anyone."""

    serializer_class = s.EntrySerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "writes"
    filterset_class = EntryFilter  # ?status=, ?late=
    search_fields = ["player__name", "=player__number", "team__name"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Entry.objects.none()
        return _entries(_event(self.request, self.kwargs["slug"]))

    @extend_schema(request=s.EntryCreateSerializer, responses={201: s.EntrySerializer, **ERRORS})
    def post(self, request, slug):
        event = _event(request, slug)
        ser = s.EntryCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        pid = ser.validated_data.get("player_id")
        me = player_of(request.user)
        if pid is None or (me is not None and pid == me.pk):
            if me is None:
                raise ServiceError("no_player", "create your player profile first "
                                   "(POST /api/v1/players/me/)", status=400)
            player = me
        else:
            _require(is_organizer(request.user, event), "only organizers register others")
            player = get_object_or_404(Player, pk=pid)
        entry = entry_register(event=event, player=player)
        return Response(s.EntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class TeamCreateApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=s.TeamCreateSerializer, responses={201: s.EntrySerializer, **ERRORS})
    def post(self, request, slug):
        """Register a 联邦 team of three: the event's organizers or referees (all three play
        for it at once), or one of the three players — then the other two are invited, and
        the team cannot check in until both accept (``/players/me/invitations/``)."""
        event = _event(request, slug)
        ser = s.TeamCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        ids = ser.validated_data["player_ids"]
        players = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
        me = player_of(request.user)
        staff = is_referee(request.user, event)
        _require(staff or (me is not None and me.pk in players),
                 "only the event's staff or one of the three players registers a team")
        # a missing or repeated player leaves fewer than three: the service refuses the team
        entry = team_register(event=event, name=ser.validated_data["name"],
                                       players=[players[i] for i in ids if i in players],
                                       registrant=None if staff else me)
        return Response(s.EntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class EntryImportApi(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]
    throttle_scope = "writes"

    @extend_schema(request={"multipart/form-data": s.CsvImportSerializer},
                   responses={201: OpenApiTypes.OBJECT,
                              409: OpenApiResponse(description="number_claimed: lines whose "
                                                   "number a self-registered player holds"),
                              **ERRORS})
    def post(self, request, slug):
        """Import players (individual events) or 联邦 teams (team events) and register them
        from a CSV (UTF-8, UTF-8 with BOM, GBK or GB18030) or XLSX file, all rows or none
        (``tournaments.imports``). A bad value is a 400 naming the line and field; a number a
        self-registered player holds is a 409 ``number_claimed`` listing every such line
        (``detail.collisions``). The same file again changes nothing (``unchanged``)."""
        event = _event(request, slug)
        _require(is_organizer(request.user, event), "only organizers import entries")
        ser = s.CsvImportSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        rows, encoding = imports.read_file(
            ser.validated_data["file"].read(imports.MAX_BYTES + 1),
            team=event.format == Event.Format.TEAM)
        counts = entries_import(event=event, rows=rows, organizer=request.user)
        counts["encoding"] = encoding
        return Response(counts, status=status.HTTP_201_CREATED)


class EntryActionApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"
    action = ""

    @extend_schema(request=None, responses={200: s.EntrySerializer, **ERRORS})
    def post(self, request, slug, pk):
        event = _event(request, slug)
        entry = get_object_or_404(Entry, pk=pk, event=event)
        me = player_of(request.user)
        own = me is not None and (entry.player_id == me.pk or (
            entry.team_id and entry.team.members.filter(
                player=me, status=TeamMember.Status.ACCEPTED).exists()))
        _require(is_referee(request.user, event) or own,
                 "only the event's staff or the entry's own player may")
        if self.action == "check_in":
            entry = entry_check_in(entry=entry)
        else:
            entry = entry_withdraw(entry=entry)
        return Response(s.EntrySerializer(entry).data)


class EntryCheckInApi(EntryActionApi):
    """Check an entry in (报到): the event's staff, or the player themselves."""

    action = "check_in"


class EntryWithdrawApi(EntryActionApi):
    """Withdraw an entry from the next round on."""

    action = "withdraw"


class EntriesCsvApi(CsvApi):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug):
        """Entries as CSV."""
        event = _event(request, slug)
        rows = [(e.pk, str(e), e.player.number if e.player_id else "", e.status, e.late,
                 e.first_round) for e in _entries(event)]
        return csv_response(f"{event.slug}-entries.csv",
                             ["entry", "name", "number", "status", "late", "first_round"], rows)


# ----------------------------------------------------------------------------- rounds
def _round(request, slug, number) -> Round:
    event = _event(request, slug)
    return get_object_or_404(Round, event=event, number=number)


class RoundListCreateApi(generics.ListAPIView):
    """Rounds with their commitments; the seed shows once a round is drawn."""

    serializer_class = s.RoundSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "writes"
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Round.objects.none()
        return Round.objects.filter(event=_event(self.request, self.kwargs["slug"])).order_by(
            "number")

    @extend_schema(request=s.RoundCreateSerializer,
                   responses={202: s.DrawStartedSerializer, **ERRORS})
    def post(self, request, slug):
        """Open the next round: publish its commitment and start the draw on a worker. Poll
        ``task`` until ``status`` is ``drawn``."""
        event = _event(request, slug)
        _require(is_organizer(request.user, event), "only the event's organizers draw rounds")
        ser = s.RoundCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        rnd = round_open(event=event, knockout=ser.validated_data["knockout"])
        rnd.refresh_from_db()
        url = reverse("api:round-detail", kwargs={"slug": slug, "number": rnd.number})
        return Response({"round": s.RoundSerializer(rnd, context={"request": request}).data,
                         "task": request.build_absolute_uri(url)},
                        status=status.HTTP_202_ACCEPTED)


class RoundDetailApi(generics.RetrieveAPIView):
    serializer_class = s.RoundSerializer
    permission_classes = [AllowAny]

    def get_object(self):
        return _round(self.request, self.kwargs["slug"], self.kwargs["number"])


class RoundPublishApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={200: s.RoundSerializer, **ERRORS})
    def post(self, request, slug, number):
        """Publish a drawn round's seating."""
        rnd = _round(request, slug, number)
        _require(is_organizer(request.user, rnd.event), "only the event's organizers publish")
        return Response(s.RoundSerializer(round_publish(round=rnd),
                                          context={"request": request}).data)


class RoundConfirmApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={200: s.RoundConfirmedSerializer, **ERRORS})
    def post(self, request, slug, number):
        """Confirm every result of the round awaiting confirmation (the event's referees), in
        one transaction. Disputed results are not confirmed: settle each with its reason."""
        rnd = _round(request, slug, number)
        _require(is_referee(request.user, rnd.event),
                 "only the event's referees confirm a round's results")
        ids = game_services.round_results_confirm(round=rnd, by=request.user)
        disputed = GameResult.objects.filter(table__round=rnd,
                                             status=GameResult.Status.DISPUTED).count()
        return Response({"confirmed": len(ids), "results": ids, "disputed": disputed})


class RoundTablesApi(generics.ListAPIView):
    """A round's tables and seats ("find my table": ``?player=name or number``)."""

    serializer_class = s.TableSerializer
    permission_classes = [AllowAny]

    @extend_schema(parameters=[OpenApiParameter("player", str, description="name or number")])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Table.objects.none()
        rnd = _round(self.request, self.kwargs["slug"], self.kwargs["number"])
        if not can_see_seating(self.request.user, rnd):
            raise NotFound("the seating of this round is not published yet")
        qs = with_running_live_game(round_tables_with_results(rnd))
        who = (self.request.query_params.get("player") or "").strip()
        if who:
            match = Q(seats__player__name__icontains=who)
            if who.isdigit() and len(who) <= 9:  # a number, not an overflow
                match |= Q(seats__player__number=int(who)) | Q(number=int(who))
            qs = qs.filter(match).distinct()
        return qs


class SeatingCsvApi(CsvApi):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug, number):
        """A round's seating as CSV."""
        rnd = _round(request, slug, number)
        if not can_see_seating(request.user, rnd):
            raise NotFound("the seating of this round is not published yet")
        rows = [(t.number, seat.seat, seat.side, seat.player.name, seat.player.number or "")
                for t in round_tables_with_results(rnd) for seat in t.seats.all()]
        return csv_response(f"{rnd.event.slug}-round-{rnd.number}.csv",
                             ["table", "seat", "side", "player", "number"], rows)


class BracketApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: s.BracketMatchSerializer(many=True), **ERRORS})
    def get(self, request, slug):
        """The knockout finals: every match, its score and its winner once decided."""
        out = knockout_matches(request.user, _event(request, slug))
        return Response(s.BracketMatchSerializer(out, many=True).data)


# ----------------------------------------------------------------------------- tables & results
def _table(request, pk) -> Table:
    table = get_object_or_404(Table.objects.select_related("round__event").defer(
        *(f"round__{name}" for name in ROUND_DRAW_DATA)), pk=pk)
    require_table_visible(request, table)
    return table


def require_table_visible(request, table: Table) -> None:
    """404 unless the user may see the table (a published event and seating, or staff)."""
    if not can_see_table(request.user, table):
        raise NotFound("no such table")


class TableDetailApi(generics.RetrieveAPIView):
    serializer_class = s.TableSerializer
    permission_classes = [AllowAny]

    def get_object(self):
        table = _table(self.request, self.kwargs["pk"])
        return with_running_live_game(round_tables_with_results(table.round)).get(pk=table.pk)


class TableResultsApi(generics.ListAPIView):
    """A table's game results; players of the table (or referees) submit them here."""

    serializer_class = s.ResultSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "results"
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return GameResult.objects.none()
        self.table = _table(self.request, self.kwargs["pk"])
        return GameResult.objects.filter(table=self.table).prefetch_related(
            *RESULT_HISTORY_PREFETCH).select_related("confirmed_by").order_by("number")

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if hasattr(self, "table"):  # (the list: read by get_queryset before serializing)
            context["record_access"] = record_access(self.request.user, self.table)
        return context

    @extend_schema(request=s.ResultSubmitSerializer,
                   parameters=[OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER,
                                                required=False)],
                   responses={201: s.ResultSubmittedSerializer, 200: s.ResultSubmittedSerializer,
                              409: OpenApiResponse(description="already submitted"),
                              422: OpenApiResponse(description="the engine refused it"),
                              **ERRORS})
    def post(self, request, pk):
        """Submit a game's result: a result sheet or a full record, validated by the engine.
        The same submission twice (same body, or same ``Idempotency-Key``) returns the stored
        result (200) instead of creating another."""
        # the hot path (docs/BENCHMARKS.md, "Result submission"): the table, the user's seat and
        # role in one read, which locks the table's row too, then the service's read and insert
        with transaction.atomic():
            found = lock_table_with_viewer(request.user, pk)
            if found is None or not found[1].can_see(found[0]):
                raise NotFound("no such table")
            table, viewer = found
            _require(viewer.public_seat(table) is not None or viewer.staff,
                     "only players of this table or the event's referees submit its results")
            ser = s.ResultSubmitSerializer(data=request.data)
            ser.is_valid(raise_exception=True)
            key = (request.headers.get("Idempotency-Key") or "")[:100]
            result = game_services.result_submit(
                table=table, number=ser.validated_data["number"],
                sheet=ser.validated_data.get("sheet"), record=ser.validated_data.get("record"),
                by=request.user, idempotency_key=key, table_locked=True,
                as_referee=viewer.staff)
        created = getattr(result, "created", False)
        if created:
            first = result.first_version
            result.first_kind, result.first_submitted_by = first.kind, request.user.username
        else:  # the stored result a retry repeats: who submitted it (one query)
            result.first_kind, result.first_submitted_by = result_first_submission(result)
        result.url = reverse("api:result-detail", kwargs={"pk": result.pk})
        return Response(s.ResultSubmittedSerializer(result).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


def _result_state(result: GameResult, user) -> dict:
    """A confirmation's short answer: the result as it is now (``url``: with its history)."""
    if result.confirmed_by_id is not None and result.confirmed_by_id == user.pk:
        result.confirmed_by = user  # (no query for the confirmer's name)
    result.url = reverse("api:result-detail", kwargs={"pk": result.pk})
    return s.ResultStateSerializer(result).data


def _result_data(request, result: GameResult) -> dict:
    """A result with its versions, proposals and history, one query each; its records as
    ``request``'s user may see them (:func:`games.selectors.record_access`)."""
    prefetch_related_objects([result], *RESULT_HISTORY_PREFETCH)
    access = record_access(request.user, result.table)
    return s.ResultSerializer(result, context={"record_access": access}).data


def _result(request, pk) -> GameResult:
    result = get_object_or_404(GameResult.objects.select_related("table__round__event"), pk=pk)
    _table(request, result.table_id)
    return result


class ResultDetailApi(generics.RetrieveAPIView):
    """A result with every version, its open proposed correction and its history (who, when,
    why)."""

    serializer_class = s.ResultSerializer
    permission_classes = [AllowAny]

    def get_object(self):
        result = _result(self.request, self.kwargs["pk"])
        prefetch_related_objects([result], *RESULT_HISTORY_PREFETCH)
        self.record_access = record_access(self.request.user, result.table)
        return result

    def get_serializer_context(self):
        return {**super().get_serializer_context(),
                "record_access": getattr(self, "record_access", None)}


class ResultConfirmApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "results"

    @extend_schema(
        request=s.ResultConfirmSerializer,
        parameters=[OpenApiParameter(
            "If-Match", str, OpenApiParameter.HEADER, required=False,
            description="the result version you are confirming (e.g. `\"2\"` or `2`); the "
                        "same as `version` in the body")],
        responses={200: s.ResultStateSerializer,
                   409: OpenApiResponse(description="stale_version: the result was corrected "
                                                    "since that version (detail.version is "
                                                    "the current one)"),
                   **ERRORS})
    def post(self, request, pk):
        """Confirm a result: the other 联邦 at the table, or a referee. Name the version you
        read (``version`` in the body, or ``If-Match``) so that a correction made meanwhile is
        not confirmed unseen: a stale version is refused (409) and nothing changes."""
        # the hot path: the result's table, the user's seat and role in one read; the
        # service reads the result itself under the table's lock
        found = result_table_with_viewer(request.user, pk)
        if found is None or not found[1].can_see(found[0]):
            raise NotFound("no such result")
        table, viewer = found
        referee = viewer.staff
        if not referee and viewer.public_seat(table) is None:
            raise PermissionDenied("only players of this table or referees confirm")
        result = GameResult(pk=pk, table=table)  # (its row is read by the service)
        ser = s.ResultConfirmSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        versions = {v for v in (ser.validated_data.get("version"),
                                self._if_match(request)) if v is not None}
        if len(versions) > 1:
            raise ServiceError("version_mismatch", "the body's version and If-Match differ")
        try:
            result = game_services.result_confirm(result=result, by=request.user,
                                                  as_referee=referee,
                                                  version=next(iter(versions), None),
                                                  reason=ser.validated_data.get("reason", ""))
        except ServiceError as exc:
            if exc.status == 403:
                raise PermissionDenied(exc.message) from None
            raise
        return Response(_result_state(result, request.user))

    @staticmethod
    def _if_match(request) -> int | None:
        """The version named by ``If-Match`` (``"2"``, ``W/"2"`` or ``2``; ``*``: any)."""
        value = request.headers.get("If-Match", "").strip()
        if value in ("", "*"):
            return None
        value = value.removeprefix("W/").strip('"')
        if not value.isascii() or not value.isdigit() or int(value) < 1:
            raise ServiceError("bad_if_match", "If-Match must be the result's version number")
        return int(value)


class ResultCorrectApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "results"

    @extend_schema(request=s.ResultCorrectSerializer, responses={
        200: s.ResultSerializer,
        202: OpenApiResponse(s.ResultSerializer, description=(
            "a player's correction of a confirmed result: stored as the open `proposal`, the "
            "result unchanged until the other 联邦 or a referee accepts it")),
        409: OpenApiResponse(description="proposal_open: another correction is proposed "
                                         "(detail.proposal is its id)"),
        422: OpenApiResponse(description="the engine refused it"),
        **ERRORS})
    def post(self, request, pk):
        """Correct a result, with the reason. A referee's correction applies at once and
        stands confirmed; a player's correction of a result awaiting confirmation adds a
        version to confirm. A player's correction of a confirmed result is a proposal (202):
        it counts only once the other 联邦 or a referee accepts it. A live game's result is
        corrected by a referee only (403 ``live_result_referee_only``)."""
        result = _result(request, pk)
        referee = is_referee(request.user, result.table.round.event)
        if not referee and public_seat_of(request.user, result.table) is None:
            raise PermissionDenied("only players of this table or referees correct")
        ser = s.ResultCorrectSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        result = game_services.result_correct(
            result=result, reason=ser.validated_data["reason"],
            sheet=ser.validated_data.get("sheet"), record=ser.validated_data.get("record"),
            by=request.user, as_referee=referee)
        proposed = getattr(result, "proposal", None) is not None
        return Response(_result_data(request, result),
                        status=status.HTTP_202_ACCEPTED if proposed else status.HTTP_200_OK)


class ResultDisputeApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "results"

    @extend_schema(request=s.ResultDisputeSerializer, responses={
        200: s.ResultSerializer,
        409: OpenApiResponse(description="not_submitted: the result is confirmed, or disputed "
                                         "already (detail.status says which)"),
        **ERRORS})
    def post(self, request, pk):
        """Dispute a submitted result, with the reason: a player of the other 联邦 at the
        table. It counts for nothing until a referee settles it by confirming or correcting
        it; the same dispute sent again changes nothing."""
        result = _result(request, pk)
        if public_seat_of(request.user, result.table) is None:
            raise PermissionDenied("only players of this table dispute its results")
        ser = s.ResultDisputeSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        result = game_services.result_dispute(result=result, by=request.user,
                                              reason=ser.validated_data["reason"])
        return Response(_result_data(request, result))


class ResultProposalApi(APIView):
    """Close a proposed correction of a result with a subclass's ``service`` (accept, decline:
    also as a referee; withdraw: its proposer only)."""

    permission_classes = [IsAuthenticated]
    throttle_scope = "results"
    request_serializer = s.ProposalDecisionSerializer
    by_referee = True  # whether a referee of the event may do it as a referee

    def post(self, request, pk, proposal):
        result = _result(request, pk)
        found = get_object_or_404(ResultProposal, pk=proposal, result=result)
        ser = self.request_serializer(data=request.data)
        ser.is_valid(raise_exception=True)
        extra = {"as_referee": is_referee(request.user, result.table.round.event)} if (
            self.by_referee) else {}
        result = self.service(proposal=found, by=request.user,
                              reason=ser.validated_data.get("reason", ""), **extra)
        return Response(_result_data(request, result))


PROPOSAL_RESPONSES = {
    200: s.ResultSerializer,
    409: OpenApiResponse(description="proposal_closed: it was closed otherwise meanwhile "
                                     "(detail.status says how)"),
    **ERRORS}


class ResultProposalAcceptApi(ResultProposalApi):
    service = staticmethod(game_services.result_proposal_accept)

    @extend_schema(request=s.ProposalDecisionSerializer, responses={
        **PROPOSAL_RESPONSES,
        422: OpenApiResponse(description="the engine refuses it now (the previous game was "
                                         "corrected since): nothing changes")})
    def post(self, request, pk, proposal):
        """Accept a proposed correction: the other 联邦 at the table, or a referee. The engine
        checks it again against the table as it is now; it becomes the result's new version,
        confirmed. Accepting it again changes nothing."""
        return super().post(request, pk, proposal)


class ResultProposalDeclineApi(ResultProposalApi):
    service = staticmethod(game_services.result_proposal_decline)
    request_serializer = s.ProposalDeclineSerializer

    @extend_schema(request=s.ProposalDeclineSerializer, responses=PROPOSAL_RESPONSES)
    def post(self, request, pk, proposal):
        """Decline a proposed correction, with the reason: the other 联邦 at the table, or a
        referee. The result stays as it is."""
        return super().post(request, pk, proposal)


class ResultProposalWithdrawApi(ResultProposalApi):
    service = staticmethod(game_services.result_proposal_withdraw)
    by_referee = False

    @extend_schema(request=s.ProposalDecisionSerializer, responses=PROPOSAL_RESPONSES)
    def post(self, request, pk, proposal):
        """Withdraw your proposed correction (its proposer only). The result stays as it
        is."""
        return super().post(request, pk, proposal)


# ----------------------------------------------------------------------------- penalties
class PenaltyListCreateApi(generics.ListCreateAPIView):
    serializer_class = s.PenaltySerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "writes"
    filterset_fields = ["kind"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Penalty.objects.none()
        event = _event(self.request, self.kwargs["slug"])
        return Penalty.objects.filter(event=event).select_related("created_by").order_by("pk")

    def perform_create(self, serializer):
        event = _event(self.request, self.kwargs["slug"])
        _require(is_referee(self.request.user, event), "only the event's referees penalise")
        d = serializer.validated_data
        entry = get_object_or_404(Entry, pk=d["entry_id"], event=event)
        table = get_object_or_404(Table, pk=d["table_id"], round__event=event) if d.get(
            "table_id") else None
        player = get_object_or_404(Player, pk=d["player_id"]) if d.get("player_id") else None
        serializer.instance = penalty_add(
            event=event, entry=entry, kind=d["kind"], reason=d["reason"],
            points=d.get("points", 0), player=player, table=table,
            game_number=d.get("game_number"), by=self.request.user)


# ----------------------------------------------------------------------------- standings
class StandingsApi(generics.ListAPIView):
    """Standings from confirmed results, with an ETag (the standings version): the live ones, or
    the last released round's while the organizers hold them back."""

    serializer_class = s.StandingSerializer
    permission_classes = [AllowAny]
    search_fields = ["entry__player__name", "=entry__player__number", "entry__team__name"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Standing.objects.none()
        return public_standings(_event(self.request, self.kwargs["slug"]))

    def get(self, request, *args, **kwargs):
        event = _event(request, kwargs["slug"])
        etag = standings_etag(event)
        if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
            resp = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:
            resp = super().get(request, *args, **kwargs)
        resp["ETag"] = etag
        resp["Cache-Control"] = "no-cache"
        # Answered with what is stored; if that is behind (a lost recompute), queue one
        # (debounced per event), so the next poll gets the healed standings.
        standings_heal(event)
        return resp


class StandingsCsvApi(CsvApi):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug):
        """Standings as CSV."""
        event = _event(request, slug)
        rows = [(st.rank, str(st.entry), st.points, st.match_points, st.game_wins,
                 st.head_count, st.opponents_points, st.games_played, st.byes,
                 st.penalty_points, st.previous_rank or "") for st in public_standings(event)]
        return csv_response(f"{event.slug}-standings.csv",
                             ["rank", "name", "points", "match_points", "game_wins", "head_count",
                              "opponents_points", "games", "byes", "penalty_points",
                              "previous_rank"], rows)


# ----------------------------------------------------------------------------- engine
class EngineValidateApi(APIView):
    permission_classes = [AllowAny]
    throttle_scope = "engine"

    @extend_schema(request=s.EngineValidateSerializer,
                   responses={200: OpenApiTypes.OBJECT,
                              422: OpenApiResponse(description="illegal record or sheet")})
    def post(self, request):
        """Replay a game record (or a match record, or score a result sheet) and return the
        engine's result object; an illegal one comes back as 422 with the engine's error."""
        ser = s.EngineValidateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        if "sheet" in ser.validated_data:
            res = engine.score_sheet(ser.validated_data["sheet"])
        else:
            rec = ser.validated_data["record"]
            if isinstance(rec, dict) and rec.get("format") == "gouji-match/1":
                res = engine.replay_match(rec)
            else:
                res = engine.replay(rec)
        if not res.get("ok"):
            err = res["error"]
            detail = dict(err)
            if "game" in res:
                detail["game"] = res["game"]
            raise ServiceError(err["code"], err["message"], detail=detail, status=422)
        return Response(res)
