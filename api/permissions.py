"""Who may do what (roles per event): organizer, referee, seated player, public.

The rules themselves are reads shared with the pages and the services, in
:mod:`tournaments.selectors`; the API's views use them from there. The names below stay
importable from here for the live-play views until they move (``api/live_views.py``)."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission

from tournaments.selectors import is_referee, seat_of

__all__ = ["ReadOnlyOrAuthenticated", "is_referee", "player_of", "seat_of"]


def player_of(user):
    if not user or not user.is_authenticated:
        return None
    return getattr(user, "player", None)


class ReadOnlyOrAuthenticated(BasePermission):
    """Reads for everyone (what they may see is decided per object); writes need a login."""

    def has_permission(self, request, view):
        return request.method in SAFE_METHODS or bool(
            request.user and request.user.is_authenticated)
