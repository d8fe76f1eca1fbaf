"""Standings over HTTP: confirmed results only, ranked, with an ETag (the standings version)
for phones and projectors that poll, searchable and paginated, and as CSV."""

from __future__ import annotations

import csv
import io

import pytest

from tests.api.helpers import client_for, error_of, seats_of, sheet
from tournaments import standings

pytestmark = pytest.mark.django_db


def standings_url(event, rest="standings/"):
    return f"/api/v1/events/{event.slug}/{rest}"


@pytest.fixture
def game_submitted(table):
    """Game 1 of table 1 submitted (联邦 0 wins 2 points), not yet confirmed."""
    seats = seats_of(table)
    r = client_for(seats[0].player.user).post(
        f"/api/v1/tables/{table.pk}/results/",
        {"number": 1, "sheet": sheet([0, 1, 2, 3, 4, 5])}, format="json")
    assert r.status_code == 201, r.content
    return r.json()["id"], seats


def confirm(game_submitted):
    result_id, seats = game_submitted
    r = client_for(seats[1].player.user).post(f"/api/v1/results/{result_id}/confirm/")
    assert r.status_code == 200, r.content


def test_standings_before_any_result_are_empty_with_an_etag(event, published_round):
    r = client_for(None).get(standings_url(event))
    assert r.status_code == 200
    assert r.json()["results"] == []
    assert r["ETag"] == f'"standings-{event.pk}-0"' and r["Cache-Control"] == "no-cache"


def test_if_none_match_with_the_current_etag_is_304(event, published_round):
    client = client_for(None)
    etag = client.get(standings_url(event))["ETag"]
    r = client.get(standings_url(event), HTTP_IF_NONE_MATCH=etag)
    assert r.status_code == 304 and r.content == b""
    assert r["ETag"] == etag
    listed = client.get(standings_url(event), HTTP_IF_NONE_MATCH=f'"other", {etag}')
    assert listed.status_code == 304


def test_a_submitted_result_does_not_change_the_standings(event, game_submitted):
    client = client_for(None)
    r = client.get(standings_url(event), HTTP_IF_NONE_MATCH=f'"standings-{event.pk}-0"')
    assert r.status_code == 304


def test_a_confirmed_result_changes_the_etag_and_the_standings(event, game_submitted):
    client = client_for(None)
    old = client.get(standings_url(event))["ETag"]
    confirm(game_submitted)
    r = client.get(standings_url(event), HTTP_IF_NONE_MATCH=old)
    assert r.status_code == 200
    assert r["ETag"] != old
    rows = r.json()["results"]
    assert [row["rank"] for row in rows] == list(range(1, 13))
    _, seats = game_submitted
    winners = {s.entry_id for s in seats if s.side == 0}
    assert {row["entry"]["id"] for row in rows[:3]} == winners
    assert all(row["points"] == 2 and row["games_played"] == 1 for row in rows[:3])
    assert all(row["points"] == 0 for row in rows[3:])
    assert client.get(standings_url(event), HTTP_IF_NONE_MATCH=r["ETag"]).status_code == 304


def test_standings_match_a_recomputation(event, game_submitted):
    confirm(game_submitted)
    rows = client_for(None).get(standings_url(event), {"page_size": 100}).json()["results"]
    expected = standings.compute(event)
    assert [(r["entry"]["id"], r["rank"], r["points"], r["game_wins"], r["head_count"],
             r["opponents_points"]) for r in rows] == [
        (e.entry_id, e.rank, e.points, e.game_wins, e.head_count, e.opponents_points)
        for e in expected]


def test_standings_search_and_page_size(event, entries, game_submitted):
    confirm(game_submitted)
    client = client_for(None)
    found = client.get(standings_url(event), {"search": "Player 04"}).json()["results"]
    assert [r["entry"]["player_id"] for r in found] == [entries[4].player_id]
    by_number = client.get(standings_url(event), {"search": "109"}).json()["results"]
    assert [r["entry"]["number"] for r in by_number] == [109]
    page = client.get(standings_url(event), {"page_size": 4}).json()
    assert page["count"] == 12 and len(page["results"]) == 4 and page["next"]


@pytest.mark.parametrize("rest", ["standings/", "standings.csv"])
def test_standings_of_an_unpublished_event_are_404(hidden_event, stranger, rest):
    error_of(client_for(None).get(standings_url(hidden_event, rest)), 404)
    error_of(client_for(stranger).get(standings_url(hidden_event, rest)), 404)


def test_standings_csv_has_a_header_and_one_line_per_entry(event, game_submitted):
    confirm(game_submitted)
    r = client_for(None).get(standings_url(event, "standings.csv"))
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    assert "attachment" in r["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["rank", "name", "points"] and "previous_rank" in rows[0]
    assert len(rows) == 1 + 12
    assert [int(row[0]) for row in rows[1:]] == list(range(1, 13))
    assert [int(row[2]) for row in rows[1:4]] == [2, 2, 2]
