"""The API answers every error in its one JSON shape ``{"error": {"code", "message", …}}``:
bad bodies (NUL characters, broken JSON, oversize), unknown URLs, wrong methods, throttling;
and the engine's own validation endpoint (records, match records, sheets)."""

from __future__ import annotations

import copy
import random

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.throttling import SimpleRateThrottle

import engine
from engine.bots import play_match
from games.models import GameResult
from tests.api.helpers import client_for, error_of, seats_of, sheet
from tournaments.models import Entry

pytestmark = pytest.mark.django_db

VALIDATE = "/api/v1/engine/validate"


@pytest.fixture(scope="module")
def match():
    """A real two-game match played by the engine's bots: [(record, result), …]."""
    return [(g.record(), g.result()) for g in play_match("dagang", 2, random.Random(11))]


# ----------------------------------------------------------------------------- engine/validate
def test_validate_a_legal_record(anon, match):
    record, result = match[0]
    r = anon.post(VALIDATE, {"record": record}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["ok"] is True and body["complete"] is True
    assert body["team_points"] == result["team_points"] and body["places"] == result["places"]


def test_validate_an_illegal_record_gives_the_engines_error(anon, match):
    record = copy.deepcopy(match[0][0])
    record["actions"][5]["seat"] = (record["actions"][5]["seat"] + 3) % 6
    expected = engine.replay(record)["error"]
    err = error_of(anon.post(VALIDATE, {"record": record}, format="json"), 422)
    assert err["code"] == expected["code"] and err["message"] == expected["message"]
    assert err["detail"]["index"] == 5 and err["detail"]["where"] == "actions"
    assert err["detail"]["seat"] == expected["seat"]


def test_validate_a_record_with_a_card_nobody_holds(anon, match):
    record = copy.deepcopy(match[0][0])
    first_play = next(i for i, a in enumerate(record["actions"]) if a.get("act") == "play")
    record["actions"][first_play]["cards"] = ["XX"]
    err = error_of(anon.post(VALIDATE, {"record": record}, format="json"), 422)
    assert err["detail"]["index"] == first_play and err["message"]


def test_validate_a_match_record(anon, match):
    games = [record for record, _ in match]
    r = anon.post(VALIDATE, {"record": {"format": "gouji-match/1", "rules": "dagang",
                                        "games": games}}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert len(body["games"]) == 2
    assert body["team_points"] == [sum(res["team_points"][t] for _, res in match)
                                   for t in (0, 1)]


def test_validate_an_illegal_match_record_names_the_game(anon, match):
    games = [copy.deepcopy(record) for record, _ in match]
    games[1]["actions"] = games[1]["actions"][:3]
    err = error_of(anon.post(VALIDATE, {"record": {"format": "gouji-match/1", "games": games}},
                             format="json"), 422)
    assert err["detail"]["game"] == 1 and err["code"] == "bad_format"


def test_validate_a_sheet(anon):
    r = anon.post(VALIDATE, {"sheet": {"format": "gouji-sheet/1", **sheet([3, 0, 5, 2, 1, 4])}},
                  format="json")
    assert r.status_code == 200, r.content
    assert r.json()["places"] == [2, 5, 4, 1, 6, 3]


def test_validate_an_impossible_sheet(anon):
    err = error_of(anon.post(VALIDATE, {"sheet": {"format": "gouji-sheet/1",
                                                  **sheet([0, 1, 2, 3, 4, 5]),
                                                  "revolutions": [0, 1]}}, format="json"), 422)
    assert err["detail"]["where"] == "sheet" and "void" in err["message"]


@pytest.mark.parametrize("body", [{}, {"record": {}, "sheet": {}}])
def test_validate_needs_exactly_one_of_record_and_sheet(anon, body):
    assert error_of(anon.post(VALIDATE, body, format="json"), 400)["code"] == "invalid"


def test_validate_is_post_only(anon):
    assert error_of(anon.get(VALIDATE), 405)["code"] == "method_not_allowed"


# ----------------------------------------------------------------------------- bad bodies
def test_nul_character_in_json_is_400(anon):
    r = anon.post(VALIDATE, data=b'{"sheet": {"format": "gouji-sheet/1\\u0000"}}',
                  content_type="application/json")
    err = error_of(r, 400)
    assert err["code"] == "bad_request_body" and "NUL" in err["message"]


def test_nul_character_in_a_submission_stores_nothing(table):
    player = seats_of(table)[0].player.user
    r = client_for(player).post(f"/api/v1/tables/{table.pk}/results/",
                                data=b'{"number": 1, "sheet": {"order": [0,1,2,3,4,5], '
                                     b'"kaidian": [true,true,true,true,true,true], '
                                     b'"note": "\\u0000"}}',
                                content_type="application/json")
    error_of(r, 400)
    assert not GameResult.objects.exists()


def test_nul_character_in_a_key_is_400(anon):
    error_of(anon.post(VALIDATE, data=b'{"sheet": {"a\\u0000": 1}}',
                       content_type="application/json"), 400)


def test_broken_json_is_400(anon):
    err = error_of(anon.post(VALIDATE, data=b'{"sheet": ', content_type="application/json"), 400)
    assert err["code"] == "bad_request_body"


def test_deeply_nested_json_is_400_not_500(anon):
    body = b'{"record": ' + b"[" * 200 + b"]" * 200 + b"}"
    error_of(anon.post(VALIDATE, data=body, content_type="application/json"), 400)


def test_unsupported_content_type_is_415(anon):
    err = error_of(anon.post(VALIDATE, data=b"sheet", content_type="text/plain"), 415)
    assert err["code"] == "unsupported_media_type"


def test_oversize_json_body_is_413_in_the_error_shape(anon):
    pad = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    r = anon.post(VALIDATE, {"sheet": {"format": "gouji-sheet/1", **sheet(range(6))},
                             "pad": pad}, format="json")
    assert error_of(r, 413)["code"] == "too_large"


def test_oversize_submission_is_413_and_stores_nothing(table):
    player = seats_of(table)[0].player.user
    record = {"format": "gouji-record/1", "deal": [], "actions": [],
              "pad": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}
    r = client_for(player).post(f"/api/v1/tables/{table.pk}/results/",
                                {"number": 1, "record": record}, format="json")
    assert error_of(r, 413)["code"] == "too_large"
    assert not GameResult.objects.exists()


def test_oversize_csv_import_is_413(organizer, event):
    text = "name\n" + "a" * 2_000_100 + "\n"
    r = client_for(organizer).post(
        f"/api/v1/events/{event.slug}/entries/import/",
        {"file": SimpleUploadedFile("big.csv", text.encode(), content_type="text/csv")},
        format="multipart")
    assert error_of(r, 413)["code"] == "too_large"
    assert not Entry.objects.filter(event=event).exists()


# ----------------------------------------------------------------------------- unknown URLs
@pytest.mark.parametrize("path", ["/api/v1/nothing-here/", "/api/v2/events/", "/api/",
                                  "/api/v1/events/qingdao-cup/nothing/",
                                  "/api/v1/tables/not-a-number/"])
def test_unknown_url_under_api_is_a_json_404(anon, event, path):
    assert error_of(anon.get(path), 404)["code"] == "not_found"


def test_unknown_event_is_a_json_404(anon, db):
    assert error_of(anon.get("/api/v1/events/no-such-cup/"), 404)["code"] == "not_found"


# ----------------------------------------------------------------------------- throttling
@pytest.fixture
def rates(monkeypatch):
    """``rates(scope="n/min", …)``: tighten throttle rates for one test (the rates are read
    when DRF is imported, so the class attribute is patched; the cache is cleared around
    every test by the autouse fixture)."""

    def tighten(**scopes):
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                            {**SimpleRateThrottle.THROTTLE_RATES, **scopes})

    return tighten


def assert_throttled(response):
    err = error_of(response, 429)
    assert err["code"] == "throttled"
    assert isinstance(err["detail"]["retry_after"], int) and err["detail"]["retry_after"] > 0
    assert int(response["Retry-After"]) > 0


def test_engine_validation_is_throttled_with_retry_after(anon, rates):
    rates(engine="2/min")
    body = {"sheet": {"format": "gouji-sheet/1", **sheet(range(6))}}
    assert [anon.post(VALIDATE, body, format="json").status_code for _ in range(2)] == [200, 200]
    assert_throttled(anon.post(VALIDATE, body, format="json"))


def test_anonymous_reads_are_throttled(anon, event, rates):
    rates(anon="3/min")
    for _ in range(3):
        assert anon.get("/api/v1/events/").status_code == 200
    assert_throttled(anon.get("/api/v1/events/"))


def test_result_submissions_are_throttled_per_user(table, rates):
    rates(results="1/min")
    seats = seats_of(table)
    url = f"/api/v1/tables/{table.pk}/results/"
    first = client_for(seats[0].player.user)
    assert first.post(url, {"number": 1, "sheet": sheet(range(6))}, format="json"
                      ).status_code == 201
    assert_throttled(first.post(url, {"number": 2, "sheet": sheet(range(6))}, format="json"))
    assert GameResult.objects.count() == 1
    # another player has a budget of their own
    other = client_for(seats[1].player.user)
    assert other.post(url, {"number": 2, "sheet": sheet(range(6))}, format="json"
                      ).status_code == 201


def test_throttle_counters_start_fresh_in_each_test(anon, rates):
    rates(engine="2/min")
    body = {"sheet": {"format": "gouji-sheet/1", **sheet(range(6))}}
    assert anon.post(VALIDATE, body, format="json").status_code == 200


# ----------------------------------------------------------------------------- server errors
def test_an_unexpected_failure_is_a_json_500(anon, monkeypatch):
    def broken(sheet):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(engine, "score_sheet", broken)
    r = anon.post(VALIDATE, {"sheet": {"format": "gouji-sheet/1"}}, format="json")
    err = error_of(r, 500)
    assert err["code"] == "server_error" and "exploded" not in err["message"]
