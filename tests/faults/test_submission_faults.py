"""Fault: duplicate and reordered result submissions over the HTTP API (PRODUCT.md, "Results";
games/services.py: ``result_submit`` / ``result_confirm`` / ``result_correct``).

Tablets retry, networks duplicate, and requests overtake each other. A retried submission (same
Idempotency-Key of the same user, or the same body) is answered with the stored result: 201
once, then 200 with the same id, and nothing is written. A different body under a used key, or
the key reused for another game, is 422 ``idempotency_key_reused``; a different result for a
game that has one is 409 ``already_submitted`` (corrections go through ``/correct/``).
Requests arriving out of order — game 2 before game 1, a confirmation after a correction, the
original submission retried after a correction or a confirmation, a duplicate after the
standings were computed — change nothing they should not: not the results, their versions,
their statuses, nor the standings.

Each test runs on a table of a drawn (and published) round: the fixtures of tests/api/conftest.py.
The concurrent tests need row locks (PostgreSQL, ``DATABASE_URL``) and skip on SQLite.
"""

from __future__ import annotations

import copy
import random
import threading
import time

import pytest
from django.db import connection, connections, transaction
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine.bots import play_match
from engine.game import RESULT_KEYS
from games import services as game_services
from games.models import GameResult, GameResultVersion
from tests.api import conftest as api_fixtures
from tests.api.helpers import client_for, error_of, seats_of, sheet
from tests.pg import backends_waiting_on_locks
from tournaments.models import Event, Standing, Table

# (standings are recomputed by a Celery task queued on commit: run in-process)
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]

# the fixtures of tests/api/conftest.py: a published event (dagang, 2 games per match), twelve
# checked-in players with logins, round 1 drawn and published, its table 1; the referee; an
# anonymous client; throttle counters emptied for every test
_fresh_cache = api_fixtures._fresh_cache
anon = api_fixtures.anon
organizer = api_fixtures.organizer
referee_user = api_fixtures.referee_user
event = api_fixtures.event
entries = api_fixtures.entries
drawn_round = api_fixtures.drawn_round
published_round = api_fixtures.published_round
table = api_fixtures.table
other_table = api_fixtures.other_table

FIRST = sheet([0, 1, 2, 3, 4, 5])  # 联邦 0 scores 2
SECOND = sheet([1, 0, 3, 2, 5, 4])  # 联邦 1 scores 2
THIRD = sheet([0, 2, 4, 1, 3, 5])  # 联邦 0 sweeps: 12
RETRIES = 5


@pytest.fixture
def seated(table):
    """The logins of table 1's seats, in seat order (联邦 0: seats 0, 2, 4)."""
    return [s.player.user for s in seats_of(table)]


@pytest.fixture(scope="module")
def match():
    """A real two-game match (records and results) played by the engine's bots."""
    return [(g.record(), g.result()) for g in play_match("dagang", 2, random.Random(7))]


@pytest.fixture(scope="module")
def other_match():
    """Another match: its game 2 follows a game 1 this table never played."""
    return [(g.record(), g.result()) for g in play_match("dagang", 2, random.Random(8))]


def results_url(table):
    return f"/api/v1/tables/{table.pk}/results/"


def submit(user, table, number=1, key=None, **body):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client_for(user).post(results_url(table), {"number": number, **body}, format="json",
                                 **headers)


def confirm(user, result_id, **body):
    return client_for(user).post(f"/api/v1/results/{result_id}/confirm/", body, format="json")


def correct(user, result_id, **body):
    return client_for(user).post(f"/api/v1/results/{result_id}/correct/", body, format="json")


def snapshot(table: Table) -> dict:
    """Everything a submission, confirmation or correction may change, for the whole event:
    results (with ``updated_at``: a no-op must not even save), their versions, the event's
    results and standings versions and digest, and the stored standings."""
    event = Event.objects.get(pk=table.round.event_id)
    return {
        "results": list(GameResult.objects.filter(table__round__event=event).order_by(
            "table", "number").values()),
        "versions": list(GameResultVersion.objects.filter(
            result__table__round__event=event).order_by("result", "version").values()),
        "event": (event.results_version, event.standings_version, event.standings_digest,
                  event.standings_results_version),
        "standings": list(Standing.objects.filter(event=event).order_by("entry").values()),
    }


def stored(table) -> tuple[int, int]:
    return (GameResult.objects.filter(table=table).count(),
            GameResultVersion.objects.filter(result__table=table).count())


def game_2_record(match, previous=True) -> dict:
    """Game 2's record of ``match``; with ``previous`` as the match's game 1 result, or none."""
    record = copy.deepcopy(match[1][0])
    if not previous:
        record.pop("previous", None)
    return record


# ----------------------------------------------------------------------------- retries
@pytest.mark.parametrize("kind", ["sheet", "record"])
def test_a_submission_retried_with_its_idempotency_key_is_stored_once(seated, table, match,
                                                                      kind):
    body = {"sheet": FIRST} if kind == "sheet" else {"record": match[0][0]}
    # given a submission answered 201
    first = submit(seated[0], table, key="tablet-3-g1", **body)
    assert first.status_code == 201, first.content
    after_first = snapshot(table)
    # when the tablet retries it N times with the same key
    again = [submit(seated[0], table, key="tablet-3-g1", **body) for _ in range(RETRIES)]
    # then every retry is 200 with the stored result, and nothing was written
    assert [r.status_code for r in again] == [200] * RETRIES
    assert all(r.json() == first.json() for r in again)
    assert stored(table) == (1, 1)
    assert snapshot(table) == after_first
    assert GameResultVersion.objects.get().idempotency_key == "tablet-3-g1"


@pytest.mark.parametrize("who", ["submitter", "teammate", "other side", "referee"])
def test_the_same_body_retried_without_a_key_is_stored_once(seated, table, referee_user, who):
    retrier = {"submitter": seated[0], "teammate": seated[2], "other side": seated[1],
               "referee": referee_user}[who]
    first = submit(seated[0], table, sheet=FIRST)
    assert first.status_code == 201, first.content
    after_first = snapshot(table)
    # the same body, without a key or with fresh keys (a client that makes one per attempt)
    again = [submit(retrier, table, sheet=FIRST, key=(f"fresh-{i}" if i % 2 else None))
             for i in range(RETRIES)]
    assert [r.status_code for r in again] == [200] * RETRIES
    assert {r.json()["id"] for r in again} == {first.json()["id"]}
    assert all(r.json()["submitted_by"] == seated[0].username for r in again)
    assert stored(table) == (1, 1)
    assert snapshot(table) == after_first


def test_a_keyed_submission_retried_without_its_key_is_stored_once(seated, table):
    first = submit(seated[0], table, key="k-1", sheet=FIRST)
    again = submit(seated[0], table, sheet=dict(FIRST, format="gouji-sheet/1"))  # same, spelt out
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert stored(table) == (1, 1)


# ----------------------------------------------------------------------------- key reused
@pytest.mark.parametrize("body", [
    {"number": 1, "sheet": SECOND},  # another finishing order
    {"number": 1, "sheet": dict(FIRST, kaidian=[True] * 5 + [False])},  # one flag differs
], ids=["other-order", "other-flag"])
def test_the_same_key_with_a_different_body_is_refused_and_changes_nothing(seated, table, body):
    first = submit(seated[0], table, key="tablet-3-g1", sheet=FIRST)
    assert first.status_code == 201
    before = snapshot(table)
    err = error_of(submit(seated[0], table, key="tablet-3-g1", **body), 422)
    assert err["code"] == "idempotency_key_reused"
    assert snapshot(table) == before


def test_the_same_key_with_a_record_instead_of_the_sheet_is_refused(seated, table, match):
    submit(seated[0], table, key="tablet-3-g1", sheet=FIRST)
    before = snapshot(table)
    err = error_of(submit(seated[0], table, key="tablet-3-g1", record=match[0][0]), 422)
    assert err["code"] == "idempotency_key_reused"
    assert snapshot(table) == before


def test_the_same_key_for_another_game_number_is_refused(seated, table):
    assert submit(seated[0], table, number=1, key="tablet-3", sheet=FIRST).status_code == 201
    before = snapshot(table)
    r = submit(seated[0], table, number=2, key="tablet-3", sheet=SECOND)
    assert error_of(r, 422)["code"] == "idempotency_key_reused"
    assert snapshot(table) == before


# ----------------------------------------------------------------------------- a different result
@pytest.mark.parametrize("state", ["submitted", "confirmed", "corrected"])
@pytest.mark.parametrize("who", ["other side", "referee"])
def test_a_different_result_for_a_game_with_one_is_a_conflict(seated, table, referee_user,
                                                              match, state, who):
    rid = submit(seated[0], table, sheet=FIRST).json()["id"]
    if state == "confirmed":
        assert confirm(seated[1], rid).status_code == 200
    elif state == "corrected":
        assert correct(seated[0], rid, reason="typo", sheet=THIRD).status_code == 200
    before = snapshot(table)
    sender = seated[1] if who == "other side" else referee_user
    for body in ({"sheet": SECOND}, {"record": match[0][0]}, {"sheet": THIRD}):
        # THIRD is the corrected version's sheet: still not the first submission's body
        err = error_of(submit(sender, table, **body), 409)
        assert err["code"] == "already_submitted"
        assert "correction" in err["message"]
    assert snapshot(table) == before


# ----------------------------------------------------------------------------- concurrent
def post_together(requests, url, hold_table=None):
    """POST each (user, body, key) of ``requests`` from its own thread and database connection
    (to ``url``, or to the request's own in a list of them), released together: by a barrier,
    or (``hold_table``) by releasing that table's row lock, which they all queue on. Returns
    [(status, json)]."""
    urls = url if isinstance(url, list) else [url] * len(requests)
    keys = [Token.objects.get_or_create(user=user)[0].key for user, _, _ in requests]
    out = [None] * len(requests)
    barrier = threading.Barrier(len(requests))

    def run(i):
        _, body, key = requests[i]
        client = APIClient(raise_request_exception=False)  # a server error is an answer
        client.credentials(HTTP_AUTHORIZATION=f"Token {keys[i]}")
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        try:
            barrier.wait(timeout=20)
            r = client.post(urls[i], body, format="json", **headers)
            try:
                out[i] = (r.status_code, r.json())
            except ValueError:
                out[i] = (r.status_code, r.content[:300])
        except BaseException as exc:  # reported by the caller
            out[i] = ("exception", repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(requests))]
    if hold_table is None:
        for t in threads:
            t.start()
    else:
        with transaction.atomic():
            Table.objects.select_for_update().get(pk=hold_table.pk)
            for t in threads:
                t.start()
            deadline = time.monotonic() + 20
            while backends_waiting_on_locks() < len(requests):
                assert time.monotonic() < deadline, "the requests did not reach the row lock"
                time.sleep(0.02)
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a request did not finish"
    return out


concurrent = pytest.mark.parametrize("hold", [False, True], ids=["barrier", "released-together"])


@pytest.fixture
def row_locks(transactional_db):
    if not connection.features.has_select_for_update:
        pytest.skip("select_for_update is a no-op on this database (SQLite): concurrent "
                    "submissions need PostgreSQL (set DATABASE_URL=postgres://…)")


@pytest.mark.django_db(transaction=True)
@concurrent
def test_concurrent_duplicates_are_stored_once(row_locks, seated, table, referee_user, hold):
    # given six copies of one submission, from the submitter (keyed and not), a teammate, the
    # other side and a referee, sent at the same moment
    requests = [(seated[0], {"number": 1, "sheet": FIRST}, "tablet-3-g1"),
                (seated[0], {"number": 1, "sheet": FIRST}, "tablet-3-g1"),
                (seated[0], {"number": 1, "sheet": FIRST}, None),
                (seated[2], {"number": 1, "sheet": FIRST}, None),
                (seated[1], {"number": 1, "sheet": FIRST}, "other-tablet"),
                (referee_user, {"number": 1, "sheet": FIRST}, None)]
    out = post_together(requests, results_url(table), hold_table=table if hold else None)
    # then exactly one is created and every other one answers with it
    codes = sorted(code for code, _ in out)
    assert codes == [200] * 5 + [201], out
    assert len({body["id"] for _, body in out}) == 1, out
    assert stored(table) == (1, 1)
    result = GameResult.objects.get()
    assert (result.status, result.version, result.points_a) == ("submitted", 1, 2)


@pytest.mark.django_db(transaction=True)
@concurrent
def test_concurrent_different_results_store_one(row_locks, seated, table, hold):
    # given two different results of game 1, each sent three times at the same moment
    requests = [(seated[i], {"number": 1, "sheet": FIRST if i % 2 == 0 else SECOND}, None)
                for i in range(6)]
    out = post_together(requests, results_url(table), hold_table=table if hold else None)
    # then exactly one is stored; its copies get it (200), the other result is a conflict
    created = [i for i, (code, _) in enumerate(out) if code == 201]
    assert len(created) == 1, out
    won = requests[created[0]][1]["sheet"]
    for (_, body, _), (code, answer) in zip(requests, out, strict=True):
        if body["sheet"] == won:
            assert code in (200, 201) and answer["id"] == out[created[0]][1]["id"], out
        else:
            assert (code, answer["error"]["code"]) == (409, "already_submitted"), out
    assert stored(table) == (1, 1)
    assert GameResultVersion.objects.get().payload["order"] == won["order"]


@pytest.mark.django_db(transaction=True)
def test_one_key_sent_at_once_to_two_tables_is_stored_once(row_locks, table, other_table,
                                                           referee_user, monkeypatch):
    # given a referee's tablet sending one Idempotency-Key with game 1 of two tables at once,
    # both requests past their first look-up of the key and each holding its own table's lock
    # before either stores anything
    both_locked = threading.Barrier(2)
    lock_table_row = game_services.lock_table_row

    def lock_then_wait(table_id):
        locked = lock_table_row(table_id)
        try:
            both_locked.wait(timeout=5)
        except threading.BrokenBarrierError:
            pass  # the other request is refused before it locks its table: nothing to wait for
        return locked

    monkeypatch.setattr(game_services, "lock_table_row", lock_then_wait)
    requests = [(referee_user, {"number": 1, "sheet": FIRST}, "referee-tablet"),
                (referee_user, {"number": 1, "sheet": SECOND}, "referee-tablet")]
    out = post_together(requests, [results_url(table), results_url(other_table)])
    # then one is stored and the other is refused as a reused key, storing nothing
    assert sorted(code for code, _ in out) == [201, 422], out
    refusal = next(body for code, body in out if code == 422)
    assert refusal["error"]["code"] == "idempotency_key_reused", out
    results = GameResult.objects.filter(table__round__event=table.round.event_id)
    assert results.count() == 1 and GameResultVersion.objects.filter(
        result__in=results).count() == 1


# ----------------------------------------------------------------------------- reordered
@pytest.mark.parametrize("previous", [True, False], ids=["own-previous", "no-previous"])
def test_a_record_of_game_2_before_game_1_is_refused(seated, table, match, previous):
    before = snapshot(table)
    r = submit(seated[0], table, number=2, record=game_2_record(match, previous))
    assert error_of(r, 400)["code"] == "previous_missing"
    assert snapshot(table) == before


def test_a_sheet_of_game_2_before_game_1_is_taken_and_game_1_follows(seated, table):
    # a result sheet does not depend on the previous game: it is taken in any order
    g2 = submit(seated[0], table, number=2, sheet=SECOND)
    assert g2.status_code == 201, g2.content
    g2_stored = snapshot(table)["results"]
    g1 = submit(seated[1], table, number=1, sheet=FIRST)
    assert g1.status_code == 201, g1.content
    assert stored(table) == (2, 2)
    assert snapshot(table)["results"][1] == g2_stored[0]  # game 2 untouched by game 1
    # and the late duplicate of game 2 is still a duplicate
    assert submit(seated[0], table, number=2, sheet=SECOND).status_code == 200
    assert stored(table) == (2, 2)


def test_game_2_submitted_after_game_1_is_checked_against_it(seated, table, match, other_match):
    # given game 2 sent before game 1 was refused or not sent at all, then game 1 arrives
    assert submit(seated[0], table, number=1, record=match[0][0]).status_code == 201
    before = snapshot(table)
    # when game 2 of another table's match arrives, its tributes follow another game 1
    err = error_of(submit(seated[0], table, number=2, record=game_2_record(other_match)), 400)
    assert err["code"] == "wrong_previous"
    r = submit(seated[0], table, number=2, record=game_2_record(other_match, previous=False))
    assert r.status_code == 422, r.content  # the engine checks its tributes against game 1
    error_of(r, 422)
    assert snapshot(table) == before
    # then this table's own game 2 is taken, scored against the stored game 1
    r = submit(seated[0], table, number=2, record=game_2_record(match, previous=False))
    assert r.status_code == 201, r.content
    body = r.json()
    assert [body["points_a"], body["points_b"]] == match[1][1]["team_points"]
    assert body["places"] == match[1][1]["places"]
    game_1 = GameResult.objects.get(table=table, number=1).engine_result
    # (read by the table: the public sees a record once it is confirmed)
    stored_version = client_for(seated[1]).get(
        body["url"]).json()["versions"][0]
    assert stored_version["payload"]["previous"] == {
        k: v for k, v in game_1.items() if k in RESULT_KEYS}
    assert stored(table) == (2, 2)


def test_a_confirmation_after_a_referees_correction_changes_nothing(seated, table,
                                                                    referee_user):
    rid = submit(seated[0], table, sheet=FIRST).json()["id"]
    # the other side reads version 1 to confirm it; a referee corrects it meanwhile
    assert correct(referee_user, rid, reason="checked with the table",
                   sheet=SECOND).status_code == 200
    before = snapshot(table)
    # when the other side's confirmation of version 1 arrives
    r = confirm(seated[1], rid)
    # then it is answered with the result as it stands: the referee's version, confirmed by
    # the referee; nothing is written
    assert r.status_code == 200, r.content
    assert (r.json()["version"], r.json()["status"], r.json()["confirmed_by"]) == (
        2, "confirmed", referee_user.username)
    assert snapshot(table) == before


def test_a_confirmation_from_the_correctors_side_after_a_correction_is_refused(seated, table):
    rid = submit(seated[0], table, sheet=FIRST).json()["id"]
    # seat 3 (联邦 1) reads version 1; seat 1 (联邦 1) corrects it meanwhile
    assert correct(seated[1], rid, reason="seats swapped", sheet=SECOND).status_code == 200
    before = snapshot(table)
    # seat 3's confirmation would confirm its own side's version: two-person rule
    err = error_of(confirm(seated[3], rid), 403)
    assert err["code"] == "forbidden" and "other 联邦" in err["message"]
    assert snapshot(table) == before


def test_a_confirmation_of_an_older_version_does_not_confirm_the_correction(seated, table):
    rid = submit(seated[0], table, sheet=FIRST).json()["id"]
    # seat 1 (the other side) reads version 1 to confirm it; seat 0 corrects it meanwhile
    assert correct(seated[0], rid, reason="typo", sheet=THIRD).status_code == 200
    before = snapshot(table)
    # when seat 1's confirmation of version 1 arrives
    r = confirm(seated[1], rid, version=1)
    # then it is refused as stale: version 2 still awaits the other side's confirmation
    assert error_of(r, 409)["code"] == "stale_version"
    assert snapshot(table) == before


@pytest.mark.parametrize("corrector", ["player", "referee"])
@pytest.mark.parametrize("key", ["tablet-3-g1", None], ids=["keyed", "unkeyed"])
def test_the_original_submission_retried_after_a_correction_changes_nothing(
        seated, table, referee_user, corrector, key):
    first = submit(seated[0], table, key=key, sheet=FIRST)
    rid = first.json()["id"]
    by = seated[1] if corrector == "player" else referee_user
    assert correct(by, rid, reason="seats swapped", sheet=SECOND).status_code == 200
    before = snapshot(table)
    # when the tablet's retry of the original submission arrives late
    r = submit(seated[0], table, key=key, sheet=FIRST)
    # then it is answered with the corrected result: not undone, no version added
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["id"], body["version"], body["points_a"], body["points_b"]) == (rid, 2, 0, 2)
    assert [v["version"] for v in APIClient().get(body["url"]).json()["versions"]] == [1, 2]
    assert snapshot(table) == before


def _game_2_on_a_corrected_game_1(seated, table, referee_user, match, key, previous):
    """Games 1 and 2 submitted as records (game 2 with ``key``), then game 1 corrected by a
    referee: game 2 was checked against a game 1 that is no longer the stored one."""
    rid = submit(seated[0], table, number=1, record=match[0][0]).json()["id"]
    g2 = submit(seated[0], table, number=2, key=key, record=game_2_record(match, previous))
    assert g2.status_code == 201, g2.content
    assert correct(referee_user, rid, reason="wrong seat order", sheet=SECOND).status_code == 200
    return g2.json()


@pytest.mark.parametrize("previous", [True, False], ids=["own-previous", "no-previous"])
@pytest.mark.parametrize("key", ["tablet-3-g2", None], ids=["keyed", "unkeyed"])
def test_a_retry_of_game_2_after_game_1_was_corrected_changes_nothing(
        seated, table, referee_user, match, key, previous):
    _game_2_on_a_corrected_game_1(seated, table, referee_user, match, key, previous)
    before = snapshot(table)
    # when the tablet's retry of game 2 (byte for byte the same request) arrives
    r = submit(seated[0], table, number=2, key=key, record=game_2_record(match, previous))
    # then nothing is written, whatever the answer (see the next test for which it should be)
    assert r.status_code in (200, 400, 422), r.content
    if r.status_code != 200:
        assert error_of(r, r.status_code)["code"] in ("wrong_previous", "bad_pre")
    assert snapshot(table) == before


@pytest.mark.parametrize("previous", [True, False], ids=["own-previous", "no-previous"])
def test_a_keyed_retry_of_game_2_after_game_1_was_corrected_gets_the_stored_result(
        seated, table, referee_user, match, previous):
    g2 = _game_2_on_a_corrected_game_1(seated, table, referee_user, match, "tablet-3-g2",
                                       previous)
    before = snapshot(table)
    r = submit(seated[0], table, number=2, key="tablet-3-g2",
               record=game_2_record(match, previous))
    assert (r.status_code, r.json().get("id")) == (200, g2["id"]), r.content
    assert snapshot(table) == before


@pytest.mark.parametrize("key", ["tablet-3-g1", None], ids=["keyed", "unkeyed"])
def test_a_stale_retry_after_the_confirmation_changes_nothing(seated, table, key):
    rid = submit(seated[0], table, key=key, sheet=FIRST).json()["id"]
    assert confirm(seated[1], rid).status_code == 200
    before = snapshot(table)
    for _ in range(RETRIES):
        r = submit(seated[0], table, key=key, sheet=FIRST)
        assert r.status_code == 200, r.content
        assert (r.json()["id"], r.json()["status"], r.json()["confirmed_by"]) == (
            rid, "confirmed", seated[1].username)
    # and a late second confirmation (the other side's teammate) is a no-op too
    assert confirm(seated[3], rid).json()["confirmed_by"] == seated[1].username
    assert snapshot(table) == before


def test_a_late_duplicate_after_the_standings_were_computed_leaves_them(seated, table, match,
                                                                        referee_user, anon):
    # given both games of table 1 submitted as records and confirmed: standings computed
    ids = []
    for number, (record, _) in enumerate(match, start=1):
        r = submit(seated[0], table, number=number, key=f"tablet-3-g{number}", record=record)
        assert r.status_code == 201, r.content
        ids.append(r.json()["id"])
        assert confirm(seated[1], ids[-1]).status_code == 200
    event = Event.objects.get(pk=table.round.event_id)
    assert event.standings_digest and event.standings_results_version == event.results_version
    assert Standing.objects.filter(event=event, games_played=2).count() == 6
    before = snapshot(table)
    etag = anon.get(f"/api/v1/events/{event.slug}/standings/")["ETag"]
    # when late duplicates of every submission and confirmation arrive
    for number, (record, _) in enumerate(match, start=1):
        for key, user in ((f"tablet-3-g{number}", seated[0]), (None, seated[4]),
                          (None, referee_user)):
            r = submit(user, table, number=number, key=key, record=record)
            assert (r.status_code, r.json()["id"]) == (200, ids[number - 1]), r.content
        assert confirm(seated[3], ids[number - 1]).status_code == 200
        assert confirm(referee_user, ids[number - 1]).status_code == 200
    # then nothing moved: results, versions, results version, standings and their digest
    assert snapshot(table) == before
    again = anon.get(f"/api/v1/events/{event.slug}/standings/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
