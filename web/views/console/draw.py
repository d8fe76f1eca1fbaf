"""Checking a round's draw before its seating is published (核对抽签; the organizer's console):
the tables with their 1–6号位, players and the two 联邦 as 红方 / 黑方 (or the teams' names),
what the draw achieved (the repeat 对头, partners and opponents it could not avoid, the byes),
the draw's public record (its swaps and re-draws), and — organizers only, until the seating is
published — swapping two seats, drawing the round again, and publishing it.

Every change goes through a service (``round_seats_swap``, ``round_redraw``, ``round_publish``):
each form works without JavaScript, says what it saw (the seats chosen, the commitment shown), so
that a double click changes nothing, and a refusal comes back at the top of this page with what
was typed.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from tournaments import draw as draw_module
from tournaments.errors import ServiceError
from tournaments.models import Event, Round, Table
from tournaments.names import side_names
from tournaments.selectors import is_organizer, round_repeats, round_tables
from tournaments.services.draw_changes import (
    DRAW_REASON_MAX,
    SeatRef,
    round_redraw,
    round_seats_swap,
)
from tournaments.services.rounds import round_publish
from web.forms.sheet import seat_label
from web.views.public import draw_record_view

RELATIONS = {
    draw_module.OPPOSITE: gettext_lazy("对头 again"),
    draw_module.PARTNER: gettext_lazy("partners again (the same 联邦)"),
    draw_module.TABLEMATE: gettext_lazy("opponents again (the other 联邦, not 对头)"),
}


def organizer_round(request, slug: str, number: int) -> tuple[Event, Round] | None:
    """The event and round for its organizers; ``None`` for a visitor not signed in (they
    sign in first); 404 for everyone else."""
    event = get_object_or_404(Event, slug=slug)
    if not request.user.is_authenticated:
        return None
    if not is_organizer(request.user, event):
        raise Http404("no such page")
    return event, get_object_or_404(Round.objects.select_related("event"), event=event,
                                    number=number)


def seat_views(table: Table) -> list[dict]:
    """The table's six seats as people read them: 1–6号位, side, name, number, club."""
    names = side_names(table)
    return [{"seat": s.seat, "label": seat_label(s.seat), "side": s.side,
             "side_name": names[s.side], "name": s.player.name, "number": s.player.number,
             "club": s.player.club, "player": s.player_id}
            for s in table.seats.all()]


def _table_views(rnd: Round) -> tuple[list[dict], dict]:
    """The tables as the check page shows them, each with its repeats in words, and the
    round's repeats (:func:`tournaments.selectors.round_repeats`)."""
    repeats = round_repeats(rnd)
    views = []
    for table in round_tables(rnd):
        seats = seat_views(table)
        found = []
        for r in repeats["tables"].get(table.number, []):
            a, b = (seats[i] for i in r.seats)
            found.append(_("%(what)s: %(a)s and %(b)s (round %(rounds)s)") % {
                "what": RELATIONS[r.relation], "a": a["name"], "b": b["name"],
                "rounds": ", ".join(map(str, r.rounds))})
            for seat in (a, b):
                seat["repeat"] = True
        rematch = repeats["rematches"].get(table.number)
        if rematch:
            found.insert(0, _("the two teams met in round %(rounds)s") % {
                "rounds": ", ".join(map(str, rematch))})
        views.append({"number": table.number, "seats": seats, "repeats": found,
                      "team_a": table.team_a.name if table.team_a_id else None,
                      "team_b": table.team_b.name if table.team_b_id else None})
    return views, repeats


def _summary(rnd: Round, repeats: dict) -> dict:
    """The repeats per relation the draw could not avoid, and the byes (轮空), each marked if
    the entry had one before."""
    team_event = rnd.event.format == Event.Format.TEAM
    earlier = (rnd.draw_input or {}).get("byes", {})
    byes = [{"name": str(b.entry), "again": earlier.get(str(b.entry_id), 0) > 0}
            for b in rnd.byes.select_related("entry__player", "entry__team")
            .order_by("entry__player__name", "entry__team__name")]
    return {"relations": [{"label": label, "count": repeats["totals"][k]}
                          for k, label in RELATIONS.items()
                          if not (team_event and k == draw_module.PARTNER)],  # by rule
            "rematches": len(repeats["rematches"]), "team_event": team_event,
            "byes": byes, "first_round": rnd.number == 1}


def _seat_choices(tables: list[dict]) -> list[dict]:
    """The swap form's choices, a group per table: ``table-seat-player`` (what the organizer
    saw: :class:`tournaments.services.SeatRef`)."""
    return [{"table": t["number"], "options": [
        {"value": f"{t['number']}-{s['seat']}-{s['player']}",
         "label": f"{s['label']} · {s['side_name']} · {s['name']}"
                  + (f" #{s['number']}" if s["number"] is not None else "")}
        for s in t["seats"]]} for t in tables]


def _seat_ref(value: str) -> SeatRef:
    parts = (value or "").split("-")
    if len(parts) != 3 or not all(p.isdigit() and len(p) <= 10 for p in parts):
        raise ServiceError("bad_seat", _("choose two players to swap"))
    return SeatRef(table=int(parts[0]), seat=int(parts[1]), player_id=int(parts[2]))


def _act(request, rnd: Round):
    """Run the form's action through its service; return where to go next."""
    action = request.POST.get("action")
    reason = request.POST.get("reason", "")
    if action == "swap":
        round_seats_swap(round=rnd, seat_a=_seat_ref(request.POST.get("seat_a")),
                                  seat_b=_seat_ref(request.POST.get("seat_b")),
                                  by=request.user, reason=reason)
        messages.success(request, _("The two seats are swapped; the draw's record says so."))
    elif action == "redraw":
        round_redraw(round=rnd, by=request.user, reason=reason,
                              commitment=request.POST.get("commitment") or "-")
        messages.success(request, _(
            "The round is drawn again from a new seed; its earlier draw stays in the record."))
    elif action == "publish":
        round_publish(round=rnd)
        messages.success(request, _("The seating is published."))
        return reverse("pages:console-round-print", kwargs={
            "slug": rnd.event.slug, "number": rnd.number})
    else:
        raise ServiceError("bad_action", _("unknown action"))
    return reverse("pages:console-round-check", kwargs={"slug": rnd.event.slug,
                                                        "number": rnd.number})


@require_http_methods(["GET", "POST"])
def round_check(request, slug: str, number: int):
    """The check of round ``number``'s draw, and (POST) its actions: ``action`` = ``swap``
    (``seat_a``, ``seat_b``, ``reason``), ``redraw`` (``commitment``, ``reason``) or
    ``publish``. A refusal answers with the service's status and this page, its message on
    top."""
    found = organizer_round(request, slug, number)
    if found is None:
        return redirect_to_login(request.get_full_path())
    event, rnd = found
    error, status = None, 200
    if request.method == "POST":
        try:
            return redirect(_act(request, rnd))
        except ServiceError as exc:
            error, status = exc.message, exc.status
            rnd.refresh_from_db()
    tables, repeats = ([], None) if rnd.status == Round.Status.COMMITTED else _table_views(rnd)
    posted = request.POST if error else {}
    return render(request, "web/console/draw_check.html", {
        "event": event, "round": rnd, "tables": tables,
        "summary": _summary(rnd, repeats) if repeats is not None else None,
        "record": draw_record_view(rnd),
        "can_change": rnd.status == Round.Status.DRAWN,
        "seat_choices": _seat_choices(tables), "reason_max": DRAW_REASON_MAX,
        "error": error, "posted": posted,
        "print_url": reverse("pages:console-round-print", kwargs={"slug": slug,
                                                                  "number": number}),
    }, status=status)
