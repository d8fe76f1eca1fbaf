"""A NUL character in a query string (issue 51 item 6): ``?player=%00`` on a round's tables was
a psycopg DataError on PostgreSQL (a 500). Every API query parameter — filters, search boxes,
paging — is refused in one place (api/middleware.py) with a 400 in the error shape that names
the parameter. Run with DATABASE_URL=postgres://… to see the 500 this replaced."""

from __future__ import annotations

import pytest

from tests.api.helpers import error_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("url", "query"), [
    ("/api/v1/events/{slug}/rounds/1/tables/", "player=%00"),
    ("/api/v1/events/{slug}/rounds/1/tables/", "player=Player%0001"),
    ("/api/v1/events/", "search=%00"),
    ("/api/v1/events/", "status=%00"),
    ("/api/v1/events/", "page=2&page_size=%00"),
    ("/api/v1/events/{slug}/entries/", "search=%00Player"),
    ("/api/v1/events/{slug}/entries/", "status=checked_in&late=%00"),
    ("/api/v1/events/{slug}/penalties/", "entry=%00"),
    ("/api/v1/ratings/", "club=%00"),
    ("/api/v1/ratings/", "search=a%00b"),
    ("/api/v1/ratings.csv", "search=%00"),
    ("/api/v1/events/{slug}/standings/", "after_round=%00"),
])
def test_a_nul_in_any_query_parameter_is_a_400_naming_it(anon, table, url, query):
    # given: a published round (its tables are public)
    url = url.format(slug=table.round.event.slug)
    # when: a query parameter holds a NUL character
    response = anon.get(f"{url}?{query}")
    # then: refused as bad input, naming the parameter, in the error shape (not a 500)
    err = error_of(response, 400)
    name = next(part.split("=")[0] for part in query.split("&") if "%00" in part)
    assert err["code"] == "invalid"
    assert list(err["fields"]) == [name], err
    assert err["message"].startswith(f"{name}: ") and "NUL character" in err["message"], err


def test_a_nul_in_a_parameters_name_is_refused_too(anon, table):
    err = error_of(anon.get("/api/v1/events/?sta%00tus=draft"), 400)
    assert list(err["fields"]) == ["sta\\u0000tus"], err


def test_a_query_without_a_nul_is_answered_as_before(anon, table):
    # "%2500" is the text "%00", not a NUL
    url = f"/api/v1/events/{table.round.event.slug}/rounds/1/tables/"
    assert anon.get(f"{url}?player=%2500").status_code == 200
    assert anon.get(f"{url}?player=Player").json()  # the "find my table" filter still works


def test_a_nul_is_refused_on_the_asgi_server_too_without_leaving_the_event_loop(settings):
    # given: the ASGI server's URLs (the long-poll and the stream are async views there)
    from asgiref.sync import async_to_sync, iscoroutinefunction
    from django.test import AsyncClient

    from api.middleware import QueryNulMiddleware

    settings.ROOT_URLCONF = "config.asgi_urls"

    async def view(request):  # pragma: no cover - never reached
        raise AssertionError

    # the middleware stays a coroutine in an async chain (no thread for each request)
    assert iscoroutinefunction(QueryNulMiddleware(view))
    # when: the long-poll is asked with a NUL
    response = async_to_sync(AsyncClient().get)("/api/v1/live/1/?since=%00")
    # then: refused before the view, naming the parameter
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["since"]
