"""Deeply nested JSON (issue 15, finding 7): 3,000 levels of ``[`` made Python's parser raise
RecursionError, a 500, even on the anonymous engine endpoint. The parser now measures the
nesting before it parses and answers 400, naming the problem."""

from __future__ import annotations

import json

import pytest

from api.parsers import MAX_DEPTH, json_depth
from tests.api.helpers import client_for, error_of


def nested(depth: int) -> str:
    return '{"record": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize(("text", "depth"), [
    (b"{}", 1), (b"[[], [[]]]", 3), (b'{"a": "[[[[{{{"}', 1), (b'["\\"[[["]', 1), (b"3", 0)])
def test_depth_is_counted_outside_strings(text, depth):
    assert json_depth(text) == depth


@pytest.mark.parametrize("who", ["anon", "organizer"])
def test_a_body_nested_3000_deep_is_refused_with_400_on_every_endpoint(request, who, table):
    # given the public's JSON endpoint, and every kind of JSON endpoint for the organizer
    slug = table.round.event.slug
    calls = [("post", "/api/v1/engine/validate")]
    if who == "organizer":
        calls += [("post", "/api/v1/events/"), ("patch", f"/api/v1/events/{slug}/"),
                  ("post", f"/api/v1/tables/{table.pk}/results/"),
                  ("post", f"/api/v1/events/{slug}/penalties/")]
    client = client_for(None if who == "anon" else request.getfixturevalue(who))
    for method, url in calls:
        # when the body nests 3,000 levels deep
        response = getattr(client, method)(url, nested(3000), content_type="application/json")
        # then it is refused as a bad body, naming the problem (not a 500)
        err = error_of(response, 400)
        assert err["code"] == "bad_request_body", (url, err)
        assert f"nested more than {MAX_DEPTH} levels" in err["message"], (url, err)


def test_a_body_nested_within_the_limit_reaches_validation(anon):
    response = anon.post("/api/v1/engine/validate", nested(MAX_DEPTH - 1),
                         content_type="application/json")
    assert "nested" not in json.dumps(response.json())
    assert response.status_code in (400, 422)
