"""Table-side pages of a seated player (issue 16): their table in the event's current round,
each game's status and history, a result form made for a phone, confirmation or dispute by the
other 联邦, and corrections: a player corrects a result awaiting confirmation, or proposes a
correction of a confirmed one, with the same form and a reason; the other 联邦 accepts or
declines the proposal (issue 52).

A player reaches them through their private link ``/p/<token>/`` (no password; see
:class:`tournaments.models.PlayerLink`) or signed in at ``/me/``. Everything here is limited to
that player's own table in that event: a result or proposal of another table is a 404, as is
a revoked or unknown link. Every request is counted per client address
(:class:`LinkThrottle`, the API's atomic windows). Writes go through ``games.services`` as the
player's login (made when a link is issued), so the two-person rule is the services' own.

Organizers and referees print a slip per player of a round (:func:`round_slips`): name,
number, table, seat, the link and its QR code. Printing issues the missing links and keeps the
working ones (re-issuing is an admin action), so a reprint hands out the same links.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, prefetch_related_objects
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_POST
from rest_framework.throttling import SimpleRateThrottle

import engine
from config.jsonbody import MAX_DEPTH, JSONRefused, read_json
from config.ratelimit import AtomicWindowMixin, client_address
from games import services as game_services
from games.models import GameResult, ResultProposal
from games.selectors import (
    RESULT_HISTORY_PREFETCH,
    record_access,
    result_open_dispute,
    result_open_proposal,
    result_record_version,
)
from live.models import LiveGame
from live.selectors import READY_SECONDS, ready_seats
from tournaments.errors import ServiceError
from tournaments.models import Entry, Event, Player, PlayerLink, Round, Seat
from tournaments.names import person_name, side_names
from tournaments.selectors import (
    SEATING_PUBLIC,
    current_seat,
    entry_link_players,
    is_referee,
    link_resolve,
    player_link,
    round_closed_by,
)
from tournaments.services import matches
from tournaments.services.links import entry_link_issue
from tournaments.services.matches import match_score
from web.forms.sheet import PLACE_NAMES, SheetForm, seat_label, seats_words
from web.history import history_rows
from web.refusals import live_refusal, refusal
from web.views import watch
from web.views.public import qr_svg

#: a record file from the terminal client or another program: at most this many bytes
RECORD_MAX_BYTES = 512 * 1024


class LinkThrottle(AtomicWindowMixin, SimpleRateThrottle):
    """The atomic windows of config/ratelimit.py for the table-side pages: rate ``links``
    per player (their link or their login: many players share a venue's one address), and
    ``link_misses`` per client address for links that open nothing (a guesser meets it)."""

    def __init__(self, scope: str, ident: str):
        self.scope, self.ident = scope, ident
        super().__init__()

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.ident}


def _throttled(request, scope: str, ident: str) -> HttpResponse | None:
    """A 429 page when ``ident`` is past its rate of ``scope``; ``None`` otherwise."""
    throttle = LinkThrottle(scope, ident)
    if throttle.allow_request(request, None):
        return None
    response = render(request, "web/table/throttled.html", status=429)
    response["Retry-After"] = str(max(1, int(throttle.wait())))
    return response


# ----------------------------------------------------------------------------- who is asking
@dataclass
class Holder:
    """The player a page is for, and how they came: their link, or signed in."""

    player: Player
    event: Event | None
    link: PlayerLink | None
    base: str  # the pages' address: /p/<token>/ or /me/

    @property
    def user(self):
        return self.player.user

    def url(self, rest: str = "") -> str:
        return self.base + rest


def _signed_in_holder(request) -> Holder:
    """The signed-in player, in the latest event whose published seating seats them."""
    player = Player.objects.select_related("user").filter(user=request.user).first()
    if player is None:
        raise Http404("no player profile")
    seat = (Seat.objects.filter(player=player, round__status__in=SEATING_PUBLIC,
                                round__event__published=True)
            .select_related("round__event").order_by("-round__event__created_at",
                                                     "-round__number").first())
    return Holder(player=player, event=seat.round.event if seat else None, link=None,
                  base=reverse("pages:me"))


def _guarded(view):
    """The view by private link and signed in: rate-limited, with its holder resolved (a
    wrong or revoked link is a 404)."""

    def by_link(request, token, **kwargs):
        link = link_resolve(token)
        if link is None:
            refused = _throttled(request, "link_misses", client_address(request))
            if refused:
                return refused
            raise Http404("no such link")
        holder = Holder(player=link.player, event=link.entry.event, link=link,
                        base=reverse("pages:link", kwargs={"token": token}))
        return _throttled(request, "links", f"player-{link.player_id}") or view(
            request, holder, **kwargs)

    @login_required
    def signed_in(request, **kwargs):
        holder = _signed_in_holder(request)
        return _throttled(request, "links", f"player-{holder.player.pk}") or view(
            request, holder, **kwargs)

    by_link.__name__ = signed_in.__name__ = view.__name__
    return by_link, signed_in


# ----------------------------------------------------------------------------- seats and texts
def _seat_rows(table, me: Seat) -> list[dict]:
    sides = side_names(table)
    return [{"seat": s.seat, "label": seat_label(s.seat), "name": s.player.name,
             "number": s.player.number, "side": s.side, "side_name": sides[s.side],
             "opposite": seat_label((s.seat + 3) % 6), "me": s.pk == me.pk}
            for s in table.seats.all()]


# ----------------------------------------------------------------------------- the table page
def _my_table(holder: Holder):
    """The holder's round and seat in the event's current round (seat ``None``: not seated)."""
    if holder.event is None:
        return None, None
    return current_seat(holder.player, holder.event)


def _result_of_my_table(holder: Holder, pk: int) -> GameResult:
    _, seat = _my_table(holder)
    if seat is None:
        raise Http404("not seated")
    return get_object_or_404(GameResult.objects.select_related("table__round__event"), pk=pk,
                             table_id=seat.table_id)


def _order_view(engine_result: dict, seats: list[dict]) -> list[dict]:
    """The places of a result, 头科 to 大落, with each seat's label and name."""
    return [{"place": PLACE_NAMES[i], "label": seats[s]["label"], "name": seats[s]["name"]}
            for i, s in enumerate(engine_result.get("order") or []) if i < 6]


def _game_views(results, seat: Seat, seats: list[dict], *, holder: Holder,
                closed: bool = False) -> list[dict]:
    """Each result with its status for this player: what they may do, its versions and
    history (who by name: :mod:`web.history`), and its replay under the
    holder's own address when it has a record (to check before confirming). ``closed``: the
    round is closed (a later round is drawn), so they may no longer confirm, dispute or
    correct a result. ``can_correct``: what games.services.result_correct takes from a
    player — a result sheet or record they handed in (not recorded live), awaiting
    confirmation or confirmed (then a proposal, ``proposes``), with no proposal open."""
    sides = {s.player.user_id: s.side for s in seat.table.seats.all() if s.player.user_id}
    me = seat.player.user_id

    def who(user):
        return person_name(user) or _("the server")

    out = []
    for r in results:
        current = next((v for v in r.versions.all() if v.version == r.version), None)
        submitter = current.submitted_by_id if current else None
        other_side = submitter != me and sides.get(submitter) != seat.side
        proposal = result_open_proposal(r)
        dispute = result_open_dispute(r)
        out.append({
            "result": r, "current": current, "order": _order_view(r.engine_result, seats),
            "replay_url": holder.url(f"results/{r.pk}/replay/")
            if result_record_version(r) is not None else None,
            "can_confirm": r.status == GameResult.Status.SUBMITTED and other_side and not closed,
            "waiting_other": r.status == GameResult.Status.SUBMITTED and not other_side
            and not closed,
            "dispute": dispute,
            "proposal": proposal,
            "proposal_order": _order_view(proposal.engine_result, seats) if proposal else [],
            "proposal_by": who(proposal and proposal.proposed_by),
            "dispute_by": who(dispute and dispute.raised_by),
            "can_decide": proposal is not None and proposal.proposed_by_id != me and sides.get(
                proposal.proposed_by_id) != seat.side,
            "can_withdraw": proposal is not None and proposal.proposed_by_id == me,
            "can_correct": not closed and not r.system_recorded and proposal is None
            and r.status in (GameResult.Status.SUBMITTED, GameResult.Status.CONFIRMED),
            "proposes": r.status == GameResult.Status.CONFIRMED,
            "versions": [{"v": v, "by": who(v.submitted_by)} for v in r.versions.all()],
            "history": history_rows(r),
        })
    return out


def _page(request, holder: Holder, *, form=None, points=None, upload_error=None,
          action_error=None, correct: int | None = None, fix_form=None, fix_points=None,
          reason_error=None, fix_entered=False, status=200):
    """The table page; ``form`` and ``points``: the next game's sheet as sent, and scored;
    ``correct``: the game whose correction form is open (``fix_form`` as sent, else filled
    in from its result; ``fix_points``: scored; ``reason_error``: the reason is missing;
    ``fix_entered``: it holds the sheet this player sent for the game after another had)."""
    rnd, seat = _my_table(holder)
    ctx = {"holder": holder, "event": holder.event, "round": rnd, "seat": seat,
           "section": "me", "action_error": action_error}
    if seat is None:
        return render(request, "web/table/table.html", ctx, status=status)
    table = seat.table
    prefetch_related_objects([table], "seats__player", Prefetch(
        "results", GameResult.objects.select_related("confirmed_by__player")))
    results = sorted(table.results.all(), key=lambda r: r.number)
    prefetch_related_objects(results, *RESULT_HISTORY_PREFETCH)
    seats = _seat_rows(table, seat)
    rules = engine.Rules.from_spec(holder.event.rules)
    closed_by = round_closed_by(table.round)
    number = None if closed_by else game_services.next_game_number(
        table, [r.number for r in results])
    live_game = _table_live_game(table)
    playing_live = (live_game is not None and live_game.status == LiveGame.Status.RUNNING
                    and live_game.number == number)
    if number is not None and form is None and not playing_live:
        form = SheetForm(rules=rules, seats=seats)
    ready = None
    if number is not None and not (live_game and live_game.status == LiveGame.Status.RUNNING):
        ready = _ready_view(table, seats, seat.seat)
    games = _game_views(results, seat, seats, holder=holder, closed=bool(closed_by))
    fixing = next((g for g in games if g["result"].number == correct and g["can_correct"]),
                  None)
    if fixing is not None:
        fixing["fix"] = {"form": fix_form or SheetForm(
            rules=rules, seats=seats, prefix=FIX_PREFIX,
            initial=SheetForm.initial_from_result(fixing["result"])),
            "points": fix_points, "reason_error": reason_error, "entered": fix_entered,
            "action": holder.url(f"results/{fixing['result'].pk}/correct/#correct-{correct}"),
            "reason": request.POST.get("reason", "") if fix_form is not None else ""}
    ctx.update({
        "table": table, "seats": seats, "sides": side_names(table), "me": seats[seat.seat],
        "games": games, "fixing": fixing,
        "closed_by": closed_by, "next_number": number, "form": form,
        "points": points, "upload_error": upload_error, "rules": rules,
        "my_link": _my_link(request, holder),
        "live_game": live_game, "playing_live": playing_live, "ready": ready,
        "extra_game": _extra_game_state(table, number),
        "max_extra_games": matches.MAX_EXTRA_GAMES, "ready_minutes": READY_SECONDS // 60,
        "score_url": holder.url("score/"),
        "js_text": {"points": _("Team points: %(a)s %(pa)s · %(b)s %(pb)s"),
                    "tap_next": _("Tap the seat placed %(place)s"),
                    "all_placed": _("All six placed."),
                    "order_missing": _("The finishing order is not complete: tap the seat "
                                       "placed %(place)s."),
                    "kaidian_missing": _("Answer 开点 or 不开点 for %(seats)s."),
                    "reason_missing": _("Say why the result is wrong."),
                    "not_sent": _("Not sent yet:"),
                    "separator": pgettext("a list's separator", ", "),
                    "places": PLACE_NAMES, "sides": side_names(table)},
    })
    return render(request, "web/table/table.html", ctx, status=status)


def _ready_view(table, seats: list[dict], me: int) -> dict:
    """Who is ready for the table's next live game (live.selectors.ready_seats): each seat,
    whether the holder is, and the others it still waits for."""
    ready = ready_seats(table)
    return {"seats": [{"label": s["label"], "ready": s["seat"] in ready, "me": s["seat"] == me}
                      for s in seats],
            "me": me in ready,
            "waiting": seats_words(s["seat"] for s in seats
                                   if s["seat"] not in ready and s["seat"] != me)}


def _extra_game_state(table, number: int | None) -> str | None:
    """Why a knockout match with no game to play now is not over: ``"pending"`` (not decided
    yet: a deciding extra game (加赛) comes once every game is confirmed, if the match is tied)
    or ``"exhausted"`` (every game confirmed, the most extra games a match may play among
    them, and still tied: the referee settles it); ``None`` when there is a game to play, or
    the match is decided."""
    if number is not None or table.round.stage != Round.Stage.KNOCKOUT:
        return None
    score = match_score(table=table)
    if score["decided"]:
        return None
    return "exhausted" if score["extra_games"] >= matches.MAX_EXTRA_GAMES else "pending"


def _table_live_game(table):
    """The table's running live game, else its latest one (``None``: none was played live)."""
    games = LiveGame.objects.filter(table=table).defer("state").order_by("-number")
    return games.filter(status=LiveGame.Status.RUNNING).first() or games.first()


def _my_link(request, holder: Holder) -> dict | None:
    """A signed-in player's private link in the event, with its QR code, to show them."""
    link = None if holder.link else player_link(holder.player, holder.event)
    if link is None:
        return None
    url = request.build_absolute_uri(reverse("pages:link", kwargs={"token": link.token()}))
    return {"url": url, "qr": qr_svg(url, scale=3)}


#: the form prefix of a correction (the next game's form, on the same page, has none)
FIX_PREFIX = "fix"


def home(request, holder: Holder):
    """The table page; ``?correct=N``: with game N's correction form open."""
    correct = request.GET.get("correct", "")
    return _page(request, holder, correct=int(correct) if correct.isdigit() else None)


def _score(holder: Holder, data, number: int, *, prefix: str | None = None):
    """(form, sheet or None, points or None): the form bound to ``data`` and, when it is
    complete, the engine's team points — its refusals on the form's fields."""
    _, seat = _my_table(holder)
    rules = engine.Rules.from_spec(holder.event.rules)
    form = SheetForm(data, rules=rules, seats=_seat_rows(seat.table, seat), prefix=prefix)
    if not form.is_valid():
        return form, None, None
    sheet = form.sheet()
    try:
        _kind, _payload, res = game_services.result_validate(
            event=holder.event, table=seat.table, number=number, sheet=sheet)
    except ServiceError as exc:
        _add_refusal(form, exc)
        return form, None, None
    return form, sheet, res["team_points"]


def _add_refusal(form, exc: ServiceError) -> None:
    """A refusal of the form's sheet, on the field it is about."""
    field, message = refusal(exc)
    form.add_error(field if field in form.fields else None, message)


def _game_number(request) -> int:
    try:
        return int(request.POST.get("number", ""))
    except ValueError:
        raise Http404("no game number") from None


@require_POST
def score(request, holder: Holder):
    """The form scored by the engine as it is filled in: ``{"ok", "points", "errors"}``, the
    errors by field in the player's language (``form=fix``: a correction's form)."""
    _, seat = _my_table(holder)
    if seat is None:
        raise Http404("not seated")
    prefix = FIX_PREFIX if request.POST.get("form") == FIX_PREFIX else None
    form, sheet, points = _score(holder, request.POST, _game_number(request), prefix=prefix)
    if sheet is None:
        return JsonResponse({"ok": False, "errors": {
            k: [str(m) for m in v] for k, v in form.errors.items()}})
    return JsonResponse({"ok": True, "points": points})


@require_POST
def submit(request, holder: Holder):
    """Hand in a game's result: the sheet of the form (``preview``: score it and show the
    points first), or an uploaded record file. Refusals come back on the page, beside the
    form (its action's anchor scrolls there). A game someone else handed in meanwhile opens
    its correction form with what this player entered."""
    seat = _my_table(holder)[1]
    if seat is None:
        raise Http404("not seated")
    number = _game_number(request)
    upload = request.FILES.get("record")
    if upload is not None:
        record, error = _read_record(upload)
        status = 400
        if error is None:
            try:
                game_services.result_submit(table=seat.table, number=number, record=record,
                                            by=holder.user)
                return redirect(holder.url(f"#game-{number}"))
            except ServiceError as exc:
                if (live := live_refusal(exc)) is not None:
                    return _page(request, holder, action_error=live, status=exc.status)
                error, status = refusal(exc)[1], exc.status
        return _page(request, holder, upload_error=error, status=status)
    form, sheet, points = _score(holder, request.POST, number)
    if sheet is None or "preview" in request.POST:
        return _page(request, holder, form=form, points=points,
                     status=200 if sheet is not None else 400)
    try:
        game_services.result_submit(table=seat.table, number=number, sheet=sheet,
                                    by=holder.user)
    except ServiceError as exc:
        if (live := live_refusal(exc)) is not None:
            return _page(request, holder, action_error=live, status=exc.status)
        if exc.code == "already_submitted":
            return _page(request, holder, action_error=_(
                "Game %(n)s has a result already: someone at your table sent it first. Check "
                "it below; if it is wrong, correct it there, saying why.") % {"n": number},
                correct=number, fix_entered=True,
                fix_form=SheetForm(rules=form.rules, seats=form.seats, prefix=FIX_PREFIX,
                                   initial=SheetForm.initial_from(sheet)),
                status=exc.status)
        _add_refusal(form, exc)
        return _page(request, holder, form=form, status=400)
    return redirect(holder.url(f"#game-{number}"))


@require_POST
def correct(request, holder: Holder, pk: int):
    """Correct game ``pk``'s result from the phone: the tap form (prefilled with the result)
    and a reason. A result awaiting confirmation gets a new version for the other side to
    confirm; a confirmed one gets a proposed correction for the other 联邦 (or a referee) to
    accept (games.services.result_correct; a closed round's only by a referee)."""
    result = _result_of_my_table(holder, pk)
    form, sheet, points = _score(holder, request.POST, result.number, prefix=FIX_PREFIX)
    reason = request.POST.get("reason", "").strip()[:2000]
    preview = "preview" in request.POST
    if sheet is None or preview or not reason:
        missing = None if preview or reason else _("say why the result is wrong: a "
                                                   "correction needs a reason")
        return _page(request, holder, correct=result.number, fix_form=form, fix_points=points,
                     reason_error=missing, status=200 if sheet is not None and preview else 400)
    try:
        game_services.result_correct(result=result, reason=reason, sheet=sheet, by=holder.user)
    except ServiceError as exc:
        if exc.detail.get("code") in engine.CODES:  # the engine's: on the form
            _add_refusal(form, exc)
            return _page(request, holder, correct=result.number, fix_form=form, status=400)
        return _page(request, holder, action_error=exc.message, correct=result.number,
                     fix_form=form, status=exc.status)
    return redirect(holder.url(f"#game-{result.number}"))


def _read_record(upload) -> tuple[dict | None, str | None]:
    if upload.size > RECORD_MAX_BYTES:
        return None, _("the file is larger than %(n)s KB") % {"n": RECORD_MAX_BYTES // 1024}
    try:  # the API's reader (config/jsonbody.py): bounded depth, no NUL
        record = read_json(upload.read())
    except JSONRefused as exc:
        if exc.reason == "depth":
            return None, _("the file nests more than %(n)s levels of brackets: it is not a game "
                           "record") % {"n": MAX_DEPTH}
        if exc.reason == "nul":
            return None, _("the file holds a NUL character: it is not a game record")
        return None, _("the file is not a JSON game record")
    if not isinstance(record, dict):
        return None, _("the file is not a JSON game record")
    if {"start", "steps"} <= record.keys():  # web.views.watch.replay_data
        return None, _("this file is the replay viewer's data, not a game record: on the "
                       "replay page, use “Download the record”")
    return record, None


def _acted(request, holder: Holder, action) -> HttpResponse:
    """Run a service ``action``: success goes back to the page; a refusal is shown on it, with
    the service's status (403, 409…)."""
    try:
        action()
    except ServiceError as exc:
        return _page(request, holder, action_error=exc.message, status=exc.status)
    return redirect(holder.url())


@require_POST
def confirm(request, holder: Holder, pk: int):
    result = _result_of_my_table(holder, pk)
    version = request.POST.get("version", "")
    return _acted(request, holder, lambda: game_services.result_confirm(
        result=result, by=holder.user,
        version=int(version) if version.isdigit() else None))


@require_POST
def dispute(request, holder: Holder, pk: int):
    result = _result_of_my_table(holder, pk)
    return _acted(request, holder, lambda: game_services.result_dispute(
        result=result, by=holder.user, reason=request.POST.get("reason", "")[:2000]))


def _replay_of_my_table(holder: Holder, pk: int):
    """(result, its record to replay) of a game of the holder's table, as
    :class:`games.selectors.RecordAccess` lets the holder (seated there) see it."""
    _, seat = _my_table(holder)
    if seat is None:
        raise Http404("not seated")
    result = get_object_or_404(watch.RESULT_WITH_VERSIONS.select_related(
        "table__round__event", "table__team_a", "table__team_b"), pk=pk, table_id=seat.table_id)
    return result, watch.replay_record(result, record_access(holder.user, result.table))


def replay(request, holder: Holder, pk: int):
    """The replay (复盘) of a game of the holder's table under their own address (their link
    names their seat), before or after it is confirmed: the public replay's page and script."""
    result, stored = _replay_of_my_table(holder, pk)
    table = result.table
    return watch.render_replay(
        request, {"holder": holder, "event": holder.event, "section": "me"},
        rnd=table.round, tbl=table, result=result, stored=stored,
        data_url=holder.url(f"results/{pk}/replay.json"),
        record_url=holder.url(f"results/{pk}/record.json"),
        back_url=holder.url() + f"#game-{result.number}", back_label=_("back to your table"))


def replay_data(request, holder: Holder, pk: int):
    """The JSON of :func:`replay` (``web.views.watch.replay_json``)."""
    return watch.replay_json(*_replay_of_my_table(holder, pk))


def record_download(request, holder: Holder, pk: int):
    """The record of :func:`replay` as a file (``web.views.watch.record_file``)."""
    return watch.record_file(*_replay_of_my_table(holder, pk))


PROPOSAL_ACTIONS = {"accept": game_services.result_proposal_accept,
                    "decline": game_services.result_proposal_decline,
                    "withdraw": game_services.result_proposal_withdraw}


@require_POST
def proposal(request, holder: Holder, pk: int, proposal: int, action: str):
    result = _result_of_my_table(holder, pk)
    found = get_object_or_404(ResultProposal, pk=proposal, result=result)
    if action not in PROPOSAL_ACTIONS:
        raise Http404("no such action")
    return _acted(request, holder, lambda: PROPOSAL_ACTIONS[action](
        proposal=found, by=holder.user, reason=request.POST.get("reason", "")[:2000]))


def player_urls(how: str) -> list:
    """The table-side URLs under ``/p/<token>/`` (``how="link"``) or ``/me/`` (``"me"``),
    named ``pages:<how>``, ``pages:<how>-score``…"""
    def route(view):
        by_link, signed_in = _guarded(view)
        return by_link if how == "link" else signed_in

    return [
        path("", route(home), name=how),
        path("score/", route(score), name=f"{how}-score"),
        path("submit/", route(submit), name=f"{how}-submit"),
        path("results/<int:pk>/confirm/", route(confirm), name=f"{how}-confirm"),
        path("results/<int:pk>/dispute/", route(dispute), name=f"{how}-dispute"),
        path("results/<int:pk>/correct/", route(correct), name=f"{how}-correct"),
        path("results/<int:pk>/replay/", route(replay), name=f"{how}-replay"),
        path("results/<int:pk>/replay.json", route(gzip_page(replay_data)),
             name=f"{how}-replay-data"),
        path("results/<int:pk>/record.json", route(record_download),
             name=f"{how}-record-download"),
        path("results/<int:pk>/proposals/<int:proposal>/<str:action>/", route(proposal),
             name=f"{how}-proposal"),
    ]


# ----------------------------------------------------------------------------- sign-in, slips
class LoginView(auth_views.LoginView):
    """Signing in on the site's own page (django-axes guards it): players with an account,
    then ``/me/``; organizers, then the console (``/console/``); referees, then where they
    were going (the desk sends them here)."""

    template_name = "web/table/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self):
        """Players to their table; organizers (and who may create events) to the console."""
        from tournaments.selectors import can_create_event, organized_events

        user = self.request.user
        if can_create_event(user) or organized_events(user).exists():
            return reverse("pages:console")
        return reverse("pages:me")


def slip_rows(request, pairs) -> list[dict]:
    """A slip per (entry, player, seat or ``None``): name, number, table, seat, the link
    and its QR code. The missing links are issued; working ones are kept."""
    rows = []
    for entry, player, seat in pairs:
        links = entry_link_issue(entry=entry, player=player, by=request.user,
                                          keep=True)
        url = request.build_absolute_uri(reverse("pages:link",
                                                 kwargs={"token": links[0].token()}))
        rows.append({"name": player.name, "number": player.number, "event": entry.event,
                     "table": seat.table.number if seat else None,
                     "seat": seat_label(seat.seat) if seat else None,
                     "url": url, "qr": qr_svg(url, scale=3)})
    return rows


def round_slips(request, slug: str, number: int):
    """Printable result slips of a round (organizers and referees): one per seated player."""
    event = get_object_or_404(Event, slug=slug)
    if not is_referee(request.user, event):
        raise Http404("no such page")
    rnd = get_object_or_404(Round, event=event, number=number)
    seats = (Seat.objects.filter(round=rnd).select_related("entry__event", "player", "table")
             .order_by("table__number", "seat"))
    return render(request, "web/table/slips.html", {
        "event": event, "round": rnd, "title_round": rnd.number,
        "slips": slip_rows(request, [(s.entry, s.player, s) for s in seats])})


def entry_slips(request):
    """Printable result slips of the entries the admin action chose (``?entry=``), each at its
    seat in its event's current round, if any (organizers and referees of those events)."""
    ids = [int(i) for i in request.GET.getlist("entry") if i.isdigit()]
    entries = list(Entry.objects.filter(pk__in=ids).select_related("event", "player", "team")
                   .order_by("event", "pk"))
    if not entries or not all(is_referee(request.user, e.event) for e in entries):
        raise Http404("no such page")
    pairs = []
    for entry in entries:
        for player in entry_link_players(entry):
            pairs.append((entry, player, current_seat(player, entry.event)[1]))
    return render(request, "web/table/slips.html", {"slips": slip_rows(request, pairs)})
