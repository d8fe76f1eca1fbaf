"""A duplicate (复式) event in a real browser (Debian's chromium through Playwright): 36 players,
six tables in three groups of two, one board a group, every game dealt and played live by the
托管 bots through the services. The boards page and a board's page keep the board hidden while
the twin table has not finished it — no result, no seed — and then show each table's result,
the duplicate scores, the seed and its check; the table page and the leaderboard say 复式.

With ``UPDATE_SCREENSHOTS=1`` a board's result page is written to
``docs/duplicate-result-en.png`` and ``docs/duplicate-result-zh.png`` (1280 wide).
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.core.cache import cache

from tests.duplicate_helpers import duplicate_event, play_game
from tests.pages.test_browser import (  # browser: its fixture, used by name
    HARNESS,
    NEEDS_CHROMIUM,
    REPO,
    browser,  # noqa: F401
)
from tournaments.models import Board, BoardResult

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.django_db(transaction=True),
]
SHOTS = os.environ.get("UPDATE_SCREENSHOTS") == "1"
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def _context(browser, server, language: str):  # noqa: F811
    context = browser.new_context(**DESKTOP, **HARNESS, locale="en-US",
                                  extra_http_headers={"Accept-Language": language})
    context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language,
                          "url": server.url}])
    return context, context.new_page()


def test_a_duplicate_round_played_live_hides_each_board_until_its_group_finished(
        live_server, browser):  # noqa: F811
    # given: a 36-player duplicate event (matchpoints, pairs of tables); table 1 has played
    cache.clear()
    event, rnd = duplicate_event(players=36, games=1, method="mp", group=2,
                                 slug="dup-cup", name="2026 青岛复式够级赛")
    tables = list(rnd.tables.order_by("number"))
    assert len(tables) == 6 and Board.objects.filter(round=rnd).count() == 3
    play_game(tables[0], 1, seed=11, careful=True)  # another bot than the twin's
    board = Board.objects.get(round=rnd, group=1)
    base = f"{live_server.url}/e/{event.slug}/rounds/1/boards/"
    context, tab = _context(browser, live_server, "en")

    # then: the boards page says 复式, board 1 of group 1 is hidden (1 of 2 tables done)
    tab.goto(base)
    assert "复式" in tab.locator("#duplicate-note").inner_text()
    row = tab.locator('tr[data-board="1-1"]')
    assert "1 of 2" in row.inner_text() and "hidden" in row.inner_text()
    row.locator("a").click()
    assert tab.locator("#board-hidden").is_visible()
    assert tab.locator("#board-results").count() == 0
    assert board.seed not in tab.content()
    # the table that played it shows no result to the public either
    tab.goto(f"{live_server.url}/e/{event.slug}/rounds/1/tables/1/")
    assert tab.locator("#boards-link").is_visible()
    assert board.seed not in tab.content()

    # when: every other table plays its board (托管's bots, through the services)
    for k, table in enumerate(tables[1:], start=12):
        play_game(table, 1, seed=k)
    assert BoardResult.objects.count() == 6

    # then: every board is shown, with each table's result, the scores and the seed
    tab.goto(base)
    assert tab.locator("tr.hidden-board").count() == 0
    assert tab.locator("tr.scored").count() == 3
    tab.locator('tr[data-board="1-1"] a').click()
    results = tab.locator("#board-results")
    assert results.locator("tbody tr").count() == 4  # two tables, two 联邦 each
    assert "rotated (twin)" in results.inner_text()
    assert tab.locator("#board-seed").inner_text() == board.seed
    assert "python -m engine deal --seed" in tab.locator("#board-command").inner_text()
    if SHOTS:
        tab.screenshot(path=str(REPO / "docs" / "duplicate-result-en.png"), full_page=True)
    # the leaderboard adds the boards up, and says so
    tab.goto(f"{live_server.url}/e/{event.slug}/leaderboard/")
    assert "matchpoints" in tab.locator("#duplicate-standings").inner_text()
    context.close()

    # and in Chinese
    context, tab = _context(browser, live_server, "zh-hans")
    tab.goto(f"{base}1/1/")
    assert "复式" in tab.locator("h1").inner_text()
    assert "轮转" in tab.locator("#board-results").inner_text()
    if SHOTS:
        tab.screenshot(path=str(REPO / "docs" / "duplicate-result-zh.png"), full_page=True)
    context.close()
