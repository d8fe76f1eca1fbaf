"""POST /results/{id}/confirm/ names the version it confirms (``version`` in the body or
``If-Match``): a correction made meanwhile is never confirmed unseen (409 ``stale_version``,
nothing changes); clients that name no version confirm the current one as before."""

from __future__ import annotations

import pytest
import yaml

from games.models import GameResult
from tests.api.helpers import client_for, error_of, seats_of, sheet

pytestmark = pytest.mark.django_db

FIRST = sheet([0, 1, 2, 3, 4, 5])
SECOND = sheet([1, 0, 3, 2, 5, 4])


@pytest.fixture
def seated(table):
    return [s.player.user for s in seats_of(table)]


@pytest.fixture
def corrected(seated, table):
    """Game 1 submitted by seat 0, then corrected by seat 0: version 2 awaits 联邦 1."""
    client = client_for(seated[0])
    rid = client.post(f"/api/v1/tables/{table.pk}/results/", {"number": 1, "sheet": FIRST},
                      format="json").json()["id"]
    r = client.post(f"/api/v1/results/{rid}/correct/", {"reason": "typo", "sheet": SECOND},
                    format="json")
    assert r.status_code == 200 and r.json()["version"] == 2
    return rid


def confirm(user, rid, body=None, **headers):
    return client_for(user).post(f"/api/v1/results/{rid}/confirm/", body or {}, format="json",
                                 **headers)


def unchanged(rid):
    return GameResult.objects.values().get(pk=rid)


@pytest.mark.parametrize("how", [
    {"body": {"version": 2}},
    {"HTTP_IF_MATCH": '"2"'},
    {"HTTP_IF_MATCH": 'W/"2"'},
    {"HTTP_IF_MATCH": "2"},
    {"HTTP_IF_MATCH": "*"},
    {"body": {"version": 2}, "HTTP_IF_MATCH": '"2"'},
    {},
], ids=["body", "if-match", "weak", "bare", "any", "both", "none"])
def test_a_confirmation_of_the_current_version_confirms_it(seated, corrected, how):
    r = confirm(seated[1], corrected, **how)
    assert r.status_code == 200, r.content
    assert (r.json()["status"], r.json()["version"]) == ("confirmed", 2)


@pytest.mark.parametrize("how", [{"body": {"version": 1}}, {"HTTP_IF_MATCH": '"1"'}],
                         ids=["body", "if-match"])
def test_a_confirmation_of_an_older_version_is_stale(seated, corrected, how):
    before = unchanged(corrected)
    err = error_of(confirm(seated[1], corrected, **how), 409)
    assert (err["code"], err["detail"]) == ("stale_version", {"version": 2})
    assert unchanged(corrected) == before


@pytest.mark.parametrize("how, code", [
    ({"body": {"version": 0}}, "invalid"),
    ({"body": {"version": "two"}}, "invalid"),
    ({"HTTP_IF_MATCH": '"result-2"'}, "bad_if_match"),
    ({"body": {"version": 2}, "HTTP_IF_MATCH": '"1"'}, "version_mismatch"),
], ids=["zero", "text", "etag", "disagree"])
def test_a_malformed_version_is_refused(seated, corrected, how, code):
    before = unchanged(corrected)
    err = error_of(confirm(seated[1], corrected, **how), 400)
    if code != "invalid":
        assert err["code"] == code
    assert unchanged(corrected) == before


def test_the_schema_documents_the_version(anon):
    schema = yaml.safe_load(anon.get("/api/v1/schema/").content)
    op = schema["paths"]["/api/v1/results/{id}/confirm/"]["post"]
    ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert "version" in body["properties"] and "version" not in body.get("required", [])
    assert "If-Match" in [p["name"] for p in op["parameters"]]
    assert "409" in op["responses"]
