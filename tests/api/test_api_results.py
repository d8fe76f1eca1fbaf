"""Game results over HTTP: a table's players (or the event's referees) submit a result sheet or
a full record; the engine validates it (422 with its reason, nothing stored); duplicates are
answered with the stored result; the other 联邦 or a referee confirms (two-person rule);
corrections keep every version. Also the referees' penalties."""

from __future__ import annotations

import copy
import random

import pytest

from engine.bots import play_match
from engine.game import RESULT_KEYS
from games.models import GameResult, GameResultVersion
from tests.api.helpers import client_for, error_of, seats_of, sheet
from tournaments.models import Penalty, Standing

pytestmark = pytest.mark.django_db

FIRST = sheet([0, 1, 2, 3, 4, 5])  # 联邦 0 scores 2
SECOND = sheet([1, 0, 3, 2, 5, 4])  # 联邦 1 scores 2


def results_url(table):
    return f"/api/v1/tables/{table.pk}/results/"


def submit(user, table, number=1, key=None, **body):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client_for(user).post(results_url(table), {"number": number, **body}, format="json",
                                 **headers)


def stored():
    return GameResult.objects.count(), GameResultVersion.objects.count()


@pytest.fixture
def seated(table):
    """The logins of table 1's seats, in seat order (联邦 0: seats 0, 2, 4)."""
    return [s.player.user for s in seats_of(table)]


@pytest.fixture
def elsewhere(other_table):
    """A player seated at table 2 of the same round."""
    return seats_of(other_table)[0].player.user


@pytest.fixture
def match():
    """A real two-game match (full records and results) played by the engine's bots."""
    return [(g.record(), g.result()) for g in play_match("dagang", 2, random.Random(7))]


@pytest.fixture
def submitted(seated, table):
    """Game 1 of table 1 submitted as a sheet by the player in seat 0."""
    r = submit(seated[0], table, sheet=FIRST)
    assert r.status_code == 201, r.content
    return GameResult.objects.get(pk=r.json()["id"])


# ----------------------------------------------------------------------------- submit
def test_seated_player_submits_a_result_sheet(seated, table):
    r = submit(seated[0], table, sheet=FIRST)
    assert r.status_code == 201, r.content
    body = r.json()
    assert (body["table"], body["number"], body["status"], body["version"]) == (
        table.pk, 1, "submitted", 1)
    assert (body["points_a"], body["points_b"]) == (2, 0)
    assert body["places"] == [1, 2, 3, 4, 5, 6]
    # a short answer: what was submitted and by whom; every version at the result's url
    assert (body["kind"], body["submitted_by"]) == ("sheet", seated[0].username)
    versions = client_for(None).get(body["url"]).json()["versions"]
    assert [(v["kind"], v["submitted_by"]) for v in versions] == [("sheet", seated[0].username)]
    assert stored() == (1, 1)


def test_seated_player_submits_full_records_game_after_game(seated, table, match):
    for number, (record, result) in enumerate(match, start=1):
        r = submit(seated[1], table, number=number, record=record)
        assert r.status_code == 201, r.content
        body = r.json()
        assert [body["points_a"], body["points_b"]] == result["team_points"]
        assert body["places"] == result["places"]
        assert body["kind"] == "record"
        assert body["engine_result"]["complete"] is True
    assert stored() == (2, 2)
    listed = client_for(None).get(results_url(table)).json()
    assert [x["number"] for x in listed] == [1, 2]


@pytest.mark.parametrize("who", ["referee_user", "organizer"])
def test_event_staff_submit_for_any_table(user_of, who, table):
    assert submit(user_of(who), table, sheet=FIRST).status_code == 201


@pytest.mark.parametrize("who", ["stranger", "other_referee"])
def test_outsiders_cannot_submit(user_of, who, table):
    err = error_of(submit(user_of(who), table, sheet=FIRST), 403)
    assert err["code"] == "forbidden"
    assert stored() == (0, 0)


def test_player_of_another_table_cannot_submit(elsewhere, table):
    error_of(submit(elsewhere, table, sheet=FIRST), 403)
    assert stored() == (0, 0)


def test_anonymous_cannot_submit(table):
    error_of(submit(None, table, sheet=FIRST), 401)
    assert stored() == (0, 0)


def test_nobody_but_staff_submits_before_the_seating_is_published(drawn_round, referee_user):
    table = drawn_round.tables.get(number=1)
    player = seats_of(table)[0].player.user
    error_of(submit(player, table, sheet=FIRST), 404)
    assert submit(referee_user, table, sheet=FIRST).status_code == 201


# ----------------------------------------------------------------------------- refusals
def test_impossible_sheet_is_refused_with_the_engine_reason(seated, table):
    r = submit(seated[0], table, sheet=sheet([0, 1, 2, 3, 4, 4]))
    err = error_of(r, 422)
    assert err["code"] == "bad_format"
    assert err["detail"]["code"] == "bad_format" and err["detail"]["where"] == "sheet"
    assert "index" in err["detail"] and err["detail"]["message"] == err["message"]
    assert "six seats" in err["message"]
    assert stored() == (0, 0)


def test_sheet_without_kaidian_flags_is_refused(seated, table):
    err = error_of(submit(seated[0], table, sheet={"order": [0, 1, 2, 3, 4, 5]}), 422)
    assert "kaidian" in err["message"] and err["detail"]["where"] == "sheet"
    assert stored() == (0, 0)


def test_illegal_record_is_refused_with_the_action_index(seated, table, match):
    record = copy.deepcopy(match[0][0])
    turn = record["actions"][2]["seat"]
    record["actions"][2]["seat"] = (turn + 1) % 6
    err = error_of(submit(seated[0], table, record=record), 422)
    assert err["code"] == "not_your_turn"
    assert err["detail"]["where"] == "actions" and err["detail"]["index"] == 2
    assert err["detail"]["seat"] == (turn + 1) % 6
    assert err["detail"]["message"] == err["message"]
    assert stored() == (0, 0)


def test_unfinished_record_is_refused(seated, table, match):
    record = copy.deepcopy(match[0][0])
    record["actions"] = record["actions"][:10]
    err = error_of(submit(seated[0], table, record=record), 422)
    assert err["code"] == "record_unfinished"
    assert stored() == (0, 0)


def test_record_of_game_2_must_follow_the_stored_game_1(seated, table, match):
    # given game 1 stored from a different deal than the record of game 2 follows
    assert submit(seated[0], table, sheet=SECOND).status_code == 201
    # when game 2's record is submitted
    r = submit(seated[0], table, number=2, record=match[1][0])
    # then it is refused (its previous game is not the stored one)
    assert error_of(r, 400)["code"] == "wrong_previous"
    assert stored() == (1, 1)


@pytest.mark.parametrize("previous", ["abc", [1, 2], 7])
def test_record_whose_previous_is_not_an_object_is_refused(seated, table, match, previous):
    # given game 1 stored
    assert submit(seated[0], table, record=match[0][0]).status_code == 201
    # when game 2's record names a previous game that is not a result object
    r = submit(seated[0], table, number=2, record={**match[1][0], "previous": previous})
    # then it is refused in the error shape (not a server error) and nothing is stored
    assert r.status_code in (400, 422), r.status_code
    error_of(r, r.status_code)
    assert stored() == (1, 1)


@pytest.mark.parametrize("body, code", [
    ({"number": 3, "sheet": FIRST}, "bad_game_number"),
    ({"number": 1, "sheet": {**FIRST, "rules": "basic"}}, "wrong_rules"),
    ({"number": 1, "sheet": [0, 1, 2]}, "bad_sheet"),
    ({"number": 1, "record": "moves"}, "bad_record"),
])
def test_submissions_the_event_cannot_take(seated, table, body, code):
    r = client_for(seated[0]).post(results_url(table), body, format="json")
    assert error_of(r, 400)["code"] == code
    assert stored() == (0, 0)


@pytest.mark.parametrize("body", [
    {"number": 1},
    {"number": 1, "sheet": FIRST, "record": {"format": "gouji-record/1"}},
    {"sheet": FIRST},
    {"number": 0, "sheet": FIRST},
])
def test_malformed_submissions_are_field_errors(seated, table, body):
    err = error_of(client_for(seated[0]).post(results_url(table), body, format="json"), 400)
    assert err["code"] == "invalid"
    assert stored() == (0, 0)


# ----------------------------------------------------------------------------- duplicates
def test_same_idempotency_key_returns_the_stored_result(seated, table):
    first = submit(seated[0], table, key="tablet-7-game-1", sheet=FIRST)
    again = submit(seated[0], table, key="tablet-7-game-1", sheet=FIRST)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert stored() == (1, 1)


def test_same_table_and_game_with_the_same_body_returns_the_stored_result(seated, table):
    first = submit(seated[0], table, sheet=FIRST)
    # the same sheet, sent again by a teammate without a key
    again = submit(seated[2], table, sheet=FIRST)
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert again.json()["submitted_by"] == seated[0].username
    assert stored() == (1, 1)


def test_same_table_and_game_with_a_different_body_is_a_conflict(seated, table):
    first = submit(seated[0], table, sheet=FIRST)
    err = error_of(submit(seated[1], table, sheet=SECOND), 409)
    assert err["code"] == "already_submitted"
    assert stored() == (1, 1)
    assert GameResult.objects.get(pk=first.json()["id"]).points_a == 2


def test_same_key_with_a_different_body_is_refused(seated, table):
    submit(seated[0], table, key="k-1", sheet=FIRST)
    err = error_of(submit(seated[0], table, key="k-1", sheet=SECOND), 422)
    assert err["code"] == "idempotency_key_reused"
    assert stored() == (1, 1)


def test_idempotency_keys_are_per_user(seated, table):
    """Another user's identical key does not replay or reuse the first user's submission."""
    submit(seated[0], table, key="shared", sheet=FIRST)
    err = error_of(submit(seated[1], table, key="shared", sheet=SECOND), 409)
    assert err["code"] == "already_submitted"
    assert stored() == (1, 1)


# ----------------------------------------------------------------------------- confirm
def confirm(user, result):
    return client_for(user).post(f"/api/v1/results/{result.pk}/confirm/")


def test_a_player_of_the_other_side_confirms(seated, submitted):
    r = confirm(seated[1], submitted)
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "confirmed"
    assert r.json()["confirmed_by"] == seated[1].username and r.json()["confirmed_at"]
    again = confirm(seated[3], submitted)
    assert again.status_code == 200 and again.json()["confirmed_by"] == seated[1].username


def test_the_submitter_cannot_confirm(seated, submitted):
    err = error_of(confirm(seated[0], submitted), 403)
    assert err["code"] == "forbidden" and "submitter" in err["message"]
    submitted.refresh_from_db()
    assert submitted.status == GameResult.Status.SUBMITTED


@pytest.mark.parametrize("teammate", [2, 4])
def test_the_submitters_side_cannot_confirm(seated, submitted, teammate):
    err = error_of(confirm(seated[teammate], submitted), 403)
    assert "other 联邦" in err["message"]
    submitted.refresh_from_db()
    assert submitted.status == GameResult.Status.SUBMITTED


@pytest.mark.parametrize("who", ["stranger", "other_referee"])
def test_outsiders_cannot_confirm(user_of, who, submitted):
    error_of(confirm(user_of(who), submitted), 403)
    submitted.refresh_from_db()
    assert submitted.status == GameResult.Status.SUBMITTED


def test_player_of_another_table_cannot_confirm(elsewhere, submitted):
    error_of(confirm(elsewhere, submitted), 403)
    submitted.refresh_from_db()
    assert submitted.status == GameResult.Status.SUBMITTED


def test_anonymous_cannot_confirm(submitted):
    error_of(confirm(None, submitted), 401)


@pytest.mark.parametrize("who", ["referee_user", "organizer"])
def test_a_referee_confirms(user_of, who, submitted):
    r = confirm(user_of(who), submitted)
    assert r.status_code == 200 and r.json()["status"] == "confirmed"


def test_a_referees_submission_is_confirmed_by_any_player_of_the_table(
        referee_user, seated, table):
    result = submit(referee_user, table, sheet=FIRST).json()
    r = client_for(seated[0]).post(f"/api/v1/results/{result['id']}/confirm/")
    assert r.status_code == 200 and r.json()["status"] == "confirmed"


def test_unknown_result_is_404(seated, table):
    error_of(client_for(seated[0]).post("/api/v1/results/999999/confirm/"), 404)
    error_of(client_for(None).get("/api/v1/results/999999/"), 404)


# ----------------------------------------------------------------------------- detail & correct
def test_result_detail_is_public_with_its_versions(submitted):
    r = client_for(None).get(f"/api/v1/results/{submitted.pk}/")
    assert r.status_code == 200
    version = r.json()["versions"][0]
    assert version["version"] == 1 and version["payload"]["order"] == FIRST["order"]
    assert set(version["engine_result"]) <= RESULT_KEYS


def correct(user, result, **body):
    return client_for(user).post(f"/api/v1/results/{result.pk}/correct/", body, format="json")


def test_a_players_correction_of_an_unconfirmed_result_adds_a_version_to_confirm(
        seated, submitted):
    # (of a confirmed result it is a proposal: tests/api/test_api_result_proposals.py)
    r = correct(seated[1], submitted, reason="seats 0 and 1 swapped", sheet=SECOND)
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["version"], body["status"], body["points_a"], body["points_b"]) == (
        2, "submitted", 0, 2)
    assert [v["version"] for v in body["versions"]] == [1, 2]
    assert body["versions"][1]["reason"] == "seats 0 and 1 swapped"
    assert body["versions"][1]["submitted_by"] == seated[1].username
    assert body["versions"][0]["points_a"] == 2  # the first version is kept as it was
    # the corrector's own side cannot confirm it; the other side can
    error_of(confirm(seated[3], submitted), 403)
    assert confirm(seated[0], submitted).json()["status"] == "confirmed"


def test_a_referees_correction_stands_confirmed(referee_user, submitted):
    r = correct(referee_user, submitted, reason="checked with the table", sheet=SECOND)
    assert r.status_code == 200
    assert (r.json()["status"], r.json()["confirmed_by"]) == ("confirmed", referee_user.username)


def test_a_correction_needs_a_reason(seated, submitted):
    for body in ({"sheet": SECOND}, {"sheet": SECOND, "reason": "   "}):
        err = error_of(correct(seated[0], submitted, **body), 400)
        assert "reason" in err["fields"]
    assert GameResultVersion.objects.filter(result=submitted).count() == 1


def test_an_invalid_correction_is_refused_by_the_engine(seated, submitted):
    err = error_of(correct(seated[0], submitted, reason="typo", sheet=sheet([5, 5, 5, 5, 5, 5])),
                   422)
    assert err["detail"]["where"] == "sheet"
    submitted.refresh_from_db()
    assert submitted.version == 1


@pytest.mark.parametrize("who", ["stranger", "other_referee"])
def test_outsiders_cannot_correct(user_of, who, submitted):
    error_of(correct(user_of(who), submitted, reason="mine", sheet=SECOND), 403)
    assert GameResultVersion.objects.filter(result=submitted).count() == 1


def test_player_of_another_table_cannot_correct(elsewhere, submitted):
    error_of(correct(elsewhere, submitted, reason="mine", sheet=SECOND), 403)


def test_anonymous_cannot_correct(submitted):
    error_of(correct(None, submitted, reason="mine", sheet=SECOND), 401)


# ----------------------------------------------------------------------------- penalties
def penalties_url(event):
    return f"/api/v1/events/{event.slug}/penalties/"


def test_referee_records_a_warning_that_the_public_sees(referee_user, event, entries):
    r = client_for(referee_user).post(penalties_url(event), {
        "entry_id": entries[2].pk, "kind": "warning", "reason": "slow play"}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["created_by"] == referee_user.username and r.json()["points"] == 0
    listed = client_for(None).get(penalties_url(event), {"kind": "warning"}).json()
    assert [p["reason"] for p in listed["results"]] == ["slow play"]
    assert client_for(None).get(penalties_url(event), {"kind": "point_deduction"}).json()[
        "count"] == 0


def test_a_point_deduction_reaches_the_standings(referee_user, event, entries, published_round):
    r = client_for(referee_user).post(penalties_url(event), {
        "entry_id": entries[5].pk, "kind": "point_deduction", "points": 3,
        "reason": "signalling (暗号)"}, format="json")
    assert r.status_code == 201, r.content
    row = Standing.objects.get(event=event, entry=entries[5])
    assert (row.penalty_points, row.points) == (3, -3)


def test_a_forced_last_penalty_rewrites_the_game(referee_user, seated, table, submitted, event):
    seat0 = seats_of(table)[0]
    r = client_for(referee_user).post(penalties_url(event), {
        "entry_id": seat0.entry_id, "player_id": seat0.player_id, "table_id": table.pk,
        "game_number": 1, "kind": "forced_last", "reason": "looked at cards"}, format="json")
    assert r.status_code == 201, r.content
    submitted.refresh_from_db()
    assert submitted.version == 2 and submitted.places[0] == 6
    assert submitted.status == GameResult.Status.CONFIRMED


@pytest.mark.parametrize("body, status", [
    ({"kind": "warning", "reason": ""}, 400),
    ({"kind": "point_deduction", "reason": "x"}, 400),
    ({"kind": "nap", "reason": "x"}, 400),
    ({"kind": "warning", "reason": "x", "entry_id": 999999}, 404),
])
def test_bad_penalties_are_refused(referee_user, event, entries, body, status):
    error_of(client_for(referee_user).post(
        penalties_url(event), {"entry_id": entries[0].pk, **body}, format="json"), status)
    assert not Penalty.objects.exists()


@pytest.mark.parametrize("who", ["player", "stranger", "other_referee"])
def test_only_the_events_referees_penalise(user_of, who, event, entries):
    error_of(client_for(user_of(who)).post(penalties_url(event), {
        "entry_id": entries[1].pk, "kind": "warning", "reason": "x"}, format="json"), 403)
    assert not Penalty.objects.exists()


def test_anonymous_cannot_penalise(event, entries):
    error_of(client_for(None).post(penalties_url(event), {
        "entry_id": entries[1].pk, "kind": "warning", "reason": "x"}, format="json"), 401)


def test_penalties_of_an_unpublished_event_are_404(hidden_event):
    error_of(client_for(None).get(penalties_url(hidden_event)), 404)
