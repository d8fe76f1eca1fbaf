"""Printing a published round (the organizer's console): a menu of three print-ready A4 pages,
each readable without JavaScript (the Print button only calls the browser's own command):

- ``?sheet=slips``: each player's slip, a page per table in seat order, to lay at the tables:
  table, 1–6号位, 红方 / 黑方 (or the team) and the QR code of the player's private link;
- ``?sheet=names``: the seating by name for the wall, in large type, in alphabetical order —
  Chinese names by their pinyin (pypinyin) — with each player's table and seat, and the byes;
- ``?sheet=scores``: a paper score sheet per table for the referee desk: the players by seat,
  a box per game for the finishing order (头科 … 大落), 开点 and revolutions (革命) per seat
  when the event's rules use them, penalties, the signatures of both 联邦, and the QR code of
  the table at the desk.

Organizers only (anyone else gets 404). Printing the slips issues the private links still
missing and keeps the working ones (``web.views.table.slip_rows``), so a reprint hands out the
same links.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

import engine
from tournaments.models import Bye, Round, Seat
from tournaments.selectors import SEATING_PUBLIC, round_tables
from web.forms.sheet import PLACE_NAMES, seat_label
from web.views.console.draw import organizer_round, seat_views, side_names
from web.views.public import qr_svg
from web.views.table import slip_rows

SHEETS = ("slips", "names", "scores")


def name_key(name: str) -> tuple[str, str]:
    """How a name sorts on the posted list: by its pinyin (张伟 → ``zhangwei``), then as
    written; other scripts as they are, without case."""
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin(name)).casefold(), name


def _initial(key: str) -> str:
    first = key[:1].upper()
    return first if first.isascii() and first.isalpha() else "#"


def _slips(request, rnd: Round) -> dict:
    seats = list(Seat.objects.filter(round=rnd).select_related(
        "entry__event", "player", "table__team_a", "table__team_b")
        .order_by("table__number", "seat"))
    rows = slip_rows(request, [(s.entry, s.player, s) for s in seats])
    tables: list[dict] = []
    for seat, row in zip(seats, rows, strict=True):
        if not tables or tables[-1]["number"] != seat.table.number:
            tables.append({"number": seat.table.number, "slips": []})
        tables[-1]["slips"].append({**row, "side": side_names(seat.table)[seat.side],
                                    "side_no": seat.side})
    return {"tables": tables}


def _names(rnd: Round) -> dict:
    rows = []
    for seat in Seat.objects.filter(round=rnd).select_related(
            "player", "table__team_a", "table__team_b"):
        rows.append({"key": name_key(seat.player.name), "name": seat.player.name,
                     "number": seat.player.number, "table": seat.table.number,
                     "seat": seat_label(seat.seat), "side": side_names(seat.table)[seat.side],
                     "side_no": seat.side})
    for bye in Bye.objects.filter(round=rnd).select_related("entry__player", "entry__team"):
        players = [bye.entry.player] if bye.entry.player_id else [
            m.player for m in bye.entry.team.members.select_related("player")]
        for player in players:
            rows.append({"key": name_key(player.name), "name": player.name,
                         "number": player.number, "bye": True})
    rows.sort(key=lambda r: (r["key"], r["number"] or 0))
    groups: list[dict] = []
    for row in rows:
        letter = _initial(row["key"][0])
        if not groups or groups[-1]["letter"] != letter:
            groups.append({"letter": letter, "rows": []})
        groups[-1]["rows"].append(row)
    return {"groups": groups, "count": len(rows)}


def _scores(request, rnd: Round) -> dict:
    event = rnd.event
    rules = engine.Rules.from_spec(event.rules)
    games = list(range(1, event.games_per_match + 1))
    if rnd.stage == Round.Stage.KNOCKOUT:  # a tied match plays deciding extra games (加赛)
        games.append(event.games_per_match + 1)
    tables = []
    for table in round_tables(rnd):
        url = request.build_absolute_uri(reverse("pages:desk-table", kwargs={
            "slug": event.slug, "table_id": table.pk}))
        names = side_names(table)
        tables.append({"number": table.number, "seats": seat_views(table), "sides": names,
                       "qr": qr_svg(url, scale=3), "url": url})
    return {"tables": tables, "games": games, "places": PLACE_NAMES,
            "kaidian": bool(rules["dadian"]), "revolution": bool(rules["revolution"]),
            "knockout": rnd.stage == Round.Stage.KNOCKOUT,
            "seat_numbers": [seat_label(s) for s in range(6)]}


@require_GET
def round_print(request, slug: str, number: int):
    """The print menu of round ``number`` (``?sheet=`` one of :data:`SHEETS`: that page)."""
    found = organizer_round(request, slug, number)
    if found is None:
        return redirect_to_login(request.get_full_path())
    event, rnd = found
    sheet = request.GET.get("sheet", "")
    if sheet and sheet not in SHEETS:
        raise Http404("no such sheet")
    context = {"event": event, "round": rnd, "sheet": sheet,
               "published": rnd.status in SEATING_PUBLIC,
               "menu_url": reverse("pages:console-round-print", kwargs={
                   "slug": slug, "number": number}),
               "check_url": reverse("pages:console-round-check", kwargs={
                   "slug": slug, "number": number})}
    if not sheet or not context["published"]:  # (an unpublished round prints nothing yet)
        return render(request, "web/console/print_menu.html", {
            **context, "tables": rnd.tables.count(),
            "players": Seat.objects.filter(round=rnd).count()},
            status=409 if sheet else 200)
    if sheet == "slips":
        context.update(_slips(request, rnd))
    elif sheet == "names":
        context.update(_names(rnd))
    else:
        context.update(_scores(request, rnd))
    return render(request, f"web/console/print_{sheet}.html", context)
