"""The organizer's console's round flow (the former dashboard) and the standings release switch
in a real browser (headless Chromium, as test_browser.py), in English and in Chinese, with the
pages' Content-Security-Policy enforced; the whole day is test_browser_console.py."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client

from tests.pages.helpers import draw_round, play_table
from tests.pages.test_browser import CHROMIUM, WAIT_MS, browser, fits_a_phone, url  # noqa: F401
from tournaments import standings
from tournaments.models import Round
from tournaments.services.draws import round_draw
from tournaments.services.rounds import round_create

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(params=["en-US", "zh-Hans"])
def organizer_tab(request, browser, live_server, referee_user):  # noqa: F811
    """A phone-sized tab signed in as the event's organizer, in each language."""
    user = get_user_model().objects.create_user("organizer", password="pw-1")
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale=request.param,
                                  extra_http_headers={"Accept-Language": request.param})
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                          "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                          "url": live_server.url}])
    tab = context.new_page()
    problems = []
    tab.on("pageerror", lambda exc: problems.append(str(exc)))
    tab.on("console", lambda message: problems.append(message.text)
           if "Content Security Policy" in message.text else None)
    tab.organizer = user
    tab.lang = request.param
    yield tab
    context.close()
    assert not problems, problems


def _played_round_1(make_event, referee):
    event = make_event(slug="dash-cup", rounds_planned=4)
    for table in draw_round(event).tables.all():
        play_table(table=table, referee=referee)
    return event


def _submit(tab, selector):
    """Click a form's button and wait for the dashboard it redirects back to."""
    with tab.expect_navigation():
        tab.locator(selector).click()


def _action(tab, name):
    _submit(tab, f'form[action$="/console/do/{name}/"] button')


def test_console_opens_draws_and_publishes_rounds(live_server, organizer_tab, make_event,
                                                   referee_user):
    tab = organizer_tab
    event = _played_round_1(make_event, referee_user)
    event.organizers.add(tab.organizer)
    dashboard = url(live_server, "pages:console-event", slug=event.slug)

    # open → draw (in-process here: the draw runs as the request commits) → publish
    tab.goto(dashboard)
    assert fits_a_phone(tab)
    _action(tab, "open")
    assert Round.objects.get(event=event, number=2).status == Round.Status.DRAWN
    assert tab.locator("#round-status").get_attribute("data-status") == "drawn"
    _action(tab, "publish")
    assert Round.objects.get(event=event, number=2).status == Round.Status.PUBLISHED
    assert tab.locator("#round-status").get_attribute("data-status") == "published"
    assert tab.locator('[data-state="none"]').inner_text() == "2"

    # results arrive: the counts follow without a reload
    tab.evaluate("window.__sameDocument = true")
    play_table(table=Round.objects.get(event=event, number=2).tables.get(number=1),
               referee=referee_user)
    tab.locator('[data-state="confirmed"]').filter(has_text="1").wait_for(timeout=WAIT_MS)
    assert tab.evaluate("window.__sameDocument === true")

    # a draw on a worker: the page shows it drawing, then follows it to "drawn" by itself
    play_table(table=Round.objects.get(event=event, number=2).tables.get(number=2),
               referee=referee_user)
    with transaction.atomic():
        rnd = round_create(event=event)  # committed; its draw not run yet
    tab.goto(dashboard)
    assert tab.locator("#draw-progress").is_visible()
    round_draw(round_id=rnd.pk)  # the worker
    tab.locator('form[action$="/console/do/publish/"] button').wait_for(timeout=WAIT_MS)
    assert tab.locator("#round-status").get_attribute("data-status") == "drawn"


def test_public_leaderboard_shows_the_released_round_until_the_next_release(
        live_server, organizer_tab, browser, make_event, referee_user):  # noqa: F811
    tab = organizer_tab
    event = _played_round_1(make_event, referee_user)
    event.organizers.add(tab.organizer)
    for table in draw_round(event).tables.all():
        play_table(table=table, referee=referee_user, seed=2)
    standings.standings_recompute(event_id=event.pk)
    after = {n: [str(r.points) for r in standings.compute(event, n)] for n in (1, 2)}
    assert after[1] != after[2]
    public = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    leaderboard = url(live_server, "pages:leaderboard", slug=event.slug)

    def public_points():
        public.goto(leaderboard)
        return public.locator("#standings tbody tr td:nth-child(4)").all_inner_texts()

    assert public_points() == after[2]  # live by default

    # the organizer holds the standings back at round 1
    tab.goto(url(live_server, "pages:console-event", slug=event.slug))
    tab.locator("#release-round").select_option("1")
    _submit(tab, "form.release button")
    assert public_points() == after[1]
    assert tab.locator("#release-state").inner_text() != ""

    # … until they release round 2
    tab.locator("#release-round").select_option("2")
    _submit(tab, "form.release button")
    assert public_points() == after[2]
    public.context.close()


# ----------------------------------------------------------------------------- words and layout
@pytest.mark.parametrize("lang", ["en-US", "zh-Hans"])
def test_table_page_fits_a_phone_with_names_whole(live_server, browser, event,  # noqa: F811
                                                  referee_user, lang):
    """390 px wide, no sideways scrolling; the 头科 and 大落 names on one line each, also while a
    game awaits confirmation (its long status badge)."""
    table = event.rounds.get().tables.get(number=2)
    play_table(table=table, referee=referee_user, confirm=False)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale=lang,
                                  extra_http_headers={"Accept-Language": lang})
    tab = context.new_page()

    tab.goto(url(live_server, "pages:table", slug=event.slug, number=1, table=2))

    assert fits_a_phone(tab)
    cells = tab.locator("#results td.who")
    assert cells.count() == 2 * event.games_per_match
    lines = cells.evaluate_all("cells => cells.map(c => { const r = document.createRange(); "
                              "r.selectNodeContents(c); return r.getClientRects().length; })")
    assert lines == [1] * cells.count()  # each name on one line
    context.close()


def test_projector_seating_slides_list_the_byes(live_server, browser, event):  # noqa: F811
    byes = sorted(b.entry.player.name for b in event.rounds.get().byes.all())
    assert byes
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    tab = context.new_page()

    tab.goto(url(live_server, "pages:projector", slug=event.slug) + "?seconds=3")

    tab.locator("ol.pj-names li.bye").first.wait_for(timeout=WAIT_MS)
    shown = tab.locator("ol.pj-names li.bye .pname").all_inner_texts()
    assert sorted(shown) == byes
    assert set(tab.locator("ol.pj-names li.bye .where").all_inner_texts()) == {"bye"}
    context.close()


def test_console_forms_work_without_javascript(live_server, browser, make_event,  # noqa: F811
                                                 referee_user):
    event = _played_round_1(make_event, referee_user)
    user = get_user_model().objects.create_user("organizer", password="pw-1")
    event.organizers.add(user)
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  java_script_enabled=False)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                          "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                          "url": live_server.url}])
    tab = context.new_page()
    tab.goto(url(live_server, "pages:console-event", slug=event.slug))

    _action(tab, "open")
    _action(tab, "publish")
    tab.locator("#release-round").select_option("0")
    _submit(tab, "form.release button")

    assert Round.objects.get(event=event, number=2).status == Round.Status.PUBLISHED
    event.refresh_from_db()
    assert event.standings_released_round == 0
    assert tab.locator("#release-state").inner_text() == "The public sees no standings yet."
    context.close()
