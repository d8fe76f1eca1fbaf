"""The pages read a client's JSON with the API's one bounded reader (config/jsonbody.py, issue
51 item 6): a record uploaded on the phone page, or an act posted by the live table, nested
3,000 levels deep was a RecursionError (a 500) in the pages' own ``json.loads``; now it is
refused, saying why, and nothing is stored."""

from __future__ import annotations

import pytest
from django.test import Client

from config.jsonbody import MAX_DEPTH
from games.models import GameResult
from live.models import LiveGame
from tests.pages import test_live_table_views, test_table_views
from tests.pages.test_table_refusals import upload, upload_error

pytestmark = pytest.mark.django_db

table, seats, links = test_table_views.table, test_table_views.seats, test_table_views.links
started = test_live_table_views.started
_eager_and_fresh = test_live_table_views._eager_and_fresh

NESTED = b"[" * 3000 + b"]" * 3000


def test_a_record_upload_nested_3000_deep_is_refused_on_the_page(client, links, table):
    # when: the phone page's upload is a file of 3,000 brackets in 3,000
    r = upload(client, links[0], NESTED)
    # then: the page refuses it, saying why, in English and in Chinese; nothing is stored
    assert r.status_code == 400
    assert f"nests more than {MAX_DEPTH} levels of brackets" in upload_error(r)
    r = upload(client, links[0], b'{"record": ' + NESTED + b"}", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    assert f"嵌套超过 {MAX_DEPTH} 层括号" in upload_error(r)
    assert not GameResult.objects.filter(table=table).exists()


def test_a_record_upload_holding_a_nul_is_refused_on_the_page(client, links, table):
    r = upload(client, links[0], {"format": "gouji-record/1", "players": ["a\u0000"]})
    assert r.status_code == 400
    assert "NUL character" in upload_error(r)
    assert not GameResult.objects.filter(table=table).exists()


def test_an_act_nested_3000_deep_is_refused_by_the_live_table(started):
    # given: a live game and the page of a seat at it
    _, lg, links = started
    before = LiveGame.objects.get(pk=lg.pk).version
    for body in (NESTED, b'{"version": 1, "act": "play", "cards": ' + NESTED + b"}"):
        # when: the page posts an act nested 3,000 deep
        response = Client(raise_request_exception=False).post(
            f"{links[0]}live/{lg.pk}/act/", body, content_type="application/json")
        # then: refused as a malformed act, before any service
        assert response.status_code == 400, response.content[:300]
        assert response.json()["error"]["code"] == "bad_format"
    assert LiveGame.objects.get(pk=lg.pk).version == before


def test_the_pages_and_the_api_read_json_with_the_same_reader():
    from api import parsers
    from web.views import live_table
    from web.views import table as table_views

    assert parsers.read_json is table_views.read_json is live_table.read_json
