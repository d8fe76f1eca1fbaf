"""The everyday standings recompute writes only the rows that changed, from one load of the
event (``tournaments.standings.standings_recompute``); ``standings_rebuild`` recomputes from
scratch and rewrites every row. Over random events — seatings, results, confirmations left
out, referees' corrections of earlier games and rounds — the stored standings after every
change equal the rebuilt ones."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import GameResult
from games.services import result_confirm, result_correct
from tests.tournaments import test_standings as base
from tournaments.models import Standing
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


def recompute_then_rebuild(event) -> tuple[list, list]:
    standings_recompute(event_id=event.pk, force=True)
    everyday = stored(event)
    standings_rebuild(event_id=event.pk)
    return everyday, stored(event)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_recompute_equals_a_rebuild_from_scratch(event, e, referee, data):
    savepoint = transaction.savepoint()
    try:
        confirmed: list[GameResult] = []
        for number in (1, 2, 3):
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
