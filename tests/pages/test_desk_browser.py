"""The referee desk in a real browser (Debian's chromium through Playwright, as
test_browser.py), at a phone's viewport: a table's players submit and confirm one game, another
player disputes a second game, the dispute shows on the desk by itself, the referee settles it
there (with JavaScript off: the desk's forms need none) and the leaderboard changes.

The players' side goes through the services here (``games.services.result_submit`` /
``result_confirm`` / ``result_dispute``, what their private-link pages call). With
``UPDATE_SCREENSHOTS=1`` the desk's list and a table are written to ``docs/`` in both
languages.
"""

from __future__ import annotations

import os
import random

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

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
    url,
)
from tournaments.models import Event, Round, Seat, Standing

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


def no_sideways_scroll(tab) -> None:
    assert tab.evaluate("document.scrollingElement.scrollWidth") <= 390, tab.url


def test_a_dispute_reaches_the_desk_and_the_referee_settles_it(live_server, browser, demo):  # noqa: F811
    # given: round 3's table 1, whose players have logins; the referee's desk open on a phone
    event = demo
    table = Round.objects.get(event=event, number=3).tables.get(number=1)
    users = seated_users(table)
    referee = get_user_model().objects.get(username="demo-referee")
    desk = signed_in(browser, live_server, referee)
    tab = desk.new_page()
    errors = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(url(live_server, "pages:desk", slug=event.slug))
    no_sideways_scroll(tab)
    assert tab.locator('.chip[data-state="disputed"] b').inner_text() == "0"
    tab.evaluate("window.__sameDocument = true")
    rank_before = {s.entry_id: s.games_played for s in Standing.objects.filter(event=event)}

    # when: two players of table 1 submit and confirm game 1 (联邦 0 submits, 联邦 1
    # confirms); a third disputes game 2, submitted by 联邦 0
    games = play_match(event.rules, 2, random.Random(table.pk))
    sheets = [sheet_of(g.result(), g.record()["leader"]) for g in games]
    first = game_services.result_submit(table=table, number=1, sheet=sheets[0], by=users[0])
    game_services.result_confirm(result=first, by=users[1], version=first.version)
    second = game_services.result_submit(table=table, number=2, sheet=sheets[1], by=users[2])
    game_services.result_dispute(result=second, by=users[3], reason="5号位 was 头科")

    # then: the desk shows the dispute without a reload
    tab.wait_for_function(
        "document.querySelector('.chip[data-state=\"disputed\"] b').textContent === '1'",
        timeout=WAIT_MS)
    assert tab.evaluate("window.__sameDocument") is True
    row = tab.locator('.desk-row.state-disputed')
    assert row.count() == 1 and row.get_attribute("data-table") == "1"
    assert not errors, errors
    desk.close()

    # when: the referee opens the table (no JavaScript: the forms need none) and settles the
    # dispute by confirming game 2 as it stands
    plain = signed_in(browser, live_server, referee, javascript=False)
    tab = plain.new_page()
    tab.goto(url(live_server, "pages:desk", slug=event.slug) + "?state=disputed")
    tab.locator(".desk-row.state-disputed a.desk-open").click()
    no_sideways_scroll(tab)
    card = tab.locator("#game-2")
    assert "5号位 was 头科" in card.inner_text()
    card.locator('input[name="reason"]').fill("checked with the table")
    card.get_by_role("button", name="Settle: confirm as it stands").click()
    tab.wait_for_load_state()

    # then: confirmed, the dispute settled, and the leaderboard counts both games
    assert "Game 2 confirmed." in tab.locator(".desk-messages").inner_text()
    second.refresh_from_db()
    assert second.status == GameResult.Status.CONFIRMED
    assert second.disputes.get().settlement == "confirmed"
    entry = Seat.objects.get(table=table, seat=3).entry_id
    assert Standing.objects.get(entry_id=entry).games_played == rank_before.get(entry, 0) + 2
    tab.goto(url(live_server, "pages:leaderboard", slug=event.slug))
    assert Event.objects.get(pk=event.pk).standings_version > 0
    row = tab.locator(f'tr[data-entry="{entry}"]')
    assert int(row.locator("td").last.inner_text()) == rank_before.get(entry, 0) + 2
    plain.close()


def test_the_desk_fits_a_phone_in_both_languages(live_server, browser, demo):  # noqa: F811
    """The desk's list and a table with a dispute and a proposal, at 390 px in English and
    Chinese; with UPDATE_SCREENSHOTS=1 written to docs/."""
    event = demo
    rnd = Round.objects.get(event=event, number=3)
    table = rnd.tables.get(number=1)
    users = seated_users(table)
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
        no_sideways_scroll(tab)
        if update:
            tab.screenshot(path=str(REPO / "docs" / f"desk-phone-{suffix}.png"), full_page=True)
        tab.goto(url(live_server, "pages:desk-table", slug=event.slug, table_id=table.pk))
        no_sideways_scroll(tab)
        if update:
            tab.screenshot(path=str(REPO / "docs" / f"desk-table-phone-{suffix}.png"),
                           full_page=True)
        # the paper sheet's form, for table 2's game 2 (no result yet)
        tab.goto(url(live_server, "pages:desk-table", slug=event.slug, table_id=other.pk))
        assert tab.locator("form.sheet-form select").count() >= 6
        no_sideways_scroll(tab)
        if update:
            tab.locator("#sheet").screenshot(
                path=str(REPO / "docs" / f"desk-sheet-phone-{suffix}.png"))
        context.close()
