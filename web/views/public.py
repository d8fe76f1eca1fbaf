"""Public pages of an event: event page, leaderboard, seating ("find my table"), table page,
projector view, and the printable QR codes for organizers.

Server-rendered templates that show only what the public may see: published events, and the
seating of published rounds. The pages then stay current with small scripts polling the JSON API
(``/api/v1/``); they hold no rule of their own. The reads here are plain filters over the models,
so they live with the views rather than in a ``selectors`` module.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Max, Q
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

import engine
from games.models import GameResult
from games.selectors import round_tables_with_results
from live.queries import live_game_number, running_live_games, with_running_live_game
from tournaments.exchange.exports import standing_columns
from tournaments.models import TIE_BREAK_CHOICES, BoardResult, Event, Penalty, Round, Seat, Table
from tournaments.names import side_names
from tournaments.rule_texts import PRESET_LABELS, RULE_OPTIONS, VALUE_LABELS
from tournaments.selectors import (
    SEATING_PUBLIC,
    Prizes,
    is_organizer,
    is_referee,
    knockout_matches,
    results_released_through,
)
from tournaments.services.draws import draw_change_text
from tournaments.standings import public_standings, standings_etag
from web.caching import PAGE_SECONDS, cached_page
from web.seating_index import INDEX_SECONDS, MAX_BUCKETS, seating_index, seating_version
from web.views.params import search_text
from web.views.shown import (
    base_context,
    bye_views,
    entry_name,
    public_event,
    public_round,
    seat_view,
)
from web.views.watch import table_results

LEADERBOARD_PAGE = 100
SEATING_PAGE = 60
POLL_SECONDS = 5

COLUMN_LABELS = {**TIE_BREAK_CHOICES, "games_played": _("games played")}
#: Short headers for narrow screens (the full label is the header's title).
COLUMN_SHORT = {
    "points": pgettext_lazy("column", "Pts"),
    "match_points": pgettext_lazy("column", "MP"),
    "game_wins": pgettext_lazy("column", "Won"),
    "head_count": pgettext_lazy("column", "头科"),
    "opponents_points": pgettext_lazy("column", "Opp"),
    "head_to_head": pgettext_lazy("column", "H2H"),
    "games_played": pgettext_lazy("column", "Games"),
}


# ----------------------------------------------------------------------------- reads


def _public_rounds(event: Event):
    return Round.objects.filter(event=event, status__in=SEATING_PUBLIC).order_by("number")


def _current_round(event: Event) -> Round | None:
    """The latest round whose seating is published."""
    return _public_rounds(event).order_by("-number").first()



def _columns(event: Event) -> list[dict]:
    """The leaderboard's numeric columns: the event's tie-break order (the drawn order is a
    hash, so it is left out), with points always shown."""
    keys = [*standing_columns(event), "games_played"]
    return [{"key": k, "label": COLUMN_LABELS[k], "short": COLUMN_SHORT[k],
             "explain": str(COLUMN_SHORT[k]) != str(COLUMN_LABELS[k])} for k in keys]



def _shown_ratings(event: Event) -> dict[str, float]:
    """Entry id -> rating, beside names when the organizer shows ratings (issue 22)."""
    if not event.show_ratings:
        return {}
    from ratings.selectors import event_ratings

    return event_ratings(event=event)


def _standing_rows(standings, columns, ratings=None) -> list[dict]:
    rows = []
    ratings = ratings or {}
    for st in standings:
        entry = st.entry
        movement = None if st.previous_rank is None else st.previous_rank - st.rank
        rows.append({
            "rank": st.rank,
            "entry": entry.pk,
            "name": entry_name(entry),
            "number": entry.player.number if entry.player_id else None,
            "movement": movement, "moved": abs(movement or 0),
            "values": [getattr(st, c["key"]) for c in columns],
            "rating": ratings.get(str(entry.pk)),
        })
    return rows


def standings_view(event: Event, standings) -> dict:
    """The standings as the report and the final standings page show them: the leaderboard's
    columns (the event's tie-breaks in order, then games played), each row's prize, and the
    prizes by place with who won each."""
    columns = _columns(event)
    prizes = Prizes(event)
    rows = []
    for st in standings:
        entry = st.entry
        rows.append({"rank": st.rank, "entry": entry.pk, "name": entry_name(entry),
                     "number": entry.player.number if entry.player_id else None,
                     "cells": [{"key": c["key"], "value": getattr(st, c["key"])}
                               for c in columns],
                     "byes": st.byes, "penalty": st.penalty_points,
                     "prize": prizes.of(st.rank)})
    by_prize = [{"places": p.places, "name": p.name,
                 "winners": [r for r in rows if p.place_from <= r["rank"] <= p.place_to]}
                for p in prizes]
    through = max((st.through_round for st in standings), default=0)
    return {"columns": columns, "rows": rows, "prizes": by_prize, "through_round": through}


def _as_number(query: str) -> int | None:
    """A player or table number typed in a search box (long digit strings are names)."""
    return int(query) if query.isascii() and query.isdigit() and len(query) <= 9 else None


def _standings(event: Event, search: str = ""):
    qs = public_standings(event)
    if search:
        match = Q(entry__player__name__icontains=search) | Q(entry__team__name__icontains=search)
        if _as_number(search) is not None:
            match |= Q(entry__player__number=_as_number(search))
        qs = qs.filter(match)
    return qs



def _result_counts(table: Table) -> dict:
    results = list(table.results.all())
    return {"confirmed": sum(r.status == GameResult.Status.CONFIRMED for r in results),
            "submitted": len(results)}


def _matches(query: str, seat: Seat) -> bool:
    if not query:
        return False
    if _as_number(query) is not None and seat.player.number == _as_number(query):
        return True
    return query.casefold() in seat.player.name.casefold()


def _table_view(table: Table, query: str = "") -> dict:
    """A table's card on the seating page (``table`` read with
    :func:`live.queries.with_running_live_game`: ``live_game``, the game it plays live now)."""
    sides = side_names(table)
    seats = [seat_view(s, _matches(query, s), sides=sides) for s in table.seats.all()]
    return {"id": table.pk, "number": table.number, "seats": seats,
            "team_a": table.team_a.name if table.team_a_id else None,
            "team_b": table.team_b.name if table.team_b_id else None,
            "hit": any(s["hit"] for s in seats) or table.number == _as_number(query),
            "live_game": live_game_number(table),
            **_result_counts(table)}



def _when(iso: str | None):
    return datetime.fromisoformat(iso) if iso else None


def draw_record_view(rnd: Round) -> dict:
    """A round's draw record as people read it (the seating page, the organizers' check of
    the draw): its commitment, its manual seat swaps in words, and the earlier draws a re-draw
    replaced, each with who, when and why (``services.round_seats_swap``,
    ``services.round_redraw``)."""
    return {
        "commitment": rnd.commitment,
        "changes": [{"text": draw_change_text(c), "reason": c["reason"], "by": c["by"],
                     "at": _when(c["at"])} for c in rnd.draw_changes],
        "redraws": [{"number": k, "commitment": d["commitment"], "seed": d["seed"],
                     "changes": len(d["changes"]), "reason": d["redraw"]["reason"],
                     "by": d["redraw"]["by"], "at": _when(d["redraw"]["at"])}
                    for k, d in enumerate(rnd.draw_history, start=1)],
    }


def _rules_view(event: Event) -> dict:
    try:
        rules = engine.Rules.from_spec(event.rules)
    except engine.RulesError:  # never stored (the service checks), but do not break the page
        return {"preset": str(event.rules), "preset_label": "", "options": []}
    preset_defaults = engine.Rules(rules.preset)
    options = []
    for key, (label, _help) in RULE_OPTIONS.items():
        if key not in rules:
            continue
        value = rules[key]
        shown = VALUE_LABELS.get(value, value) if not isinstance(value, int) or isinstance(
            value, bool) else value
        options.append({"key": key, "label": label, "value": shown,
                        "changed": value != preset_defaults[key]})
    return {"preset": rules.preset, "preset_label": PRESET_LABELS.get(rules.preset, ""),
            "options": options}


def qr_svg(url: str, *, scale: int = 4) -> str:
    """An inline SVG QR code of ``url`` (segno; error correction M, which survives a smudge)."""
    import segno

    return mark_safe(segno.make(url, error="m").svg_inline(
        scale=scale, dark="#000", light="#fff", omitsize=True,
        svgclass="qr", title=url))


def _api(name: str, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs=kwargs)


#: Event fields that change with every result (the standings' bookkeeping): a cached page is not
#: keyed by them; the standings it shows are named by their ETag instead.
_VOLATILE = {"standings_version", "standings_digest", "results_version",
             "standings_results_version", "standings_dirty_from"}


def _event_shows(event: Event) -> list:
    """What of ``event`` a cached page may show (its name, rules, settings, status)."""
    return [getattr(event, f.attname) for f in Event._meta.concrete_fields
            if f.attname not in _VOLATILE]


def _page_number(request) -> str:
    return (request.GET.get("page") or "1").strip()[:12]



# ----------------------------------------------------------------------------- pages
def event_list(request):
    events = Event.objects.filter(published=True).order_by("-created_at", "pk")
    return render(request, "web/public/event_list.html", {"events": events})


def event_detail(request, slug):
    event = public_event(slug)
    rounds = list(Round.objects.filter(event=event).order_by("number"))
    tie_breaks = [TIE_BREAK_CHOICES[k] for k in event.tie_break_order]
    url = request.build_absolute_uri(reverse("pages:event", kwargs={"slug": slug}))
    return render(request, "web/public/event_detail.html", {
        **base_context(event, "event"),
        "rounds": rounds, "public_statuses": SEATING_PUBLIC, "tie_breaks": tie_breaks,
        "rules": _rules_view(event), "qr": qr_svg(url), "event_url": url,
        "entries_count": event.entries.exclude(status="withdrawn").count(),
        "standings_csv": _api("standings-csv", slug=slug),
        "organizer": is_organizer(request.user, event),
        "final_standings": final_standings_shown(event),
    })


def leaderboard(request, slug):
    """The standings, a page of them (or a search's hits). Kept rendered, keyed by the
    standings' ETag (which a held-back board changes only on release, and live standings at
    most every few seconds: ``tournaments.standings.GATHER_SECONDS``), the event, its public
    rounds, the page and the search."""
    event = public_event(slug)
    query = search_text(request)
    shows = [standings_etag(event), _event_shows(event),
             list(_public_rounds(event).values_list("number", flat=True)),
             _page_number(request), query]
    return cached_page(request, name="leaderboard", shows=shows, seconds=PAGE_SECONDS,
                       render=lambda: _leaderboard(request, event, query))


def _leaderboard(request, event: Event, query: str):
    slug = event.slug
    columns = _columns(event)
    page = Paginator(_standings(event, query), LEADERBOARD_PAGE).get_page(request.GET.get("page"))
    through = public_standings(event).aggregate(m=Max("through_round"))["m"]
    released = results_released_through(event)
    ratings = _shown_ratings(event)
    params = {"page": page.number, "page_size": LEADERBOARD_PAGE}
    if query:
        params["search"] = query
    api = _api("standings", slug=slug) + "?" + urlencode(params)
    return render(request, "web/public/leaderboard.html", {
        **base_context(event, "leaderboard"),
        "columns": columns, "rows": _standing_rows(page.object_list, columns, ratings),
        "page": page, "query": query, "through_round": through or 0, "released": released,
        "live": {"api": api, "etag": standings_etag(event), "released": released,
                 "columns": [c["key"] for c in columns], "interval": POLL_SECONDS,
                 "ratings": ratings,
                 "entry_url": reverse("pages:entry-history", kwargs={"slug": slug,
                                                                     "entry": 0})},
        "standings_csv": _api("standings-csv", slug=slug),
        "rounds": [n for n in _public_rounds(event).values_list("number", flat=True)
                   if released is None or n <= released],
    })


def final_standings_shown(event: Event) -> bool:
    """Whether the public sees ``event``'s final standings page: once the event is finished,
    or the organizers released the standings of a round (the page then shows what the
    leaderboard shows: :func:`tournaments.standings.public_standings`)."""
    return event.status == Event.Status.FINISHED or bool(event.standings_released_round)


def final_standings(request, slug):
    """The final standings with their tie-breaks and the prizes by place, printable."""
    event = public_event(slug)
    if not final_standings_shown(event):
        raise Http404("the final standings are not out yet")
    return render(request, "web/report/final.html", {
        **base_context(event, "leaderboard"),
        **standings_view(event, list(public_standings(event))),
        "finished": event.status == Event.Status.FINISHED,
        "released": event.standings_released_round,
    })


def seating(request, slug, number=None):
    """Find my table: a round's tables, a page of them or a search's hits. Kept rendered for
    :data:`POLL_SECONDS` (the tables' results and live games change every second during a
    round; the page's own poll then shows them), keyed by the event, its public rounds and
    their seatings (a newly published round, a swap or a re-draw shows at once), the page and
    the search."""
    event = public_event(slug)
    rounds = list(_public_rounds(event))
    shows = [_event_shows(event), [(r.pk, r.number, r.status, seating_version(r))
                                   for r in rounds], number,
             _page_number(request), search_text(request)]
    return cached_page(request, name="seating", shows=shows, seconds=POLL_SECONDS,
                       render=lambda: _seating(request, event, rounds, number))


def _seating(request, event: Event, rounds: list, number):
    slug = event.slug
    if number is None:
        rnd = rounds[-1] if rounds else None
    else:
        rnd = public_round(event, number)
    live = {"rounds_api": _api("rounds", slug=slug), "round": rnd.number if rnd else 0,
            "seating_url": reverse("pages:seating", kwargs={"slug": slug}),
            "interval": POLL_SECONDS}
    ctx = {**base_context(event, "seating"), "round": rnd, "rounds": rounds, "live": live}
    if rnd is None:
        return render(request, "web/public/seating.html", ctx)
    query = search_text(request)
    tables = with_running_live_game(round_tables_with_results(rnd))
    byes = bye_views(rnd)
    if query:
        number = _as_number(query)
        hits = seating_index(rnd).table_numbers(query)  # (not a query over the round's seats)
        found = [_table_view(t, query) for t in tables.filter(number__in=hits)]
        bye_hits = [b for b in byes if query.casefold() in b["name"].casefold() or (
            number is not None and b["number"] == number)]
        ctx.update(found=found, bye_hits=bye_hits, page=None, table_views=found)
    else:
        page = Paginator(tables, SEATING_PAGE).get_page(request.GET.get("page"))
        ctx.update(page=page, table_views=[_table_view(t) for t in page.object_list])
    ratings = _shown_ratings(event)
    for view in ctx["table_views"]:
        for seat in view["seats"]:
            seat["rating"] = ratings.get(str(seat["entry"]))
    ctx.update(
        query=query, byes=byes, draw_record=draw_record_view(rnd),
        seating_csv=_api("round-seating-csv", slug=slug, number=rnd.number),
        live={**live, "tables_api": _api("round-tables", slug=slug, number=rnd.number),
              "table_url": reverse("pages:table", kwargs={"slug": slug, "number": rnd.number,
                                                          "table": 0}),
              "games_per_match": event.games_per_match, "byes": byes, "ratings": ratings,
              "latest": rnd.number == rounds[-1].number,
              "find_api": reverse("pages:round-find", kwargs={"slug": slug,
                                                              "number": rnd.number}),
              "find_of": seating_index(rnd).buckets,
              "status_api": reverse("pages:round-status", kwargs={"slug": slug,
                                                                  "number": rnd.number})},
    )
    return render(request, "web/public/seating.html", ctx)


def round_find(request, slug, number):
    """Shard ``k`` of ``of`` of a published round's seating index (``?k=&of=``: the page's
    script hashes the search, :mod:`web.seating_index`), as JSON: the same few URLs for every
    phone, so nginx micro-caches them; kept rendered, keyed by the seating's version."""
    rnd = public_round(public_event(slug), number)
    try:
        k, of = int(request.GET.get("k", "")), int(request.GET.get("of", ""))
    except ValueError:
        raise Http404("k and of are numbers") from None
    if not (1 <= of <= MAX_BUCKETS and 0 <= k < of):
        raise Http404("no such shard")
    return cached_page(
        request, name="find", shows=[rnd.pk, seating_version(rnd), k, of],
        seconds=INDEX_SECONDS, render=lambda: JsonResponse(
            {"round": rnd.number, "of": of, **seating_index(rnd).shard(k, of)}))


def round_status(request, slug, number):
    """Each table of a published round: ``{number: [confirmed, submitted, live game or
    null]}`` (what the search's cards show beside the seats), the same for every phone: two
    queries, then nginx's micro-cached copy for everyone for a few seconds."""
    rnd = public_round(public_event(slug), number)
    counts = (Table.objects.filter(round=rnd).order_by("number").annotate(
        submitted=Count("results"), confirmed=Count("results", filter=Q(
            results__status=GameResult.Status.CONFIRMED)))
        .values_list("pk", "number", "confirmed", "submitted"))
    live = dict(running_live_games(rnd))
    return JsonResponse({"round": rnd.number, "tables": {
        str(n): [c, s, live.get(pk)] for pk, n, c, s in counts}})


def round_byes(request, slug, number):
    """A published round's byes as JSON (the projector's seating slides list them)."""
    rnd = public_round(public_event(slug), number)
    return JsonResponse({"round": rnd.number, "byes": bye_views(rnd)})


def table_detail(request, slug, number, table):
    """A table of a published round: its seats, results and penalties, the game it plays live.
    Kept rendered, keyed by what it shows: the event, the round's seating, the table's results
    (each one's version and status), its penalties and the game it plays live now."""
    event = public_event(slug)
    rnd = public_round(event, number)
    tbl_id = Table.objects.filter(round=rnd, number=table).values_list("pk", flat=True).first()
    if tbl_id is None:
        raise Http404("no such table")
    shows = [_event_shows(event), rnd.pk, seating_version(rnd), tbl_id, list(
        GameResult.objects.filter(table_id=tbl_id).order_by("pk").values_list(
            "pk", "status", "version", "updated_at")), list(
        Penalty.objects.filter(table_id=tbl_id).order_by("pk").values_list(
            "pk", "kind", "points", "reason", "game_number")),
        # a duplicate board's results show once its group finished it (scored)
        list(BoardResult.objects.filter(table_id=tbl_id).order_by("pk").values_list(
            "pk", "points_a", "points_b")),
        [n for t, n in running_live_games(rnd) if t == tbl_id],
        request.build_absolute_uri("/")]
    return cached_page(request, name="table", shows=shows, seconds=PAGE_SECONDS,
                       render=lambda: _table_detail(request, event, rnd, table))


def _table_detail(request, event: Event, rnd: Round, table: int):
    slug = event.slug
    tbl = get_object_or_404(with_running_live_game(round_tables_with_results(rnd)), number=table)
    sides = side_names(tbl)
    seats = {s.seat: seat_view(s, sides=sides) for s in tbl.seats.all()}
    results = list(tbl.results.all())
    games = []
    for r in results:
        places = r.places or []
        head = places.index(1) if 1 in places else None
        last = places.index(6) if 6 in places else None
        games.append({"number": r.number, "status": r.status, "status_label":
                      r.get_status_display(), "points_a": r.points_a, "points_b": r.points_b,
                      "void": r.void, "head": seats.get(head), "last": seats.get(last)})
    confirmed = [r for r in results if r.status == GameResult.Status.CONFIRMED]
    total = {"a": sum(r.points_a for r in confirmed), "b": sum(r.points_b for r in confirmed)}
    url = request.build_absolute_uri(reverse("pages:table-current",
                                             kwargs={"slug": slug, "table": table}))
    ring = [seats.get(i) for i in (3, 4, 2, 5, 1, 0)]
    whole = table_results(request, event, rnd, tbl, seats)
    live_game = whole["live_game"]
    planned = list(range(len(results) + 1, event.games_per_match + 1))
    if live_game is not None and live_game not in planned:
        planned.append(live_game)  # (a knockout match's deciding extra game, 加赛)
    return render(request, "web/public/table.html", {
        **whole,
        **base_context(event, "seating"), "round": rnd, "table": tbl, "sides": sides,
        "seats": [seats[k] for k in sorted(seats)], "ring": ring, "games": games,
        "total": total, "games_planned": planned,
        "qr": qr_svg(url, scale=3),
        "live": {"api": _api("table-detail", pk=tbl.pk), "interval": POLL_SECONDS,
                 "games_per_match": event.games_per_match,
                 "watch_url": whole["watch_url"],
                 "names": {s: v["name"] for s, v in seats.items()}},
    })


def table_current(request, slug, table):
    """A table's stable address (its QR code): the table in the current round."""
    event = public_event(slug)
    rnd = _current_round(event)
    if rnd is not None and Table.objects.filter(round=rnd, number=table).exists():
        return redirect("pages:table", slug=slug, number=rnd.number, table=table)
    return render(request, "web/public/table_waiting.html", {
        **base_context(event, "seating"), "table_number": table, "round": rnd})


def projector(request, slug):
    event = public_event(slug)

    def _int(name, default, low, high):
        try:
            return max(low, min(high, int(request.GET.get(name, default))))
        except ValueError:
            return default

    columns = _columns(event)
    rows = _int("rows", 12, 4, 40)
    seating_url = request.build_absolute_uri(reverse("pages:seating", kwargs={"slug": slug}))
    return render(request, "web/public/projector.html", {
        **base_context(event, "projector"), "columns": columns,
        "qr": qr_svg(seating_url, scale=3), "seating_url": seating_url,
        "live": {
            "standings_api": _api("standings", slug=slug),
            "rounds_api": _api("rounds", slug=slug),
            "tables_api": _api("round-tables", slug=slug, number=0),
            "byes_url": reverse("pages:round-byes", kwargs={"slug": slug, "number": 0}),
            "columns": [c["key"] for c in columns],
            "rows": rows, "top": _int("top", 48, rows, 1000),
            "seconds": _int("seconds", 10, 3, 120), "interval": POLL_SECONDS,
            "seating": request.GET.get("seating", "1") != "0",
        },
    })


def bracket(request, slug):
    """The knockout finals (淘汰赛) as a bracket: a column per round, each match with its score
    and winner (the same read as the bracket API, :func:`knockout_matches`)."""
    event = public_event(slug)
    if event.knockout_teams < 2:
        raise Http404("this event has no knockout finals")
    rounds: dict[int, list[dict]] = {}
    for match in knockout_matches(request.user, event):
        rounds.setdefault(match["round"], []).append(match)
    return render(request, "web/public/bracket.html", {
        **base_context(event, "bracket"),
        "rounds": [{"number": n, "matches": m, "final": len(m) == 1}
                   for n, m in sorted(rounds.items())],
        "games_per_match": event.games_per_match,
    })


@login_required(login_url="pages:login")
def qr_codes(request, slug=None):
    """Printable QR codes (the events' staff, or the site's): each event's page and
    leaderboard, and one per table number linking to that table in the current round."""
    slugs = [slug] if slug else request.GET.getlist("event")
    events = list(Event.objects.filter(slug__in=slugs).order_by("name", "pk"))
    if not events or not (request.user.is_staff or all(is_referee(request.user, e)
                                                       for e in events)):
        raise Http404("no such event")
    try:
        wanted = int(request.GET.get("tables", 0))
    except ValueError:
        wanted = 0
    sheets = []
    for event in events:
        most = Table.objects.filter(round__event=event).aggregate(m=Max("number"))["m"] or 0
        count = max(0, min(wanted or most, 2000))

        def absolute(name, slug=event.slug, **kw):
            return request.build_absolute_uri(reverse(name, kwargs={"slug": slug, **kw}))

        links = [(_("Event page"), absolute("pages:event")),
                 (_("Leaderboard"), absolute("pages:leaderboard")),
                 (_("Find my table"), absolute("pages:seating"))]
        tables = [{"number": n, "url": absolute("pages:table-current", table=n)}
                  for n in range(1, count + 1)]
        sheets.append({
            "event": event,
            "links": [{"label": label, "url": url, "qr": qr_svg(url, scale=5)}
                      for label, url in links],
            "tables": [{**t, "qr": qr_svg(t["url"], scale=4)} for t in tables]})
    return render(request, "web/public/qr_codes.html", {"sheets": sheets, "wanted": wanted})
