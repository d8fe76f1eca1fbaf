"""The schema tells the truth (issue 51 item 7), each lie found by a probe performed here:

- in a team event an entry's ``player`` is null, where the schema said a non-null object (the
  entries list, check-in, withdraw): now nullable, and its ``team`` described;
- the CSV downloads answered 406 to ``Accept: text/csv``, the type the schema documents;
- ``?format=api`` (DRF's renderer choice) was refused by the events list's ``format`` filter:
  the filter is ``?event_format=`` (an older client's ``?format=team`` still filters);
- public reads were declared as needing a login (no anonymous ``{}`` security requirement);
- a garbage multipart body to ``POST …/publish/`` was read as no fields, and the defaults
  published the event: a body that is not JSON is a 415 in the one error shape.
"""

from __future__ import annotations

import pytest
import schemathesis
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from tests.api.helpers import client_for, error_of
from tests.factories import UserFactory
from tournaments.models import Entry, Event
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create
from tournaments.services.teams import team_register

CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance,
          content_type_conformance]
#: loaded once, at collection, as tests/api_schema/test_schemathesis.py does (the schema view
#: reads no table)
SCHEMA = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)


@pytest.fixture
def schema(same_connection_across_requests):
    return SCHEMA


@pytest.fixture
def team_entry(organizer):
    """A team event (published) with one complete 联邦 team registered by its organizer."""
    event = event_create(name="联邦 cup", slug="team-cup", format=Event.Format.TEAM,
                                  games_per_match=2, organizer=organizer)
    event_publish(event=event)
    players = [player_create(name=f"T{i}", user=UserFactory(username=f"t{i}"))
               for i in range(3)]
    return team_register(event=event, name="东风", players=players)


# ----------------------------------------------------------------------------- team entries
@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/api/v1/events/{slug}/entries/"),
    ("POST", "/api/v1/events/{slug}/entries/{id}/check-in/"),
    ("POST", "/api/v1/events/{slug}/entries/{id}/withdraw/"),
])
def test_a_team_events_entries_are_as_the_schema_says(schema, organizer, team_entry, method,
                                                      path):
    # given: a team event's entry, whose player is null and whose team is its 联邦
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=organizer)
    params = {"slug": team_entry.event.slug}
    if "{id}" in path:
        params["id"] = team_entry.pk
    case = schema[path][method].Case(path_parameters=params,
                                     headers={"Authorization": f"Token {token.key}"})
    # when: listed, checked in, withdrawn
    response = case.call()
    # then: the answer is what the schema documents (it said "player" was never null)
    assert response.status_code == 200, response.text
    case.validate_response(response, checks=CHECKS)
    body = response.json()
    entry = body["results"][0] if "results" in body else body
    assert entry["player"] is None and entry["team"]["name"] == "东风"


# ----------------------------------------------------------------------------- CSV
CSV_URLS = ["/api/v1/events/{slug}/entries.csv", "/api/v1/events/{slug}/rounds/1/seating.csv",
            "/api/v1/events/{slug}/standings.csv", "/api/v1/ratings.csv"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", CSV_URLS)
@pytest.mark.parametrize("accept", ["text/csv", "text/csv; charset=utf-8", "*/*", None])
def test_a_csv_download_answers_accept_text_csv(anon, table, url, accept):
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    response = anon.get(url.format(slug=table.round.event.slug), **headers)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "text/csv; charset=utf-8"


@pytest.mark.django_db
@pytest.mark.parametrize("url", CSV_URLS[:3])
def test_a_refused_csv_download_is_still_the_json_error(anon, url):
    response = anon.get(url.format(slug="no-such-event"), HTTP_ACCEPT="text/csv")
    assert error_of(response, 404)["code"] == "not_found"


# ----------------------------------------------------------------------------- ?format=
@pytest.fixture
def both_formats(event, team_entry):
    return {"individual": event.slug, "team": team_entry.event.slug}


def _slugs(response) -> set[str]:
    assert response.status_code == 200, response.content[:300]
    return {e["slug"] for e in response.json()["results"]}


@pytest.mark.django_db
def test_format_api_is_the_browsable_api_not_an_event_format(anon, both_formats):
    response = anon.get("/api/v1/events/?format=api")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    assert _slugs(anon.get("/api/v1/events/?format=json")) == set(both_formats.values())


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["individual", "team"])
def test_events_filter_by_event_format_and_by_the_old_name(anon, both_formats, kind):
    assert _slugs(anon.get(f"/api/v1/events/?event_format={kind}")) == {both_formats[kind]}
    assert _slugs(anon.get(f"/api/v1/events/?format={kind}")) == {both_formats[kind]}


@pytest.mark.django_db
def test_an_unknown_event_format_is_refused_naming_the_filter(anon, both_formats):
    assert "event_format" in error_of(anon.get("/api/v1/events/?event_format=api"), 400)[
        "fields"]


# ----------------------------------------------------------------------------- security
PUBLIC_READS = ["/api/v1/events/", "/api/v1/events/{slug}/", "/api/v1/events/{slug}/entries/",
                "/api/v1/events/{slug}/rounds/", "/api/v1/events/{slug}/penalties/",
                "/api/v1/tables/{id}/results/"]


@pytest.mark.django_db
def test_public_reads_are_declared_anonymous_and_are(schema, anon, table):
    raw = schema.raw_schema["paths"]
    for path in PUBLIC_READS:
        # the schema lets an anonymous client call it …
        assert {} in raw[path]["get"]["security"], path
        # … and an anonymous client may
        url = path.format(slug=table.round.event.slug, id=table.pk)
        assert anon.get(url).status_code == 200, url
        # while the writes beside it still need a login
        for method in ("post", "patch"):
            if method in raw[path]:
                assert {} not in raw[path][method]["security"], (path, method)


# ----------------------------------------------------------------------------- bodies
GARBAGE = (b"--xyz\r\nContent-Disposition: form-data; name=\"\x00\xff\"\r\n\r\n\xfe\r\n"
           b"--xyz--\r\n")


@pytest.mark.django_db
@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=xyz",
                                          "application/x-www-form-urlencoded", "text/plain"])
def test_a_body_that_is_not_json_is_a_415_and_publishes_nothing(organizer, hidden_event,
                                                                content_type):
    # given: an unpublished event and its organizer
    # when: its publish endpoint gets a body that is not JSON
    response = client_for(organizer).generic(
        "POST", f"/api/v1/events/{hidden_event.slug}/publish/", GARBAGE,
        content_type=content_type)
    # then: refused as an unsupported type, in the one error shape; the event stays hidden
    assert error_of(response, 415)["code"] == "unsupported_media_type"
    hidden_event.refresh_from_db()
    assert not hidden_event.published


@pytest.mark.django_db
def test_a_json_body_still_publishes_and_the_import_still_takes_a_file(organizer, hidden_event):
    client = client_for(organizer)
    response = client.post(f"/api/v1/events/{hidden_event.slug}/publish/", {"published": True},
                           format="json")
    assert response.status_code == 200, response.content[:300]
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(f"/api/v1/events/{hidden_event.slug}/entries/import/",
                           {"file": SimpleUploadedFile("p.csv", "name\n王五\n".encode())},
                           format="multipart")
    assert response.status_code in (200, 201), response.content[:300]
    assert Entry.objects.filter(event=hidden_event).count() == 1


def test_the_schema_takes_json_bodies_only_but_for_the_import(schema):
    for path, item in schema.raw_schema["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "requestBody" in operation:
                types = set(operation["requestBody"]["content"])
                expected = {"multipart/form-data"} if path.endswith("/entries/import/") else {
                    "application/json"}
                assert types == expected, (method, path, types)


# ----------------------------------------------------------------------------- found by the run
@pytest.mark.django_db
def test_a_late_filter_that_is_not_a_boolean_is_refused_not_ignored(anon, event, entries):
    url = f"/api/v1/events/{event.slug}/entries/"
    assert "late" in error_of(anon.get(f"{url}?late=maybe"), 400)["fields"]
    assert anon.get(f"{url}?late=false").json()["count"] == len(entries)
    assert anon.get(f"{url}?late=true").json()["count"] == 0


@pytest.mark.django_db
def test_a_format_no_renderer_has_is_still_a_404_but_on_the_events_list(anon, event):
    assert error_of(anon.get(f"/api/v1/events/{event.slug}/standings.csv?format=AAA"), 404)
    assert error_of(anon.get("/api/v1/events/?format=AAA"), 404)
