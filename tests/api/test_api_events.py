"""Events, staff, players and tokens over HTTP: who may create, change, publish and see what.

The public sees published events only (an unpublished one is a 404, never a 403 that would
confirm it exists); organizers and referees see their own; only staff create events and only
an event's organizers change or publish it.
"""

from __future__ import annotations

import pytest

from tests.api.helpers import client_for, error_of
from tests.factories import UserFactory
from tournaments.models import Event, Player
from tournaments.services.events import event_create, event_publish

pytestmark = pytest.mark.django_db

EVENTS = "/api/v1/events/"


def slugs(response) -> set[str]:
    assert response.status_code == 200, response.content
    return {e["slug"] for e in response.json()["results"]}


# ----------------------------------------------------------------------------- list & detail
def test_public_lists_only_published_events(anon, event, hidden_event, other_referee):
    assert slugs(anon.get(EVENTS)) == {event.slug, "other-cup"}


def test_organizer_and_referee_also_list_their_unpublished_events(
        organizer, referee_user, event, hidden_event):
    assert slugs(client_for(organizer).get(EVENTS)) == {event.slug, hidden_event.slug}
    assert slugs(client_for(referee_user).get(EVENTS)) == {event.slug, hidden_event.slug}


def test_other_referee_and_stranger_do_not_list_an_unpublished_event(
        other_referee, stranger, event, hidden_event):
    assert slugs(client_for(other_referee).get(EVENTS)) == {event.slug, "other-cup"}
    assert slugs(client_for(stranger).get(EVENTS)) == {event.slug, "other-cup"}


def test_event_list_filters_and_searches(anon, event):
    # given a second published event that is running
    other = event_create(name="Laoshan ladder", slug="laoshan-ladder")
    event_publish(event=other)
    Event.objects.filter(pk=other.pk).update(status=Event.Status.RUNNING)
    # then
    assert slugs(anon.get(EVENTS, {"status": "running"})) == {other.slug}
    assert slugs(anon.get(EVENTS, {"search": "Qingdao"})) == {event.slug}
    page = anon.get(EVENTS, {"page_size": 1}).json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]


def test_published_event_detail_is_public(anon, event):
    r = anon.get(f"{EVENTS}{event.slug}/")
    assert r.status_code == 200
    body = r.json()
    assert body["slug"] == event.slug and body["published"] is True
    assert body["games_per_match"] == 2 and body["rules"] == "dagang"


@pytest.mark.parametrize("who", ["anon", "stranger", "other_referee"])
def test_unpublished_event_is_404_for_outsiders(request, who, hidden_event):
    user = None if who == "anon" else request.getfixturevalue(who)
    err = error_of(client_for(user).get(f"{EVENTS}{hidden_event.slug}/"), 404)
    assert err["code"] == "not_found"


@pytest.mark.parametrize("who", ["organizer", "referee_user"])
def test_unpublished_event_is_visible_to_its_staff(request, who, hidden_event):
    r = client_for(request.getfixturevalue(who)).get(f"{EVENTS}{hidden_event.slug}/")
    assert r.status_code == 200 and r.json()["published"] is False


# ----------------------------------------------------------------------------- create
def test_staff_user_creates_an_event_and_becomes_its_organizer(organizer):
    r = client_for(organizer).post(EVENTS, {"name": "Huangdao open", "slug": "huangdao-open",
                                            "games_per_match": 4, "rounds_planned": 5,
                                            "tie_breaks": ["points", "head_count", "drawn"]},
                                   format="json")
    assert r.status_code == 201, r.content
    assert r.json()["slug"] == "huangdao-open" and r.json()["published"] is False
    event = Event.objects.get(slug="huangdao-open")
    assert list(event.organizers.all()) == [organizer]
    assert event.tie_breaks == ["points", "head_count", "drawn"]


def test_anonymous_cannot_create_an_event(anon):
    err = error_of(anon.post(EVENTS, {"name": "X", "slug": "x"}, format="json"), 401)
    assert err["code"] == "not_authenticated"
    assert not Event.objects.filter(slug="x").exists()


@pytest.mark.parametrize("who", ["stranger", "referee_user", "other_referee"])
def test_non_staff_cannot_create_an_event(request, who):
    r = client_for(request.getfixturevalue(who)).post(EVENTS, {"name": "X", "slug": "x"},
                                                      format="json")
    assert error_of(r, 403)["code"] == "forbidden"
    assert not Event.objects.filter(slug="x").exists()


def test_duplicate_slug_is_a_conflict(organizer, event):
    r = client_for(organizer).post(EVENTS, {"name": "Again", "slug": event.slug}, format="json")
    assert error_of(r, 409)["code"] == "slug_taken"


def test_unknown_rules_are_refused_with_the_engine_reason(organizer):
    r = client_for(organizer).post(EVENTS, {"name": "X", "slug": "x", "rules": "no-such-preset"},
                                   format="json")
    assert error_of(r, 400)["code"] == "bad_rules"
    assert not Event.objects.filter(slug="x").exists()


def test_missing_name_is_a_field_error(organizer):
    err = error_of(client_for(organizer).post(EVENTS, {"slug": "x"}, format="json"), 400)
    assert err["code"] == "invalid" and "name" in err["fields"]


# ----------------------------------------------------------------------------- update
def test_organizer_updates_the_event(organizer, event):
    r = client_for(organizer).patch(f"{EVENTS}{event.slug}/", {"name": "Qingdao city cup",
                                                              "bye_points": 3}, format="json")
    assert r.status_code == 200, r.content
    event.refresh_from_db()
    assert (event.name, event.bye_points) == ("Qingdao city cup", 3)


@pytest.mark.parametrize("who", ["referee_user", "other_referee", "stranger"])
def test_only_organizers_update_the_event(request, who, event):
    r = client_for(request.getfixturevalue(who)).patch(f"{EVENTS}{event.slug}/", {"name": "Mine"},
                                                       format="json")
    assert error_of(r, 403)["code"] == "forbidden"
    event.refresh_from_db()
    assert event.name == "Qingdao cup"


def test_anonymous_cannot_update(anon, event):
    error_of(anon.patch(f"{EVENTS}{event.slug}/", {"name": "Mine"}, format="json"), 401)


def test_put_is_not_allowed(organizer, event):
    r = client_for(organizer).put(f"{EVENTS}{event.slug}/", {"name": "X", "slug": event.slug},
                                  format="json")
    assert error_of(r, 405)["code"] == "method_not_allowed"


def test_rules_are_fixed_once_round_1_exists(organizer, drawn_round):
    r = client_for(organizer).patch(f"{EVENTS}{drawn_round.event.slug}/",
                                    {"games_per_match": 4}, format="json")
    assert error_of(r, 400)["code"] == "event_started"


# ----------------------------------------------------------------------------- publish
def test_organizer_publishes_and_unpublishes(organizer, anon, hidden_event):
    url = f"{EVENTS}{hidden_event.slug}/publish/"
    r = client_for(organizer).post(url)
    assert r.status_code == 200 and r.json()["published"] is True
    assert anon.get(f"{EVENTS}{hidden_event.slug}/").status_code == 200
    r = client_for(organizer).post(url, {"published": False}, format="json")
    assert r.status_code == 200 and r.json()["published"] is False
    error_of(anon.get(f"{EVENTS}{hidden_event.slug}/"), 404)


@pytest.mark.parametrize("body", ["yes", [], 1])
def test_publish_with_a_body_that_is_not_an_object_is_a_400(organizer, hidden_event, body):
    r = client_for(organizer).post(f"{EVENTS}{hidden_event.slug}/publish/", body, format="json")
    error_of(r, 400)
    hidden_event.refresh_from_db()
    assert hidden_event.published is False


def test_referee_cannot_publish(referee_user, hidden_event):
    r = client_for(referee_user).post(f"{EVENTS}{hidden_event.slug}/publish/")
    assert error_of(r, 403)["code"] == "forbidden"
    hidden_event.refresh_from_db()
    assert hidden_event.published is False


@pytest.mark.parametrize("who", ["other_referee", "stranger"])
def test_outsiders_cannot_publish_an_event_they_cannot_see(request, who, hidden_event):
    error_of(client_for(request.getfixturevalue(who)).post(
        f"{EVENTS}{hidden_event.slug}/publish/"), 404)
    hidden_event.refresh_from_db()
    assert hidden_event.published is False


def test_outsider_cannot_publish_a_published_event_either(stranger, event):
    error_of(client_for(stranger).post(f"{EVENTS}{event.slug}/publish/",
                                       {"published": False}, format="json"), 403)


def test_anonymous_cannot_publish(anon, event):
    error_of(anon.post(f"{EVENTS}{event.slug}/publish/"), 401)


# ----------------------------------------------------------------------------- staff
def test_organizer_adds_a_referee_who_then_sees_the_hidden_event(organizer, hidden_event):
    newcomer = UserFactory(username="newcomer")
    r = client_for(organizer).post(f"{EVENTS}{hidden_event.slug}/staff/",
                                   {"username": "newcomer", "role": "referee"}, format="json")
    assert r.status_code == 204
    assert hidden_event.referees.filter(pk=newcomer.pk).exists()
    assert client_for(newcomer).get(f"{EVENTS}{hidden_event.slug}/").status_code == 200


def test_adding_an_unknown_user_is_404(organizer, event):
    r = client_for(organizer).post(f"{EVENTS}{event.slug}/staff/",
                                   {"username": "nobody", "role": "referee"}, format="json")
    assert error_of(r, 404)["code"] == "no_such_user"


def test_bad_role_is_a_field_error(organizer, event, stranger):
    r = client_for(organizer).post(f"{EVENTS}{event.slug}/staff/",
                                   {"username": stranger.username, "role": "king"}, format="json")
    assert "role" in error_of(r, 400)["fields"]


@pytest.mark.parametrize("who", ["referee_user", "other_referee", "stranger"])
def test_only_organizers_add_staff(request, who, event, stranger):
    r = client_for(request.getfixturevalue(who)).post(
        f"{EVENTS}{event.slug}/staff/", {"username": stranger.username, "role": "organizer"},
        format="json")
    error_of(r, 403)
    assert not event.organizers.filter(pk=stranger.pk).exists()


# ----------------------------------------------------------------------------- players
def test_self_registration_of_a_player_profile(stranger):
    client = client_for(stranger)
    assert error_of(client.get("/api/v1/players/me/"), 404)["code"] == "not_found"
    r = client.post("/api/v1/players/me/", {"name": "王强", "club": "市南", "number": 7},
                    format="json")
    assert r.status_code == 201, r.content
    assert r.json()["name"] == "王强"
    assert Player.objects.get(number=7).user == stranger
    assert client.get("/api/v1/players/me/").json()["number"] == 7
    again = client.post("/api/v1/players/me/", {"name": "王强"}, format="json")
    assert error_of(again, 409)["code"] == "already_registered"
    assert Player.objects.filter(user=stranger).count() == 1


def test_player_profile_needs_a_login(anon):
    error_of(anon.get("/api/v1/players/me/"), 401)
    error_of(anon.post("/api/v1/players/me/", {"name": "X"}, format="json"), 401)


def test_organizer_lists_searches_and_creates_players(organizer, event, entries):
    client = client_for(organizer)
    r = client.get("/api/v1/players/", {"search": "Player 03"})
    assert r.status_code == 200 and [p["number"] for p in r.json()["results"]] == [103]
    assert client.get("/api/v1/players/", {"search": "105"}).json()["count"] == 1
    r = client.post("/api/v1/players/", {"name": "李华", "number": 900}, format="json")
    assert r.status_code == 201 and Player.objects.get(number=900).user is None
    dup = client.post("/api/v1/players/", {"name": "Other", "number": 900}, format="json")
    assert "number" in error_of(dup, 400)["fields"]  # the serializer's unique check
    assert Player.objects.filter(number=900).count() == 1


def test_referee_lists_players(referee_user, event, entries):
    r = client_for(referee_user).get("/api/v1/players/", {"page_size": 5})
    assert r.status_code == 200 and r.json()["count"] == 12 and len(r.json()["results"]) == 5


def test_stranger_and_player_cannot_list_or_create_players(stranger, entries):
    for user in (stranger, entries[0].player.user):
        client = client_for(user)
        error_of(client.get("/api/v1/players/"), 403)
        error_of(client.post("/api/v1/players/", {"name": "X"}, format="json"), 403)
    assert not Player.objects.filter(name="X").exists()


def test_anonymous_cannot_list_players(anon):
    error_of(anon.get("/api/v1/players/"), 401)


# ----------------------------------------------------------------------------- tokens
@pytest.fixture
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_token_from_username_and_password_authenticates(fast_hasher):
    user = UserFactory(username="zhang")
    user.set_password("s3cret-pass")
    user.save()
    r = client_for(None).post("/api/v1/auth/token/", {"username": "zhang",
                                                      "password": "s3cret-pass"}, format="json")
    assert r.status_code == 200
    token = r.json()["token"]
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert error_of(client.get("/api/v1/players/me/"), 404)["code"] == "not_found"


def test_wrong_password_and_bad_token_are_refused(fast_hasher):
    user = UserFactory(username="zhang")
    user.set_password("right")
    user.save()
    r = client_for(None).post("/api/v1/auth/token/", {"username": "zhang", "password": "wrong"},
                              format="json")
    error_of(r, 400)
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert error_of(client.get(EVENTS), 401)["code"] == "authentication_failed"


def test_the_duplicate_setting_is_set_over_the_api_before_round_1_only(organizer, event):
    url = f"{EVENTS}{event.slug}/"
    err = error_of(client_for(organizer).patch(url, {"duplicate": "mp", "duplicate_group": 3},
                                               format="json"), 400)
    assert err["code"] == "bad_event" and "even number" in err["message"]
    r = client_for(organizer).patch(url, {"duplicate": "imp", "duplicate_group": 4},
                                    format="json")
    assert r.status_code == 200 and (r.json()["duplicate"], r.json()["duplicate_group"]) == (
        "imp", 4)


def test_the_duplicate_setting_is_fixed_once_round_1_exists(organizer, event, drawn_round):
    r = client_for(organizer).patch(f"{EVENTS}{event.slug}/", {"duplicate": "mp"},
                                    format="json")
    assert error_of(r, 400)["code"] == "event_started"
