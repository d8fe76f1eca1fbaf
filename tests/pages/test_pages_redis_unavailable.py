"""Redis down (issue 51, item 3): the pages answer without it — the public pages, signing in,
a player's private link and its result form — and a request that truly needs it (the
console's "open the next round", whose draw runs on a worker) gets a readable 503 page with
``Retry-After`` and changes nothing. The cache, the broker and pub/sub all name a port where
Redis is not (``redis_down``, tests/conftest.py); before config/outage.py each of these pages
answered 500."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from config import outage
from games.models import GameResult
from tests.pages.helpers import draw_round
from tournaments.models import Round, Seat
from tournaments.services.links import entry_link_issue

pytestmark = pytest.mark.django_db

FIRST = {"number": "1", **{f"place_{i}": str(s) for i, s in enumerate((0, 2, 4, 1, 3, 5))},
         "leader": "0", **{f"kaidian_{s}": "yes" for s in range(6)}}


@pytest.fixture
def table(make_event):
    return draw_round(make_event(slug="redis-down")).tables.get(number=1)


@pytest.fixture
def links(table):
    seats = Seat.objects.filter(table=table).select_related("entry").order_by("seat")
    return [f"/p/{entry_link_issue(entry=s.entry)[0].token()}/" for s in seats]


def test_the_public_pages_answer(redis_down, table):
    """Among them a player's history, whose rank chart is kept in the cache."""
    event = table.round.event
    player = Seat.objects.filter(table=table).first().player
    client = Client()
    for url in ("/", f"/e/{event.slug}/", f"/e/{event.slug}/leaderboard/",
                f"/e/{event.slug}/seating/", f"/e/{event.slug}/rounds/1/tables/1/",
                f"/e/{event.slug}/rounds/1/results/", f"/e/{event.slug}/players/{player.pk}/"):
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code)


def test_signing_in_on_the_page_works(redis_down, links, table):
    user = Seat.objects.filter(table=table).order_by("seat").first().player.user  # (its link's)
    user.set_password("a-long-password-1")
    user.save()
    client = Client()
    assert client.get("/accounts/login/").status_code == 200
    r = client.post("/accounts/login/", {"username": user.username,
                                         "password": "a-long-password-1"})
    assert r.status_code == 302 and r["Location"] == "/me/"
    assert client.get("/me/").status_code == 200


def test_a_private_link_opens_and_its_result_form_stores_the_result(redis_down, links, table):
    client = Client()
    r = client.get(links[0])
    assert r.status_code == 200 and 'id="sheet"' in r.content.decode()
    r = client.post(links[0] + "submit/", FIRST)
    assert r.status_code == 302 and r["Location"] == links[0] + "#game-1"
    assert GameResult.objects.get(table=table, number=1).status == "submitted"
    assert "Waiting for your confirmation" in client.get(links[1]).content.decode()


def test_the_consoles_open_round_is_a_readable_503_that_changes_nothing(redis_down,
                                                                       make_event):
    event = make_event(slug="redis-down-open")
    organizer = get_user_model().objects.create_user("redis-down-organizer", password="pw")
    event.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    r = client.post(reverse("pages:console-action",
                            kwargs={"slug": event.slug, "action": "open"}))
    assert r.status_code == 503 and r["Retry-After"] == str(outage.RETRY_SECONDS)
    page = r.content.decode()
    assert "<h1>Unavailable for a moment</h1>" in page and "Nothing was changed" in page
    assert reverse("pages:console-event", kwargs={"slug": event.slug}) in page
    assert not Round.objects.filter(event=event).exists()


def test_a_redis_failure_that_escapes_is_a_503_page_not_a_500():
    """What degrades nowhere else (a use of Redis not known here) is still not a 500: the
    pages' 500 handler answers a Redis failure with the 503 page, the API's with its JSON."""
    import redis
    from django.test import RequestFactory

    from config import urls

    for path, kind in (("/", "text/html"), ("/api/v1/events/", "application/json")):
        try:
            raise redis.ConnectionError("Error 111 connecting to 10.0.0.5:6379. Refused.")
        except redis.ConnectionError:
            r = urls.handler500(RequestFactory().get(path))
        assert r.status_code == 503 and r["Retry-After"] == str(outage.RETRY_SECONDS), path
        assert r["Content-Type"].startswith(kind) and b"6379" not in r.content
    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        assert urls.handler500(RequestFactory().get("/")).status_code == 500
