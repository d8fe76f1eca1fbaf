"""Rounds: opened (drawn on a worker), published, confirmed, their tables, the bracket."""

from __future__ import annotations

from django.db.models import Q
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers as s
from api.permissions import ReadOnlyOrAuthenticated
from api.views.common import ERRORS, event_or_404, require, round_or_404
from games import services as game_services
from games.models import GameResult
from games.selectors import round_result_count, round_tables_with_results
from live.queries import with_running_live_game
from tournaments.models import Round, Table
from tournaments.selectors import can_see_seating, is_organizer, is_referee, knockout_matches
from tournaments.services.rounds import round_open, round_publish


class RoundListCreateApi(generics.ListAPIView):
    """Rounds with their commitments; the seed shows once a round is drawn."""

    serializer_class = s.RoundSerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "writes"
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Round.objects.none()
        return Round.objects.filter(event=event_or_404(self.request, self.kwargs["slug"])).order_by(
            "number")

    @extend_schema(request=s.RoundCreateSerializer,
                   responses={202: s.DrawStartedSerializer, **ERRORS})
    def post(self, request, slug):
        """Open the next round: publish its commitment and start the draw on a worker. Poll
        ``task`` until ``status`` is ``drawn``."""
        event = event_or_404(request, slug)
        require(is_organizer(request.user, event), "only the event's organizers draw rounds")
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
        return round_or_404(self.request, self.kwargs["slug"], self.kwargs["number"])


class RoundPublishApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={200: s.RoundSerializer, **ERRORS})
    def post(self, request, slug, number):
        """Publish a drawn round's seating."""
        rnd = round_or_404(request, slug, number)
        require(is_organizer(request.user, rnd.event), "only the event's organizers publish")
        return Response(s.RoundSerializer(round_publish(round=rnd),
                                          context={"request": request}).data)


class RoundConfirmApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "writes"

    @extend_schema(request=None, responses={200: s.RoundConfirmedSerializer, **ERRORS})
    def post(self, request, slug, number):
        """Confirm every result of the round awaiting confirmation (the event's referees), in
        one transaction. Disputed results are not confirmed: settle each with its reason."""
        rnd = round_or_404(request, slug, number)
        require(is_referee(request.user, rnd.event),
                 "only the event's referees confirm a round's results")
        ids = game_services.round_results_confirm(round=rnd, by=request.user)
        disputed = round_result_count(rnd, GameResult.Status.DISPUTED)
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
        rnd = round_or_404(self.request, self.kwargs["slug"], self.kwargs["number"])
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


class BracketApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: s.BracketMatchSerializer(many=True), **ERRORS})
    def get(self, request, slug):
        """The knockout finals: every match, its score and its winner once decided."""
        out = knockout_matches(request.user, event_or_404(request, slug))
        return Response(s.BracketMatchSerializer(out, many=True).data)
