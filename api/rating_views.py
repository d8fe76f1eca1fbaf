"""Ratings across events over JSON and CSV (issue 22): the rating list and one player's history.
Public, read-only; the reads are ``ratings.selectors``."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api.csv_export import CsvApi, csv_response
from ratings import selectors
from ratings.models import PlayerRating
from tournaments.models import Player

MIN_GAMES_MAX = 100_000

FILTERS = [
    OpenApiParameter("club", str, description="players of this club only (exact name)"),
    OpenApiParameter("search", str, description="a part of the name, or a player number"),
    OpenApiParameter("min_games", {"type": "integer", "minimum": 0, "maximum": MIN_GAMES_MAX},
                     description="at least this many games rated"),
]


class RatingSerializer(serializers.ModelSerializer):
    player = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.name")
    club = serializers.CharField(source="player.club")
    number = serializers.IntegerField(source="player.number", allow_null=True)
    rating = serializers.SerializerMethodField()

    class Meta:
        model = PlayerRating
        fields = ["player", "name", "club", "number", "rating", "mu", "sigma", "games", "wins"]

    def get_rating(self, obj) -> float:
        """The shown rating: ``mu - 3 sigma``, one decimal."""
        return round(obj.ordinal, 1)


class RatingPointSerializer(serializers.Serializer):
    event = serializers.CharField(source="event.slug")
    round = serializers.IntegerField(source="round.number")
    drawn_at = serializers.DateTimeField()
    rating = serializers.FloatField(source="ordinal")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()


class MetSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    times = serializers.IntegerField()


class EventPlayedSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    rounds = serializers.IntegerField()


class PlayerRatingHistorySerializer(serializers.Serializer):
    rating = RatingSerializer(allow_null=True)
    points = RatingPointSerializer(many=True)
    events = EventPlayedSerializer(many=True)
    partners = MetSerializer(many=True)
    opposites = MetSerializer(many=True)


def _filters(request) -> dict:
    params = request.query_params
    min_games = params.get("min_games") or "0"
    if not min_games.isdigit() or int(min_games) > MIN_GAMES_MAX:
        raise ValidationError({"min_games": [
            f"a whole number from 0 to {MIN_GAMES_MAX}, not {min_games[:20]!r}"]})
    texts = {name: (params.get(name) or "")[:100] for name in ("club", "search")}
    for name, text in texts.items():
        if "\x00" in text:
            raise ValidationError({name: ["a NUL character (\\u0000) is not allowed"]})
    return {**texts, "min_games": int(min_games)}


class RatingListApi(generics.ListAPIView):
    """Rated players, best first (ratings across the events that count)."""

    serializer_class = RatingSerializer
    permission_classes = [AllowAny]

    @extend_schema(parameters=FILTERS)
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return PlayerRating.objects.none()
        return selectors.rating_list(**_filters(self.request))


class RatingsCsvApi(CsvApi):
    permission_classes = [AllowAny]

    @extend_schema(parameters=FILTERS, responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request):
        """The rating list as CSV (the same filters)."""
        rows = [(k, r.player.name, r.player.club, r.player.number or "", round(r.ordinal, 1),
                 round(r.mu, 2), round(r.sigma, 2), r.games, r.wins)
                for k, r in enumerate(selectors.rating_list(**_filters(request)).iterator(), 1)]
        return csv_response("ratings.csv", ["rank", "name", "club", "number", "rating", "mu",
                                            "sigma", "games", "wins"], rows)


class PlayerRatingApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PlayerRatingHistorySerializer)
    def get(self, request, pk):
        """One player's rating across events: the value after each round (published events),
        the events played, and the partners and 对头 most often met."""
        player = get_object_or_404(Player, pk=pk)
        if not selectors.public_player(player=player):
            raise NotFound("no such player")
        history = selectors.player_history(player=player)
        data = {
            "rating": PlayerRating.objects.filter(player=player).select_related("player").first(),
            "points": history["points"],
            "events": history["events"],
            "partners": [{"player": p.pk, "name": p.name, "times": n}
                         for p, n in history["partners"]],
            "opposites": [{"player": p.pk, "name": p.name, "times": n}
                          for p, n in history["opposites"]],
        }
        return Response(PlayerRatingHistorySerializer(data).data)
