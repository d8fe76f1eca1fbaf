"""The live table page's views (web/views/live_table.py, live_stream.py) and the practice pages'
(web/views/practice.py): who gets what, refusals as messages, the stream honouring
Last-Event-ID, practice games' tokens, expiry and rate limit."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from engine.bots import play_match
from engine.game import Game
from engine.record import replay
from live import services as live
from live.models import LiveGame, PracticeGame
from tests.live.helpers import hand_of, make_live_table, play_on_server
from tests.pages.helpers import bot_act
from tests.pages.test_table_views import sheet_post
from tournaments.models import Seat
from tournaments.services.links import entry_link_issue

pytestmark = pytest.mark.django_db

LIVE_DATA = re.compile(r'<script id="live-data" type="application/json">(.*?)</script>', re.S)


@pytest.fixture(autouse=True)
def _eager_and_fresh(settings):
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    cache.clear()
    yield
    cache.clear()
    app.conf.task_always_eager = saved


def page_data(response) -> dict:
    found = LIVE_DATA.search(response.content.decode())
    assert found, "the page has no #live-data"
    return json.loads(found.group(1))


def links_of(table) -> list[str]:
    """Each seat's private link address, by seat."""
    out = []
    for seat in Seat.objects.filter(table=table).select_related("entry", "player").order_by("seat"):
        (link,) = entry_link_issue(entry=seat.entry, player=seat.player)
        out.append(f"/p/{link.token()}/")
    return out


@pytest.fixture
def started():
    lt = make_live_table()
    lg = live.live_start(table=lt.table)
    return lt, lg, links_of(lt.table)


def post_act(client, url, body, **extra):
    return client.post(url, json.dumps(body), content_type="application/json", **extra)


def test_a_seated_player_sees_their_own_hand_and_nobody_elses(started):
    # given
    lt, lg, links = started
    game = Game.from_state(LiveGame.objects.get(pk=lg.pk).state)

    for seat, link in enumerate(links):
        # when
        response = Client().get(f"{link}live/{lg.pk}/")

        # then: their hand, their legal acts, and no card of another seat in the whole page
        assert response.status_code == 200
        data = page_data(response)
        assert data["seat"] == seat and data["view"]["seat"] == seat
        assert sorted(data["view"]["hand"]) == hand_of(game, seat)
        mine = set(hand_of(game, seat))
        named = set(re.findall(r'"((?:10|[2-9JQKA])[SHDC]|BJ|RJ)"', response.content.decode()))
        assert named <= mine, f"seat {seat}'s page names cards it does not hold"


def test_the_table_page_links_to_the_live_game_and_deals_one(started):
    lt, lg, links = started
    page = Client().get(links[0]).content.decode()
    assert f'href="{links[0]}live/{lg.pk}/"' in page

    # dealing game 2 while game 1 has no result is refused, as a message on the page
    response = Client().post(f"{links[0]}live/start/")
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert LiveGame.objects.filter(table=lt.table).count() == 1


def test_a_game_being_played_live_has_no_sheet_to_hand_in_on_the_table_page(started):
    # given: game 1 of the table dealt live and running
    lt, lg, links = started

    # when
    page = Client().get(links[0]).content.decode()

    # then: in the games' list, game 1 is being played live, with no sheet or upload for it
    # (the service would refuse them: its result is the server's record)
    assert 'id="game-live"' in page and "Game 1: being played live" in page
    assert 'id="sheet"' not in page and 'name="record"' not in page
    chinese = Client().get(links[0], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第 1 局：正在线上进行" in chinese and 'id="sheet"' not in chinese

    # and once it has ended (its result recorded), game 2's sheet is offered
    play_on_server(lt, lg.pk)
    page = Client().get(links[0]).content.decode()
    assert 'id="game-live"' not in page and 'name="number" value="2"' in page


def test_a_sheet_or_record_sent_for_a_game_that_went_live_meanwhile_says_so(started):
    # given: game 1 dealt live after a player opened the page with game 1's sheet on it
    lt, lg, links = started
    (played,) = play_match(lt.event.rules, 1, random.Random(5))
    record = json.dumps(played.record()).encode()

    for data in (sheet_post(), {"number": "1", "record": SimpleUploadedFile(
            "game.json", record, content_type="application/json")}):
        # when: the sheet (or a record file) is handed in for game 1
        response = Client().post(f"{links[0]}submit/", data, HTTP_ACCEPT_LANGUAGE="zh-hans")

        # then: refused (409), said at the top of the page in the player's language, with the
        # live line in the games' list and no sheet; nothing stored
        page = response.content.decode()
        assert response.status_code == 409
        assert 'class="notice error"' in page and "本桌第 1 局正在线上进行" in page
        assert 'id="game-live"' in page and 'id="sheet"' not in page
        assert not lt.table.results.exists()


def test_a_seated_player_deals_the_next_game_from_their_page():
    lt = make_live_table()
    (link, *others) = links_of(lt.table)
    for other in others:  # the five others say they are at the table
        assert Client().post(f"{other}live/ready/", {"ready": "1"}).status_code == 302
    response = Client().post(f"{link}live/start/")
    lg = LiveGame.objects.get(table=lt.table)
    assert response.status_code == 302 and response["Location"] == f"{link}live/{lg.pk}/"


def test_other_tables_games_unknown_links_and_strangers_get_nothing(started):
    # given: another table's live game, and a player of that table
    lt, lg, links = started
    other = make_live_table()
    other_lg = live.live_start(table=other.table)
    other_links = links_of(other.table)

    # then: a link opens only its own table's game; a wrong token, or no sign-in, nothing
    for url in (f"{other_links[0]}live/{lg.pk}/", f"{other_links[0]}live/{lg.pk}/state/",
                f"{other_links[0]}live/{lg.pk}/events/?seconds=0",
                f"{links[0]}live/{other_lg.pk}/", f"/p/{'x' * 43}/live/{lg.pk}/"):
        assert Client().get(url).status_code == 404, url
    response = post_act(Client(), f"{other_links[0]}live/{lg.pk}/act/",
                        {"version": lg.version, "act": "decline"})
    assert response.status_code == 404
    assert Client().get(f"/me/live/{lg.pk}/").status_code == 302  # to the login
    assert LiveGame.objects.get(pk=lg.pk).version == lg.version


def test_acts_through_the_page_and_refusals_as_messages(started, settings):
    # given: the seat asked first
    lt, lg, links = started
    game = Game.from_state(LiveGame.objects.get(pk=lg.pk).state)
    seat = game.to_act()["seat"]
    other = (seat + 1) % 6
    url = f"{links[seat]}live/{lg.pk}/act/"

    # when: another seat answers for it, in Chinese
    refused = post_act(Client(), f"{links[other]}live/{lg.pk}/act/",
                       {"version": lg.version, "act": "decline"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    # then: refused (not its turn), in the player's language, nothing changed
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "not_your_turn"
    assert LiveGame.objects.get(pk=lg.pk).version == lg.version

    # when: the seat answers
    answered = post_act(Client(), url, {"version": lg.version, **bot_act(game, seat)})
    # then: the answer is its new view
    assert answered.status_code == 200
    assert answered.json()["version"] == lg.version + 1 and answered.json()["seat"] == seat

    # when: the same act again, on the old version: stale, a message, nothing changed
    stale = post_act(Client(), url, {"version": lg.version, "act": "decline"})
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "stale_version"
    assert "moved on" in stale.json()["error"]["message"]
    # and malformed bodies are refused before any service
    for body in ("nonsense", json.dumps({"act": "decline"}),
                 json.dumps({"version": True, "act": "decline"}),
                 json.dumps({"version": 1, "act": "play", "cards": "AS"})):
        bad = Client().post(url, body, content_type="application/json")
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_format"


def test_the_page_asks_its_acts_answers_from_the_acts_it_shows(started):
    """The page sends ``?actions_from=`` (how many acts it shows): the answer carries only the
    acts from there, as its stream does; a bad count is refused and nothing changes."""
    lt, lg, links = started
    lg, game = play_on_server(lt, lg.pk, until=lambda g: len(g.actions) >= 3)
    seat = game.to_act()["seat"]
    url = f"{links[seat]}live/{lg.pk}/act/"
    had = len(game.actions)
    for value in ("-1", "three", "100001"):
        bad = post_act(Client(), f"{url}?actions_from={value}",
                       {"version": lg.version, **bot_act(game, seat)},
                       HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_actions_from"
        assert "actions_from" in bad.json()["error"]["message"]
    assert LiveGame.objects.get(pk=lg.pk).version == lg.version

    answered = post_act(Client(), f"{url}?actions_from={had}",
                        {"version": lg.version, **bot_act(game, seat)})
    assert answered.status_code == 200
    view = answered.json()
    assert view["version"] == lg.version + 1 and view["actions_from"] == had
    whole = Client().get(f"{links[seat]}live/{lg.pk}/state/").json()
    assert view["actions"] == whole["actions"][had:] and len(whole["actions"]) == had + 1


def test_hosting_switch_from_the_page(started):
    lt, lg, links = started
    response = Client().post(f"{links[2]}live/{lg.pk}/host/", {"on": "1"})
    assert response.status_code == 200 and response.json()["hosted_seats"] == [2]
    response = Client().post(f"{links[2]}live/{lg.pk}/host/", {"on": "0"})
    assert response.json()["hosted_seats"] == []


def test_the_stream_starts_after_the_last_event_id(started):
    # given: a game that moved on by two acts
    lt, lg, links = started
    for _ in range(2):
        game = Game.from_state(LiveGame.objects.get(pk=lg.pk).state)
        seat = game.to_act()["seat"]
        live.live_act(live_id=lg.pk, seat=seat, action=bot_act(game, seat),
                      version=game.version)
    now = LiveGame.objects.get(pk=lg.pk).version

    # when: the stream is reopened by an EventSource that saw the version before the last
    response = Client().get(f"{links[0]}live/{lg.pk}/events/?seconds=0",
                            HTTP_LAST_EVENT_ID=str(now - 1))
    body = b"".join(response.streaming_content).decode()

    # then: it sends the current view only, for seat 0 (its own hand)
    assert response["Content-Type"] == "text/event-stream"
    assert re.findall(r"^id: (\d+)$", body, re.M) == [str(now)]
    view = json.loads(re.search(r"^data: (.*)$", body, re.M).group(1))
    assert view["seat"] == 0 and "hand" in view

    # and with nothing missed, no view (a nonsense id counts as none seen)
    body = b"".join(Client().get(f"{links[0]}live/{lg.pk}/events/?seconds=0",
                                 HTTP_LAST_EVENT_ID=str(now)).streaming_content).decode()
    assert "event: view" not in body
    body = b"".join(Client().get(f"{links[0]}live/{lg.pk}/events/?seconds=0",
                                 HTTP_LAST_EVENT_ID="x").streaming_content).decode()
    assert "event: view" in body

    # the page's own choice, new acts only: the first view still has them all
    body = b"".join(Client().get(f"{links[0]}live/{lg.pk}/events/?seconds=0&actions=new",
                                 HTTP_LAST_EVENT_ID=str(now - 1)).streaming_content).decode()
    view = json.loads(re.search(r"^data: (.*)$", body, re.M).group(1))
    assert view["actions_from"] == 0 and view["actions"] == json.loads(
        Client().get(f"{links[0]}live/{lg.pk}/state/").content)["actions"]
    # and anything else is refused, naming the parameter
    response = Client().get(f"{links[0]}live/{lg.pk}/events/?seconds=0&actions=some")
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == "bad_actions"
    assert "actions" in json.loads(response.content)["error"]["message"]


# ----------------------------------------------------------------------------- practice
def start_practice(client=None, preset="dagang", **extra):
    client = client or Client()
    response = client.post("/practice/", {"preset": preset}, **extra)
    assert response.status_code == 302, response.content[:300]
    return client, response["Location"]


def test_the_home_page_offers_practice_and_the_start_page_lists_the_presets():
    assert 'href="/practice/"' in Client().get("/").content.decode()
    page = Client().get("/practice/").content.decode()
    for preset in ("dagang", "basic", "online"):
        assert f'value="{preset}"' in page
    refused = Client().post("/practice/", {"preset": "nope"})
    assert refused.status_code == 400 and PracticeGame.objects.count() == 0


def test_a_whole_practice_game_through_the_views_ends_in_a_replayable_record():
    # given
    client, url = start_practice()
    data = page_data(client.get(url))
    view, seat = data["view"], data["seat"]

    # when: the player's acts, chosen by the bot, until the end
    for _ in range(500):
        if view["state"] == "over":
            break
        game = Game.from_state(PracticeGame.objects.get().state)
        assert game.to_act()["seat"] == seat  # the bots played up to the player's turn
        response = post_act(client, url + "act/", {"version": view["version"],
                                                   **bot_act(game, seat)})
        assert response.status_code == 200, response.content
        view = response.json()

    # then: over, with a result, and the stored record replays to the same result
    stored = PracticeGame.objects.get()
    assert view["state"] == "over" and stored.status == PracticeGame.Status.FINISHED
    record = Game.from_state(stored.state).record()
    assert replay(record, first_game=True) == view["result"]
    assert view["result"]["ok"] and view["result"]["complete"]


def test_practice_tokens_are_isolated_and_refusals_are_messages():
    a, url_a = start_practice()
    b, url_b = start_practice()
    assert url_a != url_b
    view_a = page_data(a.get(url_a))["view"]
    # B's client opening A's address still sees A's game: the token is the key, and a guessed
    # one finds nothing
    assert Client().get(url_a.replace(url_a.split("/")[2], "y" * 32)).status_code == 404
    assert Client().post(url_a.replace(url_a.split("/")[2], "y" * 32) + "act/", "{}",
                         content_type="application/json").status_code == 404
    # a stale version
    stale = post_act(a, url_a + "act/", {"version": view_a["version"] + 5, "act": "pass"})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_version"
    # an act the engine refuses, with a message
    bad = post_act(a, url_a + "act/", {"version": view_a["version"], "act": "play",
                                       "cards": ["XX"]})
    assert bad.status_code == 422 and bad.json()["error"]["message"]
    assert PracticeGame.objects.get(pk=PracticeGame.objects.order_by("pk").first().pk
                                    ).version == view_a["version"]


def test_practice_games_expire_when_idle():
    client, url = start_practice()
    PracticeGame.objects.update(updated_at=timezone.now() - timedelta(hours=7))
    assert client.get(url).status_code == 404
    assert client.get(url + "state/").status_code == 404
    start_practice()  # starting another deletes the expired one
    assert PracticeGame.objects.count() == 1


def test_practice_starts_are_rate_limited_per_address(monkeypatch):
    from web.views.table import LinkThrottle

    monkeypatch.setitem(LinkThrottle.THROTTLE_RATES, "practice", "2/hour")
    start_practice(REMOTE_ADDR="10.0.0.1")
    start_practice(REMOTE_ADDR="10.0.0.1")
    refused = Client().post("/practice/", {"preset": "dagang"}, REMOTE_ADDR="10.0.0.1")
    assert refused.status_code == 429
    start_practice(REMOTE_ADDR="10.0.0.2")  # another address is not held back
    assert PracticeGame.objects.count() == 3


def test_a_signed_in_player_reaches_their_live_table_at_me(started):
    # given: seat 4's player, signed in (no link)
    lt, lg, _links = started
    client = Client()
    client.force_login(lt.users[4])

    # then: their table page links to the game, and the page is their seat's
    assert f'href="/me/live/{lg.pk}/"' in client.get("/me/").content.decode()
    data = page_data(client.get(f"/me/live/{lg.pk}/"))
    assert data["seat"] == 4 and data["act_url"] == f"/me/live/{lg.pk}/act/"
    assert client.get(f"/me/live/{lg.pk}/state/").json()["seat"] == 4
