"""The schema tells the truth (issue 15, finding 10): a result takes exactly one of ``sheet``
and ``record`` (a oneOf), ``page_size`` must be a number, and a missing live game's event
stream answers the API's JSON error, not an event stream."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.api.helpers import error_of


@pytest.fixture(scope="module")
def components():
    return SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]


@pytest.mark.parametrize("body", ["ResultSubmitRequest", "ResultCorrectRequest",
                                  "EngineValidateRequest"])
def test_sheet_and_record_are_exactly_one_of(components, body):
    assert components[body]["oneOf"] == [{"required": ["sheet"]}, {"required": ["record"]}]


@pytest.mark.parametrize("value", ["null", "0", "ten", "-5"])
def test_a_page_size_that_is_not_a_number_is_refused(anon, event, value):
    err = error_of(anon.get("/api/v1/events/", {"page_size": value}), 400)
    assert "page_size" in err["fields"], err


def test_a_page_size_is_still_capped_and_honoured(anon, event):
    assert anon.get("/api/v1/events/", {"page_size": "5000"}).status_code == 200


@pytest.mark.django_db
def test_a_missing_live_games_event_stream_is_a_json_404(anon):
    response = anon.get("/api/v1/live/999999/events/", HTTP_ACCEPT="text/event-stream")
    assert error_of(response, 404)["code"] == "not_found"
