"""Disputes (异议) of a submitted result (games/services.py: ``result_dispute``; issue 16): a
player of the other 联邦 disputes with a reason, the result counts for nothing until a referee
settles it by confirming or correcting it, and every step stays in its history."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from games.models import GameResult, ResultDispute
from games.selectors import result_history
from games.services import result_confirm, result_correct, result_dispute, result_submit
from tests.games import test_result_proposals as proposals
from tests.games import test_services as base
from tournaments.errors import Conflict, Forbidden, ServiceError
from tournaments.standings import compute

drawn_round = base.drawn_round
table = base.table
seats = base.seats
players = proposals.players
sheet = base.sheet
FIRST = proposals.FIRST  # 联邦 0 scores 12
SEAT_5_FIRST = proposals.SEAT_5_FIRST

pytestmark = pytest.mark.django_db


@pytest.fixture
def submitted(table, players):
    """Game 1 submitted by seat 0 (联邦 0)."""
    return result_submit(table=table, number=1, by=players[0], sheet=FIRST)


@pytest.fixture
def disputed(submitted, players):
    return result_dispute(result=submitted, by=players[1], reason="seat 5 went out first")


def points_of(event) -> dict:
    """Each entry's points as the standings count them now."""
    return {row.entry_id: row.points for row in compute(event)}


def test_a_player_of_the_other_side_disputes_and_it_counts_for_nothing(submitted, players):
    event = submitted.table.round.event
    before = points_of(event)
    result = result_dispute(result=submitted, by=players[3], reason="  seat 5 went out first ")
    assert result.status == GameResult.Status.DISPUTED
    dispute = ResultDispute.objects.get(result=result)
    assert (dispute.version, dispute.reason, dispute.raised_by) == (
        1, "seat 5 went out first", players[3])
    assert points_of(event) == before  # nothing counted, as before the dispute
    assert [s["step"] for s in result_history(result)] == ["submitted", "disputed"]


@pytest.mark.parametrize("who, code", [(0, "own_submission"), (2, "same_side"),
                                       (4, "same_side")])
def test_the_submitters_side_cannot_dispute(submitted, players, who, code):
    with pytest.raises(Forbidden) as info:
        result_dispute(result=submitted, by=players[who], reason="no")
    assert info.value.code == code
    assert GameResult.objects.get(pk=submitted.pk).status == GameResult.Status.SUBMITTED
    assert not ResultDispute.objects.exists()


def test_someone_not_at_the_table_cannot_dispute(submitted, referee):
    with pytest.raises(Forbidden) as info:
        result_dispute(result=submitted, by=referee, reason="no")
    assert info.value.code == "not_at_table"


def test_a_dispute_needs_a_reason(submitted, players):
    with pytest.raises(ServiceError) as info:
        result_dispute(result=submitted, by=players[1], reason="   ")
    assert info.value.code == "reason_required"
    assert GameResult.objects.get(pk=submitted.pk).status == GameResult.Status.SUBMITTED


def test_a_confirmed_result_cannot_be_disputed(submitted, players):
    result_confirm(result=submitted, by=players[1])
    with pytest.raises(Conflict) as info:
        result_dispute(result=submitted, by=players[3], reason="too late")
    assert (info.value.code, info.value.detail) == ("not_submitted", {"status": "confirmed"})


def test_the_same_dispute_again_changes_nothing_another_is_refused(disputed, players):
    again = result_dispute(result=disputed, by=players[1], reason="seat 5 went out first")
    assert again.status == GameResult.Status.DISPUTED
    with pytest.raises(Conflict):
        result_dispute(result=disputed, by=players[3], reason="another reason")
    assert ResultDispute.objects.count() == 1


def test_players_can_neither_confirm_nor_correct_a_disputed_result(disputed, players):
    with pytest.raises(Forbidden) as info:
        result_confirm(result=disputed, by=players[3])
    assert info.value.code == "disputed_referee_only"
    with pytest.raises(Forbidden) as info:
        result_correct(result=disputed, by=players[0], reason="fix", sheet=SEAT_5_FIRST)
    assert info.value.code == "disputed_referee_only"
    disputed.refresh_from_db()
    assert (disputed.status, disputed.version) == (GameResult.Status.DISPUTED, 1)


def test_a_referee_settles_by_confirming_and_then_it_counts(disputed, referee):
    event = disputed.table.round.event
    result = result_confirm(result=disputed, by=referee, as_referee=True,
                            reason="the sheet is right")
    assert result.status == GameResult.Status.CONFIRMED
    dispute = ResultDispute.objects.get(result=result)
    assert (dispute.settlement, dispute.settled_by, dispute.settlement_reason,
            dispute.settled_version) == ("confirmed", referee, "the sheet is right", 1)
    assert sum(points_of(event).values()) > 0
    steps = [(s["step"], s["settlement"]) for s in result_history(result)]
    assert steps == [("submitted", ""), ("disputed", ""), ("settled", "confirmed")]


def test_a_referee_settles_by_correcting(disputed, referee):
    result = result_correct(result=disputed, by=referee, as_referee=True,
                            reason="seat 5 did go out first", sheet=SEAT_5_FIRST)
    assert (result.status, result.version) == (GameResult.Status.CONFIRMED, 2)
    assert result.places != disputed.places  # seat 5 first now
    dispute = ResultDispute.objects.get(result=result)
    assert (dispute.settlement, dispute.settled_version) == ("corrected", 2)
    history = result_history(result)
    assert [s["step"] for s in history] == ["submitted", "disputed", "corrected", "settled"]
    assert history[-1]["reason"] == "seat 5 did go out first"


def test_a_settled_result_can_be_disputed_again_only_after_a_new_submission(
        disputed, referee, players):
    result_confirm(result=disputed, by=referee, as_referee=True)
    with pytest.raises(Conflict):
        result_dispute(result=disputed, by=players[1], reason="still wrong")


def test_the_database_keeps_one_open_dispute_per_result(disputed, players):
    with pytest.raises(IntegrityError), transaction.atomic():
        ResultDispute.objects.create(result=disputed, version=1, reason="two",
                                     raised_by=players[3])

