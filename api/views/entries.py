"""An event's entries: registered (players or 联邦 teams), imported, checked in, withdrawn."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.filters import EntryFilter
from api.permissions import ReadOnlyOrAuthenticated, player_of
from api.views.common import ERRORS, event_entries, event_or_404, require
from tournaments.errors import ServiceError
from tournaments.exchange import imports
from tournaments.models import Entry, Event, Player, TeamMember
from tournaments.selectors import is_organizer, is_referee
from tournaments.services.entries import entry_check_in, entry_register, entry_withdraw
from tournaments.services.imports import entries_import
from tournaments.services.teams import team_register


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
        return event_entries(event_or_404(self.request, self.kwargs["slug"]))

    @extend_schema(request=s.EntryCreateSerializer, responses={201: s.EntrySerializer, **ERRORS})
    def post(self, request, slug):
        event = event_or_404(request, slug)
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
            require(is_organizer(request.user, event), "only organizers register others")
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
        event = event_or_404(request, slug)
        ser = s.TeamCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        ids = ser.validated_data["player_ids"]
        players = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
        me = player_of(request.user)
        staff = is_referee(request.user, event)
        require(staff or (me is not None and me.pk in players),
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
        (``tournaments.exchange.imports``). A bad value is a 400 naming the line and field; a number a
        self-registered player holds is a 409 ``number_claimed`` listing every such line
        (``detail.collisions``). The same file again changes nothing (``unchanged``)."""
        event = event_or_404(request, slug)
        require(is_organizer(request.user, event), "only organizers import entries")
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
        event = event_or_404(request, slug)
        entry = get_object_or_404(Entry, pk=pk, event=event)
        me = player_of(request.user)
        own = me is not None and (entry.player_id == me.pk or (
            entry.team_id and entry.team.members.filter(
                player=me, status=TeamMember.Status.ACCEPTED).exists()))
        require(is_referee(request.user, event) or own,
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
