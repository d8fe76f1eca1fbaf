"""The end of an event in a real browser (headless Chromium, as test_browser.py): the event
page's rounds table on a phone, the organizers' final report on a phone and on A4 paper, and the
favicon. With ``UPDATE_SCREENSHOTS=1`` it writes ``docs/report-phone.png``,
``docs/report-a4.png`` (print media, A4 width) and ``docs/report-a4.pdf``."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from tests.pages.helpers import draw_round, play_table
from tests.pages.test_browser import CHROMIUM, REPO, browser, fits_a_phone, url  # noqa: F401
from tournaments.services.events import event_finish, event_prizes_set
from tournaments.standings import standings_recompute

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


@pytest.fixture
def ended(make_event, referee_user):
    """Two rounds played and confirmed, prizes for places 1, 2–3 and 4–6; the event finished."""
    event = make_event(slug="final-cup", name="青岛够级公开赛 2026", rounds_planned=2)
    for _ in range(2):
        for table in draw_round(event).tables.all():
            play_table(table=table, referee=referee_user)
    standings_recompute(event_id=event.pk, force=True)
    event_prizes_set(event=event, prizes=[(1, 1, "冠军 · 奖杯"), (2, 3, "一等奖"),
                                                   (4, 6, "二等奖")])
    return event_finish(event=event)


def _signed_in(browser, live_server, user, lang, **kwargs):  # noqa: F811
    client = Client()
    client.force_login(user)
    context = _context(browser, lang, **kwargs)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                          "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                          "url": live_server.url}])
    return context


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_final_report_reads_on_a_phone_and_prints_on_a4(live_server, browser, ended, lang):  # noqa: F811
    organizer = get_user_model().objects.create_user(f"report-{lang}", password="pw")
    ended.organizers.add(organizer)
    update = os.environ.get("UPDATE_SCREENSHOTS") == "1"
    suffix = "" if lang == "en-US" else "-zh-hans"
    report = url(live_server, "pages:console-report", slug=ended.slug)

    # a phone: the prizes and every place, nothing wider than the screen
    phone = _signed_in(browser, live_server, organizer, lang, **PHONE)
    tab = phone.new_page()
    problems = _watched(tab)
    tab.goto(report)
    assert fits_a_phone(tab)
    assert tab.locator(".prize-list li").count() == 3
    assert "冠军 · 奖杯" in tab.locator(".prize-list").inner_text()
    assert tab.locator("table.report-standings tbody tr").count() == ended.standings.count()
    assert tab.locator("table.round-table").count() == 2
    first = tab.locator("table.report-standings tbody tr").first
    assert first.locator(".prize-badge").is_visible()  # the prize under the name
    assert not first.locator("td.col-prize").is_visible()
    if update:
        tab.screenshot(path=str(REPO / "docs" / f"report-phone{suffix}.png"), full_page=True)
    phone.close()
    assert not problems, problems

    # A4 paper (print media at A4's width): no site header or tools, every column shown
    paper = _signed_in(browser, live_server, organizer, lang,
                       viewport={"width": 794, "height": 1123})
    tab = paper.new_page()
    tab.goto(report)
    tab.emulate_media(media="print")
    assert not tab.locator("header.site").is_visible()
    assert not tab.locator(".report-tools").is_visible()
    first = tab.locator("table.report-standings tbody tr").first
    assert first.locator("td.col-prize").is_visible() and first.locator("td.col-byes").is_visible()
    assert tab.evaluate("document.scrollingElement.scrollWidth") <= 794
    pdf = tab.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") >= 1
    if update and lang == "en-US":
        tab.screenshot(path=str(REPO / "docs" / "report-a4.png"), full_page=True)
        (REPO / "docs" / "report-a4.pdf").write_bytes(pdf)
    paper.close()


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
