"""The daily challenge's pages (每日挑战, issue 55): the day's deals and the name form, each
deal's play on the live table's page, the field's results of a deal and its replays (once the
visitor has finished it), and the day's leaderboard. The views only translate HTTP to
:mod:`live.daily`.

Who a visitor is: a random token kept in their session (``daily_token``), whose hash their
entry stores; a new session is a new visitor. Entering is counted per client address (the
``daily`` rate), which bounds how many names one address can take a day.
"""

from __future__ import annotations

import secrets
from datetime import date as Date

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from config.ratelimit import client_address
from live import daily
from live.models import ChallengeDay, ChallengeDeal, ChallengePlay
from tournaments.errors import ServiceError
from tournaments.names import plain_side_names
from web.forms.sheet import seat_label
from web.views.live_table import page_texts, parse_act, refusal_response
from web.views.table import _throttled
from web.views.watch import WATCH_TEXT

SESSION_KEY = "daily_token"


def _token(request, *, make: bool = False) -> str | None:
    token = request.session.get(SESSION_KEY)
    if token is None and make:
        token = request.session[SESSION_KEY] = secrets.token_urlsafe(24)
    return token


def _day(date: str) -> ChallengeDay:
    try:
        day = Date.fromisoformat(date)
    except ValueError:
        raise Http404("not a date") from None
    try:
        return daily.challenge_day(day)
    except ServiceError:
        raise Http404("no challenge that day") from None


def _deal(day: ChallengeDay, number: int) -> ChallengeDeal:
    deal = day.deals.filter(number=number).first()
    if deal is None:
        raise Http404("no such deal")
    return deal


def _urls(day: ChallengeDay, number: int) -> dict:
    kw = {"date": day.date.isoformat(), "number": number}
    return {"play_url": reverse("pages:daily-play", kwargs=kw),
            "results_url": reverse("pages:daily-results", kwargs=kw)}


def _refused(request, exc: ServiceError, template="web/daily/refused.html"):
    return render(request, template, {"message": exc.message, "section": "daily"},
                  status=exc.status)


# ----------------------------------------------------------------------------- the day
def _day_page(request, day: ChallengeDay, *, error: str | None = None, name: str = "",
              status: int = 200):
    entry = daily.entry_of(day, _token(request))
    plays = {p.deal_id: p for p in ChallengePlay.objects.filter(entry=entry)} if entry else {}
    counts = daily.finished_counts(day)
    deals = []
    for deal in day.deals.all():
        play = plays.get(deal.pk)
        finished = play is not None and play.status == ChallengePlay.Status.FINISHED
        seen = finished or not daily.is_open(day)
        mp = None
        if finished:
            field = {row.play_id: row for row in daily.deal_field(deal)}
            mp = field[play.pk].matchpoints
        deals.append({"deal": deal, "seat": seat_label(deal.seat), "play": play,
                      "finished": finished, "seen": seen, "matchpoints": mp,
                      "field": counts.get(deal.number, 0), **_urls(day, deal.number)})
    return render(request, "web/daily/day.html", {
        "day": day, "open": daily.is_open(day), "entry": entry, "deals": deals,
        "error": error, "name": name, "name_max": daily.NAME_MAX, "section": "daily",
        "leaderboard_url": reverse("pages:daily-leaderboard",
                                   kwargs={"date": day.date.isoformat()}),
    }, status=status)


@never_cache
@require_GET
def daily_today(request):
    """Today's challenge: its deals, the name form or the visitor's entry."""
    return _day_page(request, daily.challenge_day())


@never_cache
@require_GET
def daily_day(request, date: str):
    """One day's challenge (today's, or an earlier one with everything revealed)."""
    return _day_page(request, _day(date))


@require_POST
def daily_enter(request):
    """Enter today's challenge under the name posted (``name``): then today's page."""
    day = daily.challenge_day()
    refused = _throttled(request, "daily", client_address(request))
    if refused:
        return refused
    name = request.POST.get("name", "")
    try:
        daily.challenge_enter(day=day, name=name, token=_token(request, make=True))
    except ServiceError as exc:
        return _day_page(request, day, error=exc.message, name=name[:100], status=exc.status)
    return redirect(reverse("pages:daily"))


# ----------------------------------------------------------------------------- playing
def _my_play(request, date: str, number: int, *, start: bool = False) -> ChallengePlay:
    """The visitor's play of the deal (started when ``start``); a 404 without an entry or
    (unless ``start``) without a play."""
    day = _day(date)
    _deal(day, number)
    entry = daily.entry_of(day, _token(request))
    if entry is None:
        raise Http404("no entry in this challenge")
    if start:
        return daily.challenge_play(entry=entry, number=number)
    play = ChallengePlay.objects.filter(entry=entry, deal__number=number).select_related(
        "deal__day", "entry__day").first()
    if play is None:
        raise Http404("this deal is not started")
    return play


@require_POST
def daily_start(request, date: str, number: int):
    """Start (or continue) the visitor's play of a deal: then its table."""
    try:
        _my_play(request, date, number, start=True)
    except ServiceError as exc:
        return _refused(request, exc)
    return redirect(_urls(_day(date), number)["play_url"])


@never_cache
@require_GET
def daily_play(request, date: str, number: int):
    """The live table's page for the visitor's play of a deal."""
    play = _my_play(request, date, number)
    base = _urls(play.deal.day, number)["play_url"]
    seat = play.deal.seat
    data = {"mode": "practice", "view": daily.play_view(play), "seat": seat,
            "seats": [{"label": seat_label(s), "name": _("You") if s == seat else _("Bot")}
                      for s in range(6)],
            "sides": plain_side_names(), "act_url": base + "act/", "state_url": base + "state/",
            "back_url": reverse("pages:daily-day", kwargs={"date": date})}
    return render(request, "web/live/table.html", {
        "live_data": data, "js_text": page_texts(play.deal.day.preset), "practice": True,
        "back_text": _("The daily challenge"),
        "title": _("Daily challenge, deal %(n)s") % {"n": number}})


@never_cache
@require_GET
def daily_state(request, date: str, number: int):
    return JsonResponse(daily.play_view(_my_play(request, date, number)))


@require_POST
def daily_act(request, date: str, number: int):
    try:
        play = _my_play(request, date, number)
        version, act = parse_act(request)
        play = daily.challenge_act(play=play, action=act, version=version)
    except ServiceError as exc:
        return refusal_response(exc)
    return JsonResponse(daily.play_view(play))


# ----------------------------------------------------------------------------- what is shown
def _seen_deal(request, date: str, number: int) -> tuple[ChallengeDeal, object]:
    """The deal and the visitor's entry, if the visitor may see the deal's field
    (:func:`live.daily.check_may_see`; else :class:`ServiceError` 403)."""
    day = _day(date)
    deal = _deal(day, number)
    entry = daily.entry_of(day, _token(request))
    daily.check_may_see(deal, entry)
    return deal, entry


@never_cache
@require_GET
def daily_results(request, date: str, number: int):
    """The field's results of a deal, with links to every replay: once the visitor has
    finished it (before: a 403 that says so, and how many have)."""
    try:
        deal, entry = _seen_deal(request, date, number)
    except ServiceError as exc:
        return _refused(request, exc)
    rows = daily.deal_field(deal)
    for row in rows:
        row.replay_url = reverse("pages:daily-replay", kwargs={
            "date": date, "number": number, "play": row.play_id})
    return render(request, "web/daily/results.html", {
        "day": deal.day, "deal": deal, "seat": seat_label(deal.seat), "rows": rows,
        "entry": entry, "section": "daily",
        "day_url": reverse("pages:daily-day", kwargs={"date": date})})


def _seen_play(request, date: str, number: int, pk: int):
    deal, _entry = _seen_deal(request, date, number)
    play = ChallengePlay.objects.filter(pk=pk, deal=deal, status=ChallengePlay.Status.FINISHED
                                        ).select_related("entry").first()
    if play is None:
        raise Http404("no such finished play of this deal")
    return deal, play


@require_GET
def daily_replay(request, date: str, number: int, play: int):
    """The replay viewer (复盘) of one finished play of a deal, once the visitor may see it."""
    try:
        deal, found = _seen_play(request, date, number, play)
    except ServiceError as exc:
        return _refused(request, exc)
    sides = plain_side_names()
    seats = [{"seat": s, "label": s + 1, "side": s % 2, "side_name": sides[s % 2],
              "name": found.entry.name if s == deal.seat else _("Bot")} for s in range(6)]
    kw = {"date": date, "number": number, "play": play}
    return render(request, "web/daily/replay.html", {
        "js_text": {**WATCH_TEXT}, "day": deal.day, "deal": deal, "play": found,
        "seats": seats, "section": "daily",
        "back_url": reverse("pages:daily-results", kwargs={"date": date, "number": number}),
        "live": {"api": reverse("pages:daily-replay-data", kwargs=kw),
                 "names": {s["seat"]: s["name"] for s in seats}, "sides": sides}})


@require_GET
def daily_replay_data(request, date: str, number: int, play: int):
    """The steps of :func:`daily_replay` (:func:`engine.steps.replay_steps`)."""
    from engine.steps import replay_steps

    try:
        _deal_, found = _seen_play(request, date, number, play)
    except ServiceError as exc:
        return refusal_response(exc)
    return JsonResponse(replay_steps(daily.play_record(found), first_game=True),
                        json_dumps_params={"ensure_ascii": False})


@never_cache
@require_GET
def daily_leaderboard(request, date: str):
    """The day's leaderboard: everyone who finished a deal, by total matchpoints."""
    day = _day(date)
    entry = daily.entry_of(day, _token(request))
    return render(request, "web/daily/leaderboard.html", {
        "day": day, "rows": daily.leaderboard(day), "entry": entry, "section": "daily",
        "deals": daily.DEALS_PER_DAY,
        "day_url": reverse("pages:daily-day", kwargs={"date": date})})
