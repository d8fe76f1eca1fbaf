"""The live table page in a real browser (Debian's chromium through Playwright), on a phone's
viewport: one player plays a whole game through the page — answering the pre-play questions,
tapping cards, passing — against the five other seats in 托管, whose turns the bot plays at
once (the test thread is the 托管 worker: ``live_autoplay_overdue`` with no wait); the game
ends in a stored, confirmed result whose record replays. Every DOM state the page went through
is scanned for other seats' cards. The page reconnects after a network drop with
Last-Event-ID, and a practice game is started from the home page and played to its end.

With ``UPDATE_SCREENSHOTS=1`` the table mid-game (cards tapped, before playing them) is written to
``docs/live-table-phone-en.png`` and ``docs/live-table-phone-zh.png``, and the practice start
page to ``docs/practice-start-phone.png``.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter

import pytest
from django.conf import settings
from django.core.cache import cache

from engine.game import Game
from engine.record import replay
from games.models import GameResult
from live import services as live
from live.models import LiveGame, PracticeGame
from tests.live.helpers import hand_of, make_live_table
from tests.pages.helpers import bot_act
from tests.pages.test_browser import (  # browser: its fixture, used by name
    HARNESS,
    NEEDS_CHROMIUM,
    REPO,
    browser,  # noqa: F401
)
from tests.pages.test_live_table_views import links_of

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.django_db(transaction=True),
]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}
WAIT_MS = 15_000
SHOTS = os.environ.get("UPDATE_SCREENSHOTS") == "1"

#: keeps every state the page shows: the whole document each time it renders a view
RECORD_STATES = """
window.__states = [];
new MutationObserver(function () {
  window.__states.push([document.body.dataset.version, document.documentElement.outerHTML]);
}).observe(document, {attributes: true, subtree: true,
                                      attributeFilter: ["data-version"]});
"""
DATA_CARD = re.compile(r'data-card="([^"]+)"')
JSON_CARD = re.compile(r'"((?:10|[2-9JQKA])[SHDC]|BJ|RJ)"')


@pytest.fixture(autouse=True)
def _bots_at_once(monkeypatch, settings):
    """Seats in 托管 are due at once (no test waits HOSTED_SECONDS); Celery runs in-process;
    waiters hear of new versions in this process (no Redis)."""
    import threading

    from config.celery import app
    from live import notify

    monkeypatch.setattr(live, "HOSTED_SECONDS", 0.0)
    settings.CELERY_TASK_ALWAYS_EAGER = True
    # waiters woken by this process's announcements alone, reading nothing while they wait
    # (SQLite's in-memory test database locks a table a reader is on: tests/live/conftest.py)
    settings.LIVE_PUBSUB_URL = None
    listening = threading.Event()
    listening.set()
    monkeypatch.setattr(notify, "_ensure_listener", lambda: True)
    monkeypatch.setattr(notify, "_listener_ok", listening)
    monkeypatch.setattr(notify, "_subscribed_at", float("-inf"))
    monkeypatch.setattr(notify, "SAFETY_READ", 3600.0)
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    cache.clear()
    yield
    app.conf.task_always_eager = saved


def phone(browser, language="en", server=None):  # noqa: F811
    """A phone in ``language``: sent as Accept-Language and, for ``server``, as the language
    switcher's cookie (navigations then use it too)."""
    context = browser.new_context(**PHONE, **HARNESS, locale="en-US",
                                  extra_http_headers={"Accept-Language": language})
    if server is not None:
        context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language,
                              "url": server.url}])
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.errors = errors
    return context, tab


def hosted_table(seat: int = 0):
    """A published table with a live game dealt, every seat but ``seat`` put in 托管 by the
    referee (the absent players): (live game id, the seat's page address)."""
    lt = make_live_table()
    lg = live.live_start(table=lt.table)
    for other in range(6):
        if other != seat:
            live.live_host(live_id=lg.pk, on=True, seat=other, referee=True)
    return lg.pk, links_of(lt.table)[seat]


def bots_play(live_id: int, seat: int, seen: dict | None = None, tab=None) -> LiveGame:
    """The 托管 worker: the bot plays every overdue turn until it is ``seat``'s or the game is
    over; the row then. ``seen`` keeps the server's game at each version passed. With ``tab``,
    each act waits until the page shows it (SQLite's in-memory test database locks a table a
    reader is on: the page's stream has read the row before the next act writes it)."""
    while True:
        lg = LiveGame.objects.get(pk=live_id)
        game = Game.from_state(lg.state)
        if seen is not None:
            seen[lg.version] = game
        if lg.status == LiveGame.Status.FINISHED or game.to_act()["seat"] == seat:
            return lg
        bot_plays(live_id, tab)


def bot_plays(live_id: int, tab=None) -> int:
    """One overdue turn played by the bot; with ``tab``, once the page shows it. The version."""
    live.live_autoplay_overdue()
    version = LiveGame.objects.values_list("version", flat=True).get(pk=live_id)
    if tab is not None:
        wait_streamed(tab, version)
    return version


def perform(tab, act: dict, tapped=None) -> None:
    """Make ``act`` as a person would: answer the question, or tap the cards, then the act
    (``tapped()`` is called between the two)."""
    if tab.locator("#pre").is_visible():
        buttons = tab.locator(f'#pre-acts button[data-act="{act["act"]}"]')
        if "cards" in act or "give" in act:
            cards = " ".join(act.get("cards") or [act["give"]])
            buttons = tab.locator(f'#pre-acts button[data-act="{act["act"]}"][data-cards="{cards}"]')
        buttons.first.click()
        return
    for card in act.get("cards", []):
        tab.locator(f'#hand button[data-card="{card}"][aria-pressed="false"]').first.click()
    if tapped is not None:
        tapped()
    tab.locator(f'#acts button[data-act="{act["act"]}"]').click()


def wait_version(tab, version: int, timeout: int = WAIT_MS) -> None:
    tab.wait_for_function(f"Number(document.body.dataset.version) >= {version}", timeout=timeout)


def wait_streamed(tab, version: int) -> None:
    """Until the page's event stream has sent ``version`` (its read of the row is done), or the
    page closed its stream at the game's end: the answer to the act that ended it may come
    before the stream's last event, which the page then never reads."""
    tab.wait_for_function(f"Number(document.body.dataset.streamed) >= {version}"
                          " || document.body.dataset.stream === 'closed'", timeout=WAIT_MS)


def foreign_problems(html: str, game: Game, seat: int, held: set = frozenset()) -> list[str]:
    """What in one page state tells of another seat's cards: the hand shown must be the seat's
    own exactly, and no card that only other seats hold (not the seat's now or ever, ``held``,
    never played or shown in pre-play) may appear, as a card element or as JSON."""
    problems = []
    hand = re.search(r'<div id="hand" class="hand">(.*?)</div>\s*</section>', html, re.S)
    shown = Counter(DATA_CARD.findall(hand.group(1))) if hand else Counter()
    if game.state != "over" and shown != Counter(hand_of(game, seat)):
        problems.append(f"version {game.version}: the hand shown is not seat {seat}'s")
    public = set(hand_of(game, seat)) | set(held)
    for action in game.actions:
        public.update(action.get("cards", []))
    for event in game.pre_events:
        public.update(event.get("cards", []))
        public.update([event["give"]] if "give" in event else [])
    foreign = {c for s in range(6) if s != seat for c in hand_of(game, s)} - public
    seen = set(DATA_CARD.findall(html)) | set(JSON_CARD.findall(html))
    if seen & foreign:
        problems.append(f"version {game.version}: other seats' cards {sorted(seen & foreign)}")
    return problems


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_one_seat_plays_a_whole_game_on_the_page_against_five_bots(live_server, browser,  # noqa: F811
                                                                    language):
    # given: the player's phone on the live table, five seats in 托管
    seat = 0
    live_id, link = hosted_table(seat)
    context, tab = phone(browser, language, live_server)
    tab.add_init_script(RECORD_STATES)
    posted: list[str] = []  # the acts' addresses (their answers carry only the new acts)
    tab.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    tab.goto(f"{live_server.url}{link}live/{live_id}/")
    games: dict[int, Game] = {}
    acts = Counter()
    screenshot = f"live-table-phone-{language[:2]}.png"

    # when: the bots play their turns, the player theirs through the page, to the end
    for _step in range(400):
        lg = bots_play(live_id, seat, games, tab)
        if lg.status == LiveGame.Status.FINISHED:
            break
        game = games[lg.version]
        wait_version(tab, lg.version)
        tab.wait_for_function("document.body.dataset.myTurn === '1'", timeout=WAIT_MS)
        # the log: the last acts, newest first (the stream sends each act once; the page
        # keeps the earlier ones)
        assert tab.locator("#log li").evaluate_all("rows => rows.map(r => r.className)") == [
            "mine" if a["seat"] == seat else "" for a in reversed(game.actions[-8:])]
        act = bot_act(game, seat)
        acts["pre" if game.state == "pre" else act["act"]] += 1
        shot = None
        if SHOTS and len(game.actions) > 25 and act["act"] == "play" and not acts["shot"]:
            acts["shot"] += 1
            shot = lambda: (tab.evaluate("window.scrollTo(0, 0)"),  # noqa: E731
                            tab.screenshot(path=str(REPO / "docs" / screenshot)))
        perform(tab, act, shot)
        wait_version(tab, lg.version + 1)
        assert tab.locator("#message").is_hidden(), tab.locator("#message").inner_text()
        wait_streamed(tab, lg.version + 1)

    # then: the page shows the end, places and points
    final = LiveGame.objects.get(pk=live_id)
    assert final.status == LiveGame.Status.FINISHED
    tab.wait_for_function("document.body.dataset.state === 'over'", timeout=WAIT_MS)
    assert tab.locator("#result").is_visible()
    assert tab.locator("#places li").count() == 6
    assert ("Team points" if language == "en" else "联邦得分") in tab.locator(
        "#points").inner_text()
    # the player answered questions, tapped plays and passed
    assert acts["pre"] >= 1 and acts["play"] >= 1 and acts["pass"] >= 1, acts
    # each act asked its answer from the acts the page showed (and the log above stayed whole)
    assert len(posted) == sum(acts.values()) - acts["shot"]
    assert all(re.search(r"/act/\?actions_from=\d+$", url) for url in posted), posted
    # a stored, confirmed result whose record replays to it
    result = GameResult.objects.get(pk=final.result_id)
    assert result.status == GameResult.Status.CONFIRMED
    record = result.versions.get(version=result.version).payload
    assert replay(record, first_game=True) == result.engine_result
    # and no state of the page showed another seat's cards
    states = tab.evaluate("window.__states")
    assert len({v for v, _html in states}) > 50, "the page did not follow the game"
    assert {int(v) for v, _html in states} <= set(games), "a state of an unknown version"
    held: dict[int, set] = {}  # the cards the seat held at any version up to each one
    for version in sorted(games):
        held[version] = set(hand_of(games[version], seat)) | held.get(max(
            [v for v in held if v < version], default=-1), set())
    problems = [p for version, html in states
                for p in foreign_problems(html, games[int(version)], seat, held[int(version)])]
    assert problems == []
    assert not tab.errors, tab.errors
    context.close()


def test_the_page_reconnects_after_a_network_drop_with_last_event_id(live_server, browser,  # noqa: F811
                                                                      monkeypatch):
    # given: streams that the server ends every 1.5 s (the browser reconnects each time), and
    # a page following its game
    from live import streams
    from web.views import live_stream

    monkeypatch.setattr(streams, "MAX_STREAM", 1.5)
    monkeypatch.setattr(live_stream, "MAX_STREAM", 1.5)
    seat = 0
    live_id, link = hosted_table(seat)
    live.live_host(live_id=live_id, on=True, seat=seat, referee=True)  # the bot plays for all
    context, tab = phone(browser)
    opened = []  # the version each stream the server opened starts after
    original = streams.open_events
    monkeypatch.setattr(streams, "open_events", lambda lg, seat, since, *args, **kwargs: (
        opened.append(since), original(lg, seat, since, *args, **kwargs))[1])
    tab.goto(f"{live_server.url}{link}live/{live_id}/")
    tab.wait_for_function("document.body.dataset.stream === 'open'", timeout=WAIT_MS)
    for _ in range(3):
        bot_plays(live_id, tab)  # the page has them from the stream's events

    # when: the network drops (the open stream ends, and reconnecting fails), and the game
    # moves on meanwhile
    context.set_offline(True)
    tab.wait_for_function("document.body.dataset.stream === 'lost'", timeout=WAIT_MS)
    shown = int(tab.evaluate("document.body.dataset.version"))
    for _ in range(8):
        live.live_autoplay_overdue()
    now = LiveGame.objects.get(pk=live_id).version
    assert now > shown
    time.sleep(1.0)  # a reconnection or two fail meanwhile
    assert tab.locator("#message").is_visible()  # "reconnecting", not a broken page
    assert int(tab.evaluate("document.body.dataset.version")) == shown
    context.set_offline(False)

    # then: the page reconnects from the last version it saw, catches up with what it missed,
    # and says so no more
    wait_version(tab, now)
    tab.wait_for_function("document.getElementById('message').hidden", timeout=WAIT_MS)
    # (the page's address still says since=0: the version came as Last-Event-ID)
    assert opened[0] == 0 and shown in opened[1:], opened
    assert not tab.errors, tab.errors
    context.close()


def test_a_stale_act_is_a_message_and_the_page_shows_the_game_as_it_is(live_server, browser):  # noqa: F811
    # given: the player's turn on the page, its stream held up (the request never answered)
    seat = 0
    live_id, link = hosted_table(seat)
    context, tab = phone(browser, "zh-hans", live_server)
    tab.route("**/events/**", lambda route: None)
    lg = bots_play(live_id, seat)
    tab.goto(f"{live_server.url}{link}live/{live_id}/")
    tab.wait_for_function("document.body.dataset.myTurn === '1'", timeout=WAIT_MS)
    game = Game.from_state(lg.state)

    # when: the referee puts the seat in 托管 and the bot plays the turn the page still shows
    live.live_host(live_id=live_id, on=True, seat=seat, referee=True)
    live.live_autoplay_overdue()
    perform(tab, bot_act(game, seat))

    # then: a message in the player's language, and the game as it is now
    tab.wait_for_function("!document.getElementById('message').hidden", timeout=WAIT_MS)
    assert tab.locator("#message").inner_text() == "你的操作到达之前牌局已经进行下去了；这是现在的牌局。"
    wait_version(tab, LiveGame.objects.get(pk=live_id).version)
    assert tab.locator("#hand button").count() > 0
    assert not tab.errors, tab.errors
    context.close()


def test_practice_from_the_home_page_to_the_end_of_a_game(live_server, browser):  # noqa: F811
    # given: a newcomer on the home page
    context, tab = phone(browser, "zh-hans", live_server)
    tab.goto(live_server.url + "/")
    tab.locator("#practice-link").click()
    if SHOTS:
        tab.screenshot(path=str(REPO / "docs" / "practice-start-phone.png"))
    tab.locator('input[value="basic"]').check()

    # when: they start a game and play it through the page
    tab.locator("form.practice-form button[type=submit]").click()
    tab.wait_for_selector("#hand button")
    for _step in range(200):
        practice = PracticeGame.objects.get()
        if practice.status == PracticeGame.Status.FINISHED:
            break
        wait_version(tab, practice.version)
        game = Game.from_state(practice.state)
        perform(tab, bot_act(game, practice.seat))
        wait_version(tab, practice.version + 1)
        assert tab.locator("#message").is_hidden(), tab.locator("#message").inner_text()

    # then: the end, with places
    tab.wait_for_function("document.body.dataset.state === 'over'", timeout=WAIT_MS)
    assert tab.locator("#places li").count() == 6
    assert not tab.errors, tab.errors
    context.close()


def test_the_foreign_card_scan_sees_another_seats_card():
    # given: a dealt game and a page state that shows one card only seat 3 holds
    import random

    import engine

    game = Game("dagang", engine.deal(random.Random(4)), None, first_game=True)
    own = set(hand_of(game, 0))
    foreign = next(c for c in hand_of(game, 3) if c not in own)
    hand = "".join(f'<button data-card="{c}"></button>' for c in hand_of(game, 0))
    page = f'<div id="hand" class="hand">{hand}</div>\n</section>'

    # then: the honest page passes, the leaking one does not, as an element or as JSON
    assert foreign_problems(page, game, 0) == []
    assert foreign_problems(page + f'<span data-card="{foreign}">', game, 0)
    assert foreign_problems(page + f'<script>["{foreign}"]</script>', game, 0)
    # and a hand that is not the seat's own is seen too
    assert foreign_problems(page.replace(hand, hand[: hand.rindex("<button")]), game, 0)


def test_the_practice_table_runs_under_its_content_security_policy(live_server, browser):  # noqa: F811
    # given: a phone that keeps the pages' Content-Security-Policy (no harness)
    context = browser.new_context(**PHONE)
    tab = context.new_page()
    refused = []
    tab.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
    tab.on("pageerror", lambda exc: refused.append(str(exc)))

    # when: a practice game is started from its page
    tab.goto(live_server.url + "/practice/")
    tab.locator("form.practice-form button[type=submit]").click()

    # then: the script ran (the hand is drawn) and nothing was refused
    tab.wait_for_selector("#hand button")
    assert tab.locator("#hand button").count() == 36 or tab.locator("#pre").is_visible()
    assert refused == []
    context.close()
