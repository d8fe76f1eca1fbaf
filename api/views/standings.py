"""An event's standings (as released to the public, or live for the staff)."""

from __future__ import annotations

from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from api import serializers as s
from api.views.common import event_or_404
from tournaments.models import Standing
from tournaments.standings import public_standings, standings_etag, standings_heal


class StandingsApi(generics.ListAPIView):
    """Standings from confirmed results, with an ETag (the standings version): the live ones, or
    the last released round's while the organizers hold them back."""

    serializer_class = s.StandingSerializer
    permission_classes = [AllowAny]
    search_fields = ["entry__player__name", "=entry__player__number", "entry__team__name"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Standing.objects.none()
        return public_standings(event_or_404(self.request, self.kwargs["slug"]))

    def get(self, request, *args, **kwargs):
        event = event_or_404(request, kwargs["slug"])
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
