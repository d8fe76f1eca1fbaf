"""Corrections of a confirmed result over HTTP (issue 15, finding 2): a player's correction is a
proposal (202) — the result stays confirmed and counted until the other 联邦 at the table or a
referee accepts it; the proposer's own 联邦 cannot; it can be declined or withdrawn; a referee's
correction applies at once; a live game's server-recorded result is corrected by a referee
only; every step is in the result's history."""

from __future__ import annotations

import random

import pytest
from django.db import transaction

from engine.bots import play_match
from games.models import GameResult, GameResultVersion, ResultProposal
from games.services import result_record_live
from tests.api.helpers import client_for, error_of, seats_of, sheet
from tournaments.models import Round

pytestmark = pytest.mark.django_db

FIRST = sheet([0, 1, 2, 3, 4, 5])  # 联邦 0 scores 2; seat 5 (联邦 1) is last
SEAT_5_FIRST = sheet([5, 0, 1, 2, 3, 4])  # the last-place player puts himself first: 联邦 1 scores 2


@pytest.fixture
def seated(table):
    """The logins of table 1's seats, in seat order (联邦 0: seats 0, 2, 4; 联邦 1: 1, 3, 5)."""
    return [s.player.user for s in seats_of(table)]


@pytest.fixture
def round_confirmed(table, other_table):
    """Both games of both tables of round 1 submitted (seat 0) and confirmed (seat 1): the
    round is complete; returns game 1 of table 1."""
    for t in (table, other_table):
        players = [s.player.user for s in seats_of(t)]
        for number in (1, 2):
            r = client_for(players[0]).post(f"/api/v1/tables/{t.pk}/results/",
                                            {"number": number, "sheet": FIRST}, format="json")
            assert r.status_code == 201, r.content
            c = client_for(players[1]).post(f"/api/v1/results/{r.json()['id']}/confirm/")
            assert c.status_code == 200, c.content
    return GameResult.objects.get(table=table, number=1)


def correct(user, result, **body):
    return client_for(user).post(f"/api/v1/results/{result.pk}/correct/", body, format="json")


def close(user, result, proposal_id, action, **body):
    return client_for(user).post(
        f"/api/v1/results/{result.pk}/proposals/{proposal_id}/{action}/", body, format="json")


def standings(event):
    return client_for(None).get(f"/api/v1/events/{event.slug}/standings/",
                                {"page_size": 100}).json()["results"]


def as_stored(result):
    result.refresh_from_db()
    return (result.status, result.version, result.points_a, result.points_b, result.places)


def steps(body):
    return [(s["step"], s["by"]) for s in body["history"]]


@pytest.fixture
def proposed(seated, round_confirmed):
    """Seat 5, last in game 1, proposes a sheet with himself first; returns the proposal's id."""
    r = correct(seated[5], round_confirmed, reason="I went out first", sheet=SEAT_5_FIRST)
    assert r.status_code == 202, r.content
    return r.json()["proposal"]["id"]


CONFIRMED_AS_PLAYED = ("confirmed", 1, 2, 0, [1, 2, 3, 4, 5, 6])


# ----------------------------------------------------------------------------- the attack
def test_a_last_place_players_correction_of_a_confirmed_result_changes_nothing(
        seated, round_confirmed, event, organizer):
    """Issue 15, finding 2: the last-place player "corrects" a confirmed result putting himself
    first. It is stored as a proposal only: the result stays confirmed as it was, the
    standings do not move and the next round opens."""
    # given a complete round and its standings
    before = standings(event)
    # when seat 5 "corrects" game 1
    r = correct(seated[5], round_confirmed, reason="I went out first", sheet=SEAT_5_FIRST)
    # then it is a proposal (202): the result is confirmed and counted as it was
    assert r.status_code == 202, r.content
    body = r.json()
    assert (body["status"], body["version"], body["points_a"], body["points_b"]) == (
        "confirmed", 1, 2, 0)
    assert body["proposal"]["proposed_by"] == seated[5].username
    assert (body["proposal"]["points_a"], body["proposal"]["points_b"]) == (0, 2)
    assert body["proposal"]["places"] == [2, 3, 4, 5, 6, 1]
    assert as_stored(round_confirmed) == CONFIRMED_AS_PLAYED
    assert GameResultVersion.objects.filter(result=round_confirmed).count() == 1
    assert standings(event) == before
    # and the next round opens
    r = client_for(organizer).post(f"/api/v1/events/{event.slug}/rounds/")
    assert r.status_code == 202, r.content
    assert Round.objects.filter(event=event, number=2).exists()


def test_the_other_federation_accepts_and_the_correction_counts(seated, round_confirmed,
                                                                 proposed, event):
    before = {row["entry"]["id"]: row["points"] for row in standings(event)}
    r = close(seated[0], round_confirmed, proposed, "accept")
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["status"], body["version"], body["points_a"], body["points_b"]) == (
        "confirmed", 2, 0, 2)
    assert body["confirmed_by"] == seated[0].username and body["proposal"] is None
    assert body["versions"][1]["submitted_by"] == seated[5].username
    assert body["versions"][1]["reason"] == "I went out first"
    assert steps(body) == [("submitted", seated[0].username), ("proposed", seated[5].username),
                           ("accepted", seated[0].username)]
    assert body["history"][2]["version"] == 2
    # the standings follow: each seat's entry moves by the game's change (2 points)
    after = {row["entry"]["id"]: row["points"] for row in standings(event)}
    for seat in seats_of(round_confirmed.table):
        assert after[seat.entry_id] - before[seat.entry_id] == (-2 if seat.side == 0 else 2)


def test_a_referee_accepts(referee_user, round_confirmed, proposed):
    r = close(referee_user, round_confirmed, proposed, "accept", reason="checked the sheet")
    assert r.status_code == 200, r.content
    assert (r.json()["version"], r.json()["confirmed_by"]) == (2, referee_user.username)
    assert r.json()["history"][-1]["reason"] == "checked the sheet"


@pytest.mark.parametrize("who", [5, 3, 1], ids=["the-proposer", "partner-3", "partner-1"])
def test_the_proposers_own_federation_cannot_accept(seated, round_confirmed, proposed, who):
    err = error_of(close(seated[who], round_confirmed, proposed, "accept"), 403)
    assert err["code"] == "same_side"
    assert as_stored(round_confirmed) == CONFIRMED_AS_PLAYED
    assert ResultProposal.objects.get(pk=proposed).status == "open"


@pytest.mark.parametrize("who", ["stranger", "other_referee"])
def test_outsiders_cannot_accept(user_of, who, round_confirmed, proposed):
    error_of(close(user_of(who), round_confirmed, proposed, "accept"), 403)
    assert as_stored(round_confirmed) == CONFIRMED_AS_PLAYED


def test_anonymous_cannot_accept(round_confirmed, proposed):
    error_of(close(None, round_confirmed, proposed, "accept"), 401)


def test_a_proposal_is_found_through_its_own_result(seated, round_confirmed, proposed, table):
    other_game = GameResult.objects.get(table=table, number=2)
    error_of(close(seated[0], other_game, proposed, "accept"), 404)
    error_of(close(seated[0], round_confirmed, 999999, "accept"), 404)


def test_accepting_again_applies_it_once(seated, referee_user, round_confirmed, proposed):
    for user in (seated[0], seated[0], seated[2], referee_user):
        r = close(user, round_confirmed, proposed, "accept")
        assert r.status_code == 200, r.content
        assert (r.json()["version"], r.json()["confirmed_by"]) == (2, seated[0].username)
    assert GameResultVersion.objects.filter(result=round_confirmed).count() == 2
    assert [s for s, _ in steps(r.json())] == ["submitted", "proposed", "accepted"]
    # the proposer's correction sent again once it is the result: nothing to propose
    r = correct(seated[5], round_confirmed, reason="I went out first", sheet=SEAT_5_FIRST)
    assert (r.status_code, r.json()["version"], r.json()["proposal"]) == (200, 2, None)
    assert ResultProposal.objects.count() == 1


def test_the_other_federation_declines_with_a_reason(seated, round_confirmed, proposed):
    err = error_of(close(seated[2], round_confirmed, proposed, "decline"), 400)
    assert "reason" in err["fields"]
    r = close(seated[2], round_confirmed, proposed, "decline", reason="seat 5 was last")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["proposal"] is None
    assert body["history"][-1] == {**body["history"][-1], "step": "declined",
                                   "by": seated[2].username, "reason": "seat 5 was last"}
    assert as_stored(round_confirmed) == CONFIRMED_AS_PLAYED
    # a declined proposal cannot be accepted any more
    err = error_of(close(seated[0], round_confirmed, proposed, "accept"), 409)
    assert (err["code"], err["detail"]["status"]) == ("proposal_closed", "declined")
    assert as_stored(round_confirmed) == CONFIRMED_AS_PLAYED


def test_its_proposer_withdraws_it_and_nobody_else(seated, round_confirmed, proposed):
    for who in (0, 3):
        err = error_of(close(seated[who], round_confirmed, proposed, "withdraw"), 403)
        assert err["code"] == "not_proposer"
    r = close(seated[5], round_confirmed, proposed, "withdraw", reason="I misremembered")
    assert r.status_code == 200, r.content
    assert steps(r.json())[-1] == ("withdrawn", seated[5].username)
    assert r.json()["history"][-1]["reason"] == "I misremembered"
    assert as_stored(round_confirmed) == CONFIRMED_AS_PLAYED
    # withdrawn, it can be proposed again (as a new proposal)
    r = correct(seated[5], round_confirmed, reason="I did go out first", sheet=SEAT_5_FIRST)
    assert r.status_code == 202 and r.json()["proposal"]["id"] != proposed


def test_one_proposal_is_open_at_a_time(seated, round_confirmed, proposed):
    # another proposal, from either side, is refused while one is open
    for who in (0, 5):
        err = error_of(correct(seated[who], round_confirmed, reason="no, like this",
                               sheet=sheet([1, 0, 3, 2, 5, 4])), 409)
        assert (err["code"], err["detail"]["proposal"]) == ("proposal_open", proposed)
    # the same proposal sent again by its proposer is answered with it
    r = correct(seated[5], round_confirmed, reason="I went out first", sheet=SEAT_5_FIRST)
    assert r.status_code == 202 and r.json()["proposal"]["id"] == proposed
    assert ResultProposal.objects.count() == 1


def test_a_referees_correction_applies_at_once_and_closes_the_proposal(
        seated, referee_user, round_confirmed, proposed):
    r = correct(referee_user, round_confirmed, reason="the table agrees",
                sheet=sheet([1, 0, 3, 2, 5, 4]))
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["status"], body["version"], body["confirmed_by"]) == (
        "confirmed", 2, referee_user.username)
    assert body["proposal"] is None
    assert steps(body) == [("submitted", seated[0].username), ("proposed", seated[5].username),
                           ("corrected", referee_user.username),
                           ("superseded", referee_user.username)]
    error_of(close(seated[0], round_confirmed, proposed, "accept"), 409)
    assert as_stored(round_confirmed)[:2] == ("confirmed", 2)


def test_the_history_is_public(round_confirmed, proposed):
    body = client_for(None).get(f"/api/v1/results/{round_confirmed.pk}/").json()
    assert body["proposal"]["id"] == proposed and body["proposal"]["reason"] == "I went out first"
    assert [s["step"] for s in body["history"]] == ["submitted", "proposed"]
    listed = client_for(None).get(f"/api/v1/tables/{round_confirmed.table_id}/results/").json()
    assert listed[0]["proposal"]["id"] == proposed


# ----------------------------------------------------------------------------- a live game's result
@pytest.fixture
def live_result(table):
    """Game 1 of table 1 as a live game ends: recorded by the server, confirmed at once."""
    record = play_match("dagang", 1, random.Random(3))[0].record()
    with transaction.atomic():
        return result_record_live(table_id=table.pk, number=1, record=record)


@pytest.mark.parametrize("who", [0, 5])
def test_a_player_cannot_correct_a_live_games_recorded_result(seated, live_result, who):
    err = error_of(correct(seated[who], live_result, reason="I went out first",
                           sheet=SEAT_5_FIRST), 403)
    assert err["code"] == "live_result_referee_only"
    assert not ResultProposal.objects.exists()
    assert GameResultVersion.objects.filter(result=live_result).count() == 1


def test_a_referee_corrects_a_live_games_recorded_result(referee_user, live_result):
    r = correct(referee_user, live_result, reason="a misdeal found after the game",
                sheet=SEAT_5_FIRST)
    assert r.status_code == 200, r.content
    assert (r.json()["version"], r.json()["status"]) == (2, "confirmed")
    assert [s["step"] for s in r.json()["history"]] == ["recorded", "corrected"]
