"""A live game's verifiable deal on its replay page, on a phone (headless Chromium at 390×844
under the pages' Content-Security-Policy): the block opens, shows the label, commitment, seed
and the command to check them, and the long hex strings wrap instead of widening the page."""

from __future__ import annotations

import os

import pytest

from live import services as live
from tests.live.helpers import make_live_table, play_on_server
from tests.pages.test_browser import CHROMIUM, browser, fits_a_phone  # noqa: F401  (the fixture)
from tests.pages.test_table_browser import phone, shot

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium)"),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.parametrize("locale, title", [("en-US", "Verifiable deal"), ("zh-CN", "发牌可验证")])
def test_the_replay_shows_the_deal_to_check_on_a_phone(live_server, browser, locale,  # noqa: F811
                                                        title):
    lt = make_live_table()
    lg, _game = play_on_server(lt, live.live_start(table=lt.table).pk)
    rnd = lt.table.round
    context, tab = phone(browser, locale)
    tab.goto(f"{live_server.url}/e/{lt.event.slug}/rounds/{rnd.number}/tables/"
             f"{lt.table.number}/games/1/replay/")
    tab.locator("#hands [data-card]").first.wait_for()
    tab.locator("#verifiable-deal summary", has_text=title).tap()
    assert tab.locator("#deal-seed").inner_text() == lg.deal_seed
    assert tab.locator("#deal-commitment").inner_text() == lg.deal_commitment
    assert f"--label {lg.deal_label}" in tab.locator("#deal-command").inner_text()
    assert fits_a_phone(tab) and tab.errors == []
    shot(tab, f"replay-deal-phone-{'zh' if locale == 'zh-CN' else 'en'}.png")
    context.close()
