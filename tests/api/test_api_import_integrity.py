"""The CSV import cannot be turned against a player (issue 15, findings 1 and 7): a number
claimed by someone's self-registration is never linked to an import line, and a value the
database would refuse is answered 400 naming the line and the field, with nothing stored."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.api.helpers import client_for, error_of
from tests.factories import UserFactory
from tournaments.models import Entry, Player
from tournaments.services.players import player_create

pytestmark = pytest.mark.django_db


def import_csv(user, event, text: str):
    upload = {"file": SimpleUploadedFile("entries.csv", text.encode(), content_type="text/csv")}
    return client_for(user).post(f"/api/v1/events/{event.slug}/entries/import/", upload,
                                 format="multipart")


@pytest.fixture
def attacker(event):
    """A user who self-registered (POST /players/me/) with 张三's player number 51."""
    user = UserFactory(username="attacker")
    r = client_for(user).post("/api/v1/players/me/", {"name": "Not Zhang", "number": 51},
                              format="json")
    assert r.status_code == 201, r.content
    return Player.objects.get(user=user)


def test_an_import_never_registers_a_self_registered_players_number(organizer, event,
                                                                    attacker):
    # when: the organizer imports the real 张三 with his number
    r = import_csv(organizer, event, "name,club,number\n李四,,52\n张三,市南,51\n")

    # then: the whole file is refused, the collision named by line, number and reason
    err = error_of(r, 409)
    assert err["code"] == "number_claimed" and "line 3" in err["message"]
    assert err["detail"]["collisions"] == [{
        "line": 3, "number": 51, "name": "张三", "player": attacker.pk,
        "message": err["message"]}]
    assert not Entry.objects.filter(event=event).exists()
    assert not Player.objects.filter(number=52).exists()
    # and the admin shows it in the claimed player's history
    log = LogEntry.objects.get(object_id=str(attacker.pk))
    assert log.user == organizer and "51" in log.change_message


def test_every_colliding_line_is_listed(organizer, event, attacker):
    player_create(name="Other claim", number=53, user=UserFactory())
    err = error_of(import_csv(organizer, event, "name,number\n张三,51\nX,52\nY,53\n"), 409)
    assert [(c["line"], c["number"]) for c in err["detail"]["collisions"]] == [(2, 51), (4, 53)]


def test_players_the_organizers_created_are_still_matched_by_number(organizer, event):
    known = player_create(name="Known", number=55)
    mine = player_create(name="Organizer plays", number=56, user=organizer)
    r = import_csv(organizer, event, "name,number\nKnown again,55\nMe,56\n")
    assert r.status_code == 201, r.content
    assert set(Entry.objects.filter(event=event).values_list("player", flat=True)) == {
        known.pk, mine.pk}


@pytest.mark.parametrize(("line", "field"), [
    ("A" * 101 + ",,61", "name"),
    ("Long club," + "C" * 101 + ",61", "club"),
    ("Big,," + str(2**31), "number"),
    ("Negative,,-1", "number"),
])
def test_an_out_of_bounds_value_is_a_400_naming_line_and_field(organizer, event, line, field):
    # when: the second data line holds what the database cannot store
    r = import_csv(organizer, event, f"name,club,number\nGood,,60\n{line}\n")

    # then
    err = error_of(r, 400)
    assert err["code"] == "bad_csv" and err["message"].startswith(f"line 3: {field}")
    assert err["detail"] == {"line": 3, "field": field}
    assert not Player.objects.filter(number=60).exists()
    assert not Entry.objects.filter(event=event).exists()


def test_the_largest_number_and_a_100_character_name_are_stored(organizer, event):
    r = import_csv(organizer, event, f"name,club,number\n{'A' * 100},{'C' * 100},{2**31 - 1}\n")
    assert r.status_code == 201, r.content
    assert Player.objects.get(number=2**31 - 1).name == "A" * 100


def test_self_registration_with_an_out_of_range_number_is_a_field_error(stranger):
    r = client_for(stranger).post("/api/v1/players/me/", {"name": "X", "number": 2**31},
                                  format="json")
    assert "number" in error_of(r, 400)["fields"]
    assert not Player.objects.exists()


def test_the_admin_lists_self_registered_players_apart(client, attacker):
    player_create(name="Desk made", number=57)
    client.force_login(get_user_model().objects.create_superuser(username="root", password="pw"))
    for value, names in (("yes", ["Not Zhang"]), ("no", ["Desk made"])):
        r = client.get("/admin/tournaments/player/", {"self_registered": value})
        assert r.status_code == 200
        assert [p.name for p in r.context["cl"].result_list] == names
