"""The organizer's console in a real browser (issue 52): an organizer runs two rounds of an event
from an empty database on a phone (390×844), in English and in Chinese, with the pages'
Content-Security-Policy enforced and without a single request to /admin/ — signs in on the
site's page, creates the event, publishes it, imports the players from a GBK CSV, checks the
last two in (a search and a tap; a slip's QR code through the scanner's handler), opens round 1,
draws it, checks the draw, swaps two seats on the draw's check page, publishes it, the results
come in (through the services), releases the standings once the round is complete, then round 2
the same way.

Headless Chromium as in test_browser.py. With ``UPDATE_SCREENSHOTS=1`` it writes
``docs/console-{event,import,check-in,round}-phone-{en,zh-hans}.png``.
"""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.pages.helpers import play_table
from tests.pages.test_browser import CHROMIUM, REPO, WAIT_MS, browser, fits_a_phone  # noqa: F401
from tournaments.models import Entry, Event, Round
from tournaments.services.draws import round_verify
from tournaments.services.links import entry_link_issue

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]

#: the spreadsheet an organizer keeps: Chinese heads, GBK (as Excel saves CSV on Chinese
#: systems); the last two players come to the door without having checked in
PLAYERS = [("张伟", "崂山", 1), ("王芳", "市南", 2), ("李娜", "市北", 3), ("刘洋", "崂山", 4),
           ("陈静", "黄岛", 5), ("杨磊", "城阳", 6), ("赵敏", "李沧", 7)]
CSV = ("姓名,俱乐部,编号,报到\n" + "\n".join(
    f"{name},{club},{number},{'是' if number <= 5 else ''}" for name, club, number in PLAYERS)
).encode("gbk")


@pytest.fixture(params=["en-US", "zh-Hans"])
def phone(request, browser, live_server):  # noqa: F811
    """A phone-sized tab in each language, its requests and CSP violations recorded."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale=request.param,
                                  extra_http_headers={"Accept-Language": request.param})
    tab = context.new_page()
    tab.problems, tab.requests = [], []
    tab.on("pageerror", lambda exc: tab.problems.append(str(exc)))
    tab.on("console", lambda message: tab.problems.append(message.text)
           if "Content Security Policy" in message.text else None)
    tab.on("request", lambda r: tab.requests.append(r.url))
    tab.lang = "en" if request.param == "en-US" else "zh-hans"
    tab.base = live_server.url
    yield tab
    context.close()
    assert not tab.problems, tab.problems


def _go(tab, name, **kwargs):
    tab.goto(tab.base + reverse(name, kwargs=kwargs))
    assert fits_a_phone(tab), (name, tab.url)


def _submit(tab, selector):
    """Click a form's button and wait for the page it redirects to."""
    with tab.expect_navigation():
        tab.locator(selector).click()
    assert fits_a_phone(tab), tab.url


def _shot(tab, name):
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        tab.screenshot(path=str(REPO / "docs" / f"console-{name}-phone-{tab.lang}.png"),
                       full_page=True)


def _round(event, number) -> Round:
    return Round.objects.get(event=event, number=number)


def _play_round(event, number, referee):
    for table in _round(event, number).tables.all():
        play_table(table=table, referee=referee, seed=number)


def _open_draw_check_publish(tab, event, number):
    """Open the round (the draw runs as the request commits: no broker here), check its
    tables, publish its seating."""
    _go(tab, "pages:console-event", slug=event.slug)
    _submit(tab, "#open-round button")
    rnd = _round(event, number)
    assert rnd.status == Round.Status.DRAWN
    assert tab.locator("#round-status").get_attribute("data-status") == "drawn"
    _submit(tab, "a#check-draw")
    seat_word = "号位" if tab.lang == "zh-hans" else "seat "
    for table in rnd.tables.all():
        card = tab.locator(f"#table-{table.number}")
        shown = card.locator("li.seat").all_inner_texts()
        expected = [s for s in table.seats.order_by("seat")]
        assert len(shown) == 6
        for seat in expected:  # each seat as people say it, with the player's name
            label = f"{seat.seat + 1}号位" if tab.lang == "zh-hans" else f"seat {seat.seat + 1}"
            assert any(text.startswith(label) and seat.player.name in text for text in shown)
        assert all(seat_word in text for text in shown) and "–" not in "".join(shown)
        sides = card.locator(".side-name").all_inner_texts()
        assert sides == (["红方", "黑方"] if tab.lang == "zh-hans" else
                         ["red (红方)", "black (黑方)"])
    if number == 1:
        _shot(tab, "round")
        _swap_two_seats(tab, rnd)
    _submit(tab, "#publish-round button")
    assert _round(event, number).status == Round.Status.PUBLISHED


def _swap_two_seats(tab, rnd):
    """Before publishing, the organizer swaps table 1's 1号位 and 2号位 on the draw's check page
    (so that the two players change 联邦), with a reason; the draw still verifies, with the
    change on its record; back on the round's page to publish."""
    first, second = rnd.tables.get(number=1).seats.order_by("seat")[:2]
    _submit(tab, "a#swap-seats")
    tab.select_option("#seat-a", f"1-0-{first.player_id}")
    tab.select_option("#seat-b", f"1-1-{second.player_id}")
    tab.fill("#swap-reason", "一家人不同邦" if tab.lang == "zh-hans" else "a couple, kept apart")
    _submit(tab, "#swap-form button")
    assert tab.locator("ul.messages .success").is_visible()
    assert tab.locator(".draw-changes li").count() == 1
    seats = {s.seat: s.player_id for s in rnd.tables.get(number=1).seats.all()}
    assert (seats[0], seats[1]) == (second.player_id, first.player_id)
    rnd.refresh_from_db()
    assert len(rnd.draw_changes) == 1 and round_verify(round=rnd) == []
    _go(tab, "pages:console-round", slug=rnd.event.slug, number=rnd.number)


def _release(tab, event, number):
    """The console offers the complete round first; releasing it shows on the public board."""
    _go(tab, "pages:console-event", slug=event.slug)
    assert tab.locator("#release-round").input_value() == str(number)
    _submit(tab, "form.release button")
    event.refresh_from_db()
    assert event.standings_released_round == number
    _go(tab, "pages:leaderboard", slug=event.slug)
    through = tab.locator("#through").inner_text()
    assert through == (f"已公布：第 {number} 轮后" if tab.lang == "zh-hans" else
                       f"released after round {number}")
    assert tab.locator("#live-state").count() == 0


def test_an_organizer_runs_two_rounds_from_an_empty_database(phone):
    tab = phone
    assert not Event.objects.exists()
    organizer = get_user_model().objects.create_user("organizer", password="pw-console-1",
                                                     is_staff=True)

    # sign in on the site's page: the console's home
    _go(tab, "pages:console")  # → the sign-in page
    assert reverse("pages:login") in tab.url
    tab.fill("#id_username", "organizer")
    tab.fill("#id_password", "pw-console-1")
    _submit(tab, "form.login button")
    assert tab.url.endswith(reverse("pages:console"))

    # a new event: 2 rounds of 1 game
    _submit(tab, "a#new-event")
    tab.fill("#id_name", "青岛秋季够级赛")
    tab.fill("#id_rounds_planned", "2")
    tab.fill("#id_games_per_match", "1")
    _submit(tab, "#save-event")
    event = Event.objects.get()
    assert tab.url.endswith(reverse("pages:console-event", kwargs={"slug": event.slug}))
    assert event.slug == "qing-dao-qiu-ji-gou-ji-sai" and list(event.organizers.all()) == [
        organizer]
    assert tab.locator("#public-state").get_attribute("data-published") == "0"
    _submit(tab, "#public-state button")
    event.refresh_from_db()
    assert event.published

    # import the spreadsheet: a preview, then the import
    _go(tab, "pages:console-import", slug=event.slug)
    tab.set_input_files("#id_file", files=[{"name": "报名.csv", "mimeType": "text/csv",
                                            "buffer": CSV}])
    _submit(tab, "#import-upload button")
    assert tab.locator("#import-preview tbody tr").count() == len(PLAYERS)
    _shot(tab, "import")
    assert not event.entries.exists()
    _submit(tab, "#import-confirm button")
    assert event.entries.count() == 7
    assert event.entries.filter(status=Entry.Status.CHECKED_IN).count() == 5

    # at the door: a search by pinyin and one tap, in the same document
    tab.evaluate("window.__sameDocument = true")
    tab.fill("#ci-q", "yl")  # 杨磊, in pinyin initials
    assert _settled(tab, 1)
    yang = event.entries.get(player__name="杨磊")
    row = tab.locator(f"#entry-{yang.pk}")
    row.locator('button[data-action="check-in"]').click()
    tab.locator(f"#entry-{yang.pk}.status-checked_in").wait_for(timeout=WAIT_MS)
    assert tab.evaluate("window.__sameDocument === true")
    yang.refresh_from_db()
    assert yang.status == Entry.Status.CHECKED_IN

    # … and a slip's QR code: the scanner's handler gets what the camera decoded
    zhao = event.entries.get(player__name="赵敏")
    token = entry_link_issue(entry=zhao)[0].token()
    tab.evaluate("code => document.getElementById('scanner').dispatchEvent(new CustomEvent("
                 "'scan:decoded', {detail: {code}}))", f"{tab.base}/p/{token}/")
    tab.locator("#scan-result.ok").filter(has_text="赵敏").wait_for(timeout=WAIT_MS)
    zhao.refresh_from_db()
    assert zhao.status == Entry.Status.CHECKED_IN
    _go(tab, "pages:console-check-in", slug=event.slug)
    _shot(tab, "check-in")

    # round 1: open → draw → check → publish; the results come in; release once complete
    _open_draw_check_publish(tab, event, 1)
    _go(tab, "pages:console-event", slug=event.slug)
    assert tab.locator("#release-round").input_value() == "0"  # round 1 is not complete
    _play_round(event, 1, organizer)
    _release(tab, event, 1)
    _go(tab, "pages:console-event", slug=event.slug)
    _shot(tab, "event")

    # round 2 the same way
    _open_draw_check_publish(tab, event, 2)
    _play_round(event, 2, organizer)
    _release(tab, event, 2)

    assert not [u for u in tab.requests if "/admin/" in u], "the console used the admin"


def _settled(tab, count) -> bool:
    """Wait until the live search has replaced the list with ``count`` rows."""
    for _ in range(50):
        if tab.locator("#entries li.entry").count() == count:
            return True
        tab.wait_for_timeout(100)
    return False
