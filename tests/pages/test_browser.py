"""The public pages in a real browser: headless Chromium (Debian's ``/usr/bin/chromium``, driven
by Playwright; no browser is downloaded) against pytest-django's ``live_server``.

The event is the demo command's (bot players, every result validated by the engine), published,
with one more round drawn whose results arrive while the pages are open.

Skipped only when Chromium is not installed (``apt-get install -y chromium``; ``.ci/run`` does
and runs these tests with skips counted as failures). With ``UPDATE_SCREENSHOTS=1`` the layout
test also writes ``docs/leaderboard-phone.png`` and ``docs/leaderboard-projector.png``.
"""

from __future__ import annotations

import os
import random
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse

from engine.bots import play_match
from engine.sheet import sheet_of
from games import services as game_services
from games.models import GameResult
from tournaments.models import Event, Round, Seat, Standing
from tournaments.services.draws import round_draw
from tournaments.services.events import event_publish
from tournaments.services.rounds import round_create, round_publish
from web.seating_index import bucket, find_key

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[2]
WAIT_MS = 30_000  # the pages poll every ~5 s
#: the browser tests' skip where Debian's chromium is missing (.ci/run fails on that skip)
NEEDS_CHROMIUM = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason="Debian's chromium is not installed (apt-get install -y chromium; .ci/run installs it)")

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(scope="module")
def browser():
    # Playwright's sync API keeps an event loop in this thread, so Django takes the tests' ORM
    # calls (made between browser calls, synchronously) for async ones: allow them, here only.
    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync", "--no-first-run",
                      "--disable-dev-shm-usage"])
            yield chromium
            chromium.close()
    finally:
        if saved is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


#: The pages' Content-Security-Policy forbids evaluating strings as code, which Playwright's
#: string predicates (``wait_for_function``) do in the page: the behaviour tests let the harness
#: past it; test_the_pages_run_under_their_content_security_policy keeps it on.
HARNESS = {"bypass_csp": True}


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US",
                                  **HARNESS)
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def demo(db):
    """The demo command's event (18 players, 2 rounds of 2 games), published, with round 3
    drawn and its seating published but no result in yet."""
    call_command("demo_event", players=18, rounds=2, games=2, seed=7, stdout=open(os.devnull, "w"))
    event = Event.objects.latest("created_at")
    event.status = Event.Status.RUNNING
    event.rounds_planned = 3
    event.save(update_fields=["status", "rounds_planned"])
    event_publish(event=event)
    with transaction.atomic():
        rnd = round_create(event=event)
    round_publish(round=round_draw(round_id=rnd.pk))
    return event


def referee():
    return get_user_model().objects.get(username="demo-referee")


def confirm_table(event: Event, round_number: int, table_number: int) -> None:
    """Bot-play a table's match, submit and confirm its games (standings follow on commit)."""
    table = Round.objects.get(event=event, number=round_number).tables.get(number=table_number)
    rng = random.Random(table.pk)
    for k, game in enumerate(play_match(event.rules, event.games_per_match, rng)):
        record, result = game.record(), game.result()
        game_services.result_submit(table=table, number=k + 1,
                                    sheet=sheet_of(result, record["leader"]), by=referee())
    game_services.results_confirm(results=GameResult.objects.filter(table=table), by=referee())


def url(live_server, name, **kwargs) -> str:
    return live_server.url + reverse(name, kwargs=kwargs)


def fits_a_phone(tab) -> bool:
    """Whether the page, once loaded, is no wider than a phone's 390 CSS pixels (no sideways
    scroll). It waits for the load first: right after a click that navigates, the new document
    may have no element yet to measure."""
    tab.wait_for_load_state()
    return tab.evaluate("document.scrollingElement.scrollWidth") <= 390


def test_leaderboard_changes_after_a_confirmed_result_without_reloading(live_server, page, demo):
    # given: the leaderboard after round 2
    page.goto(url(live_server, "pages:leaderboard", slug=demo.slug))
    assert page.locator("#through").inner_text() == "after round 2"
    page.evaluate("window.__sameDocument = true")
    seat = Seat.objects.filter(round__event=demo, round__number=3, table__number=1).first()
    row = page.locator(f'tr[data-entry="{seat.entry_id}"]')
    games_before = int(row.locator("td").last.inner_text())
    version_before = Event.objects.get(pk=demo.pk).standings_version

    # when: table 1 of round 3 has its results confirmed
    confirm_table(demo, 3, 1)
    assert Event.objects.get(pk=demo.pk).standings_version > version_before

    # then: the page shows the new standings, polled from the API, in the same document
    page.wait_for_function(
        "document.getElementById('through').textContent === 'after round 3'", timeout=WAIT_MS)
    row = page.locator(f'tr[data-entry="{seat.entry_id}"]')
    assert int(row.locator("td").last.inner_text()) == games_before + demo.games_per_match
    standing = Standing.objects.get(entry_id=seat.entry_id)
    assert row.locator("td.rank").inner_text() == str(standing.rank)
    assert page.evaluate("window.__sameDocument") is True
    assert page.locator("tr.changed").count() >= 1


def test_find_my_table_searches_and_highlights_the_players_seat(live_server, page, demo):
    seat = Seat.objects.filter(round__event=demo, round__number=3).select_related(
        "player", "table").order_by("table__number", "seat").last()
    name = seat.player.name

    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(url(live_server, "pages:seating", slug=demo.slug))
    assert "round 3" in page.locator(".page-head .meta").inner_text()
    page.evaluate("window.__sameDocument = true")
    page.fill("#find-q", name)

    found = page.locator("#find-summary .found")
    found.first.wait_for(timeout=WAIT_MS)
    side = ("red (红方)", "black (黑方)")[seat.seat % 2]  # (issue 52: not "联邦 0")
    assert found.first.inner_text() == (f"{name}: table {seat.table.number}, "
                                        f"seat {seat.seat + 1}, {side}")  # 1–6号位
    card = page.locator(".table-card.hit")
    assert card.count() == 1
    assert card.get_attribute("id") == f"table-{seat.table.number}"
    assert card.locator("li.seat.hit .pname").inner_text() == name
    assert page.locator(".table-card").count() == 1  # only the table found
    assert f"q={name.replace(' ', '+')}" in page.url  # the address can be shared
    assert page.evaluate("window.__sameDocument") is True
    # answered from the seating index's shard (the script's hash is web/seating_index.py's),
    # not from a search of the tables API
    assert any("/rounds/3/find.json?k=" in u for u in asked), asked
    assert not any("player=" in u for u in asked), asked
    same = page.evaluate("""async () => {
        const m = await import("/static/web/js/seating.js");
        return ["张伟", " Zhang  Wei ", "0012", "1024"].map((t) => m.bucket(m.findKey(t), 37));
    }""")
    assert same == [bucket(find_key(t), 37) for t in ["张伟", " Zhang  Wei ", "0012", "1024"]]

    # clearing the box brings every table back
    page.fill("#find-q", "")
    page.wait_for_function("document.querySelectorAll('.table-card').length > 1",
                           timeout=WAIT_MS)


def test_switching_the_language_to_chinese_and_back(live_server, page, demo):
    page.goto(url(live_server, "pages:leaderboard", slug=demo.slug))
    assert page.locator("h1").inner_text() == "Leaderboard"

    page.get_by_role("button", name="简体中文").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "排行榜"
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert "第 2 轮后" in page.locator("#through").inner_text()
    assert page.get_by_role("link", name="查找座位").first.is_visible()

    page.get_by_role("button", name="English").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Leaderboard"


def test_table_page_shows_results_as_they_arrive(live_server, page, demo):
    page.goto(url(live_server, "pages:table", slug=demo.slug, number=3, table=2))
    assert page.locator("#results tbody tr.pending").count() == demo.games_per_match

    confirm_table(demo, 3, 2)

    page.wait_for_function(
        "document.querySelectorAll('#results tbody tr.status-confirmed').length === "
        f"{demo.games_per_match}", timeout=WAIT_MS)
    totals = [int(page.locator(f"#total-{side}").inner_text()) for side in "ab"]
    stored = GameResult.objects.filter(table__round__event=demo, table__round__number=3,
                                       table__number=2)
    # the page adds up what was stored (a game may well end 0:0, e.g. a void game)
    assert totals == [sum(r.points_a for r in stored), sum(r.points_b for r in stored)]
    assert stored.count() == demo.games_per_match


def test_the_qr_codes_print_button_prints(live_server, page, event):
    # given: an organizer signed in, and a print dialog that only records being opened
    organizer = get_user_model().objects.create_superuser("organizer", "o@example.org", "pw-1")
    client = Client()
    client.force_login(organizer)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session,
                               "url": live_server.url}])
    page.context.add_init_script("window.print = () => { window.__printed = true; };")
    page.goto(url(live_server, "pages:qr", slug=event.slug))

    # when
    page.get_by_role("button", name="Print").click()

    # then
    page.wait_for_function("window.__printed === true", timeout=WAIT_MS)


def test_leaderboard_fits_a_phone_and_the_projector_rotates(live_server, browser, demo):
    for number in (1, 2, 3):
        confirm_table(demo, 3, number)
    update = os.environ.get("UPDATE_SCREENSHOTS") == "1"

    # a phone: nothing wider than the screen, the leaderboard readable
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                is_mobile=True, has_touch=True, locale="en-US", **HARNESS)
    tab = phone.new_page()
    tab.goto(url(live_server, "pages:leaderboard", slug=demo.slug))
    assert fits_a_phone(tab)
    assert tab.locator("table.standings tbody tr").count() == Standing.objects.filter(
        event=demo).count()
    if update:
        tab.screenshot(path=str(REPO / "docs" / "leaderboard-phone.png"))
    phone.close()

    # a projector: big type, the leaderboard and then the seating, turning by itself
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US",
                                    **HARNESS)
    tab = projector.new_page()
    tab.goto(url(live_server, "pages:projector", slug=demo.slug) + "?seconds=4")
    tab.locator("table.pj-standings tbody tr").first.wait_for(timeout=WAIT_MS)
    assert tab.locator("table.pj-standings tbody tr").count() == 12  # rows per slide
    assert re.fullmatch(r"Leaderboard · places 1–12", tab.locator("#pj-title").inner_text())
    size = float(tab.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.pj-standings td.name')).fontSize)"))
    assert size >= 28  # readable from the back of the room
    qr_box = tab.locator(".pj-qr svg").bounding_box()
    assert qr_box and qr_box["y"] + qr_box["height"] <= 1080  # everything on screen
    tab.wait_for_timeout(800)  # the slide's fade-in
    if update:
        tab.screenshot(path=str(REPO / "docs" / "leaderboard-projector.png"))
    tab.wait_for_function("document.body.dataset.slide === 'seat'", timeout=WAIT_MS)
    assert "Seating · round 3" in tab.locator("#pj-title").inner_text()
    assert tab.locator("ol.pj-names li").count() > 0
    projector.close()


def test_the_pages_run_under_their_content_security_policy(live_server, browser, demo):
    """Every public page, its script polling the API, with the policy enforced: no violation
    (an inline script, style or handler would be one) and no script error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    tab = context.new_page()
    problems = []
    tab.on("pageerror", lambda exc: problems.append(str(exc)))
    tab.on("console", lambda message: problems.append(message.text)
           if "Content Security Policy" in message.text else None)
    table = Round.objects.get(event=demo, number=3).tables.get(number=1)
    for name, kwargs in [("pages:events", {}), ("pages:event", {"slug": demo.slug}),
                         ("pages:leaderboard", {"slug": demo.slug}),
                         ("pages:seating", {"slug": demo.slug}),
                         ("pages:table", {"slug": demo.slug, "number": 3,
                                          "table": table.number}),
                         ("pages:projector", {"slug": demo.slug})]:
        response = tab.goto(url(live_server, name, **kwargs))
        assert response.status == 200 and "script-src 'self'" in response.headers[
            "content-security-policy"], name
        tab.wait_for_timeout(1500)  # the page's script starts and polls once
    context.close()
    assert not problems, problems
