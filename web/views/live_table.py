"""The live table page of a seated player (issue 18): their hand, the legal acts the engine offers,
the table as their seat may see it, and the game's end — followed through the server-sent
events of :mod:`web.views.live_stream`.

Reached from the player's table page (``/p/<token>/`` or ``/me/``, :mod:`web.views.table`): the
same holder, the same rate limit, and only the live games of the table the holder sits at in
the event's current round (any other is a 404). The views here only translate HTTP: who may act
and what a seat may see are :mod:`live.services`' (the player acts as their login, as through the
API), and legality is the engine's. The practice page (:mod:`web.views.practice`) shares the
template, the script and the texts.
"""

from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext
from django.views.decorators.http import require_GET, require_POST

import engine
from config.jsonbody import JSONRefused, read_json
from live import services as live
from live import streams
from live.models import LiveGame
from live.queries import live_for_view
from tournaments.errors import ServiceError
from tournaments.names import side_names
from web.forms.sheet import ELIMINATION, PLACE_NAMES, seat_label, seats_words
from web.views.table import Holder, _guarded, _my_table

#: the fields of an act a page may send (the engine's act keys)
ACT_FIELDS = {"act": str, "cards": list, "kind": str, "give": str}

#: refusals of an act as the page says them, by code (the engine's messages are English)
REFUSALS = {
    "stale_version": gettext_lazy("The game moved on before your act arrived; here it is now."),
    "game_over": gettext_lazy("The game is over."),
    "not_your_turn": gettext_lazy("It is not your turn."),
    "not_in_hand": gettext_lazy("You do not hold those cards."),
    "bad_combo": gettext_lazy("Those cards are not a combination you may play."),
    "does_not_beat": gettext_lazy("Those cards do not beat the cards on the table."),
    "three_rule": gettext_lazy("That play breaks the rule on 3s (憋3)."),
    "illegal_yield": gettext_lazy("You may not yield (让牌) now."),
    "illegal_burn": gettext_lazy("You may not burn (烧牌) now."),
    "not_entitled": gettext_lazy("You may not make that choice."),
    "wrong_leader": gettext_lazy("Another seat leads this game."),
    "bad_pre": gettext_lazy("That answer is not one of the choices."),
    "bad_card": gettext_lazy("That is not a card."),
    "bad_format": gettext_lazy("That act is not understood."),
}


def refusal_response(exc: ServiceError) -> JsonResponse:
    """A refused act as the page shows it: its code and a sentence in the player's language,
    with the service's status (409 stale or over, 422 illegal, 403, 404)."""
    message = REFUSALS.get(exc.code)
    return JsonResponse({"error": {"code": exc.code,
                                   "message": str(message) if message else str(exc.message)}},
                        status=exc.status)


def parse_act(request) -> tuple[int, dict]:
    """The version and the act a page posted as JSON; a malformed body is refused
    (:class:`ServiceError` ``bad_format``) before any service is asked."""
    try:  # the API's reader (config/jsonbody.py): bounded depth, no NUL
        body = read_json(request.body or b"{}")
    except JSONRefused:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("version"), int) \
            or isinstance(body.get("version"), bool) or not isinstance(body.get("act"), str):
        raise ServiceError("bad_format", _("an act names its version and its kind"))
    act = {}
    for key, kind in ACT_FIELDS.items():
        if key in body:
            if not isinstance(body[key], kind) or (kind is list and (
                    len(body[key]) > 54 or not all(isinstance(c, str) for c in body[key]))):
                raise ServiceError("bad_format", _("the act's %(k)s is malformed") % {"k": key})
            act[key] = body[key]
    return body["version"], act


def _revolt_texts(rules) -> dict:
    """What the 革命 question says to the seat asked: every seat is asked (the question gives
    nobody's cards away), and only a seat dealt no 2 and no joker — under 憋3 no 3 either —
    may revolt (RULES.md §8: judged on the cards as dealt, before any tribute is paid)."""
    if engine.Rules.from_spec(rules)["bie3"]:
        return {"revolt": _("革命: you were dealt no 3, no 2 and no joker, so you may revolt: "
                            "you sit this game out and your 对头 gets 够死级 rights."),
                "revolt_not": _("革命: only a seat dealt no 3, no 2 and no joker may revolt; "
                                "the cards you were dealt do not allow it.")}
    return {"revolt": _("革命: dealt no 2 and no joker, you may revolt: you sit this game out "
                        "and your 对头 gets 够死级 rights."),
            "revolt_not": _("革命: only a seat dealt no 2 and no joker may revolt; the cards "
                            "you were dealt do not allow it.")}


def page_texts(rules) -> dict:
    """The live and practice pages' texts for the script, in the page's language, for a game
    under ``rules`` (a rules spec: some questions depend on them)."""
    return {
        "cards_left": _("%(n)s cards"),
        "your_turn": _("Your turn"),
        "waiting_for": _("Waiting for %(seat)s"),
        "clock": _("%(s)s s left"),
        "top_by": _("On the table, played by %(seat)s:"),
        "leading": _("%(seat)s leads: any combination."),
        "nothing_on_table": _("Nothing on the table yet."),
        "burn_window": _("烧牌 is open: a seat that may burn can beat this now, out of turn."),
        "play": _("Play"),
        "pass": _("Pass"),
        "yield": _("让牌 (yield)"),
        "burn": _("烧牌 (burn)"),
        "clear": _("Clear"),
        "choose_hint": _("Tap cards, or a suggestion:"),
        "not_legal": _("The cards you selected are not a play you may make now."),
        "finished": _("finished %(place)s"),
        "placed": _("placed %(place)s"),
        "eliminated": {k: str(v) for k, v in ELIMINATION.items()},
        "places": PLACE_NAMES,
        "game_over": _("The game is over."),
        "void": _("A void game (流局): no places."),
        "points": _("Team points: %(a)s · %(b)s"),
        "kaidian": _("开点 (opened)"),
        "not_kaidian": _("not opened"),
        "tributes_owed": _("Tributes owed for the next game:"),
        "tribute_row": _("%(from)s gives %(to)s %(n)s card(s) (%(kind)s)"),
        "no_tributes": _("No tributes owed."),
        "reconnecting": _("Connection lost: reconnecting…"),
        "network": _("The network failed; try again."),
        "pre": {
            "yudian": _("预点: declare, before looking at your cards, that your 对头 will not "
                        "开点 (4 点贡 one way or the other)."),
            "mingdian": _("明点: declare, after the tributes, that your 对头 will not 开点 "
                          "(2 点贡 one way or the other)."),
            **_revolt_texts(rules),
            "waive_gousiji": _("够死级: your 对头 revolted; keep your 够死级 rights, or waive "
                               "them and play 无头."),
            "return": _("还贡: give back as many cards as your 落贡 brought, of ranks the giver "
                        "still holds."),
            "buy3": _("买3: you hold no 3; buy one, giving this card to your 对头's side."),
            "hui3": _("会3: you lead; you may remove every 3 from all hands."),
            "decline": pgettext("pre-play answer", "Decline"),
            "declare": _("Declare"),
            "revolt_button": _("Revolt"),
            "waive_button": _("Waive 够死级"),
            "hui3_button": _("会3"),
            "give": _("Give %(cards)s"),
        },
    }


def seat_names(table) -> list[dict]:
    """The six seats as people say them (1–6号位) with their players' names."""
    names = {s.seat: s.player.name for s in table.seats.select_related("player")}
    return [{"label": seat_label(s), "name": names.get(s, "")} for s in range(6)]


# ----------------------------------------------------------------------------- the live game
def _my_live(holder: Holder, live_id: int) -> LiveGame:
    """The live game ``live_id`` if it is at the table where the holder sits in the event's
    current round (with ``user_seat``, their seat); else a 404."""
    _, seat = _my_table(holder)
    if seat is None or holder.user is None:
        raise Http404("not seated")
    lg = live_for_view(live_id, holder.user, table_id=seat.table_id)
    if lg is None or lg.user_seat is None:
        raise Http404("no such live game at your table")
    return lg


@require_GET
def live_page(request, holder: Holder, live_id: int):
    lg = _my_live(holder, live_id)
    base = holder.url(f"live/{lg.pk}/")
    data = {"mode": "live", "view": live.live_view(live=lg, seat=lg.user_seat),
            "seat": lg.user_seat, "seats": seat_names(lg.table),
            "sides": list(side_names(lg.table).values()),
            "act_url": base + "act/", "host_url": base + "host/",
            "state_url": base + "state/", "events_url": base + "events/",
            "back_url": holder.url()}
    return render(request, "web/live/table.html", {
        # no event menu above the table: the phone's height is for the game
        "holder": holder, "section": "me", "live_data": data,
        "js_text": page_texts(lg.table.round.event.rules), "title": seat_label(lg.user_seat)})


@require_GET
def live_state(request, holder: Holder, live_id: int):
    """The seat's view now (the page re-syncs with it after a refusal or a reconnect)."""
    lg = _my_live(holder, live_id)
    return JsonResponse(live.live_view(live=lg, seat=lg.user_seat))


@require_POST
def live_act(request, holder: Holder, live_id: int):
    """The holder's act; the answer is their view after it, with ``?actions_from=`` (the page
    sends how many acts it shows) only the acts from that index on, as the stream sends them."""
    lg = _my_live(holder, live_id)
    try:
        acts_from = streams.acts_from_asked(request.GET.get("actions_from"))
        version, act = parse_act(request)
        lg = live.live_act(live_id=lg.pk, user=holder.user, action=act, version=version)
    except ServiceError as exc:
        return refusal_response(exc)
    return JsonResponse(live.live_view(live=lg, seat=lg.user_seat, acts_after=acts_from))


@require_POST
def live_host(request, holder: Holder, live_id: int):
    """Switch 托管 for the holder's own seat (``on``: "1" or "0")."""
    lg = _my_live(holder, live_id)
    try:
        lg = live.live_host(live_id=lg.pk, on=request.POST.get("on") == "1", user=holder.user)
    except ServiceError as exc:
        return refusal_response(exc)
    return JsonResponse(live.live_view(live=lg, seat=lg.user_seat))


def _refused_on_table_page(request, holder: Holder, exc: ServiceError):
    from web.views.table import _page

    message = exc.message
    if exc.code == "seats_not_ready":
        message = _("Game %(n)s is dealt live once every seat is ready: waiting for "
                    "%(seats)s.") % {"n": exc.detail["number"],
                                     "seats": seats_words(exc.detail["missing"])}
    return _page(request, holder, action_error=message, status=exc.status)


@require_POST
def live_start(request, holder: Holder):
    """A seated player deals their table's next game live (as the API lets them: once every
    seat is ready, ``live.services.live_start``)."""
    _, seat = _my_table(holder)
    if seat is None:
        raise Http404("not seated")
    try:
        lg = live.live_start(table=seat.table, by=holder.user)
    except ServiceError as exc:
        return _refused_on_table_page(request, holder, exc)
    return redirect(holder.url(f"live/{lg.pk}/"))


@require_POST
def live_ready(request, holder: Holder):
    """The holder says they are at the table for its next live game (``ready``: "1"), or no
    longer ("0"); back to the table page."""
    _, seat = _my_table(holder)
    if seat is None:
        raise Http404("not seated")
    try:
        live.live_ready(table=seat.table, user=holder.user,
                        ready=request.POST.get("ready", "1") == "1")
    except ServiceError as exc:
        return _refused_on_table_page(request, holder, exc)
    return redirect(holder.url() + "#live-h")


def player_urls(how: str) -> list:
    """The live table's URLs under ``/p/<token>/live/`` or ``/me/live/``, named
    ``pages:<how>-live…``; its stream's are :func:`web.views.live_stream.player_urls` (which
    uses this page's checks)."""
    def route(view):
        by_link, signed_in = _guarded(view)
        return by_link if how == "link" else signed_in

    return [
        path("start/", route(live_start), name=f"{how}-live-start"),
        path("ready/", route(live_ready), name=f"{how}-live-ready"),
        path("<int:live_id>/", route(live_page), name=f"{how}-live"),
        path("<int:live_id>/state/", route(live_state), name=f"{how}-live-state"),
        path("<int:live_id>/act/", route(live_act), name=f"{how}-live-act"),
        path("<int:live_id>/host/", route(live_host), name=f"{how}-live-host"),
    ]
