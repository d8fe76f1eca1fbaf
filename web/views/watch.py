"""Watching and looking back (观战 and 复盘): a live table for spectators, the replay of a finished
game, a table's whole results, and the histories of a player, a 联邦 team and a round.

- The spectator page shows what :mod:`live.spectate` lets the public see, as late as the
  event's ``spectator_delay`` asks; never a card in a hand.
- A replay shows the engine's own account of a stored record (:func:`engine.steps.replay_steps`)
  with all six hands open, so only for a game that is over and whose result counts
  (confirmed); before that, to whom :class:`games.selectors.RecordAccess` allows it: the
  event's referees and organizers, and the players of the table (who open it under their own
  link, ``web.views.table.replay``, to check a record before confirming it).
- The histories read the public seating, the confirmed results and the standings after each
  round (computed as the leaderboard computes them, only through the rounds the public sees).
"""

from __future__ import annotations

import time

from django.core.cache import cache
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Prefetch, Q
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.gzip import gzip_page

from config.ratelimit import client_address
from engine.steps import replay_steps
from games.duplicate import result_hidden, revealed
from games.models import GameResult, GameResultVersion
from games.selectors import (
    record_access,
    result_record_version,
    round_tables_with_results,
    table_results_with_history,
)
from live import spectate, streams
from live.cache import GameGone
from live.deals import public_deal, result_deal
from live.models import LiveGame
from live.queries import live_game_number, running_live_game, with_running_live_game
from tournaments.boards import board_hidden
from tournaments.models import Entry, Player, Seat, Table, Team
from tournaments.names import person_name, side_name, side_names
from tournaments.selectors import (
    SEATING_PUBLIC,
    event_entry,
    is_referee,
    penalties_listed,
    public_byes,
    public_round_numbers,
    results_released_through,
    tables_with_teams,
)
from tournaments.standings import compute
from web.history import history_rows
from web.views.shown import (
    base_context,
    bye_views,
    entry_name,
    public_event,
    public_round,
    seat_view,
)

POLL_SECONDS = 5
LONG_POLL_SECONDS = 20
RESULTS_PAGE = 60

PLACE_LABELS = {1: _("头科"), 2: _("二科"), 3: _("三科"), 4: _("四科"), 5: _("二落"), 6: _("大落")}
TRIBUTE_LABELS = {"dian": _("点贡 (not 开点)"), "men": _("闷贡 (smothered)"),
                  "shao": _("烧贡 (burned)"), "luo": _("落贡 (last places)")}
ELIMINATION_LABELS = {"failed_burn": _("诈烧: a failed burn"),
                      "smothered": _("闷: smothered, placed last")}
#: the replay's reasons why a seat may or may not answer (engine.steps.WHY_CODES)
WHY_LABELS = {
    "owner": _("its own combo"),
    "out": _("out of the game"),
    "gousiji": _("够死级: nobody may answer, only a burn can"),
    "luanchan": _("四户乱缠: anyone still playing may answer"),
    "burning_opposite": _("烧牌: only the burner's 对头 may answer (解烧)"),
    "burning_other": _("烧牌: only the burner's 对头 may answer"),
    "opposite": _("对头: the owner's 对头 always may answer"),
    "passed": _("passed in this round"),
    "restricted": _("played after 让牌: only the 对头 may answer"),
    "ordinary": _("not a 够级 combo: anyone who has not passed"),
    "no_head": _("无头: its 对头 is out, so it may answer a 够级 combo"),
    "owner_no_head": _("the owner is 无头: anyone may answer its 够级 combo"),
    "gouji": _("够级: only the owner's 对头 may answer"),
}

#: texts of the spectator and replay scripts (handed over as JSON, translated like the rest)
WATCH_TEXT = {
    "seat": _("seat %(s)s"),
    "cards": _("%(n)s cards"),
    "turn": _("to act"),
    "hosted": _("托管"),
    "kaidian": _("开点"),
    "not_kaidian": _("不开点"),
    "played": _("played"),
    "passed": _("pass"),
    "yielded": _("让牌 (yield)"),
    "burned": _("烧牌 (burn)"),
    "auto": _("(托管)"),
    "nothing_on_top": _("Nothing on the table: %(who)s leads."),
    "top_by": _("On top, by %(who)s:"),
    "waiting": _("No game is being played at this table right now."),
    "delayed": _("Spectators see this table %(n)s s late; the game appears shortly."),
    "over": _("The game is over."),
    "replay": _("Replay this game"),
    "game": _("Game %(n)s"),
    "pre_play": _("Before play"),
    "burn_by": _("%(burner)s burned %(burned)s"),
    "counter": _("(反烧)"),
    "failed": _("(诈烧: failed)"),
    "points": _("%(sa)s %(a)s · %(sb)s %(b)s"),
    "round": _("Trick %(n)s"),
    "step": _("Act %(i)s of %(n)s"),
    "start": _("Play begins"),
    "may": _("may answer"),
    "may_not": _("may not"),
    "could_burn": _("could burn (烧牌): %(who)s"),
    "luanchan": _("四户乱缠"),
    "result": _("Result"),
    "offline": _("Connection lost; retrying…"),
    "updated": _("Updated %(time)s"),
    "tribute": _("%(kind)s: %(from)s → %(to)s %(cards)s"),
    "revolution": _("%(who)s: 革命 (revolution)"),
    "declare": _("%(who)s declares %(kind)s"),
    "buy3": _("买3: %(who)s buys a 3 from %(from)s (gives, takes)"),
    "returned": _("还贡 (returned)"),
    "pre_waive_gousiji": _("够死级 rights waived"),
    "pre_hui3": _("会3: the 3s are removed"),
    **{f"place_{k}": v for k, v in PLACE_LABELS.items()},
    **{f"why_{k}": v for k, v in WHY_LABELS.items()},
    **{f"tribute_{k}": v for k, v in TRIBUTE_LABELS.items()},
}


# ----------------------------------------------------------------------------- reads
def _public_table(slug: str, number: int, table: int) -> tuple:
    event = public_event(slug)
    rnd = public_round(event, number)
    tbl = get_object_or_404(Table.objects.select_related("team_a", "team_b"), round=rnd,
                            number=table)
    rnd.event, tbl.round = event, rnd  # (read already: no query for them again)
    return event, rnd, tbl


def _seats(tbl: Table) -> dict[int, dict]:
    sides = side_names(tbl)
    return {s.seat: seat_view(s, sides=sides)
            for s in tbl.seats.select_related("player").order_by("seat")}


def _who(seats: dict, seat) -> dict | None:
    return seats.get(seat) if isinstance(seat, int) else None




def _watch_url(event, rnd, tbl) -> str:
    return reverse("pages:watch", kwargs={"slug": event.slug, "number": rnd.number,
                                          "table": tbl.number})


def _replay_url(event, rnd, tbl, number: int) -> str:
    return reverse("pages:replay", kwargs={"slug": event.slug, "number": rnd.number,
                                           "table": tbl.number, "game": number})


def game_details(result: GameResult, seats: dict, *, replay_url: str | None,
                 penalties: list[dict]) -> dict:
    """One game's whole result as the table page shows it: the finishing order 头科…大落,
    开点, burns, 闷, eliminations, revolutions, the tributes it leaves owed, every step of its
    history with who and why, and the penalties given in it."""
    res = result.engine_result or {}
    order = res.get("order") or sorted((s for s in range(6) if (result.places or [0] * 6)[s]),
                                       key=lambda s: result.places[s])
    places = result.places or [0] * 6
    kaidian = res.get("kaidian") or [None] * 6
    return {
        "number": result.number, "status": result.status,
        "status_label": result.get_status_display(), "void": result.void,
        "points_a": result.points_a, "points_b": result.points_b,
        "sweep": bool(res.get("sweep")),
        "order": [{"place": places[s], "label": PLACE_LABELS.get(places[s], ""),
                   "who": _who(seats, s)} for s in order],
        "kaidian_open": [_who(seats, s) for s in order if kaidian[s] is True],
        "kaidian_closed": [_who(seats, s) for s in order if kaidian[s] is False],
        "burns": [{"burner": _who(seats, b.get("burner")), "burned": _who(seats, b.get("burned")),
                   "counter": b.get("counter"), "failed": b.get("failed")}
                  for b in res.get("burns") or []],
        "smothers": [_who(seats, s) for s in res.get("smothers") or []],
        "eliminated": [{"who": _who(seats, e.get("seat")),
                        "reason": ELIMINATION_LABELS.get(e.get("reason"), e.get("reason"))}
                       for e in res.get("eliminated") or []],
        "revolutions": [_who(seats, s) for s in res.get("revolutions") or []],
        "owed": [{"kind": TRIBUTE_LABELS.get(t.get("kind"), t.get("kind")),
                  "from": _who(seats, t.get("from")), "to": _who(seats, t.get("to")),
                  "count": t.get("count")} for t in res.get("owed_tributes") or []],
        "history": history_rows(result),
        "version": result.version,
        "replay_url": replay_url,
        "penalties": [p for p in penalties if p["game"] == result.number],
    }


def penalty_views(penalties) -> list[dict]:
    return [{"kind": p.get_kind_display(), "points": p.points, "reason": p.reason,
             "who": p.player.name if p.player_id else entry_name(p.entry),
             "game": p.game_number, "at": p.created_at,
             "round": p.round.number if p.round_id else None,
             "table": p.table.number if p.table_id else None,
             "table_url": p.table.get_absolute_url() if p.table_id else None,
             "by": person_name(p.created_by)} for p in penalties]


def table_results(request, event, rnd, tbl: Table, seats: dict) -> dict:
    """The table page's whole results (:func:`game_details` for each game), the table's
    penalties, the game it plays live now (``live_game``, its deal's commitment ``live_deal``)
    and where to watch it."""
    results = table_results_with_history(tbl)
    penalties = penalty_views(penalties_listed(table=tbl))
    details = []
    access = record_access(request.user, tbl)
    for r in results:
        if result_hidden(r):  # a duplicate board its group has not finished: not a trace
            continue
        stored = result_record_version(r)
        url = (_replay_url(event, rnd, tbl, r.number)
               if stored is not None and access.allows(r) else None)
        details.append(game_details(r, seats, replay_url=url, penalties=penalties))
    return {"details": details, "penalties": penalties,
            "table_penalties": [p for p in penalties if p["game"] is None],
            "live_game": live_game_number(tbl),  # (live.queries.with_running_live_game)
            "live_deal": public_deal(tbl.running_live[0]) if tbl.running_live else None,
            "watch_url": _watch_url(event, rnd, tbl)}


# ----------------------------------------------------------------------------- spectators
def watch(request, slug, number, table):
    """A live table for spectators (观战)."""
    event, rnd, tbl = _public_table(slug, number, table)
    seats = _seats(tbl)
    return render(request, "web/watch/watch.html", {
        **base_context(event, "seating"), "js_text": {**WATCH_TEXT}, "round": rnd,
        "table": tbl, "ring": [seats.get(i) for i in (3, 4, 2, 5, 1, 0)],
        "delay": event.spectator_delay,
        "live": {"api": reverse("pages:watch-data", kwargs={
            "slug": slug, "number": number, "table": table}),
            "names": {s: v["name"] for s, v in seats.items()},
            "sides": list(side_names(tbl).values()),
            "interval": POLL_SECONDS, "wait": LONG_POLL_SECONDS,
            "delay": event.spectator_delay},
    })


def _no_game(delay: int) -> JsonResponse:
    return JsonResponse({"game": None, "view": None, "delay": delay, "next_in": None,
                         "replay": None})


def watch_data(request, slug, number, table):
    """The spectator page's JSON: ``{"game", "view", "delay", "next_in", "replay"}``. With
    ``game`` and ``since`` (the version the page shows) and no delay, it waits (the public
    long-poll of :mod:`live.streams`) until the game moves on."""
    event, rnd, tbl = _public_table(slug, number, table)
    delay = event.spectator_delay
    live = spectate.watched_game(tbl.pk, delay)
    if live is None:
        return _no_game(delay)
    if board_hidden(live.deal_label) and not is_referee(request.user, event):
        return _no_game(delay)  # a duplicate board its group is still playing: not watched
    try:
        since = int(request.GET.get("since", -1))
        shown = int(request.GET.get("game", 0))
        wait = min(float(request.GET.get("wait", 0)), LONG_POLL_SECONDS)
    except ValueError:
        since, shown, wait = -1, 0, 0.0
    if delay <= 0 and shown == live.number and since >= 0 and wait > 0:
        try:
            streams.long_poll(live, since, wait, address=client_address(request),
                              spectator=True)
        except GameGone:  # deleted while the page waited: as if there had been none
            return _no_game(delay)
    data = spectate.spectator_view(live=live, delay=delay)
    view = data["view"]
    replay = None
    if view is not None and view.get("status") == LiveGame.Status.FINISHED and live.result_id:
        result = GameResult.objects.filter(pk=live.result_id).first()
        if result is not None and record_access(request.user, tbl).allows(result):
            replay = _replay_url(event, rnd, tbl, live.number)
    response = JsonResponse({**data, "game": live.number, "replay": replay},
                            encoder=DjangoJSONEncoder)
    response["Cache-Control"] = "no-store"
    return response


# ----------------------------------------------------------------------------- replays
#: a result with its versions in order, as a replay reads it
RESULT_WITH_VERSIONS = GameResult.objects.prefetch_related(Prefetch(
    "versions", GameResultVersion.objects.order_by("version")))


def replay_record(result: GameResult, access) -> GameResultVersion:
    """The record a replay of ``result`` shows (its newest record version), if ``access``
    (:class:`games.selectors.RecordAccess`) allows it; else a 404."""
    if not access.allows(result):
        raise Http404("this game's result is not confirmed yet")
    stored = result_record_version(result)
    if stored is None:
        raise Http404("this game was entered as a result sheet: there is no record to replay")
    return stored


def _replay_result(request, slug, number, table, game):
    event, rnd, tbl = _public_table(slug, number, table)
    result = get_object_or_404(RESULT_WITH_VERSIONS, table=tbl, number=game)
    return event, rnd, tbl, result, replay_record(result, record_access(request.user, tbl))


def render_replay(request, context: dict, *, rnd, tbl, result: GameResult,
                  stored: GameResultVersion, data_url: str, record_url: str, back_url: str,
                  back_label) -> HttpResponse:
    """The replay viewer (复盘) of ``result``'s ``stored`` record: the one page, whether it is
    reached from the public table (:func:`replay`) or under a player's own link
    (``web.views.table.replay``); its steps come from ``data_url`` (:func:`replay_json`), the
    record to download from ``record_url`` (:func:`record_file`)."""
    seats = _seats(tbl)
    return render(request, "web/watch/replay.html", {
        **context, "js_text": {**WATCH_TEXT}, "round": rnd,
        "table": tbl, "game": result, "stored": stored,
        "superseded": stored.version != result.version,
        # (the caller checked that the record may be seen: the seed with it, but a duplicate
        # board's only once its group has finished it: the same cards are played elsewhere)
        "verifiable_deal": result_deal(result, record_shown=not result_hidden(result)),
        "back_url": back_url, "back_label": back_label, "record_url": record_url,
        "seats": [seats[k] for k in sorted(seats)],
        "live": {"api": data_url, "names": {s: v["name"] for s, v in seats.items()},
                 "sides": list(side_names(tbl).values())},
    })


def record_file(result: GameResult, stored: GameResultVersion) -> JsonResponse:
    """The ``stored`` record of ``result`` as a file to download (``gouji-record/1``,
    RECORD.md): what its replay shows, and what the table's page and the API take back as
    an upload."""
    response = JsonResponse(stored.payload, json_dumps_params={"ensure_ascii": False})
    tbl = result.table
    name = (f"{tbl.round.event.slug}-r{tbl.round.number}-t{tbl.number}-g{result.number}"
            f"-v{stored.version}.json")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "private, max-age=300"
    return response


def replay_json(result: GameResult, stored: GameResultVersion) -> JsonResponse:
    """The engine's steps of the ``stored`` record (:func:`engine.steps.replay_steps`),
    cached by the stored version (a version never changes)."""
    key = f"gouji:replay:{stored.pk}:{stored.submitted_at.timestamp():.6f}"  # (a reused id)
    data = cache.get(key)
    if data is None:
        data = replay_steps(stored.payload, first_game=result.number == 1)
        cache.set(key, data, 3600)
    if not data.get("ok"):
        raise Http404("the stored record does not replay")  # never stored so: the engine checks
    response = JsonResponse({**data, "version": stored.version, "game": result.number})
    response["Cache-Control"] = "private, max-age=300"
    return response


def replay(request, slug, number, table, game):
    """The replay viewer (复盘) of one game: the page; its steps come from :func:`replay_data`."""
    event, rnd, tbl, result, stored = _replay_result(request, slug, number, table, game)
    return render_replay(
        request, base_context(event, "seating"), rnd=rnd, tbl=tbl, result=result,
        stored=stored, data_url=reverse("pages:replay-data", kwargs={
            "slug": slug, "number": number, "table": table, "game": game}),
        record_url=reverse("pages:record-download", kwargs={
            "slug": slug, "number": number, "table": table, "game": game}),
        back_url=reverse("pages:table", args=[event.slug, rnd.number, tbl.number]),
        back_label=_("results of this table"))


@gzip_page
def replay_data(request, slug, number, table, game):
    """The JSON of :func:`replay` (:func:`replay_json`)."""
    _event, _rnd, _tbl, result, stored = _replay_result(request, slug, number, table, game)
    return replay_json(result, stored)


def record_download(request, slug, number, table, game):
    """The record of :func:`replay` as a file (:func:`record_file`)."""
    _event, _rnd, _tbl, result, stored = _replay_result(request, slug, number, table, game)
    return record_file(result, stored)


# ----------------------------------------------------------------------------- histories
#: seconds a rank history may lag behind the results (recomputing it on every result of a
#: large event would cost a whole standings computation per round, per change)
RANK_HISTORY_STALE = 60


def rank_history(event) -> dict[int, list[tuple[int, int]]]:
    """Each entry's rank after each round the public may see: ``{entry id: [(round, rank),
    …]}``, computed as the standings are (confirmed results only), up to the round the
    leaderboard shows when the organizers hold the standings back. Kept in the cache with the
    results version it was computed at: a newer version recomputes it, at most once every
    :data:`RANK_HISTORY_STALE` seconds."""
    released = event.standings_released_round
    key = f"gouji:rank-history:{event.pk}:{event.created_at.timestamp():.6f}:{released}"
    stored = cache.get(key)
    now = time.time()
    if stored is not None and (stored[0] == event.results_version
                               or now - stored[1] < RANK_HISTORY_STALE):
        return stored[2]
    rounds = [n for n in public_round_numbers(event) if released is None or n <= released]
    history: dict[int, list] = {}
    for n in rounds:
        for row in compute(event, n):
            history.setdefault(row.entry_id, []).append((n, row.rank))
    cache.set(key, (event.results_version, now, history), 3600)
    return history


def rank_chart(points: list[tuple[int, int]], entries: int) -> dict | None:
    """A small line chart of rank after each round, as SVG coordinates (rank 1 at the top)."""
    if not points:
        return None
    width, height, pad, left = 300, 120, 16, 30
    last_round = max(n for n, _ in points)
    first_round = min(n for n, _ in points)
    worst = max(entries, max(r for _, r in points), 2)
    span = max(1, last_round - first_round)

    def x(n):
        return round(left + (width - left - pad) * (n - first_round) / span, 1)

    def y(rank):
        return round(pad + (height - 2 * pad) * (rank - 1) / (worst - 1), 1)

    dots = [{"x": x(n), "y": y(r), "round": n, "rank": r} for n, r in points]
    return {"width": width, "height": height, "dots": dots, "left": left, "right": width - pad,
            "line": " ".join(f"{d['x']},{d['y']}" for d in dots),
            "worst": worst, "top_y": y(1), "bottom_y": y(worst)}


def _game_views(results, side: int, seat: int) -> list[dict]:
    out = []
    for r in results:
        places = r.places or []
        place = places[seat] if len(places) > seat else 0
        out.append({"number": r.number, "place": place,
                    "place_label": PLACE_LABELS.get(place, ""),
                    "points": r.points_a if side == 0 else r.points_b,
                    "confirmed": r.status == GameResult.Status.CONFIRMED})
    return out


def _playing_live(event, tbl: Table) -> dict | None:
    """The game ``tbl`` is playing live now and the spectators' page of it, else ``None``
    (``tbl`` read with :func:`live.queries.running_live_game`)."""
    number = live_game_number(tbl)
    return None if number is None else {"number": number,
                                         "watch_url": _watch_url(event, tbl.round, tbl)}


def _seat_rounds(event, seats_qs) -> list[dict]:
    """A row per round a player (or a team's members) sat in: table, seat, partners, places,
    the points of the confirmed games, and the game being played live there now. The games
    of a round beyond the released standings are left out (``held_back``: they follow the
    release, :func:`tournaments.selectors.results_released_through`)."""
    rows = []
    through = results_released_through(event)
    for seat in seats_qs:
        tbl = seat.table
        partners = [{"name": s.player.name, "label": s.seat + 1}
                    for s in tbl.seats.all() if s.seat % 2 == seat.seat % 2 and s.pk != seat.pk]
        held_back = through is not None and tbl.round.number > through
        results = [] if held_back else list(tbl.results.all())
        games = _game_views(results, seat.seat % 2, seat.seat)
        rows.append({"round": tbl.round.number, "table": tbl.number,
                     "table_url": tbl.get_absolute_url(), "seat": seat.seat + 1,
                     "side": seat.seat % 2, "side_name": side_name(seat.seat % 2, tbl),
                     "partners": partners, "games": games,
                     "points": sum(g["points"] for g in games if g["confirmed"]),
                     "live": _playing_live(event, tbl), "name": seat.player.name,
                     "held_back": held_back,
                     "replays": [{"number": r.number,
                                  "url": _replay_url(event, tbl.round, tbl, r.number)}
                                 for r in results
                                 if r.status == GameResult.Status.CONFIRMED
                                 and any(v.kind == GameResultVersion.Kind.RECORD
                                         for v in r.versions.all())]})
    return rows


def _history_seats(event, **filters):
    return (Seat.objects.filter(round__event=event, round__status__in=SEATING_PUBLIC, **filters)
            .select_related("player", "table__round", "table__team_a", "table__team_b")
            .prefetch_related(
                Prefetch("table__seats", Seat.objects.select_related("player").order_by("seat")),
                running_live_game("table__"),
                # (a duplicate board's results once its group finished it: games.duplicate)
                Prefetch("table__results", GameResult.objects.filter(revealed())
                         .order_by("number").prefetch_related(Prefetch("versions", GameResultVersion.objects
                                                    .only("id", "result_id", "kind")))))
            .order_by("round__number", "seat"))


def _standing_of(event, entry) -> dict | None:
    from tournaments.standings import public_standings

    st = public_standings(event).filter(entry=entry).first()
    return None if st is None else {"rank": st.rank, "points": st.points,
                                    "games_played": st.games_played}


def _byes(event, entry) -> list[dict]:
    return [{"round": b.round.number, "points": b.points} for b in public_byes(entry)]


def player_history(request, slug, player):
    """A player's event (individual events): each round's table, seat, 联邦 partners, places and
    points, links to the games, penalties with their reasons, and rank after each round."""
    event = public_event(slug)
    person = get_object_or_404(Player, pk=player)
    seats = list(_history_seats(event, player=person))
    entry = event_entry(event, player=person)
    if entry is None and not seats:
        raise Http404("this player does not play in this event")
    team_entry = seats[-1].entry if seats and entry is None else None
    ranked = entry or team_entry
    history = rank_history(event).get(ranked.pk, []) if ranked is not None else []
    rows = _seat_rounds(event, seats)
    return render(request, "web/watch/player.html", {
        **base_context(event, "leaderboard"), "player": person, "entry": entry,
        "title": person.name,
        "team": team_entry.team if team_entry is not None and team_entry.team_id else None,
        "rows": rows, "byes": _byes(event, entry) if entry is not None else [],
        "standing": _standing_of(event, ranked) if ranked is not None else None,
        "chart": rank_chart(history, event.entries.exclude(status="withdrawn").count()),
        "penalties": penalty_views(penalties_listed(event=event).filter(
            Q(player=person) | Q(entry__player=person))),
    })


def entry_history(request, slug, entry):
    """An entry's history: its player's page, or its team's (the leaderboard links here)."""
    event = public_event(slug)
    found = get_object_or_404(Entry, pk=entry, event=event)
    if found.player_id:
        return redirect("pages:player-history", slug=slug, player=found.player_id)
    return redirect("pages:team-history", slug=slug, team=found.team_id)


def team_history(request, slug, team):
    """A 联邦 team's event (team events): each round's table and opponents, its members'
    seats and places, points, penalties, and rank after each round."""
    event = public_event(slug)
    squad = get_object_or_404(Team, pk=team, event=event)
    entry = event_entry(event, team=squad)
    if entry is None:
        raise Http404("this team has no entry")
    seats = list(_history_seats(event, entry=entry))
    by_round: dict[int, dict] = {}
    for row in _seat_rounds(event, seats):
        rnd = by_round.setdefault(row["round"], {
            "round": row["round"], "table": row["table"], "table_url": row["table_url"],
            "side": row["side"], "members": [], "games": row["games"], "points": row["points"],
            "replays": row["replays"], "live": row["live"], "opponent": None,
            "held_back": row["held_back"]})
        rnd["members"].append({"name": row["name"], "seat": row["seat"],
                               "places": [g["place_label"] for g in row["games"]]})
    tables = {t.round.number: t for t in tables_with_teams([s.table_id for s in seats])}
    for number, rnd in by_round.items():
        tbl = tables.get(number)
        if tbl is not None:
            other = tbl.team_b if tbl.team_a_id == squad.pk else tbl.team_a
            rnd["opponent"] = None if other is None else {
                "name": other.name, "url": reverse("pages:team-history",
                                                   kwargs={"slug": slug, "team": other.pk})}
    history = rank_history(event).get(entry.pk, [])
    return render(request, "web/watch/team.html", {
        **base_context(event, "leaderboard"), "team": squad, "entry": entry,
        "title": squad.name,
        "members": [{"player": m.player, "url": reverse("pages:player-history", kwargs={
            "slug": slug, "player": m.player_id})}
            for m in squad.members.filter(status="accepted").select_related("player")],
        "rows": [by_round[n] for n in sorted(by_round)], "byes": _byes(event, entry),
        "standing": _standing_of(event, entry),
        "chart": rank_chart(history, event.entries.exclude(status="withdrawn").count()),
        "penalties": penalty_views(penalties_listed(event=event, entry=entry)),
    })


def round_results(request, slug, number):
    """Every table's results in one round: points by game and in all, 头科 and 大落 of each game,
    the game a table is playing live (with the way to watch it), the byes, and the penalties
    given in the round. While the standings are held back at an earlier round, the round's
    tables are listed without their results (they follow the release)."""
    event = public_event(slug)
    rnd = public_round(event, number)
    through = results_released_through(event)
    held_back = through is not None and rnd.number > through
    tables = with_running_live_game(round_tables_with_results(rnd))
    page = Paginator(tables, RESULTS_PAGE).get_page(request.GET.get("page"))
    views = []
    for tbl in page.object_list:
        sides = side_names(tbl)
        seats = {s.seat: seat_view(s, sides=sides) for s in tbl.seats.all()}
        games = []
        for r in [] if held_back else tbl.results.all():
            places = r.places or []
            games.append({"number": r.number, "points_a": r.points_a, "points_b": r.points_b,
                          "confirmed": r.status == GameResult.Status.CONFIRMED,
                          "status_label": r.get_status_display(), "void": r.void,
                          "head": seats.get(places.index(1)) if 1 in places else None,
                          "last": seats.get(places.index(6)) if 6 in places else None})
        confirmed = [g for g in games if g["confirmed"]]
        views.append({"number": tbl.number, "url": tbl.get_absolute_url(),
                      "team_a": tbl.team_a.name if tbl.team_a_id else None,
                      "team_b": tbl.team_b.name if tbl.team_b_id else None,
                      "seats": [seats[k] for k in sorted(seats)], "games": games,
                      "live": _playing_live(event, tbl),
                      "total_a": sum(g["points_a"] for g in confirmed),
                      "total_b": sum(g["points_b"] for g in confirmed)})
    return render(request, "web/watch/round_results.html", {
        **base_context(event, "leaderboard"), "round": rnd, "tables": views, "page": page,
        "held_back": held_back,
        "rounds": public_round_numbers(event), "byes": bye_views(rnd),
        "penalties": penalty_views(penalties_listed(event=event, round=rnd)),
    })
