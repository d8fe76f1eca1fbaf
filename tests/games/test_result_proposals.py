"""Proposed corrections of a confirmed result (games/services.py: ``result_correct`` and
``result_proposal_accept`` / ``_decline`` / ``_withdraw``; issue 15, finding 2): accepting one
checks it again against the table as it is then, under the table's lock; at most one is open;
accepting twice — one after the other or at the same moment — applies it once."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, connections, transaction

from games.models import GameResult, GameResultVersion, ResultProposal
from games.services import (
    result_confirm,
    result_correct,
    result_proposal_accept,
    result_proposal_withdraw,
    result_submit,
)
from tests.games import test_services as base
from tests.pg import start_behind_a_lock
from tournaments.errors import ServiceError
from tournaments.locks import lock_table

# the fixtures and helpers of tests/games/test_services.py: table 1 of a drawn round of a
# 14-player event, its seats, a bot-played two-game match (records of games 1 and 2)
drawn_round = base.drawn_round
table = base.table
seats = base.seats
match = base.match
record_1 = base.record_1
record_2 = base.record_2
result_2 = base.result_2
login_for = base.login_for
sheet = base.sheet

FIRST = sheet([0, 2, 4, 1, 3, 5])  # 联邦 0 scores 12
SEAT_5_FIRST = sheet([5, 0, 2, 4, 1, 3])


@pytest.fixture
def players(seats):
    """A login for each seat of table 1, in seat order."""
    return [login_for(seat) for seat in seats]


def confirmed(table, players, number, **body):
    """Game ``number`` submitted by seat 0 and confirmed by seat 1."""
    result = result_submit(table=table, number=number, by=players[0], **body)
    return result_confirm(result=result, by=players[1])


@pytest.mark.django_db
def test_accepting_checks_again_against_the_previous_game_as_it_is_then(
        table, players, referee, record_1, record_2, result_2):
    # given games 1 (a record) and 2 (a sheet) confirmed, and seat 5's proposal to replace
    # game 2's sheet with its full record, which follows game 1's tributes
    game_1 = confirmed(table, players, 1, record=record_1)
    game_2 = confirmed(table, players, 2, sheet=sheet(result_2["order"]))
    proposal = result_correct(result=game_2, reason="the full record", record=record_2,
                              by=players[5]).proposal
    # when a referee corrects game 1 meanwhile (other places, so other tributes)
    result_correct(result=game_1, reason="places the wrong way round", by=referee,
                   as_referee=True, sheet=sheet(reversed(game_1.engine_result["order"])))
    # then accepting the proposal is refused by the engine, and nothing changes
    with pytest.raises(ServiceError) as info:
        result_proposal_accept(proposal=proposal, by=players[0])
    assert info.value.code == "wrong_previous"
    game_2.refresh_from_db()
    assert (game_2.status, game_2.version) == (GameResult.Status.CONFIRMED, 1)
    assert ResultProposal.objects.get(pk=proposal.pk).status == ResultProposal.Status.OPEN


@pytest.mark.django_db
def test_the_database_keeps_one_open_proposal_per_result(table, players):
    result = confirmed(table, players, 1, sheet=FIRST)
    first = result_correct(result=result, reason="mine", sheet=SEAT_5_FIRST,
                           by=players[5]).proposal
    second = dict(result=result, base_version=1, kind=first.kind, submission=first.submission,
                  engine_result=first.engine_result, points_a=0, points_b=2, reason="again")
    with pytest.raises(IntegrityError), transaction.atomic():
        ResultProposal.objects.create(**second)
    result_proposal_withdraw(proposal=first, by=players[5])
    assert ResultProposal.objects.create(**second).status == ResultProposal.Status.OPEN


# ----------------------------------------------------------------------------- at the same moment
def together(table_id: int, calls) -> list:
    """Run ``calls`` in threads (own database connections) released together: they queue on
    table 1's row lock, held here until all of them wait for it; return what each returned or
    raised."""
    out = [None] * len(calls)

    def run(i):
        try:
            out[i] = calls[i]()
        except Exception as exc:  # reported to the test
            out[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    with transaction.atomic():
        lock_table(table_id)
        start_behind_a_lock(threads)
    for t in threads:
        t.join(20)
    return out


@pytest.fixture
def proposal_race(db, table, players, referee):
    if not connection.features.has_select_for_update:
        pytest.skip("select_for_update is a no-op on this database (SQLite): the race tests "
                    "need PostgreSQL (set DATABASE_URL=postgres://…)")
    result = confirmed(table, players, 1, sheet=FIRST)
    proposal = result_correct(result=result, reason="I went out first", sheet=SEAT_5_FIRST,
                              by=players[5]).proposal
    return result, proposal


@pytest.mark.django_db(transaction=True)
def test_two_accepts_at_the_same_moment_apply_it_once(proposal_race, players, referee):
    result, proposal = proposal_race
    out = together(result.table_id, [
        lambda: result_proposal_accept(proposal=proposal, by=players[0]),
        lambda: result_proposal_accept(proposal=proposal, by=referee, as_referee=True)])
    assert all(isinstance(r, GameResult) and r.version == 2 for r in out), out
    assert GameResultVersion.objects.filter(result=result).count() == 2
    assert ResultProposal.objects.get(pk=proposal.pk).version == 2


@pytest.mark.django_db(transaction=True)
def test_an_accept_and_a_withdrawal_at_the_same_moment_close_it_once(proposal_race, players):
    result, proposal = proposal_race
    out = together(result.table_id, [
        lambda: result_proposal_accept(proposal=proposal, by=players[0]),
        lambda: result_proposal_withdraw(proposal=proposal, by=players[5])])
    # one of them closes it; the other finds it closed (409 proposal_closed)
    refused = [r for r in out if isinstance(r, ServiceError)]
    assert len(refused) == 1 and refused[0].code == "proposal_closed", out
    proposal.refresh_from_db()
    result.refresh_from_db()
    accepted = proposal.status == ResultProposal.Status.ACCEPTED
    assert proposal.status in (ResultProposal.Status.ACCEPTED, ResultProposal.Status.WITHDRAWN)
    assert result.version == (2 if accepted else 1)
    assert GameResultVersion.objects.filter(result=result).count() == result.version
