"""The round flow of the organizer's console (the former dashboard): check-in counts, the
current round's steps — open → draw (on a worker: the page follows it) → check the draw → publish
→ print → follow the tables → release the standings — with one form per step, each round's page
of tables (1–6号位 and names, 红方/黑方 or the teams), the event's publication, and the live
standings the public does not see while they are held back.

The draw's check page (swap two seats, re-draw: :mod:`web.views.console.draw`) and the print
pages (:mod:`web.views.console.print`) are linked from each step. ``console.js`` polls
:func:`console_status` to follow a draw and the results arriving.
"""

from __future__ import annotations

from collections import Counter

from django.contrib import messages
from django.db.models import Count
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_POST

from games.models import GameResult
from live.queries import running_live_games
from tournaments.errors import ServiceError
from tournaments.models import Entry, Event, Round, Standing, TeamMember
from tournaments.names import side_names
from tournaments.selectors import SEATING_PUBLIC, round_tables
from tournaments.services.events import event_finish
from tournaments.services.matches import round_missing_results, round_tied_matches
from tournaments.services.releases import standings_release, standings_release_rounds
from tournaments.services.rounds import round_open, round_publish, round_request_draw
from web.forms.sheet import seat_label
from web.views import shown, unavailable
from web.views.console import console_view, context
from web.views.desk import table_state

LIVE_TOP = 10
POLL_SECONDS = 3

#: a table's progress in a round, in the order the console lists them
TABLE_STATES = {
    "none": pgettext_lazy("table", "no result"),
    "playing": pgettext_lazy("table state", "in play"),
    "submitted": pgettext_lazy("table", "awaiting confirmation"),
    "disputed": pgettext_lazy("table", "disputed"),
    "confirmed": pgettext_lazy("table", "confirmed"),
}
#: the two 联邦 of a table of an individual event, as people call them
#: the texts poll.js shows ("updated at …", "connection lost")
JS_TEXT = {k: shown.JS_TEXT[k] for k in ("updated", "offline")}


def table_states(rnd: Round) -> dict[int, str]:
    """Each table of ``rnd`` (by id) and its state (:data:`TABLE_STATES`)."""
    statuses: dict[int, list[str]] = {pk: [] for pk in rnd.tables.values_list("pk", flat=True)}
    for table_id, status in GameResult.objects.filter(table__round=rnd).values_list(
            "table_id", "status"):
        statuses[table_id].append(status)
    for table_id, _number in running_live_games(rnd):
        statuses[table_id].append("playing")
    gpm = rnd.event.games_per_match
    tied = round_tied_matches(round=rnd)
    return {pk: table_state(s, gpm, tied=pk in tied) for pk, s in statuses.items()}


def round_progress(rnd: Round | None) -> dict:
    """Tables of ``rnd`` per state (:data:`TABLE_STATES`), the games still missing and the
    byes."""
    counts = dict.fromkeys(TABLE_STATES, 0)
    if rnd is None:
        return {"states": counts, "tables": 0, "missing": 0, "byes": 0}
    states = table_states(rnd)
    counts.update(Counter(states.values()))
    return {"states": counts, "tables": len(states),
            "missing": round_missing_results(round=rnd), "byes": rnd.byes.count()}


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


def _status(event: Event, rnd: Round | None = None) -> dict:
    rnd = rnd or event.rounds.order_by("-number").first()
    progress = round_progress(rnd) if rnd is not None and rnd.status != Round.Status.COMMITTED \
        else round_progress(None)
    return {
        "round": rnd.number if rnd else 0,
        "status": rnd.status if rnd else "",
        "status_label": rnd.get_status_display() if rnd else "",
        "progress": progress,
        "tables": {str(pk): state for pk, state in table_states(rnd).items()}
        if rnd is not None and rnd.status != Round.Status.COMMITTED else {},
        "check_in": check_in_counts(event),
        "released": event.standings_released_round,
        "published": event.published,
        "standings_version": event.standings_version,
    }


def _next_stage(event: Event, current: Round | None) -> str | None:
    """The stage of the round to open next: Swiss until the planned rounds are played, then
    the knockout finals if the event has them; None when nothing is left to open."""
    if current is not None and current.stage == Round.Stage.KNOCKOUT:
        last = current.tables.count() <= 1  # the final
        return None if last else Round.Stage.KNOCKOUT
    if event.rounds.filter(stage=Round.Stage.SWISS).count() < event.rounds_planned:
        return Round.Stage.SWISS
    return Round.Stage.KNOCKOUT if event.knockout_teams >= 2 else None


def _steps(rnd: Round | None, release: dict) -> list[dict]:
    """The round's steps, each ``done``, ``now`` (the next thing to do) or to come."""
    status = rnd.status if rnd else None
    public = status in SEATING_PUBLIC
    complete = bool(rnd) and public and not round_progress(rnd)["missing"]
    released = bool(rnd) and release["current"] is not None and release["current"] >= (
        rnd.number if rnd else 0)
    done = [rnd is not None, status not in (None, Round.Status.COMMITTED), public, public,
            public, complete, released]
    labels = [_("open"), _("draw"), _("check the draw"), _("publish"), _("print"),
              _("follow the tables"), _("release the standings")]
    keys = ["open", "draw", "check", "publish", "print", "follow", "release"]
    steps, now_given = [], False
    for key, label, is_done in zip(keys, labels, done, strict=True):
        now = not is_done and not now_given
        now_given = now_given or now
        steps.append({"key": key, "label": label, "done": is_done, "now": now})
    return steps


def _release(event: Event) -> dict:
    """The standings release: the rounds that may be released, each with its missing results
    (``tournaments.services.standings_release_rounds``), the complete round to offer first,
    and what the public sees now."""
    rounds = standings_release_rounds(event=event)
    complete = [r["number"] for r in rounds if not r["missing"]]
    return {"rounds": rounds, "default": complete[-1] if complete else 0,
            "current": event.standings_released_round}


# ----------------------------------------------------------------------------- pages
@console_view
def console_event(request, event):
    """The event's console: where it stands and the next thing to do."""
    status = _status(event)
    rounds = list(event.rounds.order_by("number"))
    current = rounds[-1] if rounds else None
    next_stage = _next_stage(event, current)
    can_open = event.status != Event.Status.FINISHED and next_stage is not None and (
        current is None or (current.status in SEATING_PUBLIC
                            and not status["progress"]["missing"]))
    release = _release(event)
    anyway = _anyway(request, release)
    live = (Standing.objects.filter(event=event).select_related("entry__player", "entry__team")
            .order_by("rank")[:LIVE_TOP])
    return render(request, "web/console/event.html", context(
        event, "event", status=status, round=current, rounds=rounds,
        states=[(k, label, status["progress"]["states"][k])
                for k, label in TABLE_STATES.items()],
        can_open=can_open, next_stage=next_stage, steps=_steps(current, release),
        release=release, anyway=anyway, live_standings=live,
        hidden_seating=[r.number for r in rounds if r.status in SEATING_PUBLIC]
        if not event.published else [],
        links=_round_links(event, current), can_finish=_can_finish(event, current, next_stage),
        js_text=JS_TEXT,
        live={"api": reverse("pages:console-status", kwargs={"slug": event.slug}),
              "round": status["round"], "status": status["status"],
              "interval": POLL_SECONDS}))


def _can_finish(event, current, next_stage) -> bool:
    return (event.status != Event.Status.FINISHED and current is not None and next_stage is None
            and current.status in SEATING_PUBLIC
            and not round_missing_results(round=current))


def _anyway(request, release) -> dict | None:
    """A release refused for missing results, to confirm (``?release=<n>``): the round and
    how many results it misses."""
    wanted = request.GET.get("release", "")
    for r in release["rounds"]:
        if wanted.isdigit() and r["number"] == int(wanted) and r["missing"]:
            return r
    return None


def _round_links(event: Event, rnd: Round | None) -> dict:
    if rnd is None:
        return {}
    kwargs = {"slug": event.slug, "number": rnd.number}
    return {"round": reverse("pages:console-round", kwargs=kwargs),
            "check": reverse("pages:console-round-check", kwargs=kwargs),
            "print": reverse("pages:console-round-print", kwargs=kwargs),
            "desk": reverse("pages:desk", kwargs={"slug": event.slug}),
            "seating": reverse("pages:round-seating", kwargs=kwargs)}


def _seat_rows(table, side_names) -> list[dict]:
    return [{"label": seat_label(s.seat), "number": s.seat + 1, "side": s.seat % 2,
             "side_name": side_names[s.seat % 2], "name": s.player.name,
             "player_number": s.player.number} for s in table.seats.all()]


@console_view
def console_round(request, event, number: int):
    """A round's tables as drawn: each table's six seats (1–6号位) with the players' names by
    红方 and 黑方 (or the teams), the byes, and once published each table's progress with its
    desk page."""
    rnd = get_object_or_404(Round, event=event, number=number)
    states = table_states(rnd) if rnd.status in SEATING_PUBLIC else {}
    tables = []
    for table in round_tables(rnd):
        names = side_names(table)
        tables.append({"id": table.pk, "number": table.number,
                       "sides": [{"side": k, "name": names[k],
                                  "seats": [s for s in _seat_rows(table, names)
                                            if s["side"] == k]} for k in (0, 1)],
                       "state": states.get(table.pk), "state_label": TABLE_STATES.get(
                           states.get(table.pk), ""),
                       "desk": reverse("pages:desk-table", kwargs={
                           "slug": event.slug, "table_id": table.pk})})
    byes = shown.bye_views(rnd)
    status = _status(event, rnd)
    return render(request, "web/console/round.html", context(
        event, "event", round=rnd, tables=tables, byes=byes, status=status,
        states=[(k, label, status["progress"]["states"][k])
                for k, label in TABLE_STATES.items()],
        links=_round_links(event, rnd), js_text=JS_TEXT,
        live={"api": reverse("pages:console-status", kwargs={"slug": event.slug}) + "?" +
              urlencode({"round": rnd.number}),
              "round": rnd.number, "status": rnd.status, "interval": POLL_SECONDS,
              "state_labels": {k: str(v) for k, v in TABLE_STATES.items()}}))


@console_view
def console_status(request, event):
    """The console's figures as JSON, for its poll (no cache: they change by the second);
    ``?round=<n>``: that round's, else the latest round's."""
    wanted = request.GET.get("round", "")
    rnd = event.rounds.filter(number=int(wanted)).first() if wanted.isdigit() else None
    response = JsonResponse(_status(event, rnd))
    response["Cache-Control"] = "no-store"
    return response


# ----------------------------------------------------------------------------- actions
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
    "open": lambda request, event: round_open(
        event=event, knockout=request.POST.get("knockout") == "1"),
    "draw": lambda request, event: round_request_draw(round=_latest_round(event)),
    "publish": lambda request, event: round_publish(round=_latest_round(event)),
    "release": lambda request, event: standings_release(
        event=event, round_number=_round_arg(request),
        anyway=request.POST.get("anyway") == "1"),
    "finish": lambda request, event: event_finish(event=event),
}
DONE = {
    "open": gettext_lazy("Round opened; its draw is queued."),
    "draw": gettext_lazy("The draw is queued again."),
    "publish": gettext_lazy("The seating is published."),
    "release": gettext_lazy("The public standings are updated."),
    "finish": gettext_lazy("The event is finished."),
}


@require_POST
@console_view
def console_action(request, event, action):
    """One of :data:`ACTIONS` through its service; a refusal is shown on the console and
    changes nothing. A release refused for missing results comes back to the console asking
    to confirm it with their count (``?release=<n>``)."""
    if action not in ACTIONS:
        raise Http404("no such action")
    back = reverse("pages:console-event", kwargs={"slug": event.slug})
    try:
        ACTIONS[action](request, event)
    except ServiceError as exc:
        if exc.status == 503:  # (the task queue is down: nothing was changed; a page says so)
            return unavailable(request, exc.message, back=back)
        if exc.code == "results_missing":
            return redirect(back + "?" + urlencode({"release": exc.detail["round"]}) +
                            "#release")
        messages.error(request, exc.message)
    else:
        messages.success(request, DONE[action])
    wanted = request.POST.get("next", "")
    return redirect(wanted if wanted.startswith(back) else back)


def dashboard_redirect(request, slug):
    """The former dashboard's address: the console took its place."""
    return redirect("pages:console-event", slug=slug, permanent=True)
