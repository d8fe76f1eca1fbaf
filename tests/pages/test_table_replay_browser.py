"""The confirming side looks at a record's replay before confirming it, on a phone (issue 52):
headless Chromium (Debian's, through Playwright) at 390×844 under the pages'
Content-Security-Policy. 1号位 uploads game 1's record; 2号位, of the other 联邦, opens
their private link, taps "View the replay", steps through the game under their own link,
comes back to their table and confirms — in English and in Chinese."""

from __future__ import annotations

import os
import random

import pytest

from engine.bots import play_match
from games.models import GameResult
from games.services import result_submit
from tests.pages.test_browser import CHROMIUM, browser, fits_a_phone  # noqa: F401  (the fixture)
from tests.pages.test_table_browser import links, phone  # noqa: F401  (the fixture)

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium)"),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.parametrize("locale, words", [
    ("en-US", {"replay": "View the replay", "act": "Act 5 of", "back": "back to your table",
               "confirm": "Confirm"}),
    ("zh-CN", {"replay": "查看复盘", "act": "第 5 ", "back": "回到你的牌桌", "confirm": "确认"}),
])
def test_the_other_side_steps_through_the_replay_then_confirms(live_server, browser, links,  # noqa: F811
                                                                 locale, words):
    # given: game 1 handed in by 1号位 as a full record
    table, urls = links
    record = play_match("dagang", 1, random.Random(3))[0].record()
    submitter = table.seats.get(seat=0).player.user
    result = result_submit(table=table, number=1, record=record, by=submitter)
    context, tab = phone(browser, locale)

    # when: 2号位 opens the replay next to the confirm button
    tab.goto(live_server.url + urls[1])
    tab.locator("#game-1 .ask a", has_text=words["replay"]).tap()
    # then: the six hands as play begins, and the acts one by one, under their link
    tab.locator("#hands [data-card]").first.wait_for()
    assert tab.url == f"{live_server.url}{urls[1]}results/{result.pk}/replay/"
    assert tab.locator("#hands .hand").count() == 6
    for _ in range(5):
        tab.locator('[data-go="forward"]').tap()
    assert tab.locator("#replay").get_attribute("data-step") == "5"
    assert words["act"] in tab.locator("#step-caption").inner_text()
    assert tab.locator("#replay-unconfirmed").is_visible()
    assert fits_a_phone(tab) and tab.errors == []

    # when: back at their table, they confirm
    with tab.expect_navigation():
        tab.locator("#replay-back", has_text=words["back"]).tap()
    with tab.expect_navigation():
        tab.locator("#game-1 [data-action=confirm]", has_text=words["confirm"]).tap()
    # then
    assert GameResult.objects.get(pk=result.pk).status == "confirmed"
    assert tab.errors == []
    context.close()
