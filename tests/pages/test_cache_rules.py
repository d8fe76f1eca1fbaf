"""Who may keep a copy of a page (web/caching.py, issue 54): public pages set no cookie and no
``Vary: Cookie`` and are ``public`` for a few seconds; anything personal is ``private,
no-store``; the standings' polls answer 304 until what the public sees changes; rendered pages
are kept, keyed by what they show, so a released change shows at once."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.pages.helpers import play_table
from tournaments.models import Seat
from tournaments.services.links import entry_link_issue
from tournaments.services.releases import standings_release
from tournaments.standings import standings_recompute
from web.caching import PUBLIC, PUBLIC_PAGES

pytestmark = pytest.mark.django_db


def public_urls(event) -> list[str]:
    slug = event.slug
    return [
        reverse("pages:events"), reverse("pages:ratings"),
        reverse("pages:event", kwargs={"slug": slug}),
        reverse("pages:leaderboard", kwargs={"slug": slug}),
        reverse("pages:leaderboard", kwargs={"slug": slug}) + "?q=%E5%BC%A0&page=1",
        reverse("pages:seating", kwargs={"slug": slug}),
        reverse("pages:seating", kwargs={"slug": slug}) + "?q=%E5%BC%A0",
        reverse("pages:round-seating", kwargs={"slug": slug, "number": 1}),
        reverse("pages:table", kwargs={"slug": slug, "number": 1, "table": 1}),
        reverse("pages:round-results", kwargs={"slug": slug, "number": 1}),
        reverse("pages:projector", kwargs={"slug": slug}),
    ]


def _vary(response) -> list[str]:
    return [v.strip().lower() for v in response.get("Vary", "").split(",") if v.strip()]


def test_a_public_page_sets_no_cookie_and_may_be_kept_a_few_seconds(event):
    client = Client()
    for url in public_urls(event):
        for language in ("en", "zh-hans"):
            response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
            assert response.status_code == 200, url
            assert not response.cookies, (url, list(response.cookies))  # no csrftoken
            assert "cookie" not in _vary(response), (url, response["Vary"])
            assert "accept-language" in _vary(response), url
            assert response["Cache-Control"] == PUBLIC == "public, max-age=0, s-maxage=5"
            assert PUBLIC_PAGES.match(url.split("?")[0]), url  # nginx micro-caches it too


def test_the_language_switcher_works_without_a_csrf_token(event):
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    assert 'name="csrfmiddlewaretoken"' not in page.content.decode()

    response = client.post("/i18n/setlang/", {"language": "zh-hans",
                                              "next": page.wsgi_request.get_full_path()})

    assert response.status_code == 302
    assert response.cookies["django_language"].value == "zh-hans"
    assert "排行榜" in client.get(response["Location"]).content.decode()


@pytest.fixture
def links(event):
    out = []
    for seat in Seat.objects.filter(table__round__event=event, table__number=2).order_by("seat"):
        (link,) = entry_link_issue(entry=seat.entry)
        out.append(f"/p/{link.token()}/")
    return out


def _personal(response) -> bool:
    control = response["Cache-Control"]
    return "private" in control and "no-store" in control and "public" not in control


def test_a_private_page_is_never_cached_nor_public(client, event, links, referee_user):
    # a private link's table, anonymous as far as cookies go
    response = client.get(links[0])
    assert response.status_code == 200 and _personal(response)
    # the console and the desk, signed in; and the public pages signed in
    client.force_login(referee_user)
    slug = event.slug
    for url in [reverse("pages:console"), reverse("pages:desk", kwargs={"slug": slug}),
                reverse("pages:console-event", kwargs={"slug": slug}), links[1],
                *public_urls(event)]:
        response = client.get(url)
        assert response.status_code in (200, 302, 403, 404), url
        assert _personal(response), (url, response["Cache-Control"])
    # an API request with a token is someone's own too
    response = Client().get(reverse("api:standings", kwargs={"slug": slug}),
                            HTTP_AUTHORIZATION="Token nothing")
    assert "public" not in response["Cache-Control"]


def test_a_personal_path_is_private_even_without_a_session(client, event):
    for url in ["/me/", "/accounts/login/", reverse("pages:console"),
                reverse("pages:desk", kwargs={"slug": event.slug})]:
        response = client.get(url)
        assert _personal(response), (url, response["Cache-Control"])


def test_the_api_keeps_its_own_revalidation(client, event):
    response = client.get(reverse("api:standings", kwargs={"slug": event.slug}))
    assert response["Cache-Control"] == "no-cache" and response["ETag"]


def _release(event, number):
    standings_release(event=event, round_number=number, anyway=True)
    event.refresh_from_db()


def test_held_back_standings_change_only_on_release_and_show_at_once(event, referee_user):
    # given: round 1's standings released while table 2 has not played yet
    client = Client()
    api = reverse("api:standings", kwargs={"slug": event.slug})
    board = reverse("pages:leaderboard", kwargs={"slug": event.slug})
    _release(event, 1)
    etag = client.get(api)["ETag"]
    first = client.get(board)
    assert first["X-Page-Cache"] == "miss"
    assert client.get(board)["X-Page-Cache"] == "hit"

    # when: table 2's results are confirmed and the live standings recomputed
    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    standings_recompute(event_id=event.pk)
    event.refresh_from_db()

    # then: what the public sees is unchanged: the poll is a 304, the page the kept copy
    assert client.get(api, HTTP_IF_NONE_MATCH=etag).status_code == 304
    again = client.get(board)
    assert again["X-Page-Cache"] == "hit" and again.content == first.content

    # when: the organizers release round 1 again (with table 2's results)
    _release(event, 1)

    # then: the next poll (within the 5 s poll interval) and the next page show it
    polled = client.get(api, HTTP_IF_NONE_MATCH=etag)
    assert polled.status_code == 200 and polled["ETag"] != etag
    after = client.get(board)
    assert after["X-Page-Cache"] == "miss" and after.content != first.content


def test_live_standings_show_each_recompute_at_once(event, referee_user):
    client = Client()
    api = reverse("api:standings", kwargs={"slug": event.slug})
    board = reverse("pages:leaderboard", kwargs={"slug": event.slug})
    etag = client.get(api)["ETag"]
    before = client.get(board)

    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    standings_recompute(event_id=event.pk)

    assert client.get(api, HTTP_IF_NONE_MATCH=etag).status_code == 200
    after = client.get(board)
    assert after["X-Page-Cache"] == "miss" and after.content != before.content


def test_kept_pages_are_per_language_page_and_search(event):
    client = Client()
    board = reverse("pages:leaderboard", kwargs={"slug": event.slug})
    en = client.get(board, HTTP_ACCEPT_LANGUAGE="en")
    zh = client.get(board, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh["X-Page-Cache"] == "miss" and "排行榜" in zh.content.decode()
    assert "Leaderboard" in en.content.decode()
    found = client.get(board + "?q=%E5%BC%A0")  # 张
    assert found["X-Page-Cache"] == "miss" and "张伟" in found.content.decode()
    assert "王芳" not in found.content.decode().split("<main>")[1]
    assert client.get(board, HTTP_ACCEPT_LANGUAGE="en")["X-Page-Cache"] == "hit"


def test_a_newly_published_round_shows_at_once_on_find_my_table(event, referee_user):
    from tests.pages.helpers import draw_round

    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    client = Client()
    seating = reverse("pages:seating", kwargs={"slug": event.slug})
    assert client.get(seating)["X-Page-Cache"] == "miss"
    assert client.get(seating)["X-Page-Cache"] == "hit"

    rnd = draw_round(event)

    response = client.get(seating)
    assert response["X-Page-Cache"] == "miss"
    assert response.context["round"].number == rnd.number == 2


def test_polls_send_only_what_changed(event, referee_user):
    client = Client()
    table = event.rounds.get(number=1).tables.get(number=2)
    for url in [reverse("api:round-tables", kwargs={"slug": event.slug, "number": 1}),
                reverse("api:table-detail", kwargs={"pk": table.pk})]:
        first = client.get(url)
        assert first.status_code == 200 and first["ETag"], url
        unchanged = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
        assert unchanged.status_code == 304 and unchanged.content == b"", url
    # a result submitted at the table: the next poll gets it
    play_table(table=table, referee=referee_user, confirm=False)
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
