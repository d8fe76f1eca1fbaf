"""Watching and looking back (issue 19) in a real browser at 390×844 (headless Debian chromium
driven by Playwright, as tests/pages/test_browser.py), under the pages' Content-Security-Policy:

- a spectator follows a whole bot-played live game: every state the page's DOM goes through is
  recorded by a MutationObserver, and none shows a card the table has not seen by then;
- a replay is stepped through act by act to the last, where the result is shown;
- a player's history is reached from the leaderboard.

With ``UPDATE_SCREENSHOTS=1`` the tests write docs/spectator-phone-{en,zh}.png,
docs/replay-phone-{en,zh}.png, docs/player-history-{en,zh}.png and
docs/table-results-{en,zh}.png.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from django.urls import reverse

from engine.steps import replay_steps
from games.models import GameResult
from live import services as live
from live.models import LiveGame
from tests.live.conftest import waiting  # noqa: F401  (the fixture)
from tests.live.helpers import bot_pick, make_live_table
from tests.pages.helpers import NAMES
from tests.pages.test_browser import CHROMIUM, browser, fits_a_phone  # noqa: F401  (the fixture)
from tests.pages.test_table_browser import phone, shot
from tests.pages.test_watch_views import correct_and_penalise, play_live_game
from tournaments.models import Event, Player, Seat

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (apt-get install -y chromium)"),
    pytest.mark.django_db(transaction=True),
]

@pytest.fixture(autouse=True)
def _fresh_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


#: records each state of the spectator page: the act count it shows and the cards in each part
OBSERVER = """
window.__states = [];
(function () {
  var last = null;
  function cards(selector) {
    return Array.prototype.map.call(document.querySelectorAll(selector + " [data-card]"),
      function (n) { return n.dataset.card; });
  }
  function snap() {
    var ring = document.getElementById("ring");
    var all = Array.prototype.map.call(document.querySelectorAll("[data-card]"),
      function (n) { return n.dataset.card; });
    var state = {acts: ring && ring.dataset.acts !== undefined ? parseInt(ring.dataset.acts, 10) : null,
                 top: cards("#top"), recent: cards("#acts"), facts: cards("#facts"), all: all};
    var key = JSON.stringify(state);
    if (key !== last) { last = key; window.__states.push(state); }
  }
  new MutationObserver(snap).observe(document, {subtree: true, childList: true,
                                                attributes: true, characterData: true});
})();
"""


WIDE = """Array.prototype.filter.call(document.querySelectorAll("main *"), function (n) {
  var r = n.getBoundingClientRect(); return r.right > 391; }).slice(0, 8).map(function (n) {
  return n.tagName + "." + n.className + " " + Math.round(n.getBoundingClientRect().right); })"""


def fits_phone(tab) -> bool:
    """The page is no wider than the phone (else the test names the widest elements)."""
    assert fits_a_phone(tab), tab.evaluate(WIDE)
    return True


def _revealed(record: dict, n_actions: int) -> tuple[Counter, Counter]:
    """(cards played or burned in the first ``n_actions`` acts, tribute and returned cards)."""
    played = Counter()
    for act in record["actions"][:n_actions]:
        played.update(act.get("cards") or [])
    pre = Counter()
    for ev in record["pre"]:  # tributes, returns and 买3 exchanges are shown at the table
        pre.update((ev.get("cards") or []) + [ev[k] for k in ("give", "take") if k in ev])
    return played, pre


def _foreign(state: dict, record: dict) -> list[str]:
    """Cards a DOM state shows that the table has not seen by then (as many times as shown)."""
    if state["acts"] is None:
        return list(state["all"])  # before any game is shown, no card at all
    played, pre = _revealed(record, state["acts"])
    out = []
    for part, seen in (("top", played), ("recent", played), ("facts", pre)):
        extra = Counter(state[part]) - seen
        out += [f"{part}:{card}" for card in extra.elements()]
    shown = len(state["top"]) + len(state["recent"]) + len(state["facts"])
    if shown != len(state["all"]):
        out.append(f"{len(state['all']) - shown} cards outside the known parts")
    return out


def _people(lt) -> None:
    """Give the table's players names as people have (the screenshots show them)."""
    for seat in lt.table.seats.select_related("player"):
        Player.objects.filter(pk=seat.player_id).update(name=NAMES[seat.seat])


def test_a_spectator_follows_a_whole_live_game_and_never_sees_a_hidden_card(
        live_server, browser, waiting):  # noqa: F811
    lt = make_live_table()
    url = live_server.url + reverse("pages:watch", kwargs={
        "slug": lt.event.slug, "number": 1, "table": lt.table.number})
    context, tab = phone(browser, "en-US")
    tab.add_init_script(OBSERVER)
    tab.goto(url)
    tab.locator("#watch-status").filter(has_text="No game is being played").wait_for()

    # when the table plays a whole game live, each act made while the page's long-poll waits
    # (SQLite's shared in-memory test database refuses a write while a reader is on its table),
    # so the page is woken by every act and shows every state
    live_id = live.live_start(table=lt.table).pk

    def act_when_watched(_live):
        assert waiting.acquire(timeout=30), "the spectator page stopped asking"

    play_live_game(lt, check=act_when_watched, live_id=live_id)
    tab.locator("#over h2").wait_for()

    # then the page went through many states, and none showed a card nobody had seen
    record = live.live_game(LiveGame.objects.get(pk=live_id)).record()
    states = tab.evaluate("window.__states")
    shown = [s for s in states if s["acts"] is not None]
    # the page was woken by every act: it showed (nearly) every act count
    assert len({s["acts"] for s in shown}) >= 0.9 * len(record["actions"]), len(shown)
    assert max(s["acts"] for s in shown) == len(record["actions"])
    foreign = [(s["acts"], f) for s in states for f in _foreign(s, record)]
    assert foreign == [], foreign[:10]
    assert any(s["top"] for s in shown), "the top combo was shown"
    # the result, with the link to the replay
    over = tab.locator("#over")
    assert "头科" in over.inner_text() and "大落" in over.inner_text()
    assert over.locator("a.button").get_attribute("href").endswith("/games/1/replay/")
    assert fits_phone(tab)
    assert tab.errors == []
    context.close()

    # the finished game as a Chinese spectator sees it
    context, tab = phone(browser, "zh-CN")
    tab.goto(url)
    tab.locator("#over h2").wait_for()
    assert tab.locator("html").get_attribute("lang") == "zh-hans"
    assert fits_phone(tab) and tab.errors == []
    context.close()


def test_a_spectator_sees_a_running_game_on_a_phone(live_server, browser):  # noqa: F811
    lt = make_live_table()
    _people(lt)
    lg = live.live_start(table=lt.table)
    for _ in range(40):  # into play, with cards on the table
        lg = LiveGame.objects.get(pk=lg.pk)
        game = live.live_game(lg)
        seat, action = bot_pick(game, lt.bots)
        live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)
    url = live_server.url + reverse("pages:watch", kwargs={
        "slug": lt.event.slug, "number": 1, "table": lt.table.number})
    for locale, name in (("en-US", "en"), ("zh-CN", "zh")):
        context, tab = phone(browser, locale)
        tab.goto(url)
        tab.locator("#acts li").first.wait_for()
        assert tab.locator(".ring-seat.turn").count() == 1
        assert fits_phone(tab) and tab.errors == []
        shot(tab, f"spectator-phone-{name}.png", full_page=True)
        context.close()


#: the text of the table's middle (``#top``, the felt) that falls outside its rounded edge: each
#: line box's corners that lie beyond the curve of a corner (the shape from the computed
#: ``border-radius``: an oval is four corners of half the width and half the height), as
#: "text… how far out" (1 is the edge)
OUTSIDE_THE_FELT = """(() => {
  const top = document.getElementById("top"), r = top.getBoundingClientRect();
  const style = getComputedStyle(top);
  const radius = (v, size) => v.endsWith("%") ? parseFloat(v) / 100 * size : parseFloat(v);
  const rx = radius(style.borderTopLeftRadius.split(" ")[0], r.width);
  const ry = radius(style.borderTopLeftRadius.split(" ").slice(-1)[0], r.height);
  const out = [], walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(walker.currentNode);
    for (const q of range.getClientRects()) {
      for (const [x, y] of [[q.left, q.top], [q.right, q.top], [q.left, q.bottom], [q.right, q.bottom]]) {
        const dx = Math.max(0, Math.abs(x - (r.left + r.width / 2)) - (r.width / 2 - rx));
        const dy = Math.max(0, Math.abs(y - (r.top + r.height / 2)) - (r.height / 2 - ry));
        const d = (dx / rx) ** 2 + (dy / ry) ** 2;
        if (d > 1) out.push(walker.currentNode.textContent.slice(0, 24) + "… " + d.toFixed(2));
      }
    }
  }
  return out;
})()"""


def test_the_tables_middle_holds_its_words_on_a_phone(live_server, browser):  # noqa: F811
    """The felt at the middle of the spectator's ring (what is on the table, whose turn it is)
    keeps every line of its text inside its rounded edge, before play and in play, in both
    languages: at 390 px, when it was an oval, the English line before play and the line
    above the top combo ran over its curve, white on the page's white."""
    urls = {}
    for stage in ("before play", "in play"):  # (two tables: both ready before a page asks)
        lt = make_live_table()
        _people(lt)
        lg = live.live_start(table=lt.table)
        while stage == "in play" and live.live_game(lg).top is None:
            seat, action = bot_pick(live.live_game(lg), lt.bots)
            live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)
            lg = LiveGame.objects.get(pk=lg.pk)
        urls[stage] = live_server.url + reverse("pages:watch", kwargs={
            "slug": lt.event.slug, "number": 1, "table": lt.table.number})
    for stage, url in urls.items():
        for locale in ("en-US", "zh-CN"):
            context, tab = phone(browser, locale)
            tab.goto(url)
            tab.locator("#top .turn-line").wait_for()
            if stage == "in play":
                tab.locator("#top .top-cards").wait_for()
            assert tab.evaluate(OUTSIDE_THE_FELT) == [], (stage, locale)
            context.close()


def test_a_replay_steps_to_the_last_act_and_shows_the_result(live_server, browser):  # noqa: F811
    lt = make_live_table()
    _people(lt)
    lg = play_live_game(lt)
    result = GameResult.objects.get(pk=lg.result_id)
    n = len(live.live_game(lg).actions)
    table_url = live_server.url + lt.table.get_absolute_url()
    context, tab = phone(browser, "en-US")
    # from the table page's link
    tab.goto(table_url)
    tab.locator("#game-1 a", has_text="Replay").click()
    tab.locator("#step-caption", has_text="Play begins").wait_for()
    assert tab.locator("#hands .hand").count() == 6
    start = replay_steps(result.versions.get().payload, first_game=True)["start"]
    assert tab.locator("#hands [data-card]").count() == sum(start["counts"])  # all six open
    forward = tab.locator('[data-go="forward"]')
    root = tab.locator("#replay")
    answerable = [k for k, step in enumerate(replay_steps(
        result.versions.get().payload, first_game=True)["steps"], start=1)
        if step["rights"] is not None]
    explained = answerable[0] if answerable[0] >= 20 else next(
        (k for k in answerable if k >= 20), answerable[0])
    for k in range(1, n + 1):
        forward.click()
        if k in (1, n // 2, n):
            assert root.get_attribute("data-step") == str(k)
            assert tab.locator("#step-caption").inner_text().startswith(f"Act {k} of {n}")
        if k == explained:  # a step with a combo to answer: who may, and why
            shot(tab, "replay-phone-en.png", full_page=False)
            assert tab.locator("#hands .why b").count() > 0
        if k < n:
            assert tab.locator("#result").is_hidden()
    assert tab.locator("#result").is_visible()
    text = tab.locator("#result").inner_text()
    assert "头科" in text and "大落" in text
    assert f"red (红方) {result.points_a} · black (黑方) {result.points_b}" in text
    # back one act hides the result again; a trick (一圈, not an event's round) can be jumped to
    tab.locator('[data-go="back"]').click()
    assert tab.locator("#result").is_hidden()
    options = tab.locator("#round-jump option")
    assert options.count() > 5
    tab.locator("#round-jump").select_option(index=3)
    assert "Trick 4" in tab.locator("#step-caption").inner_text()
    assert fits_phone(tab) and tab.errors == []
    context.close()

    context, tab = phone(browser, "zh-CN")
    tab.goto(live_server.url + reverse("pages:replay", kwargs={
        "slug": lt.event.slug, "number": 1, "table": lt.table.number, "game": 1}))
    tab.locator("#hands [data-card]").first.wait_for()
    for _ in range(20):
        tab.locator('[data-go="forward"]').click()
    assert fits_phone(tab) and tab.errors == []
    shot(tab, "replay-phone-zh.png", full_page=False)
    context.close()


def test_a_players_history_from_the_leaderboard(live_server, browser, event,  # noqa: F811
                                                referee_user):
    from tests.pages.helpers import draw_round, play_table
    from tournaments.standings import standings_recompute

    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    for tbl in draw_round(event).tables.all():
        play_table(table=tbl, referee=referee_user, seed=2)
    standings_recompute(event_id=event.pk)
    # the best ranked of those who sat at a table in both rounds: 14 players leave two byes a
    # round, and as the draw's secret seed falls, the leader may have had one
    seated = [set(Seat.objects.filter(round__event=event, round__number=n)
                  .values_list("player_id", flat=True)) for n in (1, 2)]
    both = seated[0] & seated[1]
    first = next(row for row in event.standings.select_related("entry__player").order_by("rank")
                 if row.entry.player_id in both)
    context, tab = phone(browser, "en-US")
    tab.goto(live_server.url + reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    history = reverse("pages:entry-history", args=[event.slug, first.entry_id])
    tab.locator(f"#standings tbody a[href='{history}']").click()
    tab.wait_for_url("**/players/**")
    assert tab.locator("h1").inner_text().startswith(first.entry.player.name)
    assert tab.locator("svg.chart circle.dot").count() == 2
    assert tab.locator(".round-row").count() == 2
    assert "Partners" in tab.locator(".round-row").first.inner_text()
    assert fits_phone(tab) and tab.errors == []
    shot(tab, "player-history-en.png")
    context.close()
    context, tab = phone(browser, "zh-CN")
    tab.goto(live_server.url + reverse("pages:player-history", kwargs={
        "slug": event.slug, "player": first.entry.player_id}))
    assert tab.locator("svg.chart circle.dot").count() == 2
    assert fits_phone(tab) and tab.errors == []
    shot(tab, "player-history-zh.png")
    context.close()


def test_the_table_page_shows_the_whole_results_on_a_phone(live_server, browser, event,  # noqa: F811
                                                           referee_user):
    table = event.rounds.get(number=1).tables.get(number=1)
    correct_and_penalise(table, referee_user, game=2, seat=3,
                         correction="the scorer swapped 头科 and 二科",
                         penalty="showed a card to a partner")
    for locale, name in (("en-US", "en"), ("zh-CN", "zh")):
        context, tab = phone(browser, locale)
        tab.goto(live_server.url + table.get_absolute_url())
        details = tab.locator("#whole-results")
        details.locator("#game-2 details.history summary").click()
        text = details.inner_text()
        assert "showed a card to a partner" in text
        assert "the scorer swapped 头科 and 二科" in text
        # the sides as people call them, not the engine's numbers (issue 52)
        page = tab.locator("main").inner_text()
        assert "红方" in page and "黑方" in page and "联邦 0" not in page and "联邦 1" not in page
        assert fits_phone(tab) and tab.errors == []
        shot(tab, f"table-results-{name}.png")
        context.close()


#: counts the times table.js redraws the rows of a table page's results (``window.__redrawn``)
REDRAWS = """document.addEventListener("DOMContentLoaded", function () {
  window.__redrawn = 0;
  var rows = document.querySelector("#results tbody");
  new MutationObserver(function () { window.__redrawn += 1; }).observe(rows, {childList: true});
});"""


def test_the_table_page_follows_a_game_dealt_live_while_it_is_open(live_server, browser,  # noqa: F811
                                                                    event):
    """The table's page, open before the table deals its game live, lists that game as being
    played live, with the way to watch it, at its next poll (table.js, from the table's API)."""
    table = event.rounds.get(number=1).tables.get(number=2)
    context, tab = phone(browser, "en-US")
    tab.goto(live_server.url + table.get_absolute_url())
    assert tab.locator("#results tr.live-now").count() == 0
    with tab.expect_response(lambda r: f"/api/v1/tables/{table.pk}/" in r.url):
        pass  # (its first poll answered: the page holds what the API said before the deal)

    live.live_start(table=table)

    link = tab.locator("#results tr.live-now a")
    link.wait_for(timeout=15_000)
    assert link.inner_text() == "being played live: watch"
    assert link.get_attribute("href") == reverse("pages:watch", kwargs={
        "slug": event.slug, "number": 1, "table": 2})
    assert tab.locator("#results tr.pending").count() == 2  # (and game 2 still to come)
    assert fits_phone(tab) and tab.errors == []

    # a page whose results have not changed since it was served marks none of them as new
    played = event.rounds.get(number=1).tables.get(number=1)
    tab.add_init_script(REDRAWS)
    tab.goto(live_server.url + played.get_absolute_url())
    for _ in range(200):  # (the first answer drawn; the pages' CSP refuses wait_for_function)
        if tab.evaluate("window.__redrawn") >= 1:
            break
        tab.wait_for_timeout(50)
    assert tab.evaluate("window.__redrawn") >= 1
    assert tab.locator("#results tbody tr").count() == 2
    assert tab.locator("#results tr.changed").count() == 0
    context.close()


def test_find_my_table_shows_a_table_playing_live_with_the_way_to_watch(live_server, browser,  # noqa: F811
                                                                         event):
    """The seating page's search (seating.js, from the round's tables API) marks a table whose
    game is being played live, as the page served does."""
    live.live_start(table=event.rounds.get(number=1).tables.get(number=2))
    context, tab = phone(browser, "en-US")
    tab.goto(live_server.url + reverse("pages:seating", kwargs={"slug": event.slug}))
    tab.fill("#find-q", "2")
    badge = tab.locator("#table-2.hit a.badge.live-now")  # (the search's card: it marks its hit)
    assert badge.inner_text() == "G1 being played live: watch"
    assert badge.get_attribute("href").endswith(reverse("pages:watch", kwargs={
        "slug": event.slug, "number": 1, "table": 2}))
    assert fits_phone(tab) and tab.errors == []
    context.close()


def test_a_delayed_spectator_page_waits_until_the_game_is_old_enough(live_server,
                                                                      browser):  # noqa: F811
    lt = make_live_table()
    Event.objects.filter(pk=lt.event.pk).update(spectator_delay=3)
    lg = live.live_start(table=lt.table)
    for _ in range(40):  # past the deal's questions, into play
        lg = LiveGame.objects.get(pk=lg.pk)
        seat, action = bot_pick(live.live_game(lg), lt.bots)
        live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)
    url = live_server.url + reverse("pages:watch", kwargs={
        "slug": lt.event.slug, "number": 1, "table": lt.table.number})
    context, tab = phone(browser, "en-US")
    tab.goto(url)
    assert "3 s after it is made" in tab.locator(".page-head").inner_text()
    # the game started less than 3 s ago: nothing of it yet, then its state once old enough
    assert tab.locator("#watch-status").is_visible()
    tab.locator("#ring[data-version]").wait_for(state="attached", timeout=15_000)
    assert tab.locator("#ring").get_attribute("data-version") == str(
        LiveGame.objects.get(pk=lg.pk).version)
    assert tab.errors == []
    context.close()
