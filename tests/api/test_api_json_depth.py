"""Deeply nested JSON (issue 15, finding 7): 3,000 levels of ``[`` made Python's parser raise
RecursionError, a 500, even on the anonymous engine endpoint. The parser now measures the
nesting before it parses and answers 400, naming the problem."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.parsers import MAX_DEPTH, json_depth
from tests.api.helpers import client_for, error_of


def nested(depth: int) -> str:
    return '{"record": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize(("text", "depth"), [
    (b"{}", 1), (b"[[], [[]]]", 3), (b'{"a": "[[[[{{{"}', 1), (b'["\\"[[["]', 1), (b"3", 0)])
def test_depth_is_counted_outside_strings(text, depth):
    assert json_depth(text) == depth


def nesting(value) -> int:
    """How deeply a parsed JSON value nests (what ``json_depth`` measures in the text)."""
    if isinstance(value, list):
        return 1 + max(map(nesting, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(nesting, value.values()), default=0)
    return 0


#: strings full of what could fool a count of brackets: brackets, quotes, backslashes
TRICKY = st.text(alphabet='[]{}"\\ a中', max_size=6)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=30)


@given(JSON_VALUES, st.booleans())
def test_the_depth_of_any_json_text_is_the_depth_of_what_it_parses_to(value, ascii_only):
    # with and without escapes (ensure_ascii writes 中 as \u4e2d: the slow path)
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert json_depth(text) == nesting(value)


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


@pytest.mark.parametrize(("body", "named"), [
    (b'{"record": NaN}', "JSON parse error"),  # not JSON (DRF's strict mode refused it too)
    (b'{"record": "\\ud800"}', "JSON parse error"),  # a lone surrogate: no text PostgreSQL keeps
    (b'{"record": [1, 2,]}', "JSON parse error"),  # a trailing comma
    (b'{"record": "a\\u0000b"}', "NUL character"),
    (b'{"record": [1, 2', "JSON parse error"),
])
def test_a_body_the_parser_refuses_is_a_400_naming_why(anon, body, named):
    response = anon.post("/api/v1/engine/validate", body, content_type="application/json")
    err = error_of(response, 400)
    assert err["code"] == "bad_request_body" and named in err["message"], err


def test_a_body_in_another_charset_is_read_in_it(anon):
    # a client that says its body is Latin-1 is read as Latin-1 (by DRF's parser)
    body = '{"record": {"format": "gouji-record/1", "note": "café"}}'.encode("latin-1")
    response = anon.post("/api/v1/engine/validate", body,
                         content_type="application/json; charset=latin-1")
    assert response.status_code in (400, 422)
    assert "JSON parse error" not in json.dumps(response.json())
