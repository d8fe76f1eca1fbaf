"""What the service gives out as a game's record it takes back (issue 52): the replay page's
"Download the record" is the stored record (gouji-record/1), which the table's upload accepts;
the replay viewer's own data (replay.json) is named as what it is when uploaded; the download
follows who may see the record, and a player has it under their own link."""

from __future__ import annotations

import json
import random

import pytest
from django.urls import reverse

from engine.bots import play_match
from games.models import GameResult
from games.services import result_confirm, result_submit
from tests.pages import test_table_views
from tests.pages.test_table_refusals import upload, upload_error
from tournaments.models import Seat
from tournaments.services.links import entry_link_issue

pytestmark = pytest.mark.django_db

#: the table, its seats and their private links (test_table_views' fixtures)
table, seats, links = test_table_views.table, test_table_views.seats, test_table_views.links


def test_the_record_the_service_gives_out_is_taken_back_and_the_viewers_data_is_named(
        client, links, table, seats):
    # given: game 1 handed in as a record and confirmed; its replay page offers the record
    (g1,) = play_match(table.round.event.rules, 1, random.Random(4))
    users = [s.player.user for s in seats]
    result = result_confirm(result=result_submit(table=table, number=1, record=g1.record(),
                                                 by=users[0]), by=users[1])
    kwargs = {"slug": table.round.event.slug, "number": 1, "table": table.number, "game": 1}
    replay_page = client.get(reverse("pages:replay", kwargs=kwargs)).content.decode()
    download = reverse("pages:record-download", kwargs=kwargs)
    assert f'href="{download}" download' in replay_page
    response = client.get(download)
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    record = json.loads(response.content)
    assert record["format"] == "gouji-record/1"

    # when / then: uploaded to its game, the engine takes it (the stored result, unchanged)
    r = upload(client, links[0], response.content)
    assert r.status_code == 302
    assert GameResult.objects.get(pk=result.pk).version == 1

    # and the replay viewer's data (replay.json) is named as what it is
    viewer = client.get(reverse("pages:replay-data", kwargs=kwargs)).content
    r = upload(client, links[0], viewer, name="replay.json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    assert "此文件是复盘页面的数据，不是牌谱" in upload_error(r)


def test_the_record_download_follows_who_may_see_the_record(client, links, table, seats):
    (g1,) = play_match(table.round.event.rules, 1, random.Random(4))
    result_submit(table=table, number=1, record=g1.record(),
                  by=Seat.objects.get(table=table, seat=0).player.user)
    kwargs = {"slug": table.round.event.slug, "number": 1, "table": table.number, "game": 1}
    # not confirmed yet: the public gets nothing (the record holds every dealt hand)
    assert client.get(reverse("pages:record-download", kwargs=kwargs)).status_code == 404


def test_a_player_downloads_the_record_under_their_own_link_before_it_is_confirmed(
        client, links, table, seats):
    # given: game 1 handed in as a record by 1号位, awaiting 2号位's confirmation
    (g1,) = play_match(table.round.event.rules, 1, random.Random(4))
    result = result_submit(table=table, number=1, record=g1.record(),
                           by=seats[0].player.user)
    # when: 2号位 opens its replay under their link
    page = client.get(links[1] + f"results/{result.pk}/replay/").content.decode()
    # then: the download is theirs too, and it is the stored record
    download = links[1] + f"results/{result.pk}/record.json"
    assert f'href="{download}" download' in page
    record = json.loads(client.get(download).content)
    assert record == result.versions.get(version=1).payload
    # a link of another table opens nothing of it
    other = table.round.tables.get(number=2).seats.select_related("entry", "player").first()
    (link,) = entry_link_issue(entry=other.entry, player=other.player)
    assert client.get(f"/p/{link.token()}/results/{result.pk}/record.json").status_code == 404
