"""The rating list and a player's page across events (issue 22), and their API and CSV: filter by
club, search, minimum games; the rating over time as an inline SVG chart; partners and 对头."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ratings.models import PlayerRating
from ratings.services import ratings_recompute
from tests.pages.helpers import draw_round, play_table
from tournaments.models import Player
from tournaments.services.entries import entry_check_in, entry_register

pytestmark = pytest.mark.django_db


def build_rated_events(make_event, referee_user, players=12):
    """Two rated events of the same ``players`` (two tables), two rounds each; half the players
    of 红星 club, half of 海风; ratings recomputed."""
    first = make_event(slug="spring-cup", name="Cup 0", players=players, rated=True)
    second = make_event(slug="autumn-cup", name="Cup 1", players=0, rated=True)
    for entry in first.entries.order_by("pk"):
        entry_check_in(entry=entry_register(event=second, player=entry.player))
    for k, event in enumerate((first, second)):
        for n in range(2):
            for table in draw_round(event).tables.all():
                play_table(table=table, referee=referee_user, seed=10 * k + n)
    for i, player in enumerate(Player.objects.order_by("pk")):
        player.club = "红星" if i % 2 else "海风"
        player.save(update_fields=["club"])
    ratings_recompute()


@pytest.fixture
def rated(make_event, referee_user):
    build_rated_events(make_event, referee_user)
    return PlayerRating.objects.order_by("-ordinal", "player_id")


def _page(rating) -> str:
    return reverse("pages:player", kwargs={"pk": rating.player_id})


def test_the_list_ranks_rated_players_best_first_and_links_their_pages(client, rated):
    page = client.get(reverse("pages:ratings"))
    assert page.status_code == 200
    html = page.content.decode()
    positions = [html.index(f'href="{_page(r)}"') for r in rated]
    assert positions == sorted(positions)
    assert len(positions) == 12


def test_the_list_filters_by_club_search_and_minimum_games(client, rated):
    club = client.get(reverse("pages:ratings"), {"club": "红星"}).content.decode()
    assert all((f'href="{_page(r)}"' in club) == (r.player.club == "红星") for r in rated)
    one = rated[3].player
    found = client.get(reverse("pages:ratings"), {"q": str(one.number)}).content.decode()
    assert f'href="{_page(rated[3])}"' in found
    assert found.count('<td class="rank">') == 1
    none = client.get(reverse("pages:ratings"), {"min_games": "50"}).content.decode()
    assert "Nobody matches these filters." in none


def test_a_player_page_shows_the_chart_events_partners_and_opposites(client, rated):
    player = rated[0].player
    page = client.get(reverse("pages:player", kwargs={"pk": player.pk})).content.decode()
    assert '<svg class="rating-chart"' in page
    assert page.count('<circle class="dot"') == 4  # one point per round: 2 events x 2 rounds
    assert "Cup 0" in page and "Cup 1" in page
    assert "Partners most often" in page and "× " in page


def test_a_player_page_in_chinese(client, rated):
    page = client.get(reverse("pages:player", kwargs={"pk": rated[0].player_id}),
                      HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'lang="zh-hans"' in page


def test_the_api_lists_ratings_and_a_players_history(client, rated):
    body = client.get(reverse("api:ratings"), {"club": "海风", "min_games": "1"}).json()
    assert [r["player"] for r in body["results"]] == [
        r.player_id for r in rated if r.player.club == "海风"]
    detail = client.get(reverse("api:player-rating", kwargs={"pk": rated[0].player_id})).json()
    assert detail["rating"]["games"] == rated[0].games
    assert len(detail["points"]) == 4
    assert detail["points"][-1]["rating"] == pytest.approx(rated[0].ordinal)
    bad = client.get(reverse("api:ratings"), {"min_games": "many"})
    assert bad.status_code == 400 and "min_games" in bad.content.decode()


def test_the_csv_has_every_rated_player(client, rated):
    text = client.get(reverse("api:ratings-csv")).content.decode("utf-8-sig")
    lines = text.strip().splitlines()
    assert lines[0].startswith("rank,name,club,number,rating")
    assert len(lines) == 1 + rated.count()


def test_ratings_beside_names_only_when_the_organizer_shows_them(client, rated):
    from tournaments.models import Event

    event = Event.objects.get(slug="autumn-cup")
    rating = rated[0]
    entry = event.entries.get(player_id=rating.player_id)
    shown = f'<small class="prating" title="rating">{round(rating.ordinal, 1)}</small>'
    for name in ("pages:leaderboard", "pages:seating"):
        assert 'class="prating"' not in client.get(reverse(name, kwargs={"slug": event.slug})
                                                   ).content.decode()
    event.show_ratings = True
    event.save(update_fields=["show_ratings"])
    from tournaments.standings import standings_recompute

    standings_recompute(event_id=event.pk)
    for name in ("pages:leaderboard", "pages:seating"):
        page = client.get(reverse(name, kwargs={"slug": event.slug})).content.decode()
        assert shown in page, name
        assert f'"{entry.pk}": {round(rating.ordinal, 1)}' in page  # for the live updates


def test_players_of_unpublished_events_are_not_shown(client, rated):
    from tournaments.models import Event

    Event.objects.update(published=False)
    player = rated[0].player_id
    assert '<td class="rank">' not in client.get(reverse("pages:ratings")).content.decode()
    assert client.get(reverse("api:ratings")).json()["count"] == 0
    assert client.get(reverse("pages:player", kwargs={"pk": player})).status_code == 404
    assert client.get(reverse("api:player-rating", kwargs={"pk": player})).status_code == 404


def test_a_nul_character_in_a_filter_is_refused_by_the_api_and_dropped_by_the_pages(client, rated):
    """PostgreSQL refuses NUL in a query (it was a server error, found by schemathesis): the API
    says which filter holds one, and changes nothing; a page's search box drops it."""
    for name in ("club", "search"):
        for path in ("/api/v1/ratings/", "/api/v1/ratings.csv"):
            answer = client.get(path, {name: "红\x00星"})
            assert answer.status_code == 400, (path, name)
            assert name in answer.json()["error"]["fields"], answer.json()
    page = client.get(reverse("pages:ratings"), {"club": "红\x00星", "q": "\x00"})
    assert page.status_code == 200 and page.context["club"] == "红星"
    event = rated[0].player.entries.first().event
    assert client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}),
                      {"q": "\x00"}).status_code == 200
