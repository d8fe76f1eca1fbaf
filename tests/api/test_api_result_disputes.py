"""Disputes over HTTP (``POST /api/v1/results/{id}/dispute/``; issue 16): a player of the other
联邦 disputes a submitted result with a reason; the standings leave it out until a referee
settles it (confirming, with an optional reason, or correcting); it shows in the result."""

from __future__ import annotations

import pytest

from games.models import GameResult
from tests.api.helpers import client_for, error_of, seats_of, sheet

pytestmark = pytest.mark.django_db

FIRST = sheet([0, 1, 2, 3, 4, 5])  # 联邦 0 scores 2


@pytest.fixture
def seated(table):
    return [s.player.user for s in seats_of(table)]


@pytest.fixture
def submitted(table, seated):
    r = client_for(seated[0]).post(f"/api/v1/tables/{table.pk}/results/",
                                   {"number": 1, "sheet": FIRST}, format="json")
    assert r.status_code == 201, r.content
    return GameResult.objects.get(pk=r.json()["id"])


def dispute(user, result, **body):
    return client_for(user).post(f"/api/v1/results/{result.pk}/dispute/", body, format="json")


def points(event) -> int:
    rows = client_for(None).get(f"/api/v1/events/{event.slug}/standings/",
                                {"page_size": 100}).json()["results"]
    return sum(row["points"] for row in rows)


def test_the_other_side_disputes_and_a_referee_settles(submitted, seated, referee_user, event):
    r = dispute(seated[1], submitted, reason="seat 5 went out first")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["status"] == "disputed"
    assert body["dispute"]["reason"] == "seat 5 went out first"
    assert body["dispute"]["raised_by"] == seated[1].username
    assert [s["step"] for s in body["history"]] == ["submitted", "disputed"]
    assert points(event) == 0
    # a player of the other side cannot confirm it away; the referee can, with a reason
    error_of(client_for(seated[3]).post(f"/api/v1/results/{submitted.pk}/confirm/"), 403)
    r = client_for(referee_user).post(f"/api/v1/results/{submitted.pk}/confirm/",
                                      {"reason": "the sheet is right"}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "confirmed"
    body = client_for(referee_user).get(r.json()["url"]).json()  # (a confirmation's answer
    # is short: the history is at the result's url)
    assert (body["status"], body["dispute"]) == ("confirmed", None)
    assert body["history"][-1] == {**body["history"][-1], "step": "settled",
                                   "settlement": "confirmed", "reason": "the sheet is right"}
    assert points(event) > 0


@pytest.mark.parametrize("who, status", [("submitter", 403), ("partner", 403),
                                         ("other_table", 403), ("stranger", 403),
                                         ("anon", 401)])
def test_only_the_other_side_of_the_table_disputes(submitted, seated, other_table, stranger,
                                                    who, status):
    user = {"submitter": seated[0], "partner": seated[2], "stranger": stranger, "anon": None,
            "other_table": seats_of(other_table)[1].player.user}[who]
    error_of(dispute(user, submitted, reason="no"), status)
    assert GameResult.objects.get(pk=submitted.pk).status == "submitted"


def test_a_dispute_without_a_reason_is_refused_by_field(submitted, seated):
    err = error_of(dispute(seated[1], submitted), 400)
    assert "reason" in str(err)


def test_a_confirmed_result_is_not_disputed(submitted, seated):
    client_for(seated[1]).post(f"/api/v1/results/{submitted.pk}/confirm/")
    err = error_of(dispute(seated[3], submitted, reason="late"), 409)
    assert err["code"] == "not_submitted"
