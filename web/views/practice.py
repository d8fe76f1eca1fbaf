"""Practice against bots (练习, issue 18): from the home page anyone starts a game against five
bots under a rules preset of their choice — no event, no account — to learn the rules or try
the engine. The game is at ``/practice/<token>/`` (the token is the key: keep the address to
come back); it expires after some hours idle (:data:`live.practice.PRACTICE_IDLE`).

The page is the live table's (template, script, texts); the views only translate HTTP to
:mod:`live.practice`. Starting games is counted per client address (``practice`` rate).
"""

from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.ratelimit import client_address
from engine.rules import PRESETS
from live import practice as practice_services
from tournaments.errors import ServiceError
from tournaments.names import plain_side_names
from web.forms.sheet import seat_label
from web.views.live_table import page_texts, parse_act, refusal_response
from web.views.table import _throttled

#: the engine's rule presets as the start page offers them
PRESET_TEXTS = {
    "dagang": gettext_lazy("大纲 rules (the Outline, the events' default): 预点 and 明点, 憋3, "
                           "革命"),
    "basic": gettext_lazy("Basic rules: no 点, no 憋3, 会3 — the gentlest start"),
    "online": gettext_lazy("Online rules: a smothered seat pays 闷贡, every card count shown"),
}


@require_http_methods(["GET", "POST"])
def practice_start(request):
    """The start page (GET), and starting a game (POST ``preset``): then its page."""
    error = None
    if request.method == "POST":
        refused = _throttled(request, "practice", client_address(request))
        if refused:
            return refused
        try:
            _game, token = practice_services.practice_start(
                preset=request.POST.get("preset", ""))
        except ServiceError as exc:
            error = exc.message
        else:
            return redirect(reverse("pages:practice-game", kwargs={"token": token}))
    presets = [{"name": name, "text": PRESET_TEXTS.get(name, name)} for name in PRESETS]
    return render(request, "web/live/practice_start.html",
                  {"presets": presets, "error": error, "section": "practice"},
                  status=400 if error else 200)


class _Miss(Exception):
    """A practice address that opens nothing (counted as a link that opens nothing)."""


def _found(request, token: str):
    """The practice game of ``token``; an unknown or expired one is a 404, and counts against
    the address's ``link_misses`` (a guesser meets it)."""
    game = practice_services.practice_find(token)
    if game is None:
        refused = _throttled(request, "link_misses", client_address(request))
        if refused:
            raise _Miss(refused)
        raise Http404("no such practice game")
    return game


def _guarded(view):
    def guarded(request, token: str):
        try:
            return view(request, _found(request, token), token)
        except _Miss as miss:
            return miss.args[0]

    guarded.__name__ = view.__name__
    return guarded


def _seats(seat: int) -> list[dict]:
    return [{"label": seat_label(s), "name": _("You") if s == seat else _("Bot")}
            for s in range(6)]


@require_GET
@_guarded
def practice_page(request, game, token: str):
    base = reverse("pages:practice-game", kwargs={"token": token})
    data = {"mode": "practice", "view": practice_services.practice_view(game),
            "seat": game.seat, "seats": _seats(game.seat), "sides": plain_side_names(),
            "act_url": base + "act/",
            "state_url": base + "state/", "back_url": reverse("pages:practice")}
    return render(request, "web/live/table.html", {
        "live_data": data, "js_text": page_texts(game.preset), "practice": True,
        "title": _("Practice against bots")})


@require_GET
@_guarded
def practice_state(request, game, token: str):
    return JsonResponse(practice_services.practice_view(game))


@require_POST
@_guarded
def practice_act(request, game, token: str):
    try:
        version, act = parse_act(request)
        game = practice_services.practice_act(token=token, action=act, version=version)
    except ServiceError as exc:
        return refusal_response(exc)
    return JsonResponse(practice_services.practice_view(game))
