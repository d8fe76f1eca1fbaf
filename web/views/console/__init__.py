"""The organizer's console (赛事控制台): one place for an event's whole day, in the pages' own
style — create and edit the event, import players, check them in at the door, add late entries
and withdrawals, name the referees, publish the event, then each round open → draw → check →
publish → print → follow the tables → release the standings.

For the event's organizers (and superusers) only: anyone else gets a 404, an anonymous visitor
the site's own sign-in page (``pages:login``). Every change goes through the services; every
form works without JavaScript (a POST that redirects back) and the scripts then enhance it.
Modules by subject: :mod:`.home` (the list of events, a new event), :mod:`.event` (settings,
publication, referees), :mod:`.entries` (import, check-in, late entries, withdrawals),
:mod:`.rounds` (the round flow and the standings release).
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404

from tournaments.models import Event
from tournaments.selectors import is_organizer

#: anonymous visitors sign in on the site's page (not the admin's) and come back
signed_in = login_required(login_url="pages:login")


def console_view(view):
    """A console page of one event (``slug``): signed in, and an organizer of that event (a
    superuser is one of every event); anyone else is told there is no such page."""

    @wraps(view)
    @signed_in
    def wrapped(request, slug, *args, **kwargs):
        event = get_object_or_404(Event, slug=slug)
        if not is_organizer(request.user, event):
            raise Http404("no such event")
        return view(request, event, *args, **kwargs)

    return wrapped


def wants_json(request) -> bool:
    """A console script's request (it asks for JSON) rather than a plain form's."""
    return "application/json" in request.headers.get("Accept", "")


def context(event: Event, section: str, **extra) -> dict:
    """What every console page of ``event`` shows: its name, the console's sections."""
    return {"event": event, "console": True, "section": section, **extra}
