"""A table's players hand in and confirm a result on their phones, through their private links
(issue 16), in a real browser: headless Chromium (Debian's, driven by Playwright, as
tests/pages/test_browser.py) at 390×844, under the pages' Content-Security-Policy.

Two players of one table: the first taps the seats in finishing order, sees the engine's team
points and sends; the second, of the other 联邦, sees "waiting for your confirmation" and
confirms — in English. The form page is then checked in Chinese, and without JavaScript. With
``UPDATE_SCREENSHOTS=1`` the test writes docs/table-result-form-{en,zh}.png and
docs/table-confirm-{en,zh}.png.
"""

from __future__ import annotations

import os
import re

import pytest

from games.models import GameResult
from tests.pages.helpers import draw_round
from tests.pages.test_browser import CHROMIUM, REPO, browser, fits_a_phone  # noqa: F401  (the fixture)
from tournaments import services
from tournaments.models import Seat

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium)"),
    pytest.mark.django_db(transaction=True),
]

ORDER = [0, 2, 4, 1, 3, 5]  # 联邦 0 takes 头科, 二科 and 三科
POINTS = re.compile(r"联邦 0 12 · 联邦 1 0")  # dagang, every seat 开点
UPDATE = os.environ.get("UPDATE_SCREENSHOTS") == "1"


@pytest.fixture
def links(make_event):
    """The private links of table 1's six seats (round 1 of a published event), in seat
    order."""
    event = make_event(slug="phone-open")
    table = draw_round(event).tables.get(number=1)
    out = []
    for seat in Seat.objects.filter(table=table).select_related("entry", "player").order_by(
            "seat"):
        (link,) = services.entry_link_issue(entry=seat.entry, player=seat.player)
        out.append(f"/p/{link.token()}/")
    return table, out


def phone(browser, locale: str, **extra):  # noqa: F811
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=locale, **extra)
    tab = context.new_page()
    tab.errors = []
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    tab.on("console", lambda msg: msg.type == "error" and tab.errors.append(msg.text))
    return context, tab


def shot(tab, name: str, *, full_page: bool = True) -> None:
    if UPDATE:
        tab.screenshot(path=str(REPO / "docs" / name), full_page=full_page)


def test_two_players_submit_and_confirm_a_game_through_their_links(live_server, browser,  # noqa: F811
                                                                   links):
    table, urls = links
    # the first player (1号位, 联邦 0) taps the seats from 头科 to 大落
    context, tab = phone(browser, "en-US")
    tab.goto(live_server.url + urls[0])
    assert tab.locator("h1").inner_text() == f"Table {table.number}"
    for seat in ORDER:
        tab.locator(f'.tap button[data-seat="{seat}"]').tap()
    assert tab.locator(".tap-hint").inner_text() == "All six placed."
    score = tab.locator("#score")
    score.filter(has_text=POINTS).wait_for()  # the engine's team points, before sending
    assert score.inner_text() == "Team points: 联邦 0 12 · 联邦 1 0"
    assert fits_a_phone(tab)
    shot(tab, "table-result-form-en.png")
    tab.get_by_role("button", name="Send the result").tap()
    tab.locator("article#game-1").wait_for()
    assert "submitted, awaiting confirmation" in tab.locator("#game-1").inner_text()
    assert "waiting for a player of the other 联邦" in tab.locator("#game-1").inner_text()
    assert not tab.errors, tab.errors
    context.close()
    result = GameResult.objects.get(table=table, number=1)
    assert (result.status, result.engine_result["order"]) == ("submitted", ORDER)

    # the second player (2号位, 联邦 1) is asked to confirm it, and does
    context, tab = phone(browser, "en-US")
    tab.goto(live_server.url + urls[1])
    ask = tab.locator("#game-1 .ask")
    assert "Waiting for your confirmation." in ask.inner_text()
    assert fits_a_phone(tab)
    ask.scroll_into_view_if_needed()
    shot(tab, "table-confirm-en.png", full_page=False)
    ask.get_by_role("button", name="Confirm").tap()
    tab.locator("#game-1 .badge.done").wait_for()
    assert tab.locator("#game-1 .badge").inner_text() == "confirmed"
    assert not tab.errors, tab.errors
    context.close()
    result.refresh_from_db()
    assert result.status == "confirmed"


def _first_letter_shown(locator) -> str:
    """The first letter of ``locator``'s text as the page shows it (its ``::first-letter``
    style applied)."""
    return locator.evaluate(
        "n => getComputedStyle(n, '::first-letter').textTransform === 'uppercase' ? "
        "n.textContent.trim()[0].toUpperCase() : n.textContent.trim()[0]")


def test_a_refusal_reads_as_a_sentence_in_english(live_server, browser, links):  # noqa: F811
    """The service's and the engine's refusals are clauses in lower case (as in the API's
    JSON); on the page each starts with a capital: the engine's beside its field, and the
    service's at the top of the page (here: the game was dealt live while the sheet was being
    filled in, so it is not taken)."""
    from live.services import live_start

    table, urls = links
    context, tab = phone(browser, "en-US")
    tab.goto(live_server.url + urls[0])
    for seat in ORDER:
        tab.locator(f'.tap button[data-seat="{seat}"]').tap()
    tab.locator("#score").filter(has_text=POINTS).wait_for()
    tab.locator('input[name="revolution_0"]').check()
    beside = tab.locator(".js-error p").first
    beside.wait_for()
    assert beside.text_content().startswith("seat 1 revolted")
    assert _first_letter_shown(beside) == "S"
    tab.locator('input[name="revolution_0"]').uncheck()
    tab.locator("#score").filter(has_text=POINTS).wait_for()

    live_start(table=table, number=1)  # dealt live by another seat meanwhile
    tab.get_by_role("button", name="Send the result").tap()
    notice = tab.locator("p.notice.error")
    notice.wait_for()
    assert notice.text_content() == ("game 1 of this table is being played live; its result "
                                     "is recorded when it ends")
    assert _first_letter_shown(notice) == "G"
    assert notice.inner_text().startswith("Game 1 of this table")  # (as a reader gets it)
    assert [e for e in tab.errors if "status of 409" not in e] == []  # (the page's own 409)
    context.close()
    assert not GameResult.objects.filter(table=table).exists()


def test_the_form_in_chinese_and_the_confirmation_view(live_server, browser, links):  # noqa: F811
    table, urls = links
    context, tab = phone(browser, "zh-CN")
    tab.goto(live_server.url + urls[0])
    assert tab.locator("html").get_attribute("lang") == "zh-hans"
    assert "出完顺序" in tab.locator(".order-input legend").inner_text()
    assert "1号位" in tab.locator(".seat-list").inner_text()
    tab.locator('.tap button[data-seat="0"]').tap()
    assert tab.locator(".tap-hint").inner_text() == "请点选二科的座位"
    for seat in ORDER[1:]:
        tab.locator(f'.tap button[data-seat="{seat}"]').tap()
    tab.locator("#score").filter(has_text=POINTS).wait_for()
    # a refusal comes back in Chinese next to its field: seat 1 revolts, yet led
    tab.locator('input[name="revolution_0"]').check()
    tab.locator(".js-error").first.wait_for()
    assert "1号位革命了，不可能首出" in tab.locator(".js-error").first.inner_text()
    tab.locator('input[name="revolution_0"]').uncheck()
    tab.locator("#score").filter(has_text=POINTS).wait_for()
    assert fits_a_phone(tab)
    shot(tab, "table-result-form-zh.png")
    tab.get_by_role("button", name="提交成绩").tap()
    tab.locator("article#game-1").wait_for()
    context.close()

    context, tab = phone(browser, "zh-CN")
    tab.goto(live_server.url + urls[3])
    ask = tab.locator("#game-1 .ask")
    assert "等待你确认" in ask.inner_text()
    assert fits_a_phone(tab)
    ask.scroll_into_view_if_needed()
    shot(tab, "table-confirm-zh.png", full_page=False)
    assert not tab.errors, tab.errors
    context.close()


def test_the_form_works_without_javascript(live_server, browser, links):  # noqa: F811
    table, urls = links
    context, tab = phone(browser, "en-US", java_script_enabled=False)
    tab.goto(live_server.url + urls[4])
    for place, seat in enumerate(ORDER):
        tab.locator(f'select[name="place_{place}"]').select_option(str(seat))
    tab.get_by_role("button", name="Score it").tap()
    tab.locator("#score").filter(has_text=POINTS).wait_for()
    tab.get_by_role("button", name="Send the result").tap()
    tab.locator("article#game-1").wait_for()
    assert fits_a_phone(tab)
    context.close()
    assert GameResult.objects.get(table=table, number=1).engine_result["order"] == ORDER
