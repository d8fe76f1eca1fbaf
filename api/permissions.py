"""The API's permission classes. Who may do what (organizer, referee, seated player, public)
is decided by reads shared with the pages and the services, in :mod:`tournaments.selectors`."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission


def player_of(user):
    if not user or not user.is_authenticated:
        return None
    return getattr(user, "player", None)


class ReadOnlyOrAuthenticated(BasePermission):
    """Reads for everyone (what they may see is decided per object); writes need a login."""

    #: what anonymous clients may call (the schema says so: api.schema.AutoSchema)
    anonymous_methods = SAFE_METHODS

    def has_permission(self, request, view):
        return request.method in SAFE_METHODS or bool(
            request.user and request.user.is_authenticated)
