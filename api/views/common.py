"""What the API's views share: the error responses their schemas name, and the lookups that
answer 404 for what the user may not see (an event, a round, a table) or 403 for a role."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse
from rest_framework.exceptions import NotFound, PermissionDenied

from tournaments.models import ROUND_DRAW_DATA, Entry, Event, Round, Table
from tournaments.selectors import can_see_event, can_see_table

ERRORS = {400: OpenApiResponse(description="invalid request (error shape)"),
          403: OpenApiResponse(description="not allowed for this role"),
          404: OpenApiResponse(description="not found")}


def event_or_404(request, slug) -> Event:
    event = get_object_or_404(Event, slug=slug)
    if not can_see_event(request.user, event):
        raise NotFound("no such event")
    return event


def require(ok: bool, message: str):
    if not ok:
        raise PermissionDenied(message)


def event_entries(event):
    return (Entry.objects.filter(event=event).select_related("player", "team")
            .prefetch_related("team__members__player").order_by("pk"))


def round_or_404(request, slug, number) -> Round:
    event = event_or_404(request, slug)
    return get_object_or_404(Round, event=event, number=number)


def table_or_404(request, pk) -> Table:
    table = get_object_or_404(Table.objects.select_related("round__event").defer(
        *(f"round__{name}" for name in ROUND_DRAW_DATA)), pk=pk)
    require_table_visible(request, table)
    return table


def require_table_visible(request, table: Table) -> None:
    """404 unless the user may see the table (a published event and seating, or staff)."""
    if not can_see_table(request.user, table):
        raise NotFound("no such table")
