"""The draw (抽签组邦) itself: run from the round's public data, stored as its tables and seats,
and re-run to verify a drawn round against its commitment, or a later round against the
results as they stand now (:func:`later_draws`)."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments import draw as draw_module
from tournaments import locks
from tournaments.boards import boards_make
from tournaments.models import Bye, Entry, Event, Round, Seat, Table, TeamMember
from tournaments.selectors import round_seating
from tournaments.services.rounds import bracket_order, knockout_seeds_by_rating


def compute_draw(*, round: Round, history_rounds=None):
    """Run the pure draw from public data: the revealed seed, the entry list, the scores and
    bye counts fixed at commitment, and the seating of earlier rounds."""
    event = round.event
    inputs = round.draw_input or {}
    scores = {int(k): v for k, v in inputs.get("scores", {}).items()}
    byes = {int(k): v for k, v in inputs.get("byes", {}).items()}
    earlier = list(history_rounds) if history_rounds is not None else list(
        Round.objects.filter(event=event, number__lt=round.number).order_by("number"))
    seats = (Seat.objects.filter(round__in=earlier).order_by("round__number", "table__number",
                                                             "seat")
             .values_list("round_id", "table_id", "seat", "entry_id", "player_id"))
    tables: dict[int, list] = {}
    seat_counts: dict[int, list[int]] = {}
    player_seat_counts: dict[int, list[int]] = {}
    for _r, table_id, seat, entry_id, player_id in seats:
        tables.setdefault(table_id, [None] * 6)
        key = entry_id if event.format == Event.Format.INDIVIDUAL else player_id
        tables[table_id][seat] = key
        seat_counts.setdefault(entry_id, [0] * 6)[seat] += 1
        player_seat_counts.setdefault(player_id, [0] * 6)[seat] += 1
    history = draw_module.History.from_tables(
        [tuple(t) for t in tables.values() if None not in t])
    ids = list(round.draw_entries)
    if event.format == Event.Format.INDIVIDUAL:
        players = [draw_module.DrawPlayer(id=i, score=float(scores.get(i, 0)),
                                          byes=byes.get(i, 0),
                                          seat_counts=tuple(seat_counts.get(i, [0] * 6)))
                   for i in ids]
        ratings = inputs.get("ratings")
        result = draw_module.draw_individual(
            players, history, round.seed, brackets=round.brackets,
            ratings=None if ratings is None else {int(k): v for k, v in ratings.items()})
        return {"tables": [list(t) for t in result.tables], "byes": list(result.byes)}
    # team events: Swiss pairing of 联邦 teams, then seat each table
    met: set[tuple[int, int]] = set()
    for a, b in Table.objects.filter(round__in=earlier, team_a__isnull=False).values_list(
            "team_a__entry", "team_b__entry"):
        met.add((min(a, b), max(a, b)))
    teams = [draw_module.DrawTeam(id=i, score=float(scores.get(i, 0)), byes=byes.get(i, 0))
             for i in ids]
    if round.stage == Round.Stage.KNOCKOUT:  # pairs fixed by the bracket, not drawn
        paired = draw_module.TeamDrawResult(
            pairs=[tuple(p) for p in inputs["knockout_pairs"]], bye=None)
    else:
        paired = draw_module.draw_teams(teams, met, round.seed)
    members = {}
    for entry_id, player_id in TeamMember.objects.filter(team__entry__pk__in=ids).values_list(
            "team__entry__pk", "player_id").order_by("team__entry__pk", "position"):
        members.setdefault(entry_id, []).append(player_id)
    out_tables = []
    for k, (a, b) in enumerate(paired.pairs):
        seating = draw_module.seat_team_table(
            members[a], members[b], history,
            {p: tuple(player_seat_counts.get(p, [0] * 6)) for p in members[a] + members[b]},
            f"{round.seed}:{k}")
        out_tables.append({"team_a": a, "team_b": b, "players": list(seating)})
    return {"tables": out_tables, "byes": [paired.bye] if paired.bye is not None else []}


def round_draw(*, round_id: int) -> Round:
    """Draw a committed round (idempotent: a drawn round is returned unchanged)."""
    with transaction.atomic():
        rnd = locks.lock_round(round_id, with_event=True)
        if rnd.status != Round.Status.COMMITTED:
            return rnd
        event = rnd.event
        drawn = compute_draw(round=rnd)
        entries = {e.pk: e for e in Entry.objects.filter(pk__in=rnd.draw_entries)}
        table_objs, seat_objs = [], []
        if event.format == Event.Format.INDIVIDUAL:
            table_objs = [Table(round=rnd, number=k + 1) for k in range(len(drawn["tables"]))]
        else:
            team_of = {e.pk: e.team_id for e in entries.values()}
            for k, t in enumerate(drawn["tables"]):
                table_objs.append(Table(round=rnd, number=k + 1, team_a_id=team_of[t["team_a"]],
                                        team_b_id=team_of[t["team_b"]]))
        Table.objects.bulk_create(table_objs)
        table_objs = list(Table.objects.filter(round=rnd).order_by("number"))
        if event.format == Event.Format.INDIVIDUAL:
            for table, ids in zip(table_objs, drawn["tables"], strict=True):
                for seat, entry_id in enumerate(ids):
                    seat_objs.append(Seat(table=table, round=rnd, seat=seat,
                                          player_id=entries[entry_id].player_id,
                                          entry_id=entry_id))
        else:
            entry_of_player = dict(TeamMember.objects.filter(
                team__entry__pk__in=rnd.draw_entries).values_list("player_id", "team__entry__pk"))
            for table, t in zip(table_objs, drawn["tables"], strict=True):
                for seat, player_id in enumerate(t["players"]):
                    seat_objs.append(Seat(table=table, round=rnd, seat=seat, player_id=player_id,
                                          entry_id=entry_of_player[player_id]))
        Seat.objects.bulk_create(seat_objs, batch_size=2000)
        Bye.objects.bulk_create([Bye(round=rnd, entry_id=e, points=event.bye_points)
                                 for e in drawn["byes"]])
        boards_make(rnd)  # a duplicate event's boards, committed from now on
        rnd.status = Round.Status.DRAWN
        rnd.drawn_at = timezone.now()
        rnd.save(update_fields=["status", "drawn_at"])
        if drawn["byes"] and event.bye_points:
            from tournaments.standings import standings_refresh_on_commit

            standings_refresh_on_commit(event_id=event.pk, from_round=rnd.number)
    return rnd


@dataclass(frozen=True)
class DrawVerification:
    """What re-running a round's draw from its public data found (:func:`round_verification`):
    ``problems`` (empty: verified), the manual changes the re-run applied
    (``Round.draw_changes``, in order) and the earlier draws a re-draw replaced
    (``Round.draw_history``, oldest first), each of them checked the same way."""

    problems: list[str]
    changes: list[dict]
    redraws: list[dict]

    @property
    def verified(self) -> bool:
        return not self.problems


def round_verification(*, round: Round) -> DrawVerification:
    """Re-run a drawn round from its public data: the commitment must match the revealed seed
    and entry list, and the draw from that seed, with the recorded seat swaps applied in
    order, must give the seating and byes stored. Each earlier draw of the round (replaced by
    a re-draw) is checked the same way against the seating it gave."""
    earlier_rounds = list(Round.objects.filter(event=round.event_id, number__lt=round.number)
                          .order_by("number"))
    problems = []
    if round.status == Round.Status.COMMITTED:
        problems.append(_("the round is not drawn: its seed is still secret"))
    else:
        problems += _draw_problems(round, round, round_seating(round), round.draw_changes,
                                   earlier_rounds)
    for k, earlier in enumerate(round.draw_history, start=1):
        replay = Round(event=round.event, number=round.number, stage=round.stage,
                       brackets=earlier["brackets"], seed=earlier["seed"],
                       commitment=earlier["commitment"], draw_entries=earlier["entries"],
                       draw_input=earlier["input"])
        problems += [_("draw %(k)s (re-drawn): %(p)s") % {"k": k, "p": p} for p in _draw_problems(
            round, replay, earlier, earlier["changes"], earlier_rounds)]
    return DrawVerification(problems=problems, changes=list(round.draw_changes),
                            redraws=list(round.draw_history))


def round_verify(*, round: Round) -> list[str]:
    """:func:`round_verification`'s differences (empty = verified)."""
    return round_verification(round=round).problems


def _draw_problems(rnd: Round, draw: Round, stored: dict, changes: list[dict],
                   earlier_rounds: list[Round]) -> list[str]:
    """How one draw of ``rnd`` (``draw``: its seed, entries and inputs) differs from the
    seating ``stored`` once ``changes`` are applied to its re-run."""
    problems = []
    expect = draw_module.commitment(draw.seed, list(draw.draw_entries), rnd.number, rnd.event_id)
    if expect != draw.commitment:
        problems.append(_("the commitment does not match the revealed seed and entry list"))
    seeding = (draw.draw_input or {}).get("seeding")
    if seeding is not None:
        seeds = knockout_seeds_by_rating(seeding)
        order = bracket_order(len(seeds))
        expect_pairs = [[seeds[order[i] - 1], seeds[order[i + 1] - 1]]
                        for i in range(0, len(seeds), 2)]
        if expect_pairs != draw.draw_input.get("knockout_pairs"):
            problems.append(_("the bracket does not follow the published ratings"))
    drawn = compute_draw(round=draw, history_rounds=earlier_rounds)
    team_event = rnd.event.format != Event.Format.INDIVIDUAL
    seated = [t["players"] if team_event else t for t in drawn["tables"]]
    key = "player" if team_event else "entry"
    for k, change in enumerate(changes, start=1):
        places = [(s["table"], s["seat"]) for s in change["seats"]]
        if not all(1 <= t <= len(seated) and seated[t - 1][seat] == s[key]
                   for (t, seat), s in zip(places, change["seats"], strict=True)):
            problems.append(_("manual change %(k)s does not fit the draw it changes") % {"k": k})
            return problems
        seated = draw_module.apply_swaps(seated, [tuple(places)])
    if team_event:
        for table, players in zip(drawn["tables"], seated, strict=True):
            table["players"] = players
    else:
        drawn["tables"] = seated
    if stored["tables"] != drawn["tables"]:
        for k, (a, b) in enumerate(zip(stored["tables"], drawn["tables"], strict=False)):
            if a != b:
                problems.append(_("table %(n)s differs: stored %(a)s, re-drawn %(b)s") % {
                    "n": k + 1, "a": a, "b": b})
                break
        if len(stored["tables"]) != len(drawn["tables"]):
            problems.append(_("%(a)s tables stored, %(b)s re-drawn") % {
                "a": len(stored["tables"]), "b": len(drawn["tables"])})
    if sorted(stored["byes"]) != sorted(drawn["byes"]):
        problems.append(_("byes differ: stored %(a)s, re-drawn %(b)s") % {
            "a": sorted(stored["byes"]), "b": sorted(drawn["byes"])})
    return problems


def draw_change_text(change: dict) -> str:
    """A manual change to a draw in words, as the verification and the pages list it:
    "swapped 张伟 (table 1, seat 3) and 李娜 (table 2, seat 5)" (seats 1–6, 号位)."""
    from django.utils.translation import pgettext

    def place(s):
        return _("%(name)s (table %(t)s, %(seat)s)") % {
            "name": s["name"], "t": s["table"],
            "seat": pgettext("seat position", "seat %(n)s") % {"n": s["seat"] + 1}}

    a, b = change["seats"]
    return _("swapped %(a)s and %(b)s") % {"a": place(a), "b": place(b)}


@dataclass(frozen=True)
class LaterDraw:
    """A round drawn after another, held against the results as they stand now
    (:func:`later_draws`). ``basis``: ``random`` (seated without the standings: an individual
    event's round not seated by score), ``standings`` (seated by score, or 联邦 teams paired
    by match points) or ``knockout`` (a bracket, not re-drawn here). ``changed``: whether its
    draw, re-run from its published seed with the scores the standings give now, would seat
    anyone differently (``None`` for a knockout round); ``tables``: the numbers of the tables
    that would differ, ``byes``: whether the byes would."""

    number: int
    basis: str
    changed: bool | None
    tables: tuple[int, ...] = ()
    byes: bool = False


def later_draws(rnd: Round) -> list[LaterDraw]:
    """Every round of ``rnd``'s event drawn after it, and whether its draw would come out
    otherwise with the results as they stand now: what a change of ``rnd``'s results after its
    close would have changed (the referee desk shows it). A round seated by score is drawn
    again (:func:`compute_draw`: deterministic from its published seed and
    input) with the scores of the standings through the round before it, now, and the
    penalties given before it was opened (``tournaments.standings.scores_for_draw``); the
    seating is compared with the stored one table by table. Nothing is written."""
    from tournaments.standings import scores_for_draw

    out = []
    for later in (Round.objects.filter(event_id=rnd.event_id, number__gt=rnd.number)
                  .exclude(status=Round.Status.COMMITTED).select_related("event")
                  .order_by("number")):
        if later.stage == Round.Stage.KNOCKOUT:
            out.append(LaterDraw(later.number, "knockout", None))
            continue
        if later.event.format == Event.Format.INDIVIDUAL and not later.brackets:
            out.append(LaterDraw(later.number, "random", False))
            continue
        inputs = later.draw_input or {}
        published = {int(k): v for k, v in inputs.get("scores", {}).items()}
        now = scores_for_draw(event=later.event, entry_ids=later.draw_entries, as_of=later)
        if all(now.get(e, 0) == published.get(e, 0) for e in later.draw_entries):
            out.append(LaterDraw(later.number, "standings", False))
            continue
        again = copy.copy(later)
        again.draw_input = {**inputs, "scores": {str(k): v for k, v in now.items()}}
        drawn, stored = compute_draw(round=again), round_seating(later)
        # (the same entries: as many tables)
        tables = tuple(k for k, (a, b) in enumerate(
            zip(stored["tables"], drawn["tables"], strict=True), 1) if a != b)
        byes = stored["byes"] != sorted(drawn["byes"])
        out.append(LaterDraw(later.number, "standings", bool(tables or byes), tables, byes))
    return out
