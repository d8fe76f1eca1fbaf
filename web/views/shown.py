"""What the public pages share: the published event and round a page is of (404 otherwise),
how a seat, an entry's name and a round's byes (轮空) are shown, the base context and the
texts the pages' scripts use. Both web.views.public and web.views.watch build on it."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy as _

from games.models import GameResult
from tournaments.models import Bye, Event, Round, Seat
from tournaments.names import SIDES, side_names
from tournaments.selectors import SEATING_PUBLIC

#: Texts the page scripts show (handed over as JSON, so they are translated like the rest).
JS_TEXT = {
    "table": _("Table %(n)s"),
    "seat": _("seat %(s)s"),
    "opposite": _("对头: seat %(s)s"),
    "found": _("%(name)s: table %(table)s, seat %(seat)s, %(side)s"),
    "sides": [SIDES[0], SIDES[1]],
    "no_match": _("No table found for “%(q)s”."),
    "bye": _("%(name)s has a bye this round (%(points)s points)."),
    "confirmed": _("%(c)s/%(n)s confirmed"),
    "up": _("up %(n)s"),
    "down": _("down %(n)s"),
    "same": _("same place"),
    "updated": _("Updated %(time)s"),
    "offline": _("Connection lost; retrying…"),
    "new_round": _("The seating of round %(n)s is published."),
    "show": _("Show it"),
    "submitted": GameResult.Status.SUBMITTED.label,
    "confirmed_status": GameResult.Status.CONFIRMED.label,
    "disputed": GameResult.Status.DISPUTED.label,
    "void": _("void (流局)"),
    "leaderboard": _("Leaderboard"),
    "places": _("places %(from)s–%(to)s"),
    "seating": _("Seating · round %(n)s"),
    "seating_names": _("names %(from)s – %(to)s"),
    "no_results": _("No confirmed results yet."),
    "through": _("after round %(n)s"),
    "released_through": _("released after round %(n)s"),
    "rating": _("rating"),
    "bye_short": _("bye"),
    "where": _("table %(t)s · seat %(s)s"),
    "not_played": _("not played yet"),
    "live_now": _("being played live: watch"),
    "live_game": _("G%(n)s being played live: watch"),
}


def public_event(slug: str) -> Event:
    """A published event, or 404: unpublished events do not exist for the public."""
    return get_object_or_404(Event, slug=slug, published=True)


def public_round(event: Event, number: int) -> Round:
    return get_object_or_404(Round, event=event, number=number, status__in=SEATING_PUBLIC)


def entry_name(entry) -> str:
    """A player's or a team's name (``str(entry)`` adds the player number, shown apart)."""
    return entry.player.name if entry.player_id else entry.team.name


def seat_view(seat: Seat, hit: bool = False, *, sides: dict | None = None) -> dict:
    """A seat as people see it: ``label`` and ``opposite`` are 1–6 (号位); ``seat`` stays the
    engine's 0–5 for the layout; ``side_name``, its 联邦 as ``sides`` (the table's
    :func:`~tournaments.names.side_names`) calls it, else 红方 or 黑方."""
    return {"seat": seat.seat, "label": seat.seat + 1, "side": seat.side,
            "side_name": (sides or side_names())[seat.side],
            "opposite": (seat.seat + 3) % 6 + 1,
            "name": seat.player.name, "number": seat.player.number, "hit": hit,
            "entry": seat.entry_id, "rating": None}


def bye_views(rnd: Round) -> list[dict]:
    """The round's byes (轮空) by name: who sits out and what it scores."""
    byes = (Bye.objects.filter(round=rnd).select_related("entry__player", "entry__team")
            .order_by("entry__player__name", "entry__team__name"))
    return [{"name": entry_name(b.entry),
             "number": b.entry.player.number if b.entry.player_id else None,
             "points": b.points} for b in byes]


def base_context(event: Event, section: str) -> dict:
    return {"event": event, "section": section, "js_text": JS_TEXT}
