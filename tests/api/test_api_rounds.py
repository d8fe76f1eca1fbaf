"""Rounds over HTTP: the commitment before the draw, the seed after it (verifiable draws), the
draw on a worker (202 + poll), publishing the seating, tables, "find my table" and the
seating CSV. Seating is hidden from everyone but the event's staff until it is published."""

from __future__ import annotations

import csv
import io

import pytest

from tests.api.helpers import client_for, error_of, seats_of
from tournaments import draw as draw_module
from tournaments.models import Round, Table
from tournaments.services.draws import round_draw, round_verify
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.players import player_create
from tournaments.services.rounds import round_create, round_publish

pytestmark = pytest.mark.django_db


def rounds_url(event, rest=""):
    return f"/api/v1/events/{event.slug}/rounds/{rest}"


# ----------------------------------------------------------------------------- commitment & seed
def test_seed_is_hidden_before_the_draw_and_revealed_after(anon, organizer, event, entries):
    # given a round whose commitment is published but which is not drawn yet
    rnd = round_create(event=event)
    # when the public looks at it
    before = anon.get(rounds_url(event, "1/")).json()
    # then it sees the commitment and the entries in the draw, not the seed
    assert before["status"] == "committed" and before["seed"] is None
    assert len(before["commitment"]) == 64 and before["tables"] == 0
    assert before["draw_entries"] == [e.pk for e in entries]
    assert anon.get(rounds_url(event)).json()[0]["seed"] is None
    # when it is drawn, the organizers see the seed; the public only once the seating is
    # published (the seed would give the seating away)
    round_draw(round_id=rnd.pk)
    assert anon.get(rounds_url(event, "1/")).json()["seed"] is None
    assert client_for(organizer).get(rounds_url(event, "1/")).json()["seed"] == rnd.seed
    round_publish(round=rnd)
    after = anon.get(rounds_url(event, "1/")).json()
    # then the seed is public and matches the commitment published before
    assert after["status"] == "published" and after["seed"] == rnd.seed
    assert after["commitment"] == before["commitment"] == draw_module.commitment(
        after["seed"], after["draw_entries"], 1, event.pk)
    assert after["tables"] == 2 and after["byes"] == []


def test_rounds_of_an_unpublished_event_are_404_for_the_public(anon, stranger, hidden_event):
    for client in (anon, client_for(stranger)):
        error_of(client.get(rounds_url(hidden_event)), 404)
        error_of(client.get(rounds_url(hidden_event, "1/")), 404)


def test_unknown_round_is_404(anon, event):
    error_of(anon.get(rounds_url(event, "7/")), 404)


# ----------------------------------------------------------------------------- draw
def test_organizer_draws_a_round_on_a_worker_and_polls_until_drawn(organizer, event, entries):
    client = client_for(organizer)
    r = client.post(rounds_url(event))
    assert r.status_code == 202, r.content
    body = r.json()
    assert body["round"]["number"] == 1 and len(body["round"]["commitment"]) == 64
    assert body["task"].endswith(rounds_url(event, "1/"))
    status = None
    for _ in range(20):
        polled = client.get(body["task"]).json()
        status = polled["status"]
        if status == "drawn":
            break
    assert status == "drawn"
    assert polled["seed"] and polled["tables"] == 2
    assert polled["commitment"] == body["round"]["commitment"]
    assert round_verify(round=Round.objects.get(event=event, number=1)) == []


@pytest.mark.parametrize("who", ["referee_user", "other_referee", "stranger", "player"])
def test_only_organizers_draw(user_of, who, event, entries):
    error_of(client_for(user_of(who)).post(rounds_url(event)), 403)
    assert not Round.objects.filter(event=event).exists()


def test_anonymous_cannot_draw(anon, event, entries):
    error_of(anon.post(rounds_url(event)), 401)
    assert not Round.objects.exists()


def test_a_draw_needs_six_checked_in_entries(organizer, event):
    err = error_of(client_for(organizer).post(rounds_url(event)), 400)
    assert err["code"] == "too_few_entries"
    assert not Round.objects.exists()


def test_next_round_waits_for_the_confirmed_results(organizer, published_round):
    err = error_of(client_for(organizer).post(rounds_url(published_round.event)), 400)
    assert err["code"] == "previous_unfinished"
    assert Round.objects.filter(event=published_round.event).count() == 1


# ----------------------------------------------------------------------------- publish
def test_organizer_publishes_the_seating(organizer, anon, drawn_round):
    event = drawn_round.event
    error_of(anon.get(rounds_url(event, "1/tables/")), 404)
    r = client_for(organizer).post(rounds_url(event, "1/publish/"))
    assert r.status_code == 200 and r.json()["status"] == "published"
    assert r.json()["published_at"]
    assert anon.get(rounds_url(event, "1/tables/")).status_code == 200


@pytest.mark.parametrize("who", ["referee_user", "other_referee", "stranger", "player"])
def test_only_organizers_publish_the_seating(user_of, who, drawn_round):
    error_of(client_for(user_of(who)).post(rounds_url(drawn_round.event, "1/publish/")), 403)
    drawn_round.refresh_from_db()
    assert drawn_round.status == Round.Status.DRAWN


def test_an_undrawn_round_cannot_be_published(organizer, event, entries):
    round_create(event=event)
    err = error_of(client_for(organizer).post(rounds_url(event, "1/publish/")), 400)
    assert err["code"] == "not_drawn"


# ----------------------------------------------------------------------------- tables & seating
@pytest.mark.parametrize("who", ["anon", "stranger", "other_referee", "player"])
def test_unpublished_seating_is_404_for_all_but_staff(user_of, who, drawn_round):
    client = client_for(user_of(who))
    event = drawn_round.event
    table = drawn_round.tables.get(number=1)
    assert error_of(client.get(rounds_url(event, "1/tables/")), 404)["code"] == "not_found"
    error_of(client.get(rounds_url(event, "1/seating.csv")), 404)
    error_of(client.get(f"/api/v1/tables/{table.pk}/"), 404)
    error_of(client.get(f"/api/v1/tables/{table.pk}/results/"), 404)


@pytest.mark.parametrize("who", ["organizer", "referee_user"])
def test_staff_see_the_seating_before_it_is_published(request, who, drawn_round):
    client = client_for(request.getfixturevalue(who))
    tables = client.get(rounds_url(drawn_round.event, "1/tables/"))
    assert tables.status_code == 200 and tables.json()["count"] == 2
    assert client.get(rounds_url(drawn_round.event, "1/seating.csv")).status_code == 200


def test_published_tables_show_six_seats_with_their_side(anon, published_round):
    body = anon.get(rounds_url(published_round.event, "1/tables/")).json()
    assert body["count"] == 2
    seen = set()
    for t in body["results"]:
        assert t["round"] == 1 and [s["seat"] for s in t["seats"]] == list(range(6))
        assert [s["side"] for s in t["seats"]] == [0, 1, 0, 1, 0, 1]
        assert t["results"] == []
        seen.update(s["player"]["id"] for s in t["seats"])
    assert len(seen) == 12


def test_table_detail(anon, table):
    r = anon.get(f"/api/v1/tables/{table.pk}/")
    assert r.status_code == 200
    assert r.json()["number"] == 1 and len(r.json()["seats"]) == 6


def test_unknown_table_is_404(anon, published_round):
    error_of(anon.get("/api/v1/tables/999999/"), 404)


def test_tables_of_an_unpublished_event_are_404(anon, organizer, hidden_event):
    for i in range(6):
        entry = entry_register(
            event=hidden_event, player=player_create(name=f"H{i}"))
        entry_check_in(entry=entry)
    rnd = round_draw(round_id=round_create(event=hidden_event).pk)
    round_publish(round=rnd)
    table = rnd.tables.get()
    error_of(anon.get(f"/api/v1/tables/{table.pk}/"), 404)
    error_of(anon.get(rounds_url(hidden_event, "1/tables/")), 404)
    assert client_for(organizer).get(f"/api/v1/tables/{table.pk}/").status_code == 200


# ----------------------------------------------------------------------------- find my table
def test_find_my_table_by_name(anon, published_round):
    seat = seats_of(published_round.tables.get(number=2))[3]
    r = anon.get(rounds_url(published_round.event, "1/tables/"), {"player": seat.player.name})
    assert r.status_code == 200
    found = r.json()["results"]
    assert [t["number"] for t in found] == [2]
    assert found[0]["seats"][3]["player"]["name"] == seat.player.name


def test_find_my_table_by_number(anon, published_round):
    seat = seats_of(published_round.tables.get(number=1))[4]
    r = anon.get(rounds_url(published_round.event, "1/tables/"),
                 {"player": str(seat.player.number)})
    assert [t["number"] for t in r.json()["results"]] == [1]


def test_find_my_table_with_no_match(anon, published_round):
    r = anon.get(rounds_url(published_round.event, "1/tables/"), {"player": "nobody here"})
    assert r.status_code == 200 and r.json()["results"] == []


# ----------------------------------------------------------------------------- seating CSV
def test_seating_csv_has_a_header_and_one_line_per_seat(anon, published_round):
    r = anon.get(rounds_url(published_round.event, "1/seating.csv"))
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    assert "attachment" in r["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0] == ["table", "seat", "side", "player", "number"]
    assert len(rows) == 1 + 12
    stored = {(str(s.table.number), str(s.seat), s.player.name)
              for t in Table.objects.filter(round=published_round) for s in seats_of(t)}
    assert {(r[0], r[1], r[3]) for r in rows[1:]} == stored
    assert all(int(r[2]) == int(r[1]) % 2 for r in rows[1:])
