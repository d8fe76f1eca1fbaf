"""What a submission is (games/services.py ``result_submit``): the digest of what the client sent
recognises a retry before the engine replays anything; an Idempotency-Key names one submission
of its user; a full record of game N needs game N-1's result (its tributes decide game N's
start); a confirmation may name the version it confirms."""

from __future__ import annotations

import pytest
from django.db import connection

from games import services as game_services
from games.models import GameResult, GameResultVersion
from games.services import (
    result_confirm,
    result_correct,
    result_submit,
    submission_digest,
)
from tests.factories import UserFactory
from tests.games import test_services as base
from tournaments.errors import Conflict, ServiceError

pytestmark = pytest.mark.django_db

# the fixtures and helpers of tests/games/test_services.py: table 1 (and 2) of a drawn round of
# a 14-player event, its seats, a bot-played two-game match (records of games 1 and 2)
drawn_round = base.drawn_round
table = base.table
other_table = base.other_table
seats = base.seats
match = base.match
record_1 = base.record_1
record_2 = base.record_2
login_for = base.login_for
sheet = base.sheet
stored_counts = base.stored_counts

FIRST = sheet([0, 2, 4, 1, 3, 5])
SECOND = sheet([1, 3, 5, 0, 2, 4])


def refused(call, *, code, status):
    before = stored_counts()
    with pytest.raises(ServiceError) as info:
        call()
    assert (info.value.code, info.value.status) == (code, status)
    assert stored_counts() == before
    return info.value


# ----------------------------------------------------------------------------- previous game
def test_a_record_of_game_2_before_game_1_is_refused(table, referee, record_2):
    refused(lambda: result_submit(table=table, number=2, record=record_2, by=referee),
            code="previous_missing", status=400)


def test_a_record_of_game_2_without_its_own_previous_before_game_1_is_refused(
        table, referee, record_2):
    record_2.pop("previous", None)
    refused(lambda: result_submit(table=table, number=2, record=record_2, by=referee),
            code="previous_missing", status=400)


def test_a_record_of_game_2_after_game_1_is_taken(table, referee, record_1, record_2):
    result_submit(table=table, number=1, record=record_1, by=referee)
    assert result_submit(table=table, number=2, record=record_2, by=referee).created


def test_a_record_of_game_2_is_checked_under_the_tables_lock(table, referee, record_1, record_2,
                                                            monkeypatch):
    # a correction of game 1 takes the table's lock too (result_correct), so it cannot land
    # between the engine's check of game 2 against game 1 and game 2's insert: the check runs
    # inside the submission's transaction, after the table is locked
    result_submit(table=table, number=1, record=record_1, by=referee)
    steps = []
    lock, validate = game_services.lock_table_row, game_services.result_validate

    def locking(table_id):
        steps.append(("lock", table_id))
        return lock(table_id)

    def validating(**kwargs):
        steps.append(("validate", connection.in_atomic_block))
        return validate(**kwargs)

    monkeypatch.setattr(game_services, "lock_table_row", locking)
    monkeypatch.setattr(game_services, "result_validate", validating)
    assert result_submit(table=table, number=2, record=record_2, by=referee).created
    assert steps == [("lock", table.pk), ("validate", True)]


def test_a_record_of_game_2_is_checked_against_game_1_as_corrected(table, referee, record_1,
                                                                   record_2):
    game_1 = result_submit(table=table, number=1, record=record_1, by=referee)
    reverse = list(reversed(game_1.engine_result["order"]))
    result_correct(result=game_1, reason="places the wrong way round", sheet=sheet(reverse),
                   by=referee, as_referee=True)
    # game 2's tributes follow game 1 as first submitted, not as corrected
    refused(lambda: result_submit(table=table, number=2, record=record_2, by=referee),
            code="wrong_previous", status=400)


def test_a_correction_of_game_2_as_a_record_needs_game_1(table, referee, record_2):
    # a sheet of game 2 is taken before game 1; a record replacing it is not
    result = result_submit(table=table, number=2, sheet=FIRST, by=referee)
    refused(lambda: result_correct(result=result, reason="the full record", record=record_2,
                                   by=referee, as_referee=True),
            code="previous_missing", status=400)


# ----------------------------------------------------------------------------- digest
def test_the_digest_of_what_was_sent_is_stored(table, referee, record_1):
    result = result_submit(table=table, number=1, record=record_1, by=referee)
    version = result.versions.get()
    assert version.submission_digest == submission_digest(number=1, record=record_1)
    assert len(version.submission_digest) == 64
    # the same body with its keys in another order is the same submission
    assert submission_digest(number=1, record=dict(reversed(list(record_1.items())))) == (
        version.submission_digest)
    assert submission_digest(number=2, record=record_1) != version.submission_digest
    assert submission_digest(number=1, sheet=record_1) != version.submission_digest
    assert submission_digest(number=1) == submission_digest(number=1, sheet={}, record={}) == ""


@pytest.mark.parametrize("key", ["k-1", ""], ids=["keyed", "unkeyed"])
def test_a_retry_is_answered_without_the_engine(table, referee, record_1, key, monkeypatch):
    first = result_submit(table=table, number=1, record=record_1, by=referee,
                          idempotency_key=key)
    monkeypatch.setattr(game_services.engine, "replay",
                        lambda *a, **k: pytest.fail("the engine replayed a retry"))
    again = result_submit(table=table, number=1, record=record_1, by=referee,
                          idempotency_key=key)
    assert (again.pk, again.created) == (first.pk, False)
    assert stored_counts() == (1, 1)


def test_a_version_stored_before_digests_is_matched_by_its_payload(table, referee):
    first = result_submit(table=table, number=1, sheet=FIRST, by=referee, idempotency_key="k")
    GameResultVersion.objects.update(submission_digest="")
    for key in ("k", ""):
        again = result_submit(table=table, number=1, sheet=FIRST, by=referee,
                              idempotency_key=key)
        assert (again.pk, again.created) == (first.pk, False)
    refused(lambda: result_submit(table=table, number=1, sheet=SECOND, by=referee,
                                  idempotency_key="k"),
            code="idempotency_key_reused", status=422)
    refused(lambda: result_submit(table=table, number=1, sheet=SECOND, by=referee),
            code="already_submitted", status=409)


def test_the_same_sheet_spelt_out_is_the_same_submission(table, referee):
    first = result_submit(table=table, number=1, sheet=FIRST, by=referee, idempotency_key="k")
    again = result_submit(table=table, number=1, by=referee, idempotency_key="k",
                          sheet=dict(FIRST, format="gouji-sheet/1"))
    assert (again.pk, again.created) == (first.pk, False)


# ----------------------------------------------------------------------------- idempotency keys
def test_a_key_reused_for_another_game_is_refused_before_the_engine(table, other_table,
                                                                   referee, monkeypatch):
    result_submit(table=table, number=1, sheet=FIRST, by=referee, idempotency_key="tablet-3")
    monkeypatch.setattr(game_services.engine, "score_sheet",
                        lambda *a, **k: pytest.fail("the engine scored a reused key"))
    for where, number, body in ((other_table, 1, FIRST), (other_table, 1, SECOND),
                                (table, 2, FIRST), (table, 2, SECOND)):
        refused(lambda where=where, number=number, body=body: result_submit(
            table=where, number=number, sheet=body, by=referee, idempotency_key="tablet-3"),
            code="idempotency_key_reused", status=422)


def test_a_key_names_a_submission_of_its_user_only(table, other_table, referee):
    result_submit(table=table, number=1, sheet=FIRST, by=referee, idempotency_key="tablet-3")
    other = result_submit(table=other_table, number=1, sheet=FIRST, by=UserFactory(),
                          idempotency_key="tablet-3")
    assert other.created and stored_counts() == (2, 2)


def test_a_key_reused_before_the_fix_still_finds_its_own_game(table, referee):
    # two games stored under one key (as the service allowed before keys named one
    # submission): a retry of either is still answered with its own result
    g1 = result_submit(table=table, number=1, sheet=FIRST, by=referee, idempotency_key="k")
    g2 = result_submit(table=table, number=2, sheet=SECOND, by=referee)
    GameResultVersion.objects.filter(result=g2).update(idempotency_key="k",
                                                       submitted_by=referee)
    for number, body, result in ((1, FIRST, g1), (2, SECOND, g2)):
        again = result_submit(table=table, number=number, sheet=body, by=referee,
                              idempotency_key="k")
        assert (again.pk, again.created) == (result.pk, False)


# ----------------------------------------------------------------------------- confirmation
def test_a_confirmation_naming_the_current_version_confirms(table, seats, referee):
    submitter, confirmer = login_for(seats[0]), login_for(seats[1])
    result = result_submit(table=table, number=1, sheet=FIRST, by=submitter)
    result = result_correct(result=result, reason="typo", sheet=SECOND, by=submitter)
    confirmed = result_confirm(result=result, by=confirmer, version=2)
    assert (confirmed.status, confirmed.version) == ("confirmed", 2)
    # and naming it again is the no-op it was without a version
    assert result_confirm(result=result, by=referee, as_referee=True, version=2
                          ).confirmed_by == confirmer


def test_a_confirmation_naming_an_older_version_changes_nothing(table, seats):
    submitter, confirmer = login_for(seats[0]), login_for(seats[1])
    result = result_submit(table=table, number=1, sheet=FIRST, by=submitter)
    result_correct(result=result, reason="typo", sheet=SECOND, by=submitter)
    before = GameResult.objects.values().get()
    with pytest.raises(Conflict) as info:
        result_confirm(result=result, by=confirmer, version=1)
    assert (info.value.code, info.value.detail) == ("stale_version", {"version": 2})
    assert GameResult.objects.values().get() == before
