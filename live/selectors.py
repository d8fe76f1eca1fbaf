"""Reads of live play shared by the API, the pages and the services (STYLE.md: ``selectors.py``)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from live.models import LiveGame, SeatReady
from tournaments.models import Table

#: seconds a seat's "ready" (:class:`live.models.SeatReady`) counts: a player who said so
#: longer ago may have left the table
READY_SECONDS = 600


def ready_seats(table: Table) -> set[int]:
    """The seats of ``table`` whose players said they are ready for its next live game within
    the last :data:`READY_SECONDS` (one query)."""
    since = timezone.now() - timedelta(seconds=READY_SECONDS)
    return set(SeatReady.objects.filter(table=table, at__gte=since).order_by()
               .values_list("seat", flat=True))


def running_game_numbers(table: Table) -> set[int]:
    """The numbers of the table's games being played live now."""
    return set(LiveGame.objects.filter(table=table, status=LiveGame.Status.RUNNING)
               .values_list("number", flat=True))
