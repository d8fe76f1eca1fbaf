"""The organizer's console's figures (the former dashboard, /e/<slug>/console/), the standings
release's snapshots, the knockout bracket page and the demo command's printed addresses, through
Django's test client (the console's pages: test_console.py)."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games.models import GameResult
from tests.pages.helpers import draw_round, play_table
from tournaments import standings
from tournaments.errors import ServiceError
from tournaments.models import ReleasedStanding, Round, Standing
from tournaments.services.entries import entry_check_in, entry_withdraw
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create
from tournaments.services.releases import standings_release
from tournaments.services.rounds import round_publish
from tournaments.services.teams import team_register

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(event):
    user = get_user_model().objects.create_user("pages-organizer", password="pw")
    event.organizers.add(user)
    return user


def _client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _dashboard(event):
    return reverse("pages:console-event", kwargs={"slug": event.slug})


# ----------------------------------------------------------------------------- the figures
def test_console_status_counts_entries_and_the_rounds_tables(event, organizer, referee_user):
    """14 players checked in, one withdraws; round 1: table 1 confirmed, table 2 has one game
    awaiting confirmation; two byes."""
    entry_withdraw(entry=event.entries.order_by("pk").last())
    table2 = event.rounds.get().tables.get(number=2)
    play_table(table=table2, referee=referee_user, confirm=False)
    GameResult.objects.filter(table=table2, number=2).delete()

    response = _client(organizer).get(reverse("pages:console-status",
                                              kwargs={"slug": event.slug}))

    data = response.json()
    assert data["check_in"] == {"entered": 14, "checked_in": 13, "registered": 0,
                                "withdrawn": 1, "pending_consent": 0}
    assert data["round"] == 1 and data["status"] == Round.Status.PUBLISHED
    assert data["progress"]["tables"] == 2 and data["progress"]["byes"] == 2
    assert data["progress"]["states"]["confirmed"] == 1
    assert data["progress"]["states"]["submitted"] == 1
    assert data["progress"]["missing"] == 2
    assert sorted(data["tables"].values()) == ["confirmed", "submitted"]
    page = _client(organizer).get(_dashboard(event)).content.decode()
    assert 'data-count="withdrawn">1<' in page and 'data-state="submitted">1<' in page


# ----------------------------------------------------------------------------- release switch
def _two_rounds(event, referee):
    """Round 1 fully played, round 2 drawn, published and played: live standings after 2."""
    play_table(table=event.rounds.get().tables.get(number=2), referee=referee)
    rnd = draw_round(event)
    for table in rnd.tables.all():
        play_table(table=table, referee=referee, seed=2)
    standings.standings_recompute(event_id=event.pk)
    event.refresh_from_db()


def _public_ranks(event) -> tuple[list, list, list]:
    """The leaderboard page's, the standings API's and standings.csv's (points, name) rows."""
    client = Client()
    page = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    api = client.get(reverse("api:standings", kwargs={"slug": event.slug})).json()["results"]
    csv = client.get(reverse("api:standings-csv", kwargs={"slug": event.slug}))
    csv_rows = [line.split(",") for line in csv.content.decode("utf-8-sig").splitlines()[1:]]
    return ([row["values"][0] for row in page.context["rows"]],  # points: the first column
            [r["points"] for r in api], [int(r[2]) for r in csv_rows])


def test_public_standings_stay_at_the_released_round_until_the_next_release(event,
                                                                             referee_user):
    _two_rounds(event, referee_user)
    after_1 = [(r.entry_id, r.points) for r in standings.compute(event, 1)]
    after_2 = [(r.entry_id, r.points) for r in standings.compute(event, 2)]
    assert after_1 != after_2

    standings_release(event=event, round_number=1)

    page, api, csv = _public_ranks(event)
    assert page == api == csv == [p for _, p in after_1]
    assert list(ReleasedStanding.objects.filter(event=event, through_round=1).order_by(
        "rank").values_list("entry_id", "points")) == after_1
    live = list(Standing.objects.filter(event=event).order_by("rank").values_list(
        "entry_id", "points"))
    assert live == after_2  # the organizer's view stays live

    standings_release(event=event, round_number=2)
    assert _public_ranks(event)[0] == [p for _, p in after_2]

    standings_release(event=event, round_number=None)
    assert _public_ranks(event)[1] == [p for _, p in after_2]


def test_the_standings_etag_changes_with_a_release(event):
    client = Client()
    url = reverse("api:standings", kwargs={"slug": event.slug})
    etag = client.get(url)["ETag"]

    standings_release(event=event, round_number=0)

    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response["ETag"] != etag
    assert response.json()["results"] == []


@pytest.mark.parametrize("number", [2, -1, True, "1"])
def test_releasing_a_round_that_is_not_published_is_refused(event, number):
    with pytest.raises(ServiceError) as exc:
        standings_release(event=event, round_number=number)

    assert exc.value.code == "bad_round" and "round_number" in str(exc.value.message)
    event.refresh_from_db()
    assert event.standings_released_round is None
    assert not ReleasedStanding.objects.exists()


# ----------------------------------------------------------------------------- bracket page
def _knockout_cup(referee, organizer=None):
    """A published team event of one Swiss round, played, and a two-team final to come."""
    from tests.tournaments.test_knockout import TEAM0_WINS, TEAM1_WINS, _draw, _play_round

    event = event_create(name="联邦杯", slug="ko-cup", format="team",
                                  games_per_match=2, rounds_planned=1, knockout_teams=2)
    if organizer is not None:
        event.organizers.add(organizer)
    for t in range(2):
        entry = team_register(event=event, name=f"队{t}", players=[
            player_create(name=f"选手{t}{k}", number=900 + 3 * t + k)
            for k in range(3)])
        entry_check_in(entry=entry)
    event_publish(event=event)
    _play_round(round_publish(round=_draw(event)), referee,
                lambda t: [TEAM0_WINS, TEAM1_WINS])
    return event


def test_bracket_page_shows_the_knockout_matches(referee_user):
    from tests.tournaments.test_knockout import TEAM0_WINS, _draw, _play_round

    event = _knockout_cup(referee_user)
    url = reverse("pages:bracket", kwargs={"slug": event.slug})
    assert "Knockout finals" in Client().get(reverse(
        "pages:event", kwargs={"slug": event.slug})).content.decode()
    assert b"not drawn yet" in Client().get(url).content
    ko = round_publish(round=_draw(event, knockout=True))
    _play_round(ko, referee_user, lambda t: [TEAM0_WINS, TEAM0_WINS])

    response = Client().get(url)

    text = response.content.decode()
    assert response.status_code == 200
    table = ko.tables.get()
    assert table.team_a.name in text and table.team_b.name in text
    assert f"{table.team_a.name} wins the final" in text


def test_console_opens_the_knockout_finals_after_the_swiss_rounds(referee_user,
                                                                    django_capture_on_commit_callbacks):
    user = get_user_model().objects.create_user("ko-organizer")
    event = _knockout_cup(referee_user, organizer=user)
    client = _client(user)
    assert "Open and draw the next knockout round" in client.get(
        _dashboard(event)).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("pages:console-action",
                            kwargs={"slug": event.slug, "action": "open"}), {"knockout": "1"})

    assert event.rounds.get(number=2).stage == Round.Stage.KNOCKOUT


def test_console_offers_no_round_after_the_last_planned_one(make_event, referee_user):
    event = make_event(slug="short", rounds_planned=1)
    user = get_user_model().objects.create_user("short-organizer")
    event.organizers.add(user)
    for table in draw_round(event).tables.all():
        play_table(table=table, referee=referee_user)

    page = _client(user).get(_dashboard(event)).content.decode()

    assert "Every planned round is open." in page
    assert "/console/do/open/" not in page


def test_bracket_page_is_404_without_knockout_finals(event):
    assert Client().get(reverse("pages:bracket",
                                kwargs={"slug": event.slug})).status_code == 404


# ----------------------------------------------------------------------------- make demo
@pytest.mark.django_db(transaction=True)
def test_demo_prints_addresses_that_answer():
    """Every address `make demo` prints answers 200 (the console, the desk and the admin once
    signed in with the printed login; the referee's login opens the desk too), and the hint to
    verify the draws runs outside the virtualenv."""
    out = StringIO()
    call_command("demo_event", players=14, rounds=2, games=1, stdout=out)
    text = out.getvalue()

    addresses = re.findall(r"http://127\.0\.0\.1:8000(/\S*)", text)
    # seven pages, the referee desk, the practice page, one player's private link
    assert len(addresses) == 10
    assert "make serve" in text
    login = re.search(r"sign in to the console and the admin as (\S+) / ([^\s,]+)", text)
    client = Client()
    signed_in = client.post(reverse("admin:login"), {"username": login[1],
                                                     "password": login[2]})
    assert signed_in.status_code == 302
    for path in addresses:
        assert client.get(path).status_code == 200, path
    referee = re.search(r"to the referee desk as (\S+) / (\S+)$", text, re.M)
    desk = next(path for path in addresses if path.endswith("/desk/"))
    as_referee = Client()
    assert as_referee.post(reverse("pages:login"), {"username": referee[1],
                                                    "password": referee[2]}).status_code == 302
    assert as_referee.get(desk).status_code == 200
    assert re.search(r"^  \.venv/bin/python manage\.py verify_draw demo-\S+$", text, re.M)


# ----------------------------------------------------------------------------- what the public reads
def test_a_released_board_does_not_say_live(event, referee_user):
    _two_rounds(event, referee_user)
    url = reverse("pages:leaderboard", kwargs={"slug": event.slug})
    assert 'id="live-state"' in Client().get(url).content.decode()

    standings_release(event=event, round_number=1)

    page = Client().get(url).content.decode()
    assert 'id="live-state"' not in page and ">live<" not in page
    assert "released after round 1" in page
    zh = Client().get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "已公布：第 1 轮后" in zh and "实时" not in zh.split('id="through"')[1][:80]


def test_hidden_standings_say_not_released(event):
    standings_release(event=event, round_number=0)

    page = Client().get(reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    text = page.content.decode().split('id="js-text"')[0]  # the page, not its scripts' texts
    assert text.count("The standings are not released yet.") == 2  # the head and the table
    assert "No confirmed results yet." not in text


def test_results_pages_follow_the_release(event, referee_user):
    """Held back at round 1: round 2's results page lists its tables without results, the
    leaderboard links round 1's only, and a player's page hides round 2's games."""
    _two_rounds(event, referee_user)
    standings_release(event=event, round_number=1)
    seat = event.rounds.get(number=2).tables.get(number=1).seats.get(seat=0)
    client = Client()

    held = client.get(reverse("pages:round-results", kwargs={"slug": event.slug, "number": 2}))
    assert held.context["held_back"] and 'id="results-held-back"' in held.content.decode()
    assert all(t["games"] == [] for t in held.context["tables"])
    shown = client.get(reverse("pages:round-results", kwargs={"slug": event.slug, "number": 1}))
    assert not shown.context["held_back"] and any(t["games"] for t in shown.context["tables"])
    board = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    assert board.context["rounds"] == [1]
    history = client.get(reverse("pages:player-history", kwargs={
        "slug": event.slug, "player": seat.player_id}))
    rows = {r["round"]: r for r in history.context["rows"]}
    assert rows[2]["held_back"] and rows[2]["games"] == []
    assert not rows.get(1, {"held_back": False})["held_back"]

    standings_release(event=event, round_number=2)
    again = client.get(reverse("pages:round-results", kwargs={"slug": event.slug, "number": 2}))
    assert not again.context["held_back"]
