"""The replay of a record on the table page (issue 52): the side that confirms a record sees
the game itself first, under its own private link (``/p/<token>/results/<id>/replay/``) or
signed in at ``/me/``, with the public replay's page and script; nobody else sees an
unconfirmed record."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from engine.bots import play_match
from games.models import GameResult
from games.services import result_confirm, result_submit
from tests.pages.test_table_views import FIRST, links, seats, table  # noqa: F401 (fixtures)
from tournaments.models import Seat
from tournaments.services.links import entry_link_issue

pytestmark = pytest.mark.django_db


@pytest.fixture
def record_game(table, seats, links):  # noqa: F811
    """Game 1 of the table handed in by 1号位 as a full record (a bot-played game)."""
    record = play_match("dagang", 1, random.Random(7))[0].record()
    result = result_submit(table=table, number=1, record=record, by=seats[0].player.user)
    return result, record


def test_the_confirming_side_opens_the_records_replay_next_to_confirm(links, record_game):  # noqa: F811
    # given: a record submitted by 1号位, waiting for the other 联邦 (2号位)
    result, record = record_game
    page = Client().get(links[1]).content.decode()
    # then: its replay, under 2号位's own link, sits with the confirm form
    ask = re.search(r'<div class="ask".*?</div>', page, re.S).group(0)
    replay = f"{links[1]}results/{result.pk}/replay/"
    assert f'href="{replay}"' in ask and 'data-action="confirm"' in ask

    # when: they open it
    r = Client().get(replay)
    # then: the replay page, its steps asked under the same link, nothing public about it
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="replay"' in html and "web/js/replay.js" in html
    assert f"{links[1]}results/{result.pk}/replay.json" in html
    assert 'id="replay-unconfirmed"' in html
    assert f'href="{links[1]}#game-1"' in html
    data = Client().get(f"{links[1]}results/{result.pk}/replay.json").json()
    assert data["ok"] and data["game"] == 1 and data["version"] == 1
    assert data["start"]["hands"] and len(data["steps"]) == len(record["actions"])


def test_the_submitting_side_and_signed_in_players_see_it_too(client, links, seats,  # noqa: F811
                                                                record_game):
    result, _ = record_game
    page = Client().get(links[0]).content.decode()  # the submitter: no confirm form
    assert f'href="{links[0]}results/{result.pk}/replay/"' in page
    assert Client().get(f"{links[0]}results/{result.pk}/replay/").status_code == 200
    user = seats[3].player.user
    client.force_login(user)
    assert f'href="/me/results/{result.pk}/replay/"' in client.get("/me/").content.decode()
    assert client.get(f"/me/results/{result.pk}/replay.json").json()["ok"]


def test_nobody_off_the_table_sees_an_unconfirmed_record(links, table, record_game):  # noqa: F811
    # given: a player of another table of the round, with their own link
    result, _ = record_game
    other = Seat.objects.filter(table=table.round.tables.get(number=2)).select_related(
        "entry").first()
    (link,) = entry_link_issue(entry=other.entry)
    own = f"/p/{link.token()}/"
    event, rnd = table.round.event, table.round
    public = f"/e/{event.slug}/rounds/{rnd.number}/tables/{table.number}/games/1/replay/"
    # then: their link opens no replay of this table, nor does the public page, until confirmed
    for url in (f"{own}results/{result.pk}/replay/", f"{own}results/{result.pk}/replay.json",
                public, public.replace("replay/", "replay.json")):
        assert Client().get(url).status_code == 404, url
    # once the other side confirms, the public replay opens as before
    result_confirm(result=result, by=Seat.objects.get(table=table, seat=1).player.user)
    assert Client().get(public).status_code == 200


def test_a_result_sheet_has_no_replay(links, table, seats):  # noqa: F811
    result = result_submit(table=table, number=1, sheet=FIRST, by=seats[0].player.user)
    assert GameResult.objects.get(pk=result.pk).status == "submitted"
    page = Client().get(links[1]).content.decode()
    assert "/replay/" not in page and 'data-action="confirm"' in page
    assert Client().get(f"{links[1]}results/{result.pk}/replay/").status_code == 404


def test_the_replay_link_and_page_speak_chinese(links, record_game):  # noqa: F811
    result, _ = record_game
    page = Client().get(links[1], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "查看复盘" in page and "并在复盘中核对这局牌本身" in page
    html = Client().get(f"{links[1]}results/{result.pk}/replay/",
                        HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "回到你的牌桌" in html and "只有裁判和本桌的牌手能看到它的牌谱" in html
