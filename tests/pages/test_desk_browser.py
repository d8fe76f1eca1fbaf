"""The referee desk in a real browser (Debian's chromium through Playwright, as
test_browser.py), at a phone's viewport: a table's players submit and confirm one game through
their private links, another player disputes a second game, the dispute shows on the desk by
itself, the referee settles it there (with JavaScript off: the desk's forms need none) and the
leaderboard changes. With ``UPDATE_SCREENSHOTS=1`` the desk's list, a table and the paper
sheet's form are written to ``docs/`` in both languages.
"""

from __future__ import annotations

import os
import random

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from engine.bots import play_match
from engine.sheet import sheet_of
from games import services as game_services
from games.models import GameResult
from tests.pages.test_browser import (  # browser and demo: its fixtures, used by name
    CHROMIUM,
    HARNESS,
    REPO,
    WAIT_MS,
    browser,  # noqa: F401
    demo,  # noqa: F401
    fits_a_phone,
    url,
)
from tournaments.models import Round, Seat, Standing
from tournaments.services.links import entry_link_issue

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium; "
                              ".ci/run installs it)"),
    pytest.mark.django_db(transaction=True),
]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}


def signed_in(browser, live_server, user, *, language="en", javascript=True):  # noqa: F811
    """A phone-sized browser context signed in as ``user`` (a session made by Django's test
    client, its cookie handed to the browser), in ``language`` (the switcher's cookie)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(**PHONE, java_script_enabled=javascript, **HARNESS)
    context.add_cookies([
        {"name": "sessionid", "value": client.cookies["sessionid"].value,
         "url": live_server.url},
        {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url}])
    return context


def seated_users(table) -> dict[int, object]:
    """Logins for the table's players, by seat."""
    users = {}
    for seat in Seat.objects.filter(table=table).select_related("player"):
        users[seat.seat] = get_user_model().objects.create(username=f"player-seat-{seat.seat}")
        seat.player.user = users[seat.seat]
        seat.player.save(update_fields=["user"])
    return users


def player_tab(browser, link: str):  # noqa: F811
    """A player's phone (390×844, JavaScript on) opened on their private link."""
    context = browser.new_context(**PHONE, **HARNESS)
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(link)
    assert fits_a_phone(tab), tab.url
    return context, tab, errors


def plain_sheets(event, count: int, table) -> list[dict]:
    """``count`` bot-played sheets without revolutions or burns: what a player taps in."""
    sheets, seed = [], table.pk
    while len(sheets) < count:
        game = play_match(event.rules, 1, random.Random(seed))[0]
        sheet = sheet_of(game.result(), game.record()["leader"])
        if not sheet["revolutions"] and not sheet["burns"]:
            sheets.append(sheet)
        seed += 1
    return sheets


def tap_in(tab, sheet: dict) -> None:
    """Fill the phone result form: tap the seats from 头科 to 大落, tick 开点 and pick
    eliminations, wait for the engine's points, send."""
    for seat in sheet["order"]:
        tab.locator(f'#sheet .tap button[data-seat="{seat}"]').click()
    for seat, flag in enumerate(sheet.get("kaidian") or []):
        tab.locator(f'#sheet input[name="kaidian_{seat}"][value="{"yes" if flag else "no"}"]'
                    ).check()
    for e in sheet["eliminated"]:
        tab.locator(f'#sheet select[name="out_{e["seat"]}"]').select_option(e["reason"])
    tab.locator('#sheet select[name="leader"]').select_option(str(sheet["leader"]))
    # scored as it is filled in: the team points, before sending
    tab.wait_for_function("/\\d/.test(document.getElementById('score').textContent)",
                          timeout=WAIT_MS)
    tab.locator('#sheet button[data-action="send"]').click()
    tab.wait_for_load_state()


def test_players_submit_confirm_and_dispute_and_the_referee_settles_it(live_server, browser,  # noqa: F811
                                                                       demo):  # noqa: F811
    """The issue's walk-through: at a phone's viewport two players of one table submit and
    confirm a game through their private links, a third disputes another game, the dispute
    appears on the referee desk (by itself), the referee settles it, the leaderboard
    changes."""
    # given: round 3's table 1, private links for three of its players; the referee's desk
    event = demo
    table = Round.objects.get(event=event, number=3).tables.get(number=1)
    seats = {s.seat: s for s in Seat.objects.filter(table=table).select_related("entry")}
    links = {n: live_server.url + reverse("pages:link", kwargs={"token": entry_link_issue(
        entry=seats[n].entry, player=seats[n].player)[0].token()}) for n in (0, 1, 3)}
    referee = get_user_model().objects.get(username="demo-referee")
    desk = signed_in(browser, live_server, referee)
    tab = desk.new_page()
    desk_errors = []
    tab.on("pageerror", lambda exc: desk_errors.append(str(exc)))
    tab.goto(url(live_server, "pages:desk", slug=event.slug))
    assert fits_a_phone(tab), tab.url
    assert tab.locator('.chip[data-state="disputed"] b').inner_text() == "0"
    tab.evaluate("window.__sameDocument = true")
    entry = seats[3].entry_id
    games_before = Standing.objects.get(entry_id=entry).games_played
    sheets = plain_sheets(event, 2, table)

    # when: 1号位 (联邦 0) hands in game 1 and 2号位 (联邦 1) confirms it
    first, one, errors_1 = player_tab(browser, links[0])
    tap_in(one, sheets[0])
    two_context, two, errors_2 = player_tab(browser, links[1])
    assert "Waiting for your confirmation." in two.locator("#game-1").inner_text()
    two.locator('#game-1 button[data-action="confirm"]').click()
    two.wait_for_load_state()
    assert GameResult.objects.get(table=table, number=1).status == GameResult.Status.CONFIRMED

    # and 1号位 hands in game 2, which 4号位 (联邦 1) disputes
    one.goto(links[0])
    tap_in(one, sheets[1])
    three_context, three, errors_3 = player_tab(browser, links[3])
    three.locator("#game-2 textarea[name=reason]").fill("5号位 was 头科")
    three.locator('#game-2 button[data-action="dispute"]').click()
    three.wait_for_load_state()
    assert fits_a_phone(three), three.url
    assert GameResult.objects.get(table=table, number=2).status == GameResult.Status.DISPUTED
    assert not (errors_1 or errors_2 or errors_3), (errors_1, errors_2, errors_3)
    for context in (first, two_context, three_context):
        context.close()

    # then: the desk shows the dispute without a reload
    tab.wait_for_function(
        "document.querySelector('.chip[data-state=\"disputed\"] b').textContent === '1'",
        timeout=WAIT_MS)
    assert tab.evaluate("window.__sameDocument") is True
    row = tab.locator(".desk-row.state-disputed")
    assert row.count() == 1 and row.get_attribute("data-table") == "1"
    assert not desk_errors, desk_errors
    desk.close()

    # when: the referee opens the table (JavaScript off: the desk's forms need none) and
    # settles the dispute by confirming game 2 as it stands
    plain = signed_in(browser, live_server, referee, javascript=False)
    tab = plain.new_page()
    tab.goto(url(live_server, "pages:desk", slug=event.slug) + "?state=disputed")
    with tab.expect_navigation():
        tab.locator(".desk-row.state-disputed a.desk-open").click()
    assert fits_a_phone(tab), tab.url
    card = tab.locator("#game-2")
    assert "5号位 was 头科" in card.inner_text()
    card.locator('input[name="reason"]').fill("checked with the table")
    card.get_by_role("button", name="Settle: confirm as it stands").click()
    tab.wait_for_load_state()

    # then: confirmed, the dispute settled, and the leaderboard counts both games
    assert "Game 2 confirmed." in tab.locator(".desk-messages").inner_text()
    second = GameResult.objects.get(table=table, number=2)
    assert second.status == GameResult.Status.CONFIRMED
    assert second.disputes.get().settlement == "confirmed"
    assert Standing.objects.get(entry_id=entry).games_played == games_before + 2
    tab.goto(url(live_server, "pages:leaderboard", slug=event.slug))
    row = tab.locator(f'tr[data-entry="{entry}"]')
    assert int(row.locator("td").last.inner_text()) == games_before + 2
    plain.close()


def test_the_desk_fits_a_phone_in_both_languages(live_server, browser, demo):  # noqa: F811
    """The desk's list and a table with a dispute and a proposal, at 390 px in English and
    Chinese, its people by name and its first game's history open (who submitted, who
    confirmed); with UPDATE_SCREENSHOTS=1 written to docs/."""
    event = demo
    rnd = Round.objects.get(event=event, number=3)
    table = rnd.tables.get(number=1)
    users = seated_users(table)
    names = {s.seat: s.player.name for s in Seat.objects.filter(table=table).select_related(
        "player")}
    games = play_match(event.rules, 2, random.Random(table.pk))
    sheets = [sheet_of(g.result(), g.record()["leader"]) for g in games]
    first = game_services.result_submit(table=table, number=1, sheet=sheets[0], by=users[0])
    game_services.result_confirm(result=first, by=users[1])
    second = game_services.result_submit(table=table, number=2, sheet=sheets[1], by=users[2])
    game_services.result_dispute(result=second, by=users[3], reason="5号位 was 头科")
    other = rnd.tables.get(number=2)
    game_services.result_submit(table=other, number=1, sheet=sheets[0], by=None)
    referee = get_user_model().objects.get(username="demo-referee")
    update = os.environ.get("UPDATE_SCREENSHOTS") == "1"
    for language, suffix, title in (("en", "en", "Referee desk"), ("zh-hans", "zh", "裁判台")):
        context = signed_in(browser, live_server, referee, language=language)
        tab = context.new_page()
        tab.goto(url(live_server, "pages:desk", slug=event.slug))
        assert tab.locator("h1").inner_text() == title
        assert fits_a_phone(tab), tab.url
        if update:
            tab.screenshot(path=str(REPO / "docs" / f"desk-phone-{suffix}.png"), full_page=True)
        tab.goto(url(live_server, "pages:desk-table", slug=event.slug, table_id=table.pk))
        assert fits_a_phone(tab), tab.url
        # people by their names, never by their logins, and who confirmed (issue 52)
        tab.locator("#game-1 details.history summary").click()
        history = tab.locator("#game-1 details.history").inner_text()
        assert names[0] in history and names[1] in history
        page = tab.locator("main").inner_text()
        assert "player-seat-" not in page and "联邦 0" not in page and "联邦 1" not in page
        assert names[3] in tab.locator("#game-2 .dispute").inner_text()
        if update:
            tab.screenshot(path=str(REPO / "docs" / f"desk-table-phone-{suffix}.png"),
                           full_page=True)
        # the paper sheet's form, for table 2's game 2 (no result yet)
        tab.goto(url(live_server, "pages:desk-table", slug=event.slug, table_id=other.pk))
        assert tab.locator("form.sheet-form select").count() >= 6
        assert fits_a_phone(tab), tab.url
        if update:
            tab.locator("#sheet").screenshot(
                path=str(REPO / "docs" / f"desk-sheet-phone-{suffix}.png"))
        context.close()


def test_the_desk_runs_under_its_content_security_policy(live_server, browser, demo):  # noqa: F811
    """The desk and a table with the policy enforced: no violation and no script error while
    desk.js polls."""
    referee = get_user_model().objects.get(username="demo-referee")
    client = Client()
    client.force_login(referee)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": live_server.url}])
    tab = context.new_page()
    problems = []
    tab.on("pageerror", lambda exc: problems.append(str(exc)))
    tab.on("console", lambda message: problems.append(message.text)
           if "Content Security Policy" in message.text else None)
    table = Round.objects.get(event=demo, number=3).tables.get(number=1)
    for address in (url(live_server, "pages:desk", slug=demo.slug),
                    url(live_server, "pages:desk-table", slug=demo.slug, table_id=table.pk)):
        response = tab.goto(address)
        assert response.status == 200 and "script-src 'self'" in response.headers[
            "content-security-policy"], address
    tab.goto(url(live_server, "pages:desk", slug=demo.slug))
    # desk.js polled once (a locator: a string predicate would be evaluated, which the policy
    # forbids)
    tab.locator("#live-state", has_text="Updated").wait_for(timeout=WAIT_MS)
    context.close()
    assert not problems, problems
