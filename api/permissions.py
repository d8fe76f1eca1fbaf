"""Who may do what (roles per event): organizer, referee, seated player, public."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission

from tournaments.models import Event, Seat, Table


def is_organizer(user, event: Event) -> bool:
    if not user or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return event.organizers.filter(pk=user.pk).exists()


def is_referee(user, event: Event) -> bool:
    """Referees of the event; organizers may referee their own event."""
    if not user or not user.is_authenticated:
        return False
    return is_organizer(user, event) or event.referees.filter(pk=user.pk).exists()


def player_of(user):
    if not user or not user.is_authenticated:
        return None
    return getattr(user, "player", None)


def seat_of(user, table: Table) -> Seat | None:
    """The user's seat at ``table`` (one query: through the player's login)."""
    if not user or not user.is_authenticated:
        return None
    return Seat.objects.filter(table=table, player__user=user).first()


def can_see_event(user, event: Event) -> bool:
    """The public sees published events; staff of an event see it always."""
    return event.published or is_referee(user, event)


class ReadOnlyOrAuthenticated(BasePermission):
    """Reads for everyone (what they may see is decided per object); writes need a login."""

    def has_permission(self, request, view):
        return request.method in SAFE_METHODS or bool(
            request.user and request.user.is_authenticated)
