"""CSV downloads: an event's entries, a round's seating, the standings."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny

from api.csv_export import CsvApi, csv_response
from api.views.common import event_entries, event_or_404, round_or_404
from games.selectors import round_tables_with_results
from tournaments.selectors import can_see_seating
from tournaments.standings import public_standings


class EntriesCsvApi(CsvApi):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug):
        """Entries as CSV."""
        event = event_or_404(request, slug)
        rows = [(e.pk, str(e), e.player.number if e.player_id else "", e.status, e.late,
                 e.first_round) for e in event_entries(event)]
        return csv_response(f"{event.slug}-entries.csv",
                             ["entry", "name", "number", "status", "late", "first_round"], rows)


class SeatingCsvApi(CsvApi):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug, number):
        """A round's seating as CSV."""
        rnd = round_or_404(request, slug, number)
        if not can_see_seating(request.user, rnd):
            raise NotFound("the seating of this round is not published yet")
        rows = [(t.number, seat.seat, seat.side, seat.player.name, seat.player.number or "")
                for t in round_tables_with_results(rnd) for seat in t.seats.all()]
        return csv_response(f"{rnd.event.slug}-round-{rnd.number}.csv",
                             ["table", "seat", "side", "player", "number"], rows)


class StandingsCsvApi(CsvApi):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, slug):
        """Standings as CSV."""
        event = event_or_404(request, slug)
        rows = [(st.rank, str(st.entry), st.points, st.match_points, st.game_wins,
                 st.head_count, st.opponents_points, st.games_played, st.byes,
                 st.penalty_points, st.previous_rank or "") for st in public_standings(event)]
        return csv_response(f"{event.slug}-standings.csv",
                             ["rank", "name", "points", "match_points", "game_wins", "head_count",
                              "opponents_points", "games", "byes", "penalty_points",
                              "previous_rank"], rows)
