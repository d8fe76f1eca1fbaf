"""The end of an event in a real browser (headless Chromium, as test_browser.py): the event
page's rounds table on a phone, and the favicon."""

from __future__ import annotations

import os

import pytest

from tests.pages.helpers import draw_round, play_table
from tests.pages.test_browser import CHROMIUM, browser, fits_a_phone, url  # noqa: F401

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}
LANGUAGES = ["en-US", "zh-Hans"]


def _context(browser, lang, **kwargs):  # noqa: F811
    return browser.new_context(locale=lang, extra_http_headers={"Accept-Language": lang},
                               **kwargs)


def _watched(tab) -> list:
    """Script errors and Content-Security-Policy refusals of ``tab``, to be none."""
    problems = []
    tab.on("pageerror", lambda exc: problems.append(str(exc)))
    tab.on("console", lambda message: problems.append(message.text)
           if "Content Security Policy" in message.text else None)
    return problems


@pytest.fixture
def three_rounds(make_event, referee_user):
    """Three rounds played (a knockout-free individual event): the rounds table has a row
    each, with every link a published round has."""
    event = make_event(slug="phone-cup", rounds_planned=3)
    for _ in range(3):
        for table in draw_round(event).tables.all():
            play_table(table=table, referee=referee_user)
    return event


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_event_pages_rounds_table_fits_a_phone(live_server, browser, three_rounds, lang):  # noqa: F811
    context = _context(browser, lang, **PHONE)
    tab = context.new_page()
    problems = _watched(tab)
    tab.goto(url(live_server, "pages:event", slug=three_rounds.slug))
    assert tab.locator("table.rounds tbody tr").count() == 3
    widths = tab.evaluate("""() => {
        const table = document.querySelector('table.rounds');
        return {page: document.scrollingElement.scrollWidth, table: table.scrollWidth,
                box: table.parentElement.clientWidth};
    }""")
    assert fits_a_phone(tab), widths
    # and nothing in it scrolls sideways on its own either: every column is on the screen
    assert widths["table"] <= widths["box"], widths
    context.close()
    assert not problems, problems


def test_the_favicon_is_served_and_shown(live_server, browser, make_event):  # noqa: F811
    event = make_event(slug="icon-cup", players=0)
    context = _context(browser, "en-US")
    tab = context.new_page()
    tab.goto(url(live_server, "pages:event", slug=event.slug))
    href = tab.evaluate("document.querySelector('link[rel=icon]').href")
    svg = tab.request.get(href)
    assert svg.status == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    ico = tab.request.get(live_server.url + "/favicon.ico")  # (followed to the static file)
    assert ico.status == 200 and ico.body()[:4] == b"\0\0\1\0"
    # the icon draws: an image of it has its size
    size = tab.evaluate("""async (href) => {
        const img = new Image(); img.src = href; await img.decode();
        return [img.naturalWidth, img.naturalHeight];
    }""", href)
    assert size[0] > 0 and size[1] > 0
    context.close()
