"""What a seated player's result form refuses, and how it says so (web/views/table.py, issue 52):
开点 is asked of every seat (never taken as 不开点 when left blank), an incomplete finishing order
is refused, a refused sheet's errors are listed at the top of the form its anchor scrolls to,
and a refused record upload is said in the player's language with seats as 1–6号位, where it
is seen."""

from __future__ import annotations

import copy
import io
import json
import random

import pytest

from engine.bots import play_match
from games.models import GameResult
from games.services import result_submit
from tests.pages import test_table_views
from tests.pages.helpers import draw_round
from tests.pages.test_table_views import place_fields, sheet_post
from tournaments.services.links import entry_link_issue

pytestmark = pytest.mark.django_db

#: the table, its seats and their private links (test_table_views' fixtures)
table, seats, links = test_table_views.table, test_table_views.seats, test_table_views.links


def upload(client, url: str, body, number: int = 1, name: str = "game.json", **headers):
    data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    record = io.BytesIO(data)
    record.name = name
    return client.post(url + "submit/", {"number": str(number), "record": record}, **headers)


def upload_error(response) -> str:
    page = response.content.decode()
    start = page.index('id="record-upload"')
    box = page.index('class="errors summary" role="alert"', start)
    return page[box:page.index("</div>", box)]


# ----------------------------------------------------------------------------- 开点
def test_a_sheet_with_no_kaidian_answered_is_refused_and_nothing_is_stored(client, links,
                                                                            table):
    # given: the finishing order tapped in, 开点 left blank for every seat
    data = {"number": "1", **place_fields((0, 2, 4, 1, 3, 5)), "leader": "0"}

    # when
    r = client.post(links[0] + "submit/", data, HTTP_ACCEPT_LANGUAGE="zh-hans")

    # then: refused — a blank is not 不开点 (which would owe six 点贡 in game 2)
    assert r.status_code == 400
    assert not GameResult.objects.filter(table=table).exists()
    page = r.content.decode()
    assert all(f"请为{n}号位选择开点或不开点" in page for n in range(1, 7))


def test_the_form_asks_kaidian_per_seat_with_nothing_chosen_and_says_the_rule(client, links):
    page = client.get(links[0]).content.decode()
    for s in range(6):
        assert page.count(f'name="kaidian_{s}"') == 2  # 开点 / 不开点
    assert 'name="kaidian_0" value="yes" required' not in page
    assert "checked" not in page.split('id="sheet"')[1].split("</form>")[0]
    assert "a seat that revolted (革命) is 不开点" in page


def test_without_dadian_the_form_has_no_kaidian_question(client, make_event):
    event = make_event(slug="basic-open", rules="basic")
    seat = draw_round(event).tables.get(number=1).seats.select_related("entry", "player").get(
        seat=0)
    (link,) = entry_link_issue(entry=seat.entry, player=seat.player)
    page = client.get(f"/p/{link.token()}/").content.decode()
    assert 'id="sheet"' in page and 'name="kaidian_' not in page and "pays 点贡" not in page
    r = client.post(f"/p/{link.token()}/submit/",
                    {"number": "1", **place_fields((0, 2, 4, 1, 3, 5)), "leader": "0"})
    assert r.status_code == 302


# ----------------------------------------------------------------------------- the order
def test_an_incomplete_finishing_order_is_refused_at_the_top_of_the_form(client, links,
                                                                        table):
    data = sheet_post()
    data.pop("place_5")
    r = client.post(links[0] + "submit/", data)
    assert r.status_code == 400
    assert not GameResult.objects.filter(table=table).exists()
    page = r.content.decode()
    form = page.index('id="sheet"')
    summary = page.index('class="errors summary" role="alert"', form)
    assert summary < page.index('name="place_0"', form)  # first thing in the form
    assert "pick the seat placed 大落" in page[summary:page.index("</div>", summary)]
    # the form's action carries the anchor of the form, so the reloaded page opens there
    assert f'action="{links[0]}submit/#result-form"' in page and 'id="result-form"' in page


# ----------------------------------------------------------------------------- uploads
def test_a_refused_upload_is_said_in_chinese_with_seats_from_1_to_6(client, links, table,
                                                                     seats):
    # given: game 1 handed in as a full record (a bot match at the event's rules)
    g1, g2 = play_match(table.round.event.rules, 2, random.Random(3))
    result_submit(table=table, number=1, record=g1.record(), by=seats[1].player.user)
    assert g1.result()["owed_tributes"][0] == {"kind": "dian", "from": 0, "to": 3, "count": 1}

    # when: game 2's record comes without the 点贡 1号位 owes 4号位 after game 1
    record = copy.deepcopy(g2.record())
    record["pre"] = [e for e in record["pre"] if e["type"] != "tribute"]
    r = upload(client, links[0], record, number=2, HTTP_ACCEPT_LANGUAGE="zh-hans")

    # then: refused beside the upload form, in Chinese, seats 1–6号位
    assert r.status_code == 422  # (the engine's refusal, as in the API)
    said = upload_error(r)
    assert "1号位还欠4号位 1 张点贡" in said and "seat" not in said.lower()
    assert not GameResult.objects.filter(table=table, number=2).exists()
    assert f'action="{links[0]}submit/#record-upload"' in r.content.decode()

    # and a file with a key a record has not
    r = upload(client, links[0], {**g2.record(), "game": 2}, number=2,
               HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "文件中有牌谱没有的键“game”" in upload_error(r)
    r = upload(client, links[0], b"\xff not json", number=2, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "该文件不是 JSON 牌谱" in upload_error(r)


def test_an_upload_refused_once_no_game_is_left_is_said_at_the_top(client, links, table,
                                                                   seats):
    # given: both games handed in (so the page has no form, nor an upload form, any more)
    g1, g2 = play_match(table.round.event.rules, 2, random.Random(3))
    user = seats[1].player.user
    result_submit(table=table, number=1, record=g1.record(), by=user)
    result_submit(table=table, number=2, sheet={"order": [0, 2, 4, 1, 3, 5],
                                                "kaidian": [True] * 6}, by=user)
    # when: a stale page uploads game 2's record
    r = upload(client, links[0], g2.record(), number=2)
    # then: refused, and said where it is seen
    assert r.status_code == 409
    page = r.content.decode()
    assert 'id="record-upload"' not in page
    notice = page[page.index('class="notice error"'):page.index('id="seats-h"')]
    assert "The record was not taken:" in notice and "already has a result" in notice
