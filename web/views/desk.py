"""The referee desk (裁判台) of an event: every table of a round with its results' state, and one
table opened to enter a paper sheet, confirm, settle a dispute, correct, decide a proposed
correction or give a penalty.

For the event's signed-in referees and organizers only (``tournaments.selectors.is_referee``, as
the API checks); every write goes through the services with ``as_referee=True``, so nothing is
possible here that the API would refuse. A round of 1,700 tables is listed from a few queries:
the results' states come as one flat list of ``(table, game, status)`` and one of open
proposals, the filters and counts are worked out from them, and only the page shown loads its
seats.
"""

from __future__ import annotations

import hashlib
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

import engine
from games import services as game_services
from games.models import GameResult
from games.selectors import (
    RESULT_HISTORY_PREFETCH,
    result_open_dispute,
    result_open_proposal,
    round_open_proposal_games,
    round_result_count,
    round_result_states,
)
from live import services as live_services
from live.queries import running_live_games
from live.selectors import ready_seats, running_game_numbers
from tournaments.errors import ServiceError
from tournaments.models import ROUND_DRAW_DATA, Event, Round, Seat, Table
from tournaments.names import person_name, side_names
from tournaments.selectors import (
    drawn_rounds,
    is_referee,
    round_closed_by,
    round_tables_matching,
    table_penalties,
)
from tournaments.services.draws import later_draws
from tournaments.services.matches import most_games, round_tied_matches
from tournaments.services.penalties import penalty_add
from web.forms.penalty import PenaltyForm
from web.forms.sheet import PLACE_NAMES, SheetForm, seat_label, seats_words
from web.history import history_rows
from web.refusals import live_refusal, refusal
from web.views.params import search_text

DESK_PAGE = 100
#: a round's draw record (every entry of a 10,000-player draw, as JSON): never read here, and
#: decoding it once per table listed cost more than the rest of the desk together
ROUND_BULK = ROUND_DRAW_DATA
_SEATS = Prefetch("seats", Seat.objects.select_related("player").order_by("seat"))
POLL_SECONDS = 10

#: a table's state on the desk, in the order the desk lists and counts them: what needs a
#: referee first
STATES = {
    "disputed": pgettext_lazy("table state", "disputed"),
    "proposal": pgettext_lazy("table state", "correction proposed"),
    "submitted": pgettext_lazy("table state", "waiting for confirmation"),
    "none": pgettext_lazy("table state", "nothing yet"),
    "playing": pgettext_lazy("table state", "in play"),
    "confirmed": pgettext_lazy("table state", "confirmed"),
}
JS_TEXT = {"updated": _("Updated %(time)s"), "offline": _("Connection lost; retrying…")}


def game_state(status: str, proposal_open: bool) -> str:
    """A game's state on the desk: its result's status, or ``proposal`` for a confirmed result
    with an open proposed correction."""
    if status == GameResult.Status.CONFIRMED:
        return "proposal" if proposal_open else "confirmed"
    return status  # submitted, disputed


def table_state(games: list[str], games_per_match: int, *, tied: bool = False) -> str:
    """A table's state from its games' states (:func:`game_state`, or their results' bare
    statuses, as the organizer's console counts them; ``playing`` for a game being played
    live): the most urgent of them, else ``none`` (nothing yet), ``playing`` (a game being
    played live, or more to come: games of the match, or a ``tied`` knockout match's deciding
    extra game, 加赛) or ``confirmed`` (every game of the match)."""
    for state in ("disputed", "proposal", "submitted", "playing"):
        if state in games:
            return state
    if not games:
        return "none"
    return "confirmed" if len(games) >= games_per_match and not tied else "playing"


# ----------------------------------------------------------------------------- access
def desk_view(view):
    """Resolve the event of ``slug`` for its referees and organizers: others are sent to sign
    in, or refused (an unpublished event does not exist for them)."""

    @wraps(view)
    def wrapped(request, slug, *args, **kwargs):
        event = get_object_or_404(Event, slug=slug)
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_referee(request.user, event):
            if not event.published:
                raise Http404("no such event")
            raise PermissionDenied(gettext("Only the event's referees and organizers use "
                                            "its desk."))
        return view(request, event, *args, **kwargs)

    return wrapped


def _desk_rounds(event: Event) -> list[Round]:
    """The rounds that have tables (drawn, published or finished), in order."""
    return drawn_rounds(event)


# ----------------------------------------------------------------------------- the list
def _game_states(rnd: Round) -> dict[int, dict[int, str]]:
    """The states of the round's games that have a result or are being played live (table id
    → game number → state, ``playing`` for a live one); three queries over the round's
    results, open proposals and running live games."""
    open_ = round_open_proposal_games(rnd)
    games: dict[int, dict] = {}
    for table_id, number in running_live_games(rnd):
        games.setdefault(table_id, {})[number] = "playing"
    for table_id, number, status in round_result_states(rnd):
        games.setdefault(table_id, {})[number] = game_state(status, (table_id, number) in open_)
    return games


def _game_chip(number: int, state: str) -> dict:
    """A game in a table's row of the list: its number, its state and what the chip says to
    someone who points at it or reads the page aloud ("Game 1: in play")."""
    return {"number": number, "state": state,
            "label": gettext("Game %(n)s: %(state)s") % {"n": number, "state": STATES[state]}}


def _search(rnd: Round, query: str) -> set[int]:
    """Tables of the round found by table number, player number, or a player's or team's
    name."""
    return round_tables_matching(rnd, query)


def _desk_context(request, event: Event) -> dict:
    rounds = _desk_rounds(event)
    ctx = {"event": event, "rounds": rounds, "round": None, "states": STATES,
           "js_text": JS_TEXT}
    if not rounds:
        return ctx
    try:
        number = int(request.GET.get("round", ""))
    except ValueError:
        number = None
    rnd = next((r for r in rounds if r.number == number), rounds[-1])
    state = request.GET.get("state", "")
    state = state if state in STATES else ""
    query = search_text(request)
    gpm = event.games_per_match
    games = _game_states(rnd)
    tables = list(Table.objects.filter(round=rnd).order_by("number").values_list("pk", flat=True))
    tied = round_tied_matches(round=rnd)
    most = most_games(rnd)
    by_table = {pk: table_state(list(games.get(pk, {}).values()), gpm, tied=pk in tied)
                for pk in tables}
    counts = {key: 0 for key in STATES}
    for s in by_table.values():
        counts[s] += 1
    shown = tables
    if query:
        found = _search(rnd, query)
        shown = [pk for pk in shown if pk in found]
    if state:
        shown = [pk for pk in shown if by_table[pk] == state]
    page = Paginator(shown, DESK_PAGE).get_page(request.GET.get("page"))
    loaded = {t.pk: t for t in Table.objects.filter(pk__in=list(page.object_list))
              .select_related("team_a", "team_b").prefetch_related(_SEATS)}
    rows = []
    for pk in page.object_list:
        t = loaded[pk]
        numbers = set(games.get(pk, {})) | set(range(1, gpm + 1))
        if pk in tied and max(numbers) < most:
            numbers.add(max(numbers) + 1)  # (its next game: a deciding extra game, 加赛)
        numbers = sorted(numbers)
        rows.append({
            "table": t, "state": by_table[pk], "state_label": STATES[by_table[pk]],
            "games": [_game_chip(n, games.get(pk, {}).get(n, "none")) for n in numbers],
            "seats": [{"seat": s.seat, "label": seat_label(s.seat), "name": s.player.name,
                       "number": s.player.number, "side": s.side} for s in t.seats.all()],
        })
    params = {"round": rnd.number}
    if state:
        params["state"] = state
    if query:
        params["q"] = query
    chips = [{"key": key, "label": label, "count": counts[key]} for key, label in STATES.items()]
    waiting = sum(1 for by_number in games.values() for s in by_number.values()
                  if s == "submitted")
    ctx.update(round=rnd, rows=rows, waiting=waiting, page=page, chips=chips, total=len(tables),
               state=state, query=query, params=params, poll_seconds=POLL_SECONDS,
               closed_by=round_closed_by(rnd, rounds=rounds))
    return ctx


@desk_view
def desk(request, event: Event):
    """``/e/<slug>/desk/``: the round's tables and their states; ``?fragment=1`` answers the
    list alone (what desk.js polls), with an ETag so an unchanged desk costs a 304."""
    ctx = _desk_context(request, event)
    if request.GET.get("fragment"):
        html = render_to_string("web/desk/_list.html", ctx, request=request)
        etag = f'"{hashlib.sha256(html.encode()).hexdigest()[:32]}"'
        if request.headers.get("If-None-Match") == etag:
            return HttpResponseNotModified()
        response = HttpResponse(html)
        response["ETag"] = etag
        response["Cache-Control"] = "no-store"
        return response
    return render(request, "web/desk/desk.html", ctx)


@desk_view
@require_http_methods(["GET", "POST"])
def desk_round_confirm(request, event: Event, number: int):
    """``/e/<slug>/desk/rounds/<n>/confirm/``: confirm every result of the round awaiting
    confirmation at once, in one transaction (``games.services.round_results_confirm``). A GET
    asks first, saying how many; the POST confirms and goes back to the desk with a message.
    Disputed results are left to be settled one by one."""
    rnd = get_object_or_404(Round.objects.defer(*ROUND_BULK), event=event, number=number)
    back = f"{reverse('pages:desk', kwargs={'slug': event.slug})}?round={rnd.number}"
    if request.method == "POST":
        confirmed = game_services.round_results_confirm(round=rnd, by=request.user)
        messages.success(request, gettext(
            "%(n)s results of round %(round)s confirmed.") % {"n": len(confirmed),
                                                              "round": rnd.number})
        return redirect(back)
    waiting = round_result_count(rnd, GameResult.Status.SUBMITTED)
    disputed = round_result_count(rnd, GameResult.Status.DISPUTED)
    return render(request, "web/desk/round_confirm.html", {
        "event": event, "round": rnd, "waiting": waiting, "disputed": disputed,
        "back": back})


# ----------------------------------------------------------------------------- one table
def later_draw_lines(rnd: Round, games: list[dict]) -> list[str]:
    """What the desk says of the rounds drawn after ``rnd`` once a result of this table changed
    after ``rnd`` was closed (``tournaments.services.draws.later_draws``): for each, whether its
    draw would have come out otherwise with the results as they stand now. Empty while no
    such change was made here (nothing is drawn again for a look at a closed round)."""
    if not any(step["after_close"] for g in games for step in g.get("history", ())):
        return []
    lines = []
    for later in later_draws(rnd):
        n = later.number
        if later.basis == "random":
            lines.append(gettext(
                "Round %(n)s was drawn at random: its draw does not depend on the standings, "
                "so this change would not have changed it.") % {"n": n})
        elif later.basis == "knockout":
            lines.append(gettext(
                "Round %(n)s is a knockout round: its bracket is not drawn again here; check "
                "its qualifiers and pairs by hand.") % {"n": n})
        elif not later.changed:
            lines.append(gettext(
                "Round %(n)s was seated by score: with the results as they stand now, its "
                "draw would be the same.") % {"n": n})
        else:
            where = [ngettext("table %(tables)s", "tables %(tables)s", len(later.tables)) % {
                "tables": ", ".join(str(t) for t in later.tables)}] if later.tables else []
            if later.byes:
                where.append(gettext("the byes"))
            lines.append(gettext(
                "Round %(n)s was seated by score: with the results as they stand now, its "
                "draw would have been different (%(where)s).") % {
                "n": n, "where": "; ".join(where)})
    return lines


def _table(event: Event, table_id: int) -> Table:
    """The event's table with its seats and every result's versions and proposals (a query
    each)."""
    return get_object_or_404(
        Table.objects.select_related("round__event", "team_a", "team_b")
        .defer(*(f"round__{name}" for name in ROUND_BULK)).prefetch_related(
            _SEATS,
            Prefetch("results", GameResult.objects.order_by("number")
                     .select_related("confirmed_by__player")
                     .prefetch_related(*RESULT_HISTORY_PREFETCH))),
        pk=table_id, round__event=event)


def _game_views(table: Table, seats: list[dict]) -> list[dict]:
    """Each game of the match, any extra game (加赛) with a result, and the next one a tied
    knockout match may play now: its result, state, finishing order by seat, versions, open
    proposal and history."""
    event = table.round.event
    results = {r.number: r for r in table.results.all()}
    numbers = set(results) | set(range(1, event.games_per_match + 1))
    extra = game_services.next_game_number(table, results)
    if extra is not None:
        numbers.add(extra)
    running = running_game_numbers(table)
    views = []
    for n in sorted(numbers):
        r = results.get(n)
        if r is None:
            state = "playing" if n in running else "none"
            views.append({"number": n, "result": None, "state": state,
                          "state_label": STATES[state], "extra": n > event.games_per_match,
                          "live": n in running})
            continue
        proposal = result_open_proposal(r)
        dispute = result_open_dispute(r)
        state = game_state(r.status, proposal is not None)
        order = (r.engine_result or {}).get("order") or []
        views.append({
            "number": n, "result": r, "state": state, "state_label": STATES[state],
            "order": [{"place": PLACE_NAMES[i], "label": seats[s]["label"],
                       "name": seats[s]["name"]} for i, s in enumerate(order)],
            "versions": [{"v": v, "by": person_name(v.submitted_by) or _("the server")}
                         for v in r.versions.all()],
            "proposal": proposal, "proposal_by": person_name(proposal and proposal.proposed_by),
            "dispute": dispute, "dispute_by": person_name(dispute and dispute.raised_by),
            "history": history_rows(r),
            "needs_confirmation": r.status != GameResult.Status.CONFIRMED,
            "extra": n > event.games_per_match,
        })
    return views


def _sheet_form(table: Table, seats: list[dict], game: dict | None, data=None):
    """The sheet form for ``game`` (a game view), started from its current version when it
    has a result."""
    rules = engine.Rules.from_spec(table.round.event.rules)
    if data is not None:
        return SheetForm(data, rules=rules, seats=seats, prefix="sheet")
    initial = None
    if game and game["result"] is not None:
        initial = SheetForm.initial_from_result(game["result"])
    return SheetForm(rules=rules, seats=seats, prefix="sheet", initial=initial)


def _pick_game(games: list[dict], wanted) -> dict | None:
    """The game the sheet form is for: ``?game=N``, else the first without a result that is
    not being played live, else the one being played live (the server records a live game's
    result: the sheet section says so instead of taking a sheet for it)."""
    try:
        wanted = int(wanted)
    except (TypeError, ValueError):
        wanted = None
    by_number = {g["number"]: g for g in games}
    if wanted in by_number:
        return by_number[wanted]
    return (next((g for g in games if g["result"] is None and not g.get("live")), None)
            or next((g for g in games if g.get("live")), None))


@desk_view
@require_http_methods(["GET", "POST"])
def desk_table(request, event: Event, table_id: int):
    """``/e/<slug>/desk/tables/<id>/``: one table for a referee. A POST names its ``action``:
    ``sheet`` (enter or correct a game from a paper sheet), ``confirm`` (also settles a
    dispute as it stands), ``accept`` / ``decline`` (a proposed correction) or ``penalty``. A
    refusal comes back as the form's errors and changes nothing; a done action redirects
    back with a message."""
    table = _table(event, table_id)
    sides = side_names(table)
    seats = [{"seat": s.seat, "label": seat_label(s.seat), "name": s.player.name,
              "number": s.player.number, "side": s.side, "side_name": sides[s.side],
              "opposite": seat_label((s.seat + 3) % 6), "player": str(s.player)}
             for s in table.seats.all()]
    games = _game_views(table, seats)
    game = _pick_game(games, request.POST.get("game") or request.GET.get("game"))
    action = request.POST.get("action") if request.method == "POST" else None
    sheet_form = _sheet_form(table, seats, game, request.POST if action == "sheet" else None)
    penalty_form = PenaltyForm(request.POST if action == "penalty" else None, event=event,
                               games=[g["number"] for g in games if g["result"] is not None],
                               prefix="penalty")
    errors: dict = {}
    if action:
        done = _act(request, action=action, table=table, games=games, game=game,
                    sheet_form=sheet_form, penalty_form=penalty_form, errors=errors)
        if done:
            messages.success(request, done)
            url = reverse("pages:desk-table", kwargs={"slug": event.slug, "table_id": table.pk})
            return redirect(url)
    closed_by = round_closed_by(table.round)
    live_next = None if closed_by else game_services.next_game_number(
        table, [g["number"] for g in games if g["result"] is not None or g.get("live")])
    if live_next and live_next > 1 and not any(
            g["number"] == live_next - 1 and g["result"] is not None for g in games):
        live_next = None  # (dealt once the game before it has its result)
    return render(request, "web/desk/table.html", {
        "live_next": live_next,
        "ready": seats_words(sorted(ready_seats(table))) if live_next else "",
        "event": event, "table": table, "round": table.round, "games": games, "game": game,
        "closed_by": closed_by,
        "later_draws": later_draw_lines(table.round, games) if closed_by else [],
        "seats": seats, "sides": sides, "sheet_form": sheet_form,
        "penalty_form": penalty_form, "errors": errors,
        "penalties": table_penalties(table),
        "desk_url": reverse("pages:desk", kwargs={"slug": event.slug}) + f"?round="
                    f"{table.round.number}",
    }, status=400 if errors or (action and (sheet_form.errors or penalty_form.errors)) else 200)


def _act(request, *, action: str, table: Table, games: list[dict], game: dict | None,
         sheet_form: SheetForm, penalty_form: PenaltyForm, errors: dict) -> str | None:
    """Do ``action`` through its service; the message to show when done, else ``None`` with
    the refusal put on its form (``errors[game number]`` for a game's buttons)."""
    user = request.user
    if action == "sheet":
        return _act_sheet(request, table=table, game=game, form=sheet_form, errors=errors)
    if action == "live":
        try:
            lg = live_services.live_start(table=table, by=user)
        except ServiceError as exc:
            errors["form"] = exc.message
            return None
        return gettext("Game %(n)s dealt live: a seat nobody plays is played by 托管 when "
                       "its clock runs out.") % {"n": lg.number}
    if action == "penalty":
        if not penalty_form.is_valid():
            return None
        d = penalty_form.cleaned_data
        try:
            penalty_add(
                event=table.round.event, entry=penalty_form.entry, player=penalty_form.player,
                kind=d["kind"], reason=d["reason"], points=d.get("points") or 0, table=table,
                game_number=d.get("game_number"), by=user)
        except ServiceError as exc:
            penalty_form.add_error("reason" if exc.code == "reason_required" else None,
                                   exc.message)
            return None
        return gettext("Penalty recorded for %(p)s.") % {"p": penalty_form.player}
    if game is None or game["result"] is None:
        errors["form"] = gettext("Pick a game that has a result.")
        return None
    result = game["result"]
    reason = (request.POST.get("reason") or "").strip()[:2000]
    try:
        if action == "confirm":
            version = request.POST.get("version", "")
            game_services.result_confirm(
                result=result, by=user, as_referee=True, reason=reason,
                version=int(version) if version.isdigit() else None)
            return gettext("Game %(n)s confirmed.") % {"n": result.number}
        if action in ("accept", "decline"):
            proposal = game["proposal"]
            if proposal is None or str(proposal.pk) != request.POST.get("proposal"):
                errors[result.number] = gettext("That proposed correction is no longer open.")
                return None
            if action == "accept":
                game_services.result_proposal_accept(proposal=proposal, by=user,
                                                     as_referee=True, reason=reason)
                return gettext("The correction of game %(n)s is accepted.") % {
                    "n": result.number}
            game_services.result_proposal_decline(proposal=proposal, by=user, as_referee=True,
                                                  reason=reason)
            return gettext("The correction of game %(n)s is declined.") % {"n": result.number}
    except ServiceError as exc:
        errors[result.number] = exc.message
        return None
    errors["form"] = gettext("Unknown action.")
    return None


def _act_sheet(request, *, table: Table, game: dict | None, form: SheetForm,
               errors: dict) -> str | None:
    """Enter game N from a paper sheet (submitted, and confirmed at once when ``confirm`` is
    ticked) or, when it has a result, correct it with the reason given."""
    if game is None:
        form.add_error(None, gettext("Every game of this table has a result; pick one to "
                                      "correct."))
        return None
    reason = (request.POST.get("reason") or "").strip()[:2000]
    if not form.is_valid():
        return None
    user = request.user
    try:
        if game["result"] is None:
            result = game_services.result_submit(table=table, number=game["number"],
                                                 sheet=form.sheet(), by=user, as_referee=True)
            if request.POST.get("confirm"):
                game_services.result_confirm(result=result, by=user, as_referee=True)
                return gettext("Game %(n)s entered and confirmed.") % {"n": game["number"]}
            return gettext("Game %(n)s entered; it waits for confirmation.") % {
                "n": game["number"]}
        if not reason:
            errors["reason"] = gettext("A correction needs a reason.")
            return None
        game_services.result_correct(result=game["result"], sheet=form.sheet(), by=user,
                                     reason=reason, as_referee=True)
        return gettext("Game %(n)s corrected.") % {"n": game["number"]}
    except ServiceError as exc:
        # (dealt live meanwhile: said in the sheet section, which now shows it live, no form)
        if (live := live_refusal(exc)) is not None:
            errors["sheet"] = live
            return None
        field, message = refusal(exc)
        form.add_error(None if field == "__all__" else field, message)
        return None
