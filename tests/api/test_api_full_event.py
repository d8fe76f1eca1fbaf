"""A whole event driven only through the HTTP API, as its people would: the organizer creates
and publishes it, players register and check themselves in, rounds are drawn on a worker and
published, every table's players submit real results (full records at some tables, result
sheets at others), the other 联邦 confirms, and the standings follow."""

from __future__ import annotations

import csv
import io
import random

import pytest

from engine.bots import play_match
from engine.sheet import sheet_of
from tests.api.helpers import client_for
from tests.factories import UserFactory
from tournaments import standings
from tournaments.models import Event, Round

pytestmark = pytest.mark.django_db

API = "/api/v1"
PLAYERS = 14  # two tables of six and two byes (轮空) a round
GAMES = 2


def ok(response, status=200) -> dict | list:
    assert response.status_code == status, (response.status_code, response.content[:500])
    return response.json() if response.content else {}


def draw(organizer, slug: str) -> dict:
    """Open the next round (202) and poll its task URL until the worker has drawn it."""
    started = ok(organizer.post(f"{API}/events/{slug}/rounds/"), 202)
    assert len(started["round"]["commitment"]) == 64
    for _ in range(50):
        polled = ok(organizer.get(started["task"]))
        if polled["status"] == "drawn":
            assert polled["commitment"] == started["round"]["commitment"]
            assert polled["seed"]
            return polled
    pytest.fail(f"round {started['round']['number']} was not drawn: {polled['status']}")


def play_round(slug: str, number: int, people: dict, rng: random.Random) -> list[dict]:
    """Every table of round ``number``: its players find their table, one submits each game,
    a player of the other 联邦 confirms. Returns the confirmed results."""
    anon = client_for(None)
    tables: dict[int, dict] = {}
    for person in people.values():
        found = ok(anon.get(f"{API}/events/{slug}/rounds/{number}/tables/",
                            {"player": str(person["number"])}))["results"]
        mine = [t for t in found if any(s["player"]["id"] == person["player_id"]
                                        for s in t["seats"])]
        if not mine:
            continue  # a bye this round
        (table,) = mine
        seat = next(s["seat"] for s in table["seats"] if s["player"]["id"] == person["player_id"])
        tables.setdefault(table["id"], {"number": table["number"], "seats": {}})["seats"][
            seat] = person
    confirmed = []
    for table_id, table in sorted(tables.items()):
        assert sorted(table["seats"]) == list(range(6))
        # the submitter's 联邦 alternates between tables; a player of the other side confirms
        submit_seat = table["number"] % 2
        submitter = table["seats"][submit_seat]["client"]
        confirmer = table["seats"][(submit_seat + 3) % 6]["client"]
        for game, played in enumerate(play_match("dagang", GAMES, rng), start=1):
            record, result = played.record(), played.result()
            if table["number"] % 2:
                body = {"number": game, "record": record}
            else:
                body = {"number": game, "sheet": sheet_of(result, record["leader"])}
            stored = ok(submitter.post(f"{API}/tables/{table_id}/results/", body, format="json",
                                       HTTP_IDEMPOTENCY_KEY=f"r{number}t{table_id}g{game}"), 201)
            assert [stored["points_a"], stored["points_b"]] == result["team_points"]
            assert stored["places"] == result["places"] and stored["status"] == "submitted"
            done = ok(confirmer.post(f"{API}/results/{stored['id']}/confirm/"))
            assert done["status"] == "confirmed"
            confirmed.append({**done, "seats": {s: p["entry_id"]
                                                for s, p in table["seats"].items()}})
    assert len(confirmed) == len(tables) * GAMES
    return confirmed


def test_a_full_event_through_the_api():
    rng = random.Random(2024)
    anon = client_for(None)

    # the organizer creates the event and publishes it
    organizer = client_for(UserFactory(username="organizer", is_staff=True))
    ok(organizer.post(f"{API}/events/", {"name": "青岛够级公开赛", "slug": "qd-open",
                                         "rounds_planned": 2, "games_per_match": GAMES,
                                         "bye_points": 2}, format="json"), 201)
    error_body = anon.get(f"{API}/events/qd-open/")
    assert error_body.status_code == 404  # not public yet
    assert ok(organizer.post(f"{API}/events/qd-open/publish/"))["published"] is True

    # players create their profiles, register themselves and check in
    people: dict[int, dict] = {}
    for i in range(PLAYERS):
        client = client_for(UserFactory(username=f"p{i:02d}"))
        me = ok(client.post(f"{API}/players/me/", {"name": f"选手{i:02d}", "number": 500 + i},
                            format="json"), 201)
        entry = ok(client.post(f"{API}/events/qd-open/entries/", {}, format="json"), 201)
        assert entry["player"]["id"] == me["id"] and entry["status"] == "registered"
        checked = ok(client.post(f"{API}/events/qd-open/entries/{entry['id']}/check-in/"))
        assert checked["status"] == "checked_in"
        people[entry["id"]] = {"client": client, "player_id": me["id"], "number": 500 + i,
                               "entry_id": entry["id"]}
    assert ok(anon.get(f"{API}/events/qd-open/entries/", {"status": "checked_in"}))[
        "count"] == PLAYERS

    # round 1: drawn on a worker, seating published, two tables and two byes
    round1 = draw(organizer, "qd-open")
    assert round1["number"] == 1 and round1["tables"] == 2 and len(round1["byes"]) == 2
    ok(organizer.post(f"{API}/events/qd-open/rounds/1/publish/"))
    etag_before = anon.get(f"{API}/events/qd-open/standings/")["ETag"]
    results = play_round("qd-open", 1, people, rng)

    # the standings come back ranked and match a recomputation
    response = anon.get(f"{API}/events/qd-open/standings/", {"page_size": 100})
    rows = ok(response)["results"]
    assert response["ETag"] != etag_before
    assert [r["rank"] for r in rows] == list(range(1, PLAYERS + 1))
    event = Event.objects.get(slug="qd-open")
    expected = standings.compute(event)
    assert [(r["entry"]["id"], r["rank"], r["points"], r["game_wins"], r["head_count"],
             r["opponents_points"], r["games_played"], r["byes"]) for r in rows] == [
        (e.entry_id, e.rank, e.points, e.game_wins, e.head_count, e.opponents_points,
         e.games_played, e.byes) for e in expected]
    # and each player's points are their 联邦's game points (or the bye score)
    points = dict.fromkeys(people, 0)
    for result in results:
        for seat, entry_id in result["seats"].items():
            points[entry_id] += (result["points_a"], result["points_b"])[seat % 2]
    for entry_id in round1["byes"]:
        points[entry_id] += 2
    assert {r["entry"]["id"]: r["points"] for r in rows} == points
    assert all(rows[i]["points"] >= rows[i + 1]["points"] for i in range(len(rows) - 1))
    assert anon.get(f"{API}/events/qd-open/standings/",
                    HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304

    # round 2 is drawn after every result is confirmed; the byes rotate
    round2 = draw(organizer, "qd-open")
    assert round2["number"] == 2 and round2["tables"] == 2
    assert not set(round2["byes"]) & set(round1["byes"])
    assert round2["draw_entries"] == round1["draw_entries"]
    from tournaments.services.draws import round_verify

    assert round_verify(round=Round.objects.get(event=event, number=2)) == []
    ok(organizer.post(f"{API}/events/qd-open/rounds/2/publish/"))
    play_round("qd-open", 2, people, rng)
    rows = ok(anon.get(f"{API}/events/qd-open/standings/", {"page_size": 100}))["results"]
    assert all(r["through_round"] == 2 for r in rows)
    assert all(r["games_played"] == GAMES and r["byes"] == 1 for r in rows
               if r["entry"]["id"] in set(round1["byes"]) | set(round2["byes"]))
    assert [r["entry"]["id"] for r in rows] == [e.entry_id for e in standings.compute(event)]

    # the standings are downloadable as CSV, in the same order
    csv_response = anon.get(f"{API}/events/qd-open/standings.csv")
    assert csv_response.status_code == 200
    assert csv_response["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(csv_response.content.decode("utf-8-sig"))))
    assert lines[0][0] == "rank" and len(lines) == 1 + PLAYERS
    assert [line[1] for line in lines[1:]] == [r["entry"]["name"] for r in rows]
    assert [int(line[2]) for line in lines[1:]] == [r["points"] for r in rows]
