"""Entries over HTTP: self-registration, registration by organizers, check-in (报到) and
withdrawal, 联邦 teams, CSV import (all rows or none) and the entries CSV export."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.api.helpers import client_for, error_of
from tests.factories import UserFactory
from tournaments.models import Entry, Event, Player
from tournaments.services.entries import entry_register, entry_withdraw
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create

pytestmark = pytest.mark.django_db


def entries_url(event, rest=""):
    return f"/api/v1/events/{event.slug}/entries/{rest}"


def player_with_login(name="Self Service", number=None):
    user = UserFactory()
    return player_create(name=name, number=number, user=user)


# ----------------------------------------------------------------------------- list & filters
def test_public_lists_entries_of_a_published_event(anon, event, entries):
    r = anon.get(entries_url(event))
    assert r.status_code == 200
    body = r.json()
    assert body["count"] == 12
    first = body["results"][0]
    assert first["player"] == {"id": entries[0].player_id, "name": "Player 00", "number": 100}
    assert first["status"] == "checked_in" and first["team"] is None


def test_entries_filter_by_status(anon, event, entries):
    entry_withdraw(entry=entries[3])
    late = entry_register(event=event, player=player_with_login())
    checked = anon.get(entries_url(event), {"status": "checked_in"}).json()
    assert checked["count"] == 11
    assert {e["status"] for e in checked["results"]} == {"checked_in"}
    assert [e["id"] for e in anon.get(entries_url(event), {"status": "registered"}).json()[
        "results"]] == [late.pk]
    assert [e["id"] for e in anon.get(entries_url(event), {"status": "withdrawn"}).json()[
        "results"]] == [entries[3].pk]


def test_entries_bad_filter_value_is_a_field_error(anon, event, entries):
    err = error_of(anon.get(entries_url(event), {"status": "sleeping"}), 400)
    assert "status" in err["fields"]


def test_entries_search_by_name_and_number(anon, event, entries):
    by_name = anon.get(entries_url(event), {"search": "player 07"}).json()
    assert [e["player"]["number"] for e in by_name["results"]] == [107]
    by_number = anon.get(entries_url(event), {"search": "110"}).json()
    assert [e["player"]["name"] for e in by_number["results"]] == ["Player 10"]


def test_entries_page_size(anon, event, entries):
    page1 = anon.get(entries_url(event), {"page_size": 5}).json()
    assert page1["count"] == 12 and len(page1["results"]) == 5 and page1["previous"] is None
    page3 = anon.get(entries_url(event), {"page_size": 5, "page": 3}).json()
    assert len(page3["results"]) == 2 and page3["next"] is None
    error_of(anon.get(entries_url(event), {"page_size": 5, "page": 9}), 404)


def test_entries_of_an_unpublished_event_are_404_for_the_public(anon, stranger, other_referee,
                                                                 hidden_event, referee_user):
    for user in (None, stranger, other_referee):
        error_of(client_for(user).get(entries_url(hidden_event)), 404)
        error_of(client_for(user).get(f"/api/v1/events/{hidden_event.slug}/entries.csv"), 404)
    assert client_for(referee_user).get(entries_url(hidden_event)).status_code == 200


# ----------------------------------------------------------------------------- register
def test_player_registers_themselves_without_player_id(event):
    player = player_with_login()
    r = client_for(player.user).post(entries_url(event), {}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["player"]["id"] == player.pk and r.json()["status"] == "registered"
    assert Entry.objects.filter(event=event, player=player).count() == 1
    again = client_for(player.user).post(entries_url(event), {}, format="json")
    assert error_of(again, 409)["code"] == "already_registered"
    assert Entry.objects.filter(event=event, player=player).count() == 1


def test_player_may_name_their_own_player_id(event):
    player = player_with_login()
    r = client_for(player.user).post(entries_url(event), {"player_id": player.pk}, format="json")
    assert r.status_code == 201


def test_user_without_a_profile_is_told_to_create_one(stranger, event):
    err = error_of(client_for(stranger).post(entries_url(event), {}, format="json"), 400)
    assert err["code"] == "no_player" and "/players/me/" in err["message"]


def test_player_cannot_register_someone_else(event):
    me, other = player_with_login("Me"), player_with_login("Other")
    r = client_for(me.user).post(entries_url(event), {"player_id": other.pk}, format="json")
    assert error_of(r, 403)["code"] == "forbidden"
    assert not Entry.objects.filter(event=event).exists()


@pytest.mark.parametrize("who", ["referee_user", "other_referee", "stranger"])
def test_only_organizers_register_others(request, who, event):
    other = player_with_login("Other")
    r = client_for(request.getfixturevalue(who)).post(entries_url(event), {"player_id": other.pk},
                                                      format="json")
    error_of(r, 403)
    assert not Entry.objects.filter(event=event).exists()


def test_organizer_registers_any_player(organizer, event):
    player = player_create(name="No Login")
    r = client_for(organizer).post(entries_url(event), {"player_id": player.pk}, format="json")
    assert r.status_code == 201 and r.json()["player"]["id"] == player.pk
    missing = client_for(organizer).post(entries_url(event), {"player_id": 99999}, format="json")
    error_of(missing, 404)


def test_anonymous_cannot_register(anon, event):
    error_of(anon.post(entries_url(event), {}, format="json"), 401)


def test_registering_in_an_unpublished_event_is_404_for_a_player(hidden_event):
    player = player_with_login()
    error_of(client_for(player.user).post(entries_url(hidden_event), {}, format="json"), 404)
    assert not Entry.objects.filter(event=hidden_event).exists()


def test_after_round_1_a_registration_is_a_late_entry(drawn_round):
    player = player_with_login()
    r = client_for(player.user).post(entries_url(drawn_round.event), {}, format="json")
    assert r.status_code == 201
    assert (r.json()["late"], r.json()["first_round"]) == (True, 2)


# ----------------------------------------------------------------------------- check-in & withdraw
@pytest.fixture
def registered(event):
    """A registered (not checked-in) entry whose player has a login."""
    return entry_register(event=event, player=player_with_login("Registered"))


def test_player_checks_themselves_in(event, registered):
    r = client_for(registered.player.user).post(entries_url(event, f"{registered.pk}/check-in/"))
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "checked_in" and r.json()["checked_in_at"]
    registered.refresh_from_db()
    assert registered.status == Entry.Status.CHECKED_IN


@pytest.mark.parametrize("who", ["organizer", "referee_user"])
def test_staff_check_an_entry_in(request, who, event, registered):
    r = client_for(request.getfixturevalue(who)).post(
        entries_url(event, f"{registered.pk}/check-in/"))
    assert r.status_code == 200 and r.json()["status"] == "checked_in"


@pytest.mark.parametrize("who", ["other_referee", "stranger", "another_player"])
def test_outsiders_cannot_check_an_entry_in(request, who, event, registered, entries):
    user = entries[0].player.user if who == "another_player" else request.getfixturevalue(who)
    r = client_for(user).post(entries_url(event, f"{registered.pk}/check-in/"))
    assert error_of(r, 403)["code"] == "forbidden"
    registered.refresh_from_db()
    assert registered.status == Entry.Status.REGISTERED


def test_anonymous_cannot_check_in(anon, event, registered):
    error_of(anon.post(entries_url(event, f"{registered.pk}/check-in/")), 401)


def test_check_in_of_an_entry_of_another_event_is_404(organizer, event, registered):
    other = event_create(name="Mine too", slug="mine-too", organizer=organizer)
    error_of(client_for(organizer).post(
        f"/api/v1/events/{other.slug}/entries/{registered.pk}/check-in/"), 404)


def test_player_withdraws_and_cannot_check_in_again(event, registered):
    client = client_for(registered.player.user)
    r = client.post(entries_url(event, f"{registered.pk}/withdraw/"))
    assert r.status_code == 200 and r.json()["status"] == "withdrawn"
    again = client.post(entries_url(event, f"{registered.pk}/check-in/"))
    assert error_of(again, 400)["code"] == "cannot_check_in"


@pytest.mark.parametrize("who", ["other_referee", "stranger"])
def test_outsiders_cannot_withdraw_an_entry(request, who, event, registered):
    error_of(client_for(request.getfixturevalue(who)).post(
        entries_url(event, f"{registered.pk}/withdraw/")), 403)
    registered.refresh_from_db()
    assert registered.status == Entry.Status.REGISTERED


def test_referee_withdraws_an_entry(referee_user, event, registered):
    r = client_for(referee_user).post(entries_url(event, f"{registered.pk}/withdraw/"))
    assert r.status_code == 200 and r.json()["status"] == "withdrawn"


# ----------------------------------------------------------------------------- teams
@pytest.fixture
def team_event(organizer):
    ev = event_create(name="联邦 cup", slug="team-cup", format=Event.Format.TEAM,
                               games_per_match=2, organizer=organizer)
    event_publish(event=ev)
    return ev


def test_a_player_registers_a_team_they_play_in(team_event):
    trio = [player_with_login(f"T{i}") for i in range(3)]
    r = client_for(trio[1].user).post(f"/api/v1/events/{team_event.slug}/teams/",
                                      {"name": "海风", "player_ids": [p.pk for p in trio]},
                                      format="json")
    assert r.status_code == 201, r.content
    assert r.json()["team"]["name"] == "海风"
    assert [p["id"] for p in r.json()["team"]["players"]] == [p.pk for p in trio]


def test_organizer_registers_a_team(organizer, team_event):
    trio = [player_create(name=f"T{i}") for i in range(3)]
    r = client_for(organizer).post(f"/api/v1/events/{team_event.slug}/teams/",
                                   {"name": "山海", "player_ids": [p.pk for p in trio]},
                                   format="json")
    assert r.status_code == 201


def test_an_outsider_cannot_register_a_team_of_others(stranger, team_event):
    trio = [player_create(name=f"T{i}") for i in range(3)]
    r = client_for(stranger).post(f"/api/v1/events/{team_event.slug}/teams/",
                                  {"name": "X", "player_ids": [p.pk for p in trio]},
                                  format="json")
    assert error_of(r, 403)["code"] == "forbidden"
    assert not Entry.objects.filter(event=team_event).exists()


def test_bad_teams_are_refused(organizer, team_event, event):
    trio = [player_create(name=f"T{i}") for i in range(3)]
    client = client_for(organizer)
    two = client.post(f"/api/v1/events/{team_event.slug}/teams/",
                      {"name": "X", "player_ids": [trio[0].pk, trio[1].pk]}, format="json")
    assert "player_ids" in error_of(two, 400)["fields"]
    twice = client.post(f"/api/v1/events/{team_event.slug}/teams/",
                        {"name": "X", "player_ids": [trio[0].pk, trio[0].pk, trio[1].pk]},
                        format="json")
    assert error_of(twice, 400)["code"] == "bad_team"
    missing = client.post(f"/api/v1/events/{team_event.slug}/teams/",
                          {"name": "X", "player_ids": [trio[0].pk, trio[1].pk, 10**9]},
                          format="json")
    assert error_of(missing, 400)["code"] == "bad_team"
    individual = client.post(f"/api/v1/events/{event.slug}/teams/",
                             {"name": "X", "player_ids": [p.pk for p in trio]}, format="json")
    assert error_of(individual, 400)["code"] == "wrong_format"
    solo = client_for(player_with_login().user).post(entries_url(team_event), {}, format="json")
    assert error_of(solo, 400)["code"] == "wrong_format"
    assert not Entry.objects.exists()


def test_team_with_an_out_of_range_player_id_is_refused(organizer, team_event):
    trio = [player_create(name=f"T{i}") for i in range(2)]
    r = client_for(organizer).post(f"/api/v1/events/{team_event.slug}/teams/",
                                   {"name": "X", "player_ids": [10**30] + [p.pk for p in trio]},
                                   format="json")
    assert r.status_code in (400, 404), r.status_code
    error_of(r, r.status_code)
    assert not Entry.objects.filter(event=team_event).exists()


# ----------------------------------------------------------------------------- CSV import
def upload(text: str | bytes, name="entries.csv"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return {"file": SimpleUploadedFile(name, data, content_type="text/csv")}


def test_import_creates_players_and_entries(organizer, event):
    player_create(name="Known", number=55)
    text = "name,club,number,checked_in\n张三,市南,51,yes\n李四,,52,\nKnown again,,55,1\n"
    r = client_for(organizer).post(entries_url(event, "import/"), upload(text),
                                   format="multipart")
    assert r.status_code == 201, r.content
    body = r.json()
    assert {k: body[k] for k in ("players_created", "registered", "checked_in", "unchanged",
                                 "encoding")} == {"players_created": 2, "registered": 3,
                                                  "checked_in": 2, "unchanged": 0,
                                                  "encoding": "UTF-8"}
    assert [line["action"] for line in body["lines"]] == ["registered"] * 3
    assert Player.objects.get(number=51).club == "市南"
    statuses = dict(Entry.objects.filter(event=event).values_list("player__number", "status"))
    assert statuses == {51: "checked_in", 52: "registered", 55: "checked_in"}


def test_import_accepts_a_utf8_bom(organizer, event):
    r = client_for(organizer).post(entries_url(event, "import/"),
                                   upload("\ufeffname\n王五\n".encode()), format="multipart")
    assert r.status_code == 201 and r.json()["registered"] == 1


def test_a_bad_line_refuses_the_whole_file_with_its_line_number(organizer, event):
    text = "name,number\nGood One,61\nGood Two,62\nBad,sixty-three\n"
    err = error_of(client_for(organizer).post(entries_url(event, "import/"), upload(text),
                                              format="multipart"), 400)
    assert err["code"] == "bad_csv" and "line 4" in err["message"]
    assert not Player.objects.filter(number__in=[61, 62]).exists()
    assert not Entry.objects.filter(event=event).exists()


def test_a_duplicate_line_refuses_the_whole_file(organizer, event):
    text = "name,number\nA,71\nB,72\nA again,71\n"
    r = client_for(organizer).post(entries_url(event, "import/"), upload(text),
                                   format="multipart")
    # the service re-raises the registration's refusal with the line number (as a 400)
    err = error_of(r, r.status_code if r.status_code in (400, 409) else 400)
    assert err["code"] == "already_registered" and "line 4" in err["message"]
    assert not Player.objects.filter(number__in=[71, 72]).exists()


def test_a_nameless_line_is_refused(organizer, event):
    err = error_of(client_for(organizer).post(entries_url(event, "import/"),
                                              upload("name,number\nA,81\n,82\n"),
                                              format="multipart"), 400)
    assert "line 3" in err["message"]
    assert not Player.objects.filter(number=81).exists()


@pytest.mark.parametrize("encoding,label", [("gbk", "GBK"), ("gb18030", "GB18030"),
                                            ("utf-8-sig", "UTF-8 with BOM")])
def test_a_chinese_spreadsheets_csv_is_read_in_its_encoding(organizer, event, encoding, label):
    """Excel on Chinese systems saves CSV as GBK; GB18030 holds what GBK lacks (𠀀)."""
    name = "张三𠀀" if encoding == "gb18030" else "张三"
    r = client_for(organizer).post(entries_url(event, "import/"),
                                   upload(f"姓名,编号\n{name},91\n".encode(encoding)),
                                   format="multipart")
    assert r.status_code == 201, r.content
    assert r.json()["encoding"] == label
    assert Player.objects.get(number=91).name == name


def test_a_file_in_no_known_encoding_is_refused(organizer, event):
    err = error_of(client_for(organizer).post(entries_url(event, "import/"),
                                              upload(b"name\n\x81\x20\xff\n"),
                                              format="multipart"), 400)
    assert err["code"] == "bad_csv" and "GBK" in err["message"]
    assert not Entry.objects.filter(event=event).exists()


@pytest.mark.parametrize("text", ["club,number\nX,1\n", ""])
def test_csv_without_a_name_header_is_refused(organizer, event, text):
    err = error_of(client_for(organizer).post(entries_url(event, "import/"), upload(text),
                                              format="multipart"), 400)
    assert err["code"] in ("bad_csv", "invalid")
    assert not Entry.objects.filter(event=event).exists()


def test_csv_with_a_nul_character_is_refused(organizer, event):
    err = error_of(client_for(organizer).post(entries_url(event, "import/"),
                                              upload("name\nA\x00B\n"), format="multipart"), 400)
    assert err["code"] == "bad_csv"


def test_import_without_a_file_is_a_field_error(organizer, event):
    err = error_of(client_for(organizer).post(entries_url(event, "import/"), {},
                                              format="multipart"), 400)
    assert "file" in err["fields"]


def test_import_takes_multipart_not_json(organizer, event):
    r = client_for(organizer).post(entries_url(event, "import/"), {"file": "name\nA\n"},
                                   format="json")
    assert error_of(r, 415)["code"] == "unsupported_media_type"


@pytest.mark.parametrize("who", ["referee_user", "other_referee", "stranger"])
def test_only_organizers_import(request, who, event):
    r = client_for(request.getfixturevalue(who)).post(entries_url(event, "import/"),
                                                      upload("name\nA\n"), format="multipart")
    error_of(r, 403)
    assert not Entry.objects.filter(event=event).exists()


def test_anonymous_cannot_import(anon, event):
    error_of(anon.post(entries_url(event, "import/"), upload("name\nA\n"), format="multipart"),
             401)


# ----------------------------------------------------------------------------- CSV export
def read_csv(response) -> list[list[str]]:
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


def test_entries_csv_has_a_header_and_one_line_per_entry(anon, event, entries):
    entry_withdraw(entry=entries[0])
    rows = read_csv(anon.get(f"/api/v1/events/{event.slug}/entries.csv"))
    assert rows[0] == ["entry", "name", "number", "status", "late", "first_round"]
    assert len(rows) == 1 + 12
    assert rows[1][0] == str(entries[0].pk) and rows[1][2:4] == ["100", "withdrawn"]
    assert {r[3] for r in rows[2:]} == {"checked_in"}


def test_a_team_event_imports_its_teams_and_the_same_file_again_changes_nothing(organizer,
                                                                                 team_event):
    text = ("team,player_1,number_1,player_2,number_2,player_3,number_3,checked_in\n"
            "青岛一队,张三,101,李四,102,王五,103,yes\n").encode("gb18030")
    first = client_for(organizer).post(entries_url(team_event, "import/"), upload(text),
                                       format="multipart")
    assert first.status_code == 201, first.content
    assert (first.json()["registered"], first.json()["checked_in"]) == (1, 1)
    entry = Entry.objects.get(event=team_event)
    assert entry.team.name == "青岛一队" and entry.status == Entry.Status.CHECKED_IN

    again = client_for(organizer).post(entries_url(team_event, "import/"), upload(text),
                                       format="multipart")
    assert again.status_code == 201
    assert (again.json()["registered"], again.json()["unchanged"]) == (0, 1)
    assert Player.objects.filter(number__in=[101, 102, 103]).count() == 3
