"""The everyday standings recompute writes only the rows that changed, from one load of the
event (``tournaments.standings.standings_recompute``); ``standings_rebuild`` recomputes from
scratch and rewrites every row. Over random events — seatings, results, confirmations left
out, referees' corrections of earlier games and rounds — the stored standings after every
change equal the rebuilt ones."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import GameResult
from games.services import result_confirm, result_correct
from tests.tournaments import test_standings as base
from tournaments.models import Penalty, RoundStandings, Standing
from tournaments.services.penalties import penalty_add
from tournaments.standings import STORED, compute, standings_rebuild, standings_recompute

pytestmark = pytest.mark.django_db

# the fixtures and helpers of tests/tournaments/test_standings.py: 14 checked-in entries
# (``e[1]``…``e[14]``), rounds seated by hand, referees' sheets
event = base.event
e = base.e
play, seat_round, sheet = base.play, base.seat_round, base.sheet

FIELDS = ("entry_id", *STORED, "previous_rank", "through_round")


def stored(event):
    return list(Standing.objects.filter(event=event).order_by("entry_id").values_list(*FIELDS))


def snapshots(event) -> list[tuple[int, str]]:
    return list(RoundStandings.objects.filter(event=event).order_by("round_number")
                .values_list("round_number", "rows"))


def recompute_then_rebuild(event) -> tuple[list, list]:
    """The stored standings after the everyday recompute, and after a rebuild from scratch
    (rolled back: the rebuild deletes the stored rounds, and the next everyday recompute must
    start from the ones the everyday runs kept)."""
    standings_recompute(event_id=event.pk, force=True)
    everyday = stored(event)
    kept = snapshots(event)
    savepoint = transaction.savepoint()
    standings_rebuild(event_id=event.pk)
    rebuilt = stored(event)
    assert not snapshots(event)
    transaction.savepoint_rollback(savepoint)
    assert snapshots(event) == kept
    return everyday, rebuilt


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_recompute_equals_a_rebuild_from_scratch(event, e, referee, data):
    savepoint = transaction.savepoint()
    try:
        confirmed: list[GameResult] = []
        order = data.draw(st.permutations(["points", "head_to_head", "opponents_points",
                                           "game_wins", "head_count"]), label="tie-breaks")
        base.set_tie_breaks(event, [*order, "drawn"])
        for number in (1, 2, 3, 4):
            order = data.draw(st.permutations(sorted(e)), label=f"seating of round {number}")
            tables = seat_round(event, number, [[e[n] for n in order[:6]],
                                                [e[n] for n in order[6:12]]],
                                byes=[e[n] for n in order[12:]])
            for table in tables:
                for game in (1, 2):
                    places = data.draw(st.permutations(range(6)), label="finishing order")
                    confirm = data.draw(st.booleans(), label="confirmed")
                    result = play(table, game, places, referee, confirm=confirm)
                    if confirm:
                        confirmed.append(result)
                    everyday, rebuilt = recompute_then_rebuild(event)
                    assert everyday == rebuilt
            # a referee corrects a game of this round or an earlier one
            if confirmed and data.draw(st.booleans(), label="a correction"):
                result = data.draw(st.sampled_from(confirmed), label="corrected game")
                places = data.draw(st.permutations(range(6)), label="corrected order")
                result_correct(result=GameResult.objects.get(pk=result.pk), reason="misread",
                               sheet=sheet(places), by=referee, as_referee=True)
                everyday, rebuilt = recompute_then_rebuild(event)
                assert everyday == rebuilt
            if data.draw(st.booleans(), label="a penalty"):
                number_ = data.draw(st.sampled_from(sorted(e)), label="penalised entry")
                penalty_add(event=event, entry=e[number_], kind=Penalty.Kind.POINT_DEDUCTION,
                            reason="late", points=data.draw(st.integers(1, 6)), by=referee)
                everyday, rebuilt = recompute_then_rebuild(event)
                assert everyday == rebuilt
            # results left unconfirmed are confirmed late, after the next round started
            for result in GameResult.objects.filter(table__round__event=event,
                                                    status=GameResult.Status.SUBMITTED):
                result_confirm(result=result, by=referee, as_referee=True)
        everyday, rebuilt = recompute_then_rebuild(event)
        assert everyday == rebuilt
        assert [row[0] for row in sorted(rebuilt, key=lambda row: row[1])] == [
            r.entry_id for r in compute(event)]
    finally:
        transaction.savepoint_rollback(savepoint)


def test_standings_rebuild_command_rewrites_every_row(event, e, referee):
    tables = seat_round(event, 1, [[e[n] for n in range(1, 7)], [e[n] for n in range(7, 13)]],
                        byes=[e[13], e[14]])
    for table in tables:
        play(table, 1, [0, 1, 2, 3, 4, 5], referee)
    standings_recompute(event_id=event.pk)
    before = stored(event)
    Standing.objects.filter(event=event).update(points=999)  # a row gone wrong
    call_command("standings_rebuild", event.slug, stdout=StringIO())
    assert stored(event) == before


def test_a_recompute_starts_from_the_stored_round_and_a_correction_replaces_it(
        event, e, referee):
    """The everyday recompute adds the later rounds' results to the standings stored through
    the last round before (so a wrong stored round shows, until a rebuild or a change of that
    round replaces it); a correction of an old round marks the stored rounds from it on as out
    of date and the next recompute stores them again."""
    results = {}
    for number in (1, 2, 3):
        tables = seat_round(event, number, [[e[n] for n in range(1, 7)],
                                            [e[n] for n in range(7, 13)]], byes=[e[13], e[14]])
        results[number] = [play(table, 1, [0, 1, 2, 3, 4, 5], referee) for table in tables]
    standings_recompute(event_id=event.pk)
    assert [number for number, _rows in snapshots(event)] == [1, 2]
    event.refresh_from_db()
    assert event.standings_dirty_from is None
    right = stored(event)

    # a stored round gone wrong: entry 1's points through round 2 raised by 100
    rows = json.loads(RoundStandings.objects.get(event=event, round_number=2).rows)
    for row in rows:
        if row[0] == e[1].pk:
            row[1] += 100
    RoundStandings.objects.filter(event=event, round_number=2).update(rows=json.dumps(rows))
    standings_recompute(event_id=event.pk, force=True)
    assert Standing.objects.get(event=event, entry=e[1]).points == \
        Standing.objects.get(event=event, entry=e[3]).points + 100  # sat alike every round
    standings_rebuild(event_id=event.pk)
    assert stored(event) == right and not snapshots(event)
    standings_recompute(event_id=event.pk, force=True)
    assert [number for number, _rows in snapshots(event)] == [1, 2]

    # a referee corrects round 1: the stored rounds 1 and 2 are out of date, then replaced
    kept = dict(snapshots(event))
    result_correct(result=GameResult.objects.get(pk=results[1][0].pk), reason="misread",
                   sheet=sheet([1, 0, 3, 2, 5, 4]), by=referee, as_referee=True)
    event.refresh_from_db()
    assert event.standings_dirty_from == 1
    standings_recompute(event_id=event.pk)
    event.refresh_from_db()
    assert event.standings_dirty_from is None
    again = dict(snapshots(event))
    assert sorted(again) == [1, 2] and again[1] != kept[1] and again[2] != kept[2]
    everyday = stored(event)
    standings_rebuild(event_id=event.pk)
    assert stored(event) == everyday

    # a late confirmation in round 3 leaves the stored rounds 1 and 2 alone
    standings_recompute(event_id=event.pk, force=True)
    kept = dict(snapshots(event))
    table = results[3][0].table
    play(table, 2, [0, 1, 2, 3, 4, 5], referee)
    event.refresh_from_db()
    assert event.standings_dirty_from == 3
    standings_recompute(event_id=event.pk)
    assert dict(snapshots(event)) == kept

    # a penalty moves the ranks through round 2 too (the ▲▼ arrows): the stored ones go unused
    leader = Standing.objects.get(event=event, rank=1).entry
    penalty_add(event=event, entry=leader, kind=Penalty.Kind.POINT_DEDUCTION, reason="late",
                points=60, by=referee)
    standings_recompute(event_id=event.pk)
    everyday = stored(event)
    assert Standing.objects.get(event=event, entry=leader).previous_rank > 1
    standings_rebuild(event_id=event.pk)
    assert stored(event) == everyday
