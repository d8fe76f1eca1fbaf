"""Checking a draw, swapping two seats and publishing, then printing, in a real browser (headless
Chromium, as test_browser.py) on a phone, in English and in Chinese, with the pages'
Content-Security-Policy enforced. With ``UPDATE_SCREENSHOTS=1`` it writes
``docs/console-check-{en,zh}.png`` and ``docs/print-{slips,names,scores}-{en,zh}.png``."""

from __future__ import annotations

import os
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from tests.pages.helpers import draw_round, play_table
from tests.pages.test_browser import CHROMIUM, REPO, browser, fits_a_phone, url  # noqa: F401
from tournaments.models import Round, Seat

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]
SHOTS = os.environ.get("UPDATE_SCREENSHOTS") == "1"


def _context(browser, live_server, lang, user=None, **options):  # noqa: F811
    """A browser context in ``lang`` (signed in as ``user``), and the CSP violations and script
    errors of its pages."""
    options.setdefault("viewport", {"width": 390, "height": 844})
    context = browser.new_context(locale=lang, extra_http_headers={"Accept-Language": lang},
                                  **options)
    if user is not None:
        client = Client()
        client.force_login(user)
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                              "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                              "url": live_server.url}])
    problems: list[str] = []
    context.on("page", lambda tab: (
        tab.on("pageerror", lambda exc: problems.append(str(exc))),
        tab.on("console", lambda m: problems.append(m.text)
               if "Content Security Policy" in m.text else None)))
    return context, problems


def _seat(rnd, table, seat):
    return Seat.objects.select_related("player").get(round=rnd, table__number=table, seat=seat)


@pytest.mark.parametrize("lang", ["en-US", "zh-Hans"])
def test_an_organizer_checks_the_draw_swaps_two_seats_and_publishes(
        live_server, browser, make_event, referee_user, lang):  # noqa: F811
    # given: round 1 played, round 2 drawn and not published
    organizer = get_user_model().objects.create_user("organizer", first_name="Lin",
                                                     last_name="Zhou")
    event = make_event(slug="swap-cup")
    event.organizers.add(organizer)
    for table in draw_round(event).tables.all():
        play_table(table=table, referee=referee_user)
    rnd = draw_round(event, publish=False)
    a, b = _seat(rnd, 1, 0), _seat(rnd, 2, 3)
    zh = lang == "zh-Hans"
    context, problems = _context(browser, live_server, lang, organizer)
    tab = context.new_page()

    # when: the organizer checks the draw on a phone…
    tab.goto(url(live_server, "pages:console-round-check", slug=event.slug, number=2))
    assert fits_a_phone(tab)
    assert tab.locator(".check-table").count() == 2
    assert tab.locator("#table-1 li").first.locator(".seat-no").inner_text() == (
        "1号位" if zh else "seat 1")
    assert tab.locator("#table-1 li").first.locator(".side-name").inner_text() == (
        "红方" if zh else "red (红方)")
    assert tab.locator(".repeats-count li").count() == 3

    # … swaps two seats, with a reason…
    tab.select_option("#seat-a", f"1-0-{a.player_id}")
    tab.select_option("#seat-b", f"2-3-{b.player_id}")
    tab.fill("#swap-reason", "同一家人" if zh else "they came together")
    with tab.expect_navigation():
        tab.locator("#swap-form button").click()
    assert tab.locator("ul.messages .success").is_visible()
    assert tab.locator("#table-1 li[data-seat='0'] .pname").inner_text() == b.player.name
    assert tab.locator("#table-2 li[data-seat='3'] .pname").inner_text() == a.player.name
    assert tab.locator(".draw-changes li").count() == 1
    assert fits_a_phone(tab)
    if SHOTS:
        tab.screenshot(path=str(REPO / "docs" / f"console-check-{lang[:2]}.png"),
                       full_page=True)

    # … and publishes: the print menu follows
    with tab.expect_navigation():
        tab.locator("#publish-form button").click()
    assert tab.url.endswith("/console/rounds/2/print/")
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.PUBLISHED
    assert fits_a_phone(tab)

    # then: the public seating shows the swap and its record…
    public, public_problems = _context(browser, live_server, lang)
    seating = public.new_page()
    seating.goto(url(live_server, "pages:round-seating", slug=event.slug, number=2))
    card = seating.locator("#table-1 li.seat").first
    assert card.locator(".pname").inner_text() == b.player.name
    record = seating.locator("#draw-record")
    assert record.locator(".draw-counts").inner_text() == (
        "重抽 0 次 · 手动调整 1 处" if zh else "re-drawn 0 times · 1 manual change")
    assert ("同一家人" if zh else "they came together") in record.inner_text()
    assert b.player.name in record.locator(".draw-changes").inner_text()
    assert fits_a_phone(seating)
    public.close()

    # … and the verification says so
    out = StringIO()
    call_command("verify_draw", event.slug, stdout=out)
    assert "round 2: verified, with 1 manual change" in out.getvalue()
    assert "round 1: verified (commitment" in out.getvalue()

    # the three print pages, under the policy too
    for sheet in ("slips", "names", "scores"):
        tab.goto(url(live_server, "pages:console-round-print", slug=event.slug, number=2)
                 + f"?sheet={sheet}")
        assert tab.locator(".sheet").count() >= 1
    context.close()
    assert problems == [] and public_problems == []


@pytest.mark.parametrize("lang", ["en-US", "zh-Hans"])
def test_the_print_pages_fill_a4_pages_and_hide_the_controls(live_server, browser, make_event,  # noqa: F811
                                                             lang):
    organizer = get_user_model().objects.create_user("organizer")
    event = make_event(slug="print-cup", games_per_match=4)
    event.organizers.add(organizer)
    rnd = draw_round(event)
    # A4 less its 12 mm margins (print_sheets.css), at 96 dpi: 186 × 273 mm
    context, problems = _context(browser, live_server, lang, organizer,
                                 viewport={"width": 703, "height": 1032})
    tab = context.new_page()
    tab.emulate_media(media="print")
    for sheet, pages in (("slips", rnd.tables.count()), ("names", 1),
                         ("scores", rnd.tables.count())):
        tab.goto(url(live_server, "pages:console-round-print", slug=event.slug, number=1)
                 + f"?sheet={sheet}")
        assert tab.locator(".sheet").count() == pages
        assert not tab.locator(".print-tools").is_visible()  # the controls stay on screen
        assert not tab.locator("header.site").is_visible()
        assert tab.evaluate("document.scrollingElement.scrollWidth") <= 703
        if SHOTS:
            tab.screenshot(path=str(REPO / "docs" / f"print-{sheet}-{lang[:2]}.png"))
    # a table's score sheet keeps its four games on its page
    tab.goto(url(live_server, "pages:console-round-print", slug=event.slug, number=1)
             + "?sheet=scores")
    height = tab.locator(".score-sheet").first.evaluate("e => e.getBoundingClientRect().height")
    assert height <= 1032
    context.close()
    assert problems == []
