"""A table's players hand in and confirm a result on their phones, through their private links
(issue 16), in a real browser: headless Chromium (Debian's, driven by Playwright, as
tests/pages/test_browser.py) at 390×844, under the pages' Content-Security-Policy.

Two players of one table: the first taps the seats in finishing order, answers 开点 for each
seat (the form is not sent before), sees the engine's team points and sends; the second, of the
other 联邦, sees "waiting for your confirmation" and confirms — in English. The form page is then
checked in Chinese, and without JavaScript. A player proposes a correction of a confirmed
result from the phone and a player of the other 联邦 accepts it on theirs (issue 52); a refused
upload is said in Chinese with seats 1–6号位, in view. With ``UPDATE_SCREENSHOTS=1`` the tests
write docs/table-result-form-{en,zh}.png, docs/table-confirm-{en,zh}.png,
docs/table-correction-en.png, docs/table-proposal-zh.png and docs/table-upload-error-zh.png.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re

import pytest

from engine.bots import play_match
from games.models import GameResult, ResultProposal
from games.services import result_confirm, result_submit
from tests.pages.helpers import draw_round
from tests.pages.test_browser import CHROMIUM, REPO, browser, fits_a_phone  # noqa: F401  (the fixture)
from tournaments.models import Seat
from tournaments.services.links import entry_link_issue

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium)"),
    pytest.mark.django_db(transaction=True),
]

ORDER = [0, 2, 4, 1, 3, 5]  # 联邦 0 takes 头科, 二科 and 三科
#: dagang: 红方 (联邦 0) takes the top three places; "red (红方) 12 · black (黑方) 0" in English
POINTS = re.compile(r"红方\)? 12 · (black \()?黑方\)? 0")
UPDATE = os.environ.get("UPDATE_SCREENSHOTS") == "1"


def answer_kaidian(tab, form: str = "#sheet", no=()) -> None:
    """Answer 开点 (or, for the seats in ``no``, 不开点) for every seat of ``form``."""
    prefix = "fix-" if form == "#fix" else ""
    for seat in range(6):
        value = "no" if seat in no else "yes"
        tab.locator(f'{form} input[name="{prefix}kaidian_{seat}"][value="{value}"]').check()


def in_view(tab, locator) -> bool:
    """Whether ``locator`` is within the phone's screen as the page is scrolled now."""
    box = locator.bounding_box()
    return box is not None and -2 <= box["y"] and box["y"] + min(box["height"], 80) <= 844


@pytest.fixture
def links(make_event):
    """The private links of table 1's six seats (round 1 of a published event), in seat
    order."""
    event = make_event(slug="phone-open")
    table = draw_round(event).tables.get(number=1)
    out = []
    for seat in Seat.objects.filter(table=table).select_related("entry", "player").order_by(
            "seat"):
        (link,) = entry_link_issue(entry=seat.entry, player=seat.player)
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
    tab.get_by_role("button", name="Send the result").tap()  # nothing tapped yet: not sent
    missing = tab.locator("#sheet .errors.summary")
    assert "tap the seat placed 头科" in missing.inner_text()
    tab.wait_for_timeout(400)  # (the page's first scoring, 250 ms after load, leaves it be)
    assert in_view(tab, missing)
    for seat in ORDER:
        tab.locator(f'.tap button[data-seat="{seat}"]').tap()
    assert tab.locator(".tap-hint").inner_text() == "All six placed."
    tab.get_by_role("button", name="Send the result").tap()  # 开点 not answered: not sent
    assert "Answer 开点 or 不开点 for seat 1, seat 2, seat 3, seat 4, seat 5, seat 6." in \
        missing.inner_text()
    assert not GameResult.objects.filter(table=table).exists()
    answer_kaidian(tab)
    score = tab.locator("#score")
    score.filter(has_text=POINTS).wait_for()  # the engine's team points, before sending
    assert score.inner_text() == "Team points: red (红方) 12 · black (黑方) 0"
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
    answer_kaidian(tab)
    tab.locator("#score").filter(has_text=POINTS).wait_for()
    tab.locator('input[name="revolution_0"]').check()
    # the rules answer a revolted seat's 开点 (不开点): filled in, not to be changed
    assert tab.locator('input[name="kaidian_0"][value="no"]').is_checked()
    assert tab.locator('input[name="kaidian_0"][value="yes"]').is_disabled()
    beside = tab.locator(".js-error p").first
    beside.wait_for()
    assert beside.text_content().startswith("seat 1 revolted")
    assert _first_letter_shown(beside) == "S"
    tab.locator('input[name="revolution_0"]').uncheck()
    tab.locator('input[name="kaidian_0"][value="yes"]').check()  # (asked again)
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
    assert "开点：每个座位都要选" in tab.locator(".kaidian-help").inner_text()
    tab.get_by_role("button", name="提交成绩").tap()  # not sent: 开点 not answered
    assert "请为1号位、2号位、3号位、4号位、5号位、6号位选择开点或不开点。" in \
        tab.locator("#sheet .errors.summary").inner_text()
    answer_kaidian(tab)
    tab.locator("#score").filter(has_text=POINTS).wait_for()
    # a refusal comes back in Chinese next to its field: seat 1 revolts, yet led
    tab.locator('input[name="revolution_0"]').check()
    tab.locator(".js-error").first.wait_for()
    assert "1号位革命了，不可能首出" in tab.locator(".js-error").first.inner_text()
    tab.locator('input[name="revolution_0"]').uncheck()
    tab.locator('input[name="kaidian_0"][value="yes"]').check()
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
    for place, seat in enumerate(ORDER[:5]):
        tab.locator(f'select[name="place_{place}"]').select_option(str(seat))
    # sent incomplete (no script to stop it): the server refuses, and the page it answers
    # opens at the form (its action's anchor), its errors listed first, in view
    tab.get_by_role("button", name="Send the result").tap()
    summary = tab.locator("#sheet .errors.summary")
    summary.wait_for()
    assert "pick the seat placed 大落" in summary.inner_text()
    assert "answer 开点 or 不开点 for seat 1" in summary.inner_text()
    assert in_view(tab, summary)
    assert not GameResult.objects.filter(table=table).exists()
    tab.locator('select[name="place_5"]').select_option(str(ORDER[5]))
    answer_kaidian(tab)
    tab.get_by_role("button", name="Score it").tap()
    tab.locator("#score").filter(has_text=POINTS).wait_for()
    tab.get_by_role("button", name="Send the result").tap()
    tab.locator("article#game-1").wait_for()
    assert fits_a_phone(tab)
    context.close()
    assert GameResult.objects.get(table=table, number=1).engine_result["order"] == ORDER


CORRECTED = [5, 0, 2, 4, 1, 3]  # 6号位 went out first


def test_a_player_proposes_a_correction_on_the_phone_and_the_other_side_accepts_it(
        live_server, browser, links):  # noqa: F811
    table, urls = links
    seats = list(Seat.objects.filter(table=table).select_related("player").order_by("seat"))
    result = result_confirm(result=result_submit(
        table=table, number=1, sheet={"order": ORDER, "kaidian": [True] * 6},
        by=seats[0].player.user), by=seats[1].player.user)

    # 1号位 (联邦 0) opens game 1's correction: the form holds the result as it stands
    context, tab = phone(browser, "en-US")
    tab.goto(live_server.url + urls[0])
    tab.locator("#game-1").get_by_role("link", name="Propose a correction").tap()
    fix = tab.locator("#fix")
    fix.wait_for()
    assert in_view(tab, tab.locator("#correct-1 h4"))
    assert [fix.locator(f'.tap button[data-seat="{s}"] .got').inner_text()
            for s in ORDER] == ["头科", "二科", "三科", "四科", "二落", "大落"]
    assert fix.locator('input[name="fix-kaidian_3"][value="yes"]').is_checked()
    tab.locator("#fix-score").filter(has_text=POINTS).wait_for()
    # taps the new order (clearing the old one first) and says why
    for seat in ORDER + CORRECTED:
        fix.locator(f'.tap button[data-seat="{seat}"]').tap()
    tab.locator("#fix-score").filter(has_text="red (红方) 2 · black (黑方) 0").wait_for()
    fix.get_by_role("button", name="Propose the correction").tap()  # no reason yet: not sent
    tab.locator("#correct-1 .errors.summary").wait_for()
    assert "Say why the result is wrong." in tab.locator("#correct-1 .errors.summary").inner_text()
    assert not ResultProposal.objects.exists()
    tab.locator("#fix-reason").fill("6号位先出完")
    assert fits_a_phone(tab)
    tab.locator("#correct-1").evaluate("n => n.scrollIntoView()")
    shot(tab, "table-correction-en.png", full_page=False)
    tab.locator("#fix").get_by_role("button", name="Propose the correction").tap()
    tab.locator("#game-1 .proposal").wait_for()
    assert "Withdraw my correction" in tab.locator("#game-1 .proposal").inner_text()
    assert not tab.errors, tab.errors
    context.close()
    proposal = ResultProposal.objects.get(result=result)
    assert (proposal.status, proposal.engine_result["order"]) == ("open", CORRECTED)

    # 2号位 (联邦 1), on their own link and in Chinese, sees it and accepts it
    context, tab = phone(browser, "zh-CN")
    tab.goto(live_server.url + urls[1])
    offered = tab.locator("#game-1 .proposal")
    assert "6号位先出完" in offered.inner_text() and "1号位" in offered.inner_text()
    offered.scroll_into_view_if_needed()
    assert fits_a_phone(tab)
    shot(tab, "table-proposal-zh.png", full_page=False)
    offered.get_by_role("button", name="接受更正").tap()
    tab.locator("#game-1 .proposal").wait_for(state="detached")
    # the table shows the new version: 6号位 头科, 联邦 0 2 : 0, version 2 in its history
    game = tab.locator("#game-1")
    assert game.locator("ol.order li").first.inner_text().startswith("头科 6号位")
    assert "第 2 版" in game.locator("details.history").text_content()
    assert not tab.errors, tab.errors
    context.close()
    result.refresh_from_db()
    assert (result.version, result.status, result.engine_result["order"]) == (
        2, "confirmed", CORRECTED)


def test_a_refused_upload_is_said_in_chinese_with_seats_from_1_to_6_in_view(
        live_server, browser, links, tmp_path):  # noqa: F811
    table, urls = links
    g1, g2 = play_match(table.round.event.rules, 2, random.Random(3))
    user = Seat.objects.get(table=table, seat=1).player.user
    result_confirm(result=result_submit(table=table, number=1, record=g1.record(), by=user),
                   by=Seat.objects.get(table=table, seat=0).player.user)
    record = copy.deepcopy(g2.record())  # game 2 without the 点贡 1号位 owes 4号位
    record["pre"] = [e for e in record["pre"] if e["type"] != "tribute"]
    path = tmp_path / "game-2.json"
    path.write_text(json.dumps(record), encoding="utf-8")

    context, tab = phone(browser, "zh-CN")
    tab.goto(live_server.url + urls[0])
    tab.locator("#record-file").set_input_files(str(path))
    tab.get_by_role("button", name="上传牌谱").tap()
    error = tab.locator("#record-upload .errors.summary")
    error.wait_for()
    assert "1号位还欠4号位 1 张点贡" in error.inner_text()
    assert "seat" not in error.inner_text().lower()
    assert in_view(tab, error)  # the answer opens at the upload form
    assert fits_a_phone(tab)
    shot(tab, "table-upload-error-zh.png", full_page=False)
    assert not tab.errors or all("status of 422" in e for e in tab.errors), tab.errors
    context.close()
    assert not GameResult.objects.filter(table=table, number=2).exists()
