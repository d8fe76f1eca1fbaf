"""Who is at the table before a live deal, on the pages (issue 52): the table page lists the
six seats as 1–6号位 with who said they are ready, offers "ready" and deals only once the
other five are; a refused deal names the missing seats in the player's language; a referee
deals from the desk without anyone ready."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from live.models import LiveGame, SeatReady
from tests.live.helpers import make_live_table
from tests.pages.test_live_table_views import links_of

pytestmark = pytest.mark.django_db


def live_section(page: str) -> str:
    return re.search(r'<section class="card live-play".*?</section>', page, re.S).group(0)


def test_the_table_page_deals_only_once_the_other_five_are_ready():
    # given: a table with nothing played, nobody ready
    lt = make_live_table()
    links = links_of(lt.table)
    section = live_section(Client().get(links[0]).content.decode())
    # then: six seats not yet ready, a "ready" button, no deal: it waits for 2号位…6号位
    assert section.count("not yet") == 6
    assert 'id="live-ready"' in section and 'id="live-start"' not in section
    assert "Waiting for seat 2, seat 3, seat 4, seat 5, seat 6." in section

    # when: 2号位 to 6号位 tap "ready" on their pages
    for link in links[1:]:
        r = Client().post(f"{link}live/ready/", {"ready": "1"})
        assert r.status_code == 302 and r["Location"] == f"{link}#live-h"

    # then: 1号位's page offers the deal, which deals the game
    section = live_section(Client().get(links[0]).content.decode())
    assert section.count("not yet") == 1 and 'id="live-start"' in section
    r = Client().post(f"{links[0]}live/start/")
    lg = LiveGame.objects.get(table=lt.table)
    assert r.status_code == 302 and r["Location"] == f"{links[0]}live/{lg.pk}/"


def test_a_refused_deal_names_the_missing_seats_in_chinese():
    # given: 2号位 ready, then no longer; 4号位 ready
    lt = make_live_table()
    links = links_of(lt.table)
    Client().post(f"{links[1]}live/ready/", {"ready": "1"})
    Client().post(f"{links[1]}live/ready/", {"ready": "0"})
    Client().post(f"{links[3]}live/ready/", {"ready": "1"})
    assert list(SeatReady.objects.values_list("seat", flat=True)) == [3]

    # when: 1号位 deals anyway (a page opened before someone left)
    r = Client().post(f"{links[0]}live/start/", HTTP_ACCEPT_LANGUAGE="zh-hans")

    # then: refused, said at the top of the page with the seats as people say them
    assert r.status_code == 409
    page = r.content.decode()
    assert "所有座位到座后才能线上发第 1 局：还在等 2号位、3号位、5号位、6号位。" in page
    assert 'class="notice error"' in page and "我已到座，准备好了" in page
    assert not LiveGame.objects.filter(table=lt.table).exists()


def test_a_referee_deals_from_the_desk_without_anyone_ready(client):
    # given
    lt = make_live_table()
    Client().post(f"{links_of(lt.table)[2]}live/ready/", {"ready": "1"})
    client.force_login(lt.referee_user)
    url = f"/e/{lt.event.slug}/desk/tables/{lt.table.pk}/"
    page = client.get(url).content.decode()
    assert 'id="desk-live-start"' in page and "Ready for live play: seat 3." in page

    # when
    r = client.post(url, {"action": "live"})

    # then: dealt, and said so
    assert r.status_code == 302
    lg = LiveGame.objects.get(table=lt.table)
    assert lg.number == 1 and lg.status == LiveGame.Status.RUNNING
    assert "Game 1 dealt live" in client.get(url).content.decode()
    assert not SeatReady.objects.exists()
