"""Find my table from the published seating's index (web/seating_index.py, issue 54): the
shards every phone asks for, the tables' status, the kept table page; a released change shows
on the next request; nothing private is ever kept or shared."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.pages.helpers import draw_round, play_table
from tournaments import services
from tournaments.models import Round, Seat
from web import caching
from web.caching import PUBLIC
from web.seating_index import bucket, buckets_for, find_key, seating_index

pytestmark = pytest.mark.django_db


def _shard(client, event, number: int, text: str):
    rnd = Round.objects.get(event=event, number=number)
    of = seating_index(rnd).buckets
    url = reverse("pages:round-find", kwargs={"slug": event.slug, "number": number})
    return client.get(url, {"k": bucket(find_key(text), of), "of": of})


def test_find_key_and_bucket_are_the_scripts_arithmetic():
    # (the same vectors as web/static/web/js/seating.js computes: tests/pages/test_browser.py)
    assert find_key(" Zhang  Wei ") == "zhang wei"
    assert find_key("0012") == "12" and find_key("1234567890") == "1234567890"
    assert [bucket(k, 37) for k in ("张伟", "zhang wei", "12", "1024")] == [17, 24, 15, 35]
    assert buckets_for(6) == 1 and buckets_for(10_002) == 209


def test_a_shard_finds_a_player_by_name_and_number_and_a_table_by_number(event):
    seat = Seat.objects.filter(round__event=event, table__number=2).select_related(
        "player").order_by("seat").first()
    client = Client()
    for text in (seat.player.name, str(seat.player.number), "2"):
        response = _shard(client, event, 1, text)
        assert response.status_code == 200
        assert response["Cache-Control"] == PUBLIC and not response.cookies
        data = response.json()
        assert data["keys"][find_key(text)] == [2], text
        team_a, team_b, seats = data["tables"]["2"]
        assert (team_a, team_b) == (None, None)
        assert [seat.seat, seat.player.name, seat.player.number, seat.entry_id] in seats


def test_a_shard_shows_only_published_seating(event, make_event, referee_user):
    client = Client()
    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    unpublished = draw_round(event, publish=False)
    url = reverse("pages:round-find", kwargs={"slug": event.slug, "number": unpublished.number})
    assert client.get(url, {"k": 0, "of": 1}).status_code == 404
    hidden = make_event(slug="hidden", published=False)
    draw_round(hidden)
    assert client.get(reverse("pages:round-find", kwargs={"slug": "hidden", "number": 1}),
                      {"k": 0, "of": 1}).status_code == 404
    for bad in ({"k": 1, "of": 1}, {"k": -1, "of": 2}, {"k": "x", "of": 2}, {"of": 5000}):
        assert client.get(reverse("pages:round-find", kwargs={
            "slug": event.slug, "number": 1}), bad).status_code == 404, bad


def test_a_published_round_is_found_at_once(event, referee_user):
    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    rnd = draw_round(event, publish=False)
    seat = Seat.objects.filter(round=rnd).select_related("player", "table").first()
    client = Client()
    seating = reverse("pages:seating", kwargs={"slug": event.slug})
    assert client.get(seating, {"q": seat.player.name}).context["round"].number == 1
    # a swap before publication: the index built after it sees it
    other = Seat.objects.filter(round=rnd).exclude(table=seat.table).first()
    services.round_seats_swap(
        round=rnd, by=referee_user, reason="eyesight",
        seat_a=services.SeatRef(seat.table.number, seat.seat, seat.player_id),
        seat_b=services.SeatRef(other.table.number, other.seat, other.player_id))

    services.round_publish(round=rnd)

    response = client.get(seating, {"q": seat.player.name})
    assert response["X-Page-Cache"] == "miss" and response.context["round"].number == 2
    assert [t["number"] for t in response.context["found"]] == [other.table.number]
    shard = _shard(client, event, 2, seat.player.name).json()
    assert shard["keys"][find_key(seat.player.name)] == [other.table.number]


def test_the_index_is_keyed_by_the_seating_version(event, referee_user):
    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    rnd = draw_round(event, publish=False)
    before = seating_index(rnd)
    seat, other = (Seat.objects.filter(round=rnd, table__number=n).select_related("player")
                   .first() for n in (1, 2))
    services.round_seats_swap(
        round=rnd, by=referee_user, reason="late",
        seat_a=services.SeatRef(1, seat.seat, seat.player_id),
        seat_b=services.SeatRef(2, other.seat, other.player_id))
    rnd.refresh_from_db()

    after = seating_index(rnd)

    assert after.version != before.version
    assert after.table_numbers(seat.player.name) == [2] != before.table_numbers(
        seat.player.name)


def test_the_tables_status_shows_a_submission_on_the_next_request(event, referee_user):
    client = Client()
    url = reverse("pages:round-status", kwargs={"slug": event.slug, "number": 1})
    first = client.get(url)
    assert first["Cache-Control"] == PUBLIC and first.json()["tables"] == {
        "1": [2, 2, None], "2": [0, 0, None]}

    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user,
               confirm=False)

    assert client.get(url).json()["tables"]["2"] == [0, 2, None]


def test_the_kept_table_page_shows_a_result_on_the_next_request(event, referee_user):
    client = Client()
    table = event.rounds.get(number=1).tables.get(number=2)
    url = reverse("pages:table", kwargs={"slug": event.slug, "number": 1, "table": 2})
    first = client.get(url)
    assert first["X-Page-Cache"] == "miss" and first["Cache-Control"] == PUBLIC
    assert client.get(url)["X-Page-Cache"] == "hit"

    play_table(table=table, referee=referee_user, confirm=False)
    submitted = client.get(url)
    assert submitted["X-Page-Cache"] == "miss" and submitted.content != first.content
    result = table.results.order_by("number").first()
    services_confirm(result, referee_user)

    confirmed = client.get(url)
    assert confirmed["X-Page-Cache"] == "miss" and confirmed.content != submitted.content
    assert client.get(reverse("pages:table", kwargs={
        "slug": event.slug, "number": 1, "table": 9})).status_code == 404


def services_confirm(result, referee):
    from games import services as games

    games.result_confirm(result=result, by=referee, as_referee=True)


class _Recorder:
    """The cache, recording the keys stored in it."""

    def __init__(self, real):
        self.real, self.stored = real, []

    def get(self, key, default=None):
        return self.real.get(key, default)

    def set(self, key, value, timeout=None):
        self.stored.append(key)
        return self.real.set(key, value, timeout)


@pytest.fixture
def recorder(monkeypatch):
    spy = _Recorder(caching.cache)
    monkeypatch.setattr(caching, "cache", spy)
    return spy


def test_private_pages_are_never_kept_nor_served_the_kept_copy(event, referee_user,
                                                               recorder):
    seat = Seat.objects.filter(round__event=event, table__number=2).first()
    (link,) = services.entry_link_issue(entry=seat.entry)
    table = reverse("pages:table", kwargs={"slug": event.slug, "number": 1, "table": 2})
    anonymous = Client()
    assert anonymous.get(table)["X-Page-Cache"] == "miss"
    assert len(recorder.stored) == 1

    own = anonymous.get(f"/p/{link.token()}/")  # a player's own table page
    assert own.status_code == 200
    assert own["Cache-Control"] == "private, no-store" and "X-Page-Cache" not in own
    event.organizers.add(referee_user)
    signed_in = Client()
    signed_in.force_login(referee_user)
    for url in [reverse("pages:desk", kwargs={"slug": event.slug}),
                reverse("pages:console-event", kwargs={"slug": event.slug}), table,
                reverse("pages:seating", kwargs={"slug": event.slug}) + "?q=2",
                reverse("pages:round-find", kwargs={"slug": event.slug, "number": 1})
                + "?k=0&of=1"]:
        response = signed_in.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"] and "public" not in response[
            "Cache-Control"], url
        assert "X-Page-Cache" not in response, url  # neither kept nor the kept copy

    assert len(recorder.stored) == 1  # only the anonymous table page's copy
