"""What the live table page says, in a real browser (Debian's chromium through Playwright) on a
phone (issue 52):

- the 革命 question is asked of every seat (asking gives nobody's cards away), but only a
  seat dealt no 2 and no joker (under 憋3, no 3 either) may revolt (RULES.md §8, judged on
  the dealt cards before any tribute is paid: tests/engine/test_preplay.py). The seat that
  may not is told so, not "you may revolt";
- at the end of a game, a seat left holding cards (one team was out) or eliminated (闷) has a
  place but did not run out of cards: "placed 大落" with its cards or its 闷, never
  "finished 大落"."""

from __future__ import annotations

import os
import random

import pytest

import engine
from engine.game import Game
from live import deals as live_deals
from live import services as live
from live.models import LiveGame
from tests.engine.test_preplay import build_deal
from tests.live.helpers import make_live_table, play_on_server
from tests.pages.test_browser import CHROMIUM, browser  # noqa: F401  (the fixture)
from tests.pages.test_live_browser import _bots_at_once, phone  # noqa: F401  (autouse fixture)
from tests.pages.test_live_table_views import links_of

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium)"),
    pytest.mark.django_db(transaction=True),
]
REAL_DEAL = engine.deal


def dealt(monkeypatch, hands) -> None:
    """The next live deal gives ``hands``."""
    monkeypatch.setattr(live_deals, "derive_deal", lambda _seed, _label: [list(h) for h in hands])


@pytest.mark.parametrize("language, may, may_not", [
    ("en", "dealt no 2 and no joker, you may revolt", "the cards you were dealt do not allow it"),
    ("zh-hans", "你发到的牌里没有 2 也没有王，可以革命", "你发到的牌不行"),
])
def test_the_revolution_question_says_whether_the_seat_may_revolt(
        live_server, browser, monkeypatch, language, may, may_not):  # noqa: F811
    for can in (False, True):
        # given: game 1 under the basic rules (no 打点: 革命 is the first question, asked
        # of 1号位), 1号位 dealt a joker — or no 2 and no joker
        hands = build_deal({0: ""}, seed=8) if can else REAL_DEAL(random.Random(3))
        assert any(c in ("RJ", "BJ") or c.startswith("2") for c in hands[0]) is not can
        dealt(monkeypatch, hands)
        lt = make_live_table(rules="basic")
        lg = live.live_start(table=lt.table)
        assert Game.from_state(lg.state).pre_prompt()[0] == 0

        # when: 1号位 opens the live table
        context, tab = phone(browser, language, live_server)
        tab.goto(f"{live_server.url}{links_of(lt.table)[0]}live/{lg.pk}/")
        tab.locator("#pre").wait_for()

        # then: the sentence fits the seat's own cards, and so do the buttons
        text = tab.locator("#pre-text").inner_text()
        buttons = tab.locator("#pre-acts button")
        if can:
            assert may in text and may_not not in text
            assert buttons.evaluate_all("bs => bs.map(b => b.dataset.act)") == [
                "revolt", "decline"]
        else:
            assert may_not in text and may not in text
            assert buttons.evaluate_all("bs => bs.map(b => b.dataset.act)") == ["decline"]
        assert tab.errors == []
        context.close()


def test_seats_left_holding_cards_at_the_end_are_placed_not_finished(live_server, browser,  # noqa: F811
                                                                     monkeypatch):
    # given: a game played to its end in which one team went out while seats of the other
    # still held cards, and a seat was smothered (闷)
    dealt(monkeypatch, REAL_DEAL(random.Random(5)))
    lt = make_live_table()
    lg = live.live_start(table=lt.table)
    lg, game = play_on_server(lt, lg.pk)
    result = game.result()
    eliminated = {e["seat"]: e["reason"] for e in result["eliminated"]}
    viewer = 1
    holding = [s for s in range(6) if game.count[s] and s != viewer]
    assert lg.status == LiveGame.Status.FINISHED and holding and eliminated, (
        game.count, eliminated)

    # when: 2号位 opens the finished game
    context, tab = phone(browser, "en", live_server)
    tab.goto(f"{live_server.url}{links_of(lt.table)[viewer]}live/{lg.pk}/")
    tab.locator("#result").wait_for()

    # then: around the table, only the seats that ran out of cards "finished"
    places = ["头科", "二科", "三科", "四科", "二落", "大落"]
    for s in range(6):
        if s == viewer:
            continue
        ring = tab.locator(f'#ring .seat[data-seat="{s}"]').inner_text()
        place = places[result["places"][s] - 1]
        if s in eliminated:
            assert f"placed {place}" in ring and "smothered" in ring and "finished" not in ring
        elif game.count[s]:
            assert f"placed {place}" in ring and f"{game.count[s]} cards" in ring, ring
            assert "finished" not in ring
        else:
            assert f"finished {place}" in ring, ring
    assert tab.errors == []
    context.close()

    # and in Chinese: a seat still holding cards reads 名次, not 已出完
    context, tab = phone(browser, "zh-hans", live_server)
    tab.goto(f"{live_server.url}{links_of(lt.table)[viewer]}live/{lg.pk}/")
    tab.locator("#result").wait_for()
    ring = tab.locator(f'#ring .seat[data-seat="{holding[0]}"]').inner_text()
    assert "名次：" in ring and "已出完" not in ring
    context.close()
