"""The organizer's dashboard of one event (赛事控制台): check-in counts, the current round's
progress with a link to the results desk, one-click open → draw → publish, and the standings
release switch (公布成绩). Organizers of the event (and superusers) only: anyone else gets 404
(signed in) or the admin's sign-in page.

Every change goes through the services; the page works without JavaScript (each action is a
CSRF-protected form that redirects back), and ``dashboard.js`` polls :func:`dashboard_status`
to follow a draw running on a worker and the results arriving.
"""

from __future__ import annotations

from collections import Counter

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_POST

from games.models import GameResult
from live.queries import running_live_games
from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import Entry, Event, Round, Standing, TeamMember
from tournaments.selectors import is_organizer
from web.views import public, unavailable
from web.views.desk import table_state

LIVE_TOP = 10
POLL_SECONDS = 3

#: a table's progress in the current round, in the order the dashboard lists them
TABLE_STATES = {
    "none": pgettext_lazy("table", "no result"),
    "playing": pgettext_lazy("table state", "in play"),
    "submitted": pgettext_lazy("table", "awaiting confirmation"),
    "disputed": pgettext_lazy("table", "disputed"),
    "confirmed": pgettext_lazy("table", "confirmed"),
}
#: the texts poll.js shows ("updated at …", "connection lost")
JS_TEXT = {k: public.JS_TEXT[k] for k in ("updated", "offline")}


def _organizer_event(request, slug: str) -> Event:
    event = get_object_or_404(Event, slug=slug)
    if not is_organizer(request.user, event):
        raise Http404("no such event")
    return event


#: anonymous visitors sign in on the admin's page and come back
_signed_in = login_required(login_url="admin:login")


def round_progress(rnd: Round | None) -> dict:
    """Tables of ``rnd`` per state (:data:`TABLE_STATES`), the games still missing and the byes."""
    counts = dict.fromkeys(TABLE_STATES, 0)
    if rnd is None:
        return {"states": counts, "tables": 0, "missing": 0, "byes": 0}
    statuses: dict[int, list[str]] = {pk: [] for pk in rnd.tables.values_list("pk", flat=True)}
    for table_id, status in GameResult.objects.filter(table__round=rnd).values_list(
            "table_id", "status"):
        statuses[table_id].append(status)
    for table_id, _number in running_live_games(rnd):
        statuses[table_id].append("playing")
    gpm = rnd.event.games_per_match
    missing, tied = services.round_results_to_come(round=rnd)
    counts.update(Counter(table_state(s, gpm, tied=pk in tied) for pk, s in statuses.items()))
    return {"states": counts, "tables": len(statuses), "missing": missing,
            "byes": rnd.byes.count()}


def check_in_counts(event: Event) -> dict:
    """Entries in the event by where they stand, and (team events) teams whose invited players
    have not all accepted yet."""
    by_status = dict(event.entries.values_list("status").annotate(n=Count("pk"))
                     .values_list("status", "n"))
    pending = event.teams.filter(members__status=TeamMember.Status.INVITED).distinct().count()
    return {
        "entered": sum(by_status.values()),
        "checked_in": by_status.get(Entry.Status.CHECKED_IN, 0),
        "registered": by_status.get(Entry.Status.REGISTERED, 0),
        "withdrawn": by_status.get(Entry.Status.WITHDRAWN, 0)
        + by_status.get(Entry.Status.DISQUALIFIED, 0),
        "pending_consent": pending,
    }


def _desk_url(slug: str) -> str | None:
    """The results desk (issue 16) once it is installed."""
    try:
        return reverse("pages:desk", kwargs={"slug": slug})
    except NoReverseMatch:
        return None


def _status(event: Event) -> dict:
    rnd = event.rounds.order_by("-number").first()
    return {
        "round": rnd.number if rnd else 0,
        "status": rnd.status if rnd else "",
        "status_label": rnd.get_status_display() if rnd else "",
        "progress": round_progress(rnd),
        "check_in": check_in_counts(event),
        "released": event.standings_released_round,
        "standings_version": event.standings_version,
    }


# ----------------------------------------------------------------------------- pages
@_signed_in
def dashboard(request, slug):
    event = _organizer_event(request, slug)
    status = _status(event)
    rounds = list(event.rounds.order_by("number"))
    current = rounds[-1] if rounds else None
    published = [r.number for r in rounds if r.status in (Round.Status.PUBLISHED,
                                                          Round.Status.FINISHED)]
    live = (Standing.objects.filter(event=event).select_related("entry__player", "entry__team")
            .order_by("rank")[:LIVE_TOP])
    # the service refuses a next round while this one misses results: say so instead
    next_stage = _next_stage(event, current)
    can_open = event.status != Event.Status.FINISHED and next_stage is not None and (
        current is None or (current.status in (Round.Status.PUBLISHED, Round.Status.FINISHED)
                            and not status["progress"]["missing"]))
    return render(request, "web/dashboard/dashboard.html", {
        "event": event, "section": "dashboard", "round": current,
        "status": status, "states": [(k, label, status["progress"]["states"][k])
                                     for k, label in TABLE_STATES.items()],
        "can_open": can_open, "next_stage": next_stage,
        "release_choices": [0, *published],
        "release_default": published[-1] if published else 0,
        "live_standings": live, "desk_url": _desk_url(slug),
        "admin_url": reverse("admin:tournaments_event_change", args=[event.pk]),
        "js_text": JS_TEXT,
        "live": {"api": reverse("pages:dashboard-status", kwargs={"slug": slug}),
                 "round": status["round"], "status": status["status"],
                 "interval": POLL_SECONDS},
    })


def _next_stage(event: Event, current: Round | None) -> str | None:
    """The stage of the round to open next: Swiss until the planned rounds are played, then
    the knockout finals if the event has them; None when nothing is left to open."""
    if current is not None and current.stage == Round.Stage.KNOCKOUT:
        last = current.tables.count() <= 1  # the final
        return None if last else Round.Stage.KNOCKOUT
    if event.rounds.filter(stage=Round.Stage.SWISS).count() < event.rounds_planned:
        return Round.Stage.SWISS
    return Round.Stage.KNOCKOUT if event.knockout_teams >= 2 else None


@_signed_in
def dashboard_status(request, slug):
    """The dashboard's figures as JSON, for its poll (no cache: they change by the second)."""
    event = _organizer_event(request, slug)
    response = JsonResponse(_status(event))
    response["Cache-Control"] = "no-store"
    return response


def _latest_round(event: Event) -> Round:
    rnd = event.rounds.order_by("-number").first()
    if rnd is None:
        raise ServiceError("no_round", _("no round is open yet"))
    return rnd


def _round_arg(request) -> int | None:
    """The ``round`` field of a release form: a number, or ``live`` to stop holding back."""
    value = request.POST.get("round", "")
    if value == "live":
        return None
    if not value.isdigit():
        raise ServiceError("bad_round", _("round: choose a round to release"))
    return int(value)


ACTIONS = {
    "open": lambda request, event: services.round_open(
        event=event, knockout=request.POST.get("knockout") == "1"),
    "draw": lambda request, event: services.round_request_draw(round=_latest_round(event)),
    "publish": lambda request, event: services.round_publish(round=_latest_round(event)),
    "release": lambda request, event: services.standings_release(
        event=event, round_number=_round_arg(request)),
}
DONE = {
    "open": gettext_lazy("Round opened; its draw is queued."),
    "draw": gettext_lazy("The draw is queued again."),
    "publish": gettext_lazy("The seating is published."),
    "release": gettext_lazy("The public standings are updated."),
}


@require_POST
@_signed_in
def dashboard_action(request, slug, action):
    """One of :data:`ACTIONS` through its service; a refusal is shown on the dashboard and
    changes nothing."""
    event = _organizer_event(request, slug)
    if action not in ACTIONS:
        raise Http404("no such action")
    try:
        ACTIONS[action](request, event)
    except ServiceError as exc:
        if exc.status == 503:  # (the task queue is down: nothing was changed; a page says so)
            return unavailable(request, exc.message,
                               back=reverse("pages:dashboard", kwargs={"slug": slug}))
        messages.error(request, exc.message)
    else:
        messages.success(request, DONE[action])
    return redirect("pages:dashboard", slug=slug)

