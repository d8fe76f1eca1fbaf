"""The daily challenge's pages (web/views/daily.py): entering under a name, one entry a session,
a deal played through the live table's views to its end, the field's results and replays
hidden from an entrant who has not finished the deal (and open once they have), the
leaderboard, both languages."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client

from engine.game import Game
from live import daily
from live.models import ChallengeEntry, ChallengePlay
from tests.pages.helpers import bot_act
from tests.pages.test_live_table_views import page_data, post_act

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Entering is counted per address in the cache: every test starts with none."""
    cache.clear()
    yield
    cache.clear()


def entrant(name: str, **extra) -> Client:
    """A browser that entered today's challenge as ``name``."""
    client = Client(**extra)
    response = client.post("/daily/enter/", {"name": name})
    assert response.status_code == 302, response.content[:400]
    return client


def base(number: int) -> str:
    return f"/daily/{daily.today().isoformat()}/deals/{number}/"


def play_deal(client: Client, number: int) -> dict:
    """Start deal ``number`` and play it to its end through the table's views (the person's
    acts chosen by 托管's bot): the last view."""
    response = client.post(base(number) + "start/")
    assert response.status_code == 302 and response["Location"] == base(number) + "play/"
    data = page_data(client.get(base(number) + "play/"))
    view, seat = data["view"], data["seat"]
    assert data["act_url"] == base(number) + "play/act/"
    for _ in range(500):
        if view["state"] == "over":
            return view
        play = ChallengePlay.objects.get(pk=view_play(client, number))
        response = post_act(client, data["act_url"], {
            "version": view["version"], **bot_act(Game.from_state(play.state), seat)})
        assert response.status_code == 200, response.content
        view = response.json()
    raise AssertionError("the deal did not end")


def view_play(client: Client, number: int) -> int:
    entry = daily.entry_of(daily.challenge_day(), client.session.get("daily_token"))
    return ChallengePlay.objects.get(entry=entry, deal__number=number).pk


def test_the_home_page_links_the_challenge_and_its_page_shows_the_deals():
    assert 'href="/daily/"' in Client().get("/").content.decode()
    page = Client().get("/daily/").content.decode()
    day = daily.challenge_day()
    assert page.count('class="card daily-deal"') == daily.DEALS_PER_DAY
    assert "复式" in page and 'id="daily-form"' in page
    for deal in day.deals.all():
        assert deal.commitment in page and deal.seed not in page  # the seed stays hidden
    assert "Results and replays open once you have finished this deal." in page


def test_the_page_in_chinese():
    page = Client(HTTP_ACCEPT_LANGUAGE="zh-hans").get("/daily/").content.decode()
    assert "每日挑战" in page and "复式" in page and "参加" in page
    board = Client(HTTP_ACCEPT_LANGUAGE="zh-hans").get(
        f"/daily/{daily.today().isoformat()}/leaderboard/").content.decode()
    assert "当日排行榜" in board


def test_entering_binds_the_name_to_the_session_once():
    # given: Ann entered
    ann = entrant("Ann")
    page = ann.get("/daily/").content.decode()
    assert "You play today as <strong>Ann</strong>." in page and 'id="daily-form"' not in page

    # when / then: another name from the same session is refused, and so is Ann's name
    # from another session, or a name with a control character
    again = ann.post("/daily/enter/", {"name": "Bob"})
    assert again.status_code == 409 and "one entry a day" in again.content.decode()
    taken = Client().post("/daily/enter/", {"name": "ann"})
    assert taken.status_code == 409 and "choose another name" in taken.content.decode()
    bad = Client().post("/daily/enter/", {"name": "a\u202eb"})
    assert bad.status_code == 400
    assert list(ChallengeEntry.objects.values_list("name", flat=True)) == ["Ann"]


def test_entering_is_rate_limited_per_address(monkeypatch):
    from web.views.table import LinkThrottle

    monkeypatch.setitem(LinkThrottle.THROTTLE_RATES, "daily", "2/hour")
    entrant("A1", REMOTE_ADDR="10.0.0.1")
    entrant("A2", REMOTE_ADDR="10.0.0.1")
    refused = Client(REMOTE_ADDR="10.0.0.1").post("/daily/enter/", {"name": "A3"})
    assert refused.status_code == 429
    entrant("B1", REMOTE_ADDR="10.0.0.2")
    assert ChallengeEntry.objects.count() == 3


def test_without_an_entry_no_deal_is_started_or_shown():
    client = Client()
    assert client.post(base(1) + "start/").status_code == 404
    assert client.get(base(1) + "play/").status_code == 404
    assert client.get(base(1) + "play/state/").status_code == 404
    assert ChallengePlay.objects.count() == 0


def test_a_deal_played_through_the_views_counts_once():
    # given: Ann plays deal 1 to its end on the table's page
    ann = entrant("Ann")
    view = play_deal(ann, 1)
    assert view["result"]["complete"]
    play = ChallengePlay.objects.get()
    assert play.status == ChallengePlay.Status.FINISHED and play.net_points is not None

    # then: the day's page shows her score, the field's results and the seed
    page = ann.get("/daily/").content.decode()
    assert f"{play.net_points:+d} net points" in page and play.deal.seed in page
    # and starting it again is the same finished play: an act is refused, nothing is dealt
    assert ann.post(base(1) + "start/").status_code == 302
    refused = post_act(ann, base(1) + "play/act/", {"version": play.version, "act": "pass"})
    assert refused.status_code == 409
    assert ChallengePlay.objects.count() == 1
    # and another session's visitor cannot act in her play (it is not theirs)
    bob = entrant("Bob")
    assert bob.get(base(1) + "play/").status_code == 404


def test_a_deals_field_and_replays_are_hidden_until_the_entrant_has_finished_it():
    # given: Ann has finished deal 2; Bob has entered and started it, not finished
    ann, bob = entrant("Ann"), entrant("Bob")
    play_deal(ann, 2)
    ann_play = ChallengePlay.objects.get(entry__name="Ann", deal__number=2)
    bob.post(base(2) + "start/")
    results, replay = base(2), base(2) + f"replays/{ann_play.pk}/"

    # then: Bob sees counts only — not the field, not Ann's replay or its data, not the seed
    for url in (results, replay, replay + "replay.json"):
        response = bob.get(url)
        assert response.status_code == 403, url
        assert b"Ann" not in response.content and ann_play.deal.seed.encode() not in \
            response.content
    page = bob.get("/daily/").content.decode()
    assert "1 player has finished it." in page and ann_play.deal.seed not in page
    assert Client().get(results).status_code == 403  # nor anyone who has not entered
    # while Ann sees them
    assert "Ann" in ann.get(results).content.decode()
    assert ann.get(replay).status_code == 200

    # when: Bob finishes deal 2
    ChallengePlay.objects.filter(entry__name="Bob").delete()
    play_deal(bob, 2)

    # then: the field, with both, and Ann's replay and its steps
    field = bob.get(results).content.decode()
    assert "Ann" in field and "Bob" in field and replay in field
    assert ann_play.deal.seed in field
    page = bob.get(replay).content.decode()
    assert "Replay · deal 2, Ann" in page
    steps = json.loads(bob.get(replay + "replay.json").content)
    assert steps["ok"] and steps["steps"]
    assert steps["start"]["hands"][ann_play.deal.seat]  # every hand is shown, now
    # but deal 1, which Bob has not played, stays closed to him
    assert bob.get(base(1)).status_code == 403


def test_a_running_play_has_no_replay():
    ann, bob = entrant("Ann"), entrant("Bob")
    play_deal(ann, 3)
    bob.post(base(3) + "start/")
    running = ChallengePlay.objects.get(entry__name="Bob")
    assert ann.get(base(3) + f"replays/{running.pk}/").status_code == 404
    other_deal = ChallengePlay.objects.get(entry__name="Ann")
    assert ann.get(base(4) + f"replays/{other_deal.pk}/").status_code == 403  # not played 4


def test_the_leaderboard_lists_who_finished_with_matchpoints():
    entrant("Ann")
    bob = entrant("Bob")
    entrant("Cy")  # entered, never finished: not on the board
    day = daily.challenge_day()
    for entry, points in ((ChallengeEntry.objects.get(name="Ann"), 4),
                          (ChallengeEntry.objects.get(name="Bob"), -4)):
        ChallengePlay.objects.create(entry=entry, deal=day.deals.get(number=1), state={},
                                     net_points=points, status=ChallengePlay.Status.FINISHED)
    page = bob.get(f"/daily/{day.date.isoformat()}/leaderboard/").content.decode()
    assert page.index("Ann") < page.index("Bob") and "Cy" not in page
    assert "1.00" in page and "0.00" in page and "1/4" in page
    assert 'class="me"' in page  # Bob's own row is marked


def test_an_earlier_day_is_open_to_everyone_and_unknown_days_are_404(monkeypatch):
    ann = entrant("Ann")
    play_deal(ann, 1)
    day = daily.challenge_day()
    monkeypatch.setattr(daily, "today", lambda: day.date + timedelta(days=1))
    stranger = Client()
    page = stranger.get(f"/daily/{day.date.isoformat()}/").content.decode()
    assert day.deals.get(number=2).seed in page and 'id="daily-form"' not in page
    assert "Ann" in stranger.get(f"/daily/{day.date.isoformat()}/deals/1/").content.decode()
    assert stranger.get("/daily/2001-01-01/").status_code == 404
    assert stranger.get("/daily/not-a-date/").status_code == 404
