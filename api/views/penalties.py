"""A referee's penalties in an event."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import generics

from api import serializers as s
from api.permissions import ReadOnlyOrAuthenticated
from api.views.common import event_or_404, require
from tournaments.models import Entry, Penalty, Player, Table
from tournaments.selectors import is_referee
from tournaments.services.penalties import penalty_add


class PenaltyListCreateApi(generics.ListCreateAPIView):
    serializer_class = s.PenaltySerializer
    permission_classes = [ReadOnlyOrAuthenticated]
    throttle_scope = "writes"
    filterset_fields = ["kind"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Penalty.objects.none()
        event = event_or_404(self.request, self.kwargs["slug"])
        return Penalty.objects.filter(event=event).select_related("created_by").order_by("pk")

    def perform_create(self, serializer):
        event = event_or_404(self.request, self.kwargs["slug"])
        require(is_referee(self.request.user, event), "only the event's referees penalise")
        d = serializer.validated_data
        entry = get_object_or_404(Entry, pk=d["entry_id"], event=event)
        table = get_object_or_404(Table, pk=d["table_id"], round__event=event) if d.get(
            "table_id") else None
        player = get_object_or_404(Player, pk=d["player_id"]) if d.get("player_id") else None
        serializer.instance = penalty_add(
            event=event, entry=entry, kind=d["kind"], reason=d["reason"],
            points=d.get("points", 0), player=player, table=table,
            game_number=d.get("game_number"), by=self.request.user)
