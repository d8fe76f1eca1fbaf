"""The daily challenge in a real browser (Debian's chromium through Playwright), on a phone, in
zh-hans: a visitor enters a name, plays deal 1 to its end on the live table page against the
five careful bots (each of their acts chosen as 托管's bot would), goes back to the day's page,
opens the field's results of the deal — the other players who finished it, with the replay of
one — and the leaderboard of the day. The results of a deal they have not finished stay shut.

With ``UPDATE_SCREENSHOTS=1`` the day's page and its leaderboard are written to
``docs/daily-challenge-{phone,desktop}-zh.png`` and ``docs/daily-leaderboard-{phone,desktop}-zh.png``.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.core.cache import cache

from engine.game import Game
from live import daily
from live.models import ChallengeEntry, ChallengePlay
from tests.live.test_daily import play_through
from tests.pages.helpers import bot_act
from tests.pages.test_browser import (  # browser: its fixture, used by name
    HARNESS,
    NEEDS_CHROMIUM,
    REPO,
    browser,  # noqa: F401
)
from tests.pages.test_live_browser import PHONE, perform, wait_version

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.django_db(transaction=True),
]
WAIT_MS = 15_000
SHOTS = os.environ.get("UPDATE_SCREENSHOTS") == "1"
DESKTOP = {"viewport": {"width": 1920, "height": 1080}}


def context_in_chinese(browser, server, device: dict):  # noqa: F811
    context = browser.new_context(**device, **HARNESS, locale="en-US",
                                  extra_http_headers={"Accept-Language": "zh-hans"})
    context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "zh-hans",
                          "url": server.url}])
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.errors = errors
    return context, tab


def the_field() -> None:
    """Three others who played today's deals before the visitor (through the services)."""
    day = daily.challenge_day()
    for k, name in enumerate(("王芳", "李娜", "刘洋")):
        entry = daily.challenge_enter(day=day, name=name, token=f"field-{k}-0123456789abcdef")
        for number in (1, 2) if k < 2 else (1,):
            play_through(entry, number)


def test_a_visitor_enters_plays_a_deal_and_sees_the_field_and_the_leaderboard(
        live_server, browser):  # noqa: F811
    # given: three others have played; a newcomer on a phone, in Chinese
    cache.clear()
    the_field()
    context, tab = context_in_chinese(browser, live_server, PHONE)
    tab.goto(live_server.url + "/")
    tab.locator("#daily-link").click()
    assert "复式" in tab.locator("#daily-explain").inner_text()

    # when: they enter a name and play deal 1 through the table page
    tab.locator("#daily-name").fill("张伟")
    tab.locator("#daily-form button[type=submit]").click()
    assert "张伟" in tab.locator("#daily-entry").inner_text()
    deal1 = tab.locator('li.daily-deal[data-deal="1"]')
    assert deal1.locator("a.results").count() == 0  # shut until finished
    deal1.locator("button.start").click()
    tab.wait_for_selector("#hand button")
    entry = ChallengeEntry.objects.get(name="张伟")
    for _step in range(300):
        play = ChallengePlay.objects.get(entry=entry, deal__number=1)
        if play.status == ChallengePlay.Status.FINISHED:
            break
        wait_version(tab, play.version)
        perform(tab, bot_act(Game.from_state(play.state), play.deal.seat))
        wait_version(tab, play.version + 1)
        assert tab.locator("#message").is_hidden(), tab.locator("#message").inner_text()
    tab.wait_for_function("document.body.dataset.state === 'over'", timeout=WAIT_MS)
    assert tab.locator("#places li").count() == 6

    # then: back on the day's page, deal 1 is finished with its score; deal 2 stays shut
    tab.locator(".live-head a.back").click()
    deal1 = tab.locator('li.daily-deal[data-deal="1"]')
    assert deal1.get_attribute("data-state") == "finished"
    assert "净分" in deal1.locator(".my-score").inner_text()
    assert "已有 4 人打完" in deal1.inner_text()
    deal2 = tab.locator('li.daily-deal[data-deal="2"]')
    assert deal2.locator("a.results").count() == 0 and deal2.locator("code.seed").count() == 0
    if SHOTS:
        tab.screenshot(path=str(REPO / "docs" / "daily-challenge-phone-zh.png"), full_page=True)

    # the field's results of deal 1: everyone who finished it, with the replays
    deal1.locator("a.results").click()
    rows = tab.locator("#daily-field tbody tr")
    assert rows.count() == 4
    names = rows.locator("td.name").all_inner_texts()
    assert sorted(names) == sorted(["王芳", "李娜", "刘洋", "张伟"])
    assert tab.locator("#daily-field tr.me td.name").inner_text() == "张伟"
    rows.filter(has_text="王芳").locator("a.replay-link").click()
    tab.wait_for_function("document.getElementById('step-range').max > 0", timeout=WAIT_MS)
    assert "王芳" in tab.locator("h1").inner_text()

    # and the leaderboard of the day
    tab.goto(live_server.url + "/daily/")
    tab.locator("#daily-leaderboard-link").click()
    board = tab.locator("#daily-standings tbody tr")
    assert board.count() == 4
    assert "张伟" in tab.locator("#daily-standings tr.me").inner_text()
    if SHOTS:
        tab.screenshot(path=str(REPO / "docs" / "daily-leaderboard-phone-zh.png"), full_page=True)
    assert not tab.errors, tab.errors
    visitor = context.storage_state()
    context.close()

    if SHOTS:  # the same two pages on a desktop screen, as the same visitor
        desk, page = context_in_chinese(browser, live_server, {**DESKTOP,
                                                              "storage_state": visitor})
        page.goto(live_server.url + "/daily/")
        page.screenshot(path=str(REPO / "docs" / "daily-challenge-desktop-zh.png"))
        page.locator("#daily-leaderboard-link").click()
        page.screenshot(path=str(REPO / "docs" / "daily-leaderboard-desktop-zh.png"))
        desk.close()
