"""Event settings no event can finish with are refused where they are set — the API (create and
PATCH), the service and the admin form — with the field named, and nothing stored (issue 15,
findings 8 and 7). The bounds live on the model's fields (``tournaments.models``)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.api.helpers import client_for, error_of
from tournaments import models
from tournaments.errors import ServiceError
from tournaments.models import Event
from tournaments.services.events import event_create, event_update

pytestmark = pytest.mark.django_db

#: the issue's values, and one past each bound (games 1–24, moves 1–3600 s, byes ±1000,
#: rounds 1–50)
BAD = [
    ("games_per_match", 1000), ("games_per_match", 0), ("games_per_match", 25),
    ("move_seconds", 0), ("move_seconds", 3601),
    ("bye_points", -10**9), ("bye_points", 1001),
    ("rounds_planned", 0), ("rounds_planned", 51), ("rounds_planned", 40000),
]


@pytest.mark.parametrize(("field", "value"), BAD)
def test_creating_an_event_with_an_impossible_setting_is_a_field_error(organizer, field, value):
    r = client_for(organizer).post("/api/v1/events/", {"name": "Cup", "slug": "cup",
                                                       field: value}, format="json")
    assert field in error_of(r, 400)["fields"]
    assert not Event.objects.filter(slug="cup").exists()


@pytest.mark.parametrize(("field", "value"), BAD)
def test_patching_an_impossible_setting_is_a_field_error(organizer, event, field, value):
    before = getattr(event, field)
    r = client_for(organizer).patch(f"/api/v1/events/{event.slug}/", {field: value},
                                    format="json")
    assert field in error_of(r, 400)["fields"]
    event.refresh_from_db()
    assert getattr(event, field) == before


@pytest.mark.parametrize(("field", "value"), BAD)
def test_the_service_refuses_an_impossible_setting(event, field, value):
    with pytest.raises(ServiceError) as create:
        event_create(name="Cup", slug="cup", **{field: value})
    with pytest.raises(ServiceError) as update:
        event_update(event=event, **{field: value})
    for exc in (create.value, update.value):
        assert exc.status == 400 and exc.detail == {"field": field}
        assert exc.message.startswith(f"{field}: ")
    assert not Event.objects.filter(slug="cup").exists()


def test_the_bounds_themselves_are_accepted(organizer):
    r = client_for(organizer).post("/api/v1/events/", {
        "name": "Cup", "slug": "cup", "games_per_match": models.GAMES_PER_MATCH_MAX,
        "move_seconds": models.MOVE_SECONDS_MIN, "bye_points": -models.BYE_POINTS_MAX,
        "rounds_planned": models.ROUNDS_PLANNED_MAX},
        format="json")
    assert r.status_code == 201, r.content


@pytest.mark.parametrize(("field", "value"), [("games_per_match", 1000), ("move_seconds", 0),
                                              ("bye_points", -10**9)])
def test_the_admin_form_refuses_an_impossible_setting(client, field, value):
    admin_user = get_user_model().objects.create_superuser(username="root", password="pw")
    client.force_login(admin_user)
    form = {"name": "Cup", "slug": "cup", "format": "individual", "rules": '"dagang"',
            "rounds_planned": 7, "games_per_match": 4, "bye_points": 0, "knockout_teams": 0,
            "move_seconds": 60, "tie_breaks": "[]", "status": "registration", field: value}
    r = client.post("/admin/tournaments/event/add/", form)
    assert r.status_code == 200  # the form again, with the error
    assert field in r.context["adminform"].form.errors
    assert not Event.objects.filter(slug="cup").exists()
