"""Changes to a drawn round before its seating is published: two seats swapped, or the round
drawn again — each kept in the round's public record."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments import draw as draw_module
from tournaments import locks
from tournaments.errors import Conflict, NotFound, ServiceError
from tournaments.models import Bye, Entry, Event, Round, Seat, Table
from tournaments.names import person_name
from tournaments.selectors import round_seating
from tournaments.services.rounds import round_request_draw, swiss_draw_entries, swiss_draw_input

# Before its seating is published, the organizers check a drawn round and may swap two seats
# or draw it again. Both keep the draw verifiable, in the round's public record:
#
# - a swap is appended to ``Round.draw_changes`` (which two places, who sat there, who made
#   it, when and why); the verification re-runs the draw from the revealed seed and then
#   applies the swaps in order, so it still ends at the seating stored — "verified, with N
#   manual changes", each listed;
# - a re-draw keeps the draw it replaces in ``Round.draw_history`` (its commitment, seed,
#   entries, inputs, seating and swaps, and who re-drew it, when and why), then commits to a
#   new secret seed — a new commitment, published before the new draw runs on a worker, as
#   for any round. An organizer who re-draws until a seating suits them cannot hide it: every
#   earlier draw stays verifiable and public, and the seating page counts them.

#: the longest reason a swap or a re-draw takes (it is published with the round)
DRAW_REASON_MAX = 500


@dataclass(frozen=True)
class SeatRef:
    """A seat as the organizer saw it when choosing it: the table's number, the seat (0–5) and
    the player sitting there. A swap asked of a seating that has changed since is refused —
    unless it is the very swap just made (a double click), which changes nothing."""

    table: int
    seat: int
    player_id: int


def _draw_reason(reason) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _(
            "reason: say why (a change to a draw is published with its reason)"),
            detail={"field": "reason"})
    if "\x00" in reason:  # (PostgreSQL's JSON refuses it)
        raise ServiceError("bad_reason", _("reason: a NUL character is not text"),
                           detail={"field": "reason"})
    if len(reason) > DRAW_REASON_MAX:
        raise ServiceError("bad_reason", _("reason: at most %(n)s characters") % {
            "n": DRAW_REASON_MAX}, detail={"field": "reason"})
    return reason


def _made_by(by, reason: str) -> dict:
    """Who made a change to a draw, when and why, as the round's public record says it."""
    named = getattr(by, "pk", None) is not None
    return {"at": timezone.now().isoformat(), "by": person_name(by) if named else "",
            "by_id": by.pk if named else None, "reason": reason}


def _check_drawn_unpublished(rnd: Round) -> None:
    """A draw may change between its draw and the publication of its seating only."""
    if rnd.status == Round.Status.COMMITTED:
        raise Conflict("not_drawn", _("the round is not drawn yet"))
    if rnd.status != Round.Status.DRAWN:
        raise Conflict("round_published", _(
            "the seating of round %(n)s is published: its draw can no longer change") % {
            "n": rnd.number})


def _check_not_in_play(rnd: Round, table_ids: list[int] | None = None) -> None:
    """Refuse to change tables that have a result, a live game or a penalty already (a
    referee may enter them before the seating is published)."""
    tables = Table.objects.filter(round=rnd)
    if table_ids is not None:
        tables = tables.filter(pk__in=table_ids)
    busy = sorted(set(tables.filter(
        Q(results__isnull=False) | Q(live_games__isnull=False) | Q(penalties__isnull=False))
        .values_list("number", flat=True)))
    if busy:
        raise Conflict("table_in_play", _(
            "table %(t)s has results, a live game or a penalty already: its seats can no "
            "longer change") % {"t": busy[0]}, detail={"tables": busy})


def round_seats_swap(*, round: Round, seat_a: SeatRef, seat_b: SeatRef, by,
                     reason: str) -> Round:
    """Swap two players' seats (at one table or two) in a drawn round whose seating is not
    published yet; ``reason`` is required. In a team event (团体赛) a player changes seats with
    a teammate only: the same table, the same 联邦.

    The swap is appended to the round's public record (``Round.draw_changes``: the two places
    ``{"table", "seat", "entry", "player", "name"}`` with who sat there before, ``at``, ``by``,
    ``reason``), which the verification applies after re-running the draw
    (:func:`round_verification`). ``seat_a`` and ``seat_b`` are the seats as the organizer saw
    them: if the seating has changed since, the swap is refused (409 ``seating_changed``) —
    unless it is the swap just made, asked again by a double click: then nothing changes.
    Refused once the seating is published (409 ``round_published``). Locks: event → round →
    the two tables."""
    reason = _draw_reason(reason)
    places = {(seat_a.table, seat_a.seat), (seat_b.table, seat_b.seat)}
    if len(places) == 1 or seat_a.player_id == seat_b.player_id:
        raise ServiceError("same_seat", _("choose two different players"))
    if not all(0 <= ref.seat <= 5 for ref in (seat_a, seat_b)):
        raise ServiceError("bad_seat", _("a table has seats 1 to 6"))
    with transaction.atomic():
        rnd = locks.lock_round(round.pk, with_event=True)
        _check_drawn_unpublished(rnd)
        if rnd.event.format == Event.Format.TEAM and (
                seat_a.table != seat_b.table or seat_a.seat % 2 != seat_b.seat % 2):
            raise ServiceError("team_seats", _(
                "in a team event a player changes seats with a teammate only (the same table "
                "and 联邦)"))
        tables = {t.number: t for t in Table.objects.filter(
            round=rnd, number__in={seat_a.table, seat_b.table})}
        missing = sorted({seat_a.table, seat_b.table} - set(tables))
        if missing:
            raise NotFound("no_table", _("round %(n)s has no table %(t)s") % {
                "n": rnd.number, "t": missing[0]})
        locks.lock_tables(sorted(t.pk for t in tables.values()))
        _check_not_in_play(rnd, [t.pk for t in tables.values()])
        seats = {(s.table.number, s.seat): s for s in Seat.objects.filter(
            table__in=tables.values()).select_related("table", "player")}
        a, b = seats[(seat_a.table, seat_a.seat)], seats[(seat_b.table, seat_b.seat)]
        if (a.player_id, b.player_id) == (seat_b.player_id, seat_a.player_id) and \
                _is_last_swap(rnd, seat_a, seat_b):
            return rnd  # asked twice: made once
        if (a.player_id, b.player_id) != (seat_a.player_id, seat_b.player_id):
            raise Conflict("seating_changed", _(
                "the seating has changed since you chose these seats: look again and choose "
                "again"))
        Seat.objects.filter(pk__in=[a.pk, b.pk]).delete()  # (one player per round: no update)
        Seat.objects.bulk_create([
            Seat(table=a.table, round=rnd, seat=a.seat, player_id=b.player_id,
                 entry_id=b.entry_id),
            Seat(table=b.table, round=rnd, seat=b.seat, player_id=a.player_id,
                 entry_id=a.entry_id)])
        rnd.draw_changes = [*rnd.draw_changes, {
            "kind": "swap",
            "seats": [{"table": s.table.number, "seat": s.seat, "entry": s.entry_id,
                       "player": s.player_id, "name": s.player.name} for s in (a, b)],
            **_made_by(by, reason)}]
        rnd.save(update_fields=["draw_changes"])
    return rnd


def _is_last_swap(rnd: Round, seat_a: SeatRef, seat_b: SeatRef) -> bool:
    """Whether the round's last manual change is the swap of these two seats and players."""
    if not rnd.draw_changes:
        return False
    last = rnd.draw_changes[-1]
    return last.get("kind") == "swap" and {
        (s["table"], s["seat"], s["player"]) for s in last["seats"]} == {
        (ref.table, ref.seat, ref.player_id) for ref in (seat_a, seat_b)}


def round_redraw(*, round: Round, by, reason: str, commitment: str | None = None) -> Round:
    """Draw a drawn round again before its seating is published; ``reason`` is required.

    The draw it replaces goes to the round's public history (``Round.draw_history``: its
    commitment, seed, entries and inputs, the seating and byes it gave, its swaps, and who
    re-drew it, when and why), its tables are removed, and the round is committed again as
    :func:`round_create` commits one: a new secret seed, the entries checked in now (a late
    arrival, a no-show withdrawn) with their scores, byes and ratings (a knockout round keeps
    its pairs), and a new commitment, published before the new draw runs on a worker.

    ``commitment``: the commitment the organizer saw — a re-draw asked again of a draw that is
    already replaced (a double click) changes nothing; one asked of a draw they never saw is
    refused (409 ``draw_changed``). Refused once the seating is published (409
    ``round_published``), while a draw is running (409 ``not_drawn``) and when a table has
    results already. Locks: event → round → the round's entries left out → its tables."""
    reason = _draw_reason(reason)
    with transaction.atomic():
        rnd = locks.lock_round(round.pk, with_event=True)
        if commitment is not None and commitment != rnd.commitment:
            if any(d["commitment"] == commitment for d in rnd.draw_history):
                return rnd  # asked twice: re-drawn once
            raise Conflict("draw_changed", _(
                "the draw has changed since you looked at it: look again"))
        _check_drawn_unpublished(rnd)
        event = rnd.event
        if rnd.stage == Round.Stage.KNOCKOUT:
            entries = None
            ids = list(rnd.draw_entries)
        else:
            entries = swiss_draw_entries(event=event, number=rnd.number)
            ids = [e.pk for e in entries]
        # an entry withdrawn since the draw no longer plays this round
        Entry.objects.filter(pk__in=set(rnd.draw_entries) - set(ids),
                             left_after_round__gte=rnd.number).update(
            left_after_round=rnd.number - 1)
        locks.lock_round_tables(rnd.pk)
        _check_not_in_play(rnd)
        replaced = {
            "commitment": rnd.commitment, "seed": rnd.seed, "entries": list(rnd.draw_entries),
            "input": rnd.draw_input, "brackets": rnd.brackets,
            "committed_at": rnd.committed_at.isoformat(),
            "drawn_at": rnd.drawn_at.isoformat() if rnd.drawn_at else None,
            **round_seating(rnd), "changes": list(rnd.draw_changes),
            "redraw": _made_by(by, reason)}
        Table.objects.filter(round=rnd).delete()  # and their seats
        had_byes = Bye.objects.filter(round=rnd).delete()[0]
        if entries is not None:
            rnd.draw_input = swiss_draw_input(event=event, number=rnd.number, entries=entries)
        rnd.seed = draw_module.new_seed()
        rnd.commitment = draw_module.commitment(rnd.seed, ids, rnd.number, event.pk)
        rnd.draw_entries = ids
        rnd.draw_changes = []
        rnd.draw_history = [*rnd.draw_history, replaced]
        rnd.status = Round.Status.COMMITTED
        rnd.committed_at, rnd.drawn_at = timezone.now(), None
        rnd.save(update_fields=["seed", "commitment", "draw_entries", "draw_input",
                                "draw_changes", "draw_history", "status", "committed_at",
                                "drawn_at"])
        if had_byes and event.bye_points:
            from tournaments.standings import standings_refresh_on_commit

            standings_refresh_on_commit(event_id=event.pk, from_round=rnd.number)
        round_request_draw(round=rnd)
    return rnd
