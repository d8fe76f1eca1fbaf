"""A referee's reach ends at their own events (issue 15, finding 9): a penalty names a player
of the penalised entry, and an event's staff list only their events' players."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from tests.api.helpers import client_for, error_of
from tests.factories import UserFactory
from tournaments.errors import ServiceError
from tournaments.models import Event, Penalty
from tournaments.services.entries import entry_register
from tournaments.services.events import event_create
from tournaments.services.penalties import penalty_add
from tournaments.services.players import player_create
from tournaments.services.teams import team_register

pytestmark = pytest.mark.django_db


def penalise(user, event, **body):
    return client_for(user).post(f"/api/v1/events/{event.slug}/penalties/",
                                 {"kind": "warning", "reason": "slow play", **body},
                                 format="json")


def test_a_penalty_cannot_name_a_player_outside_the_event(referee_user, event, entries):
    # given: someone who plays in no entry of the event
    outsider = player_create(name="Outsider", number=999)

    # when: the referee penalises an entry of the event but names the outsider
    r = penalise(referee_user, event, entry_id=entries[0].pk, player_id=outsider.pk)

    # then
    err = error_of(r, 400)
    assert err["code"] == "wrong_event" and err["detail"] == {"field": "player_id"}
    assert not Penalty.objects.exists()


def test_a_penalty_cannot_name_another_entrys_player(referee_user, event, entries):
    r = penalise(referee_user, event, entry_id=entries[0].pk, player_id=entries[1].player_id)
    assert error_of(r, 400)["code"] == "wrong_event"
    assert not Penalty.objects.exists()


def test_a_penalty_names_the_entrys_own_player(referee_user, event, entries):
    r = penalise(referee_user, event, entry_id=entries[0].pk, player_id=entries[0].player_id)
    assert r.status_code == 201, r.content


def test_a_penalty_names_a_player_of_the_penalised_team(organizer):
    event = event_create(name="联邦 cup", slug="team-cup", format=Event.Format.TEAM,
                                  organizer=organizer)
    trio = [player_create(name=f"T{i}") for i in range(3)]
    entry = team_register(event=event, name="海风", players=trio)
    outsider = player_create(name="Outsider")
    penalty_add(event=event, entry=entry, kind="warning", reason="x", player=trio[2])
    with pytest.raises(ServiceError):
        penalty_add(event=event, entry=entry, kind="warning", reason="x",
                             player=outsider)
    assert Penalty.objects.count() == 1


def test_a_referee_lists_only_their_events_players(referee_user, event, entries):
    # given: players of another event and a player in no event
    other = event_create(name="Other", slug="elsewhere")
    entry_register(event=other, player=player_create(name="Elsewhere"))
    player_create(name="Nowhere")

    # when
    listed = client_for(referee_user).get("/api/v1/players/", {"page_size": 100}).json()

    # then: the twelve players of the referee's event, nobody else
    assert listed["count"] == 12
    assert {p["id"] for p in listed["results"]} == {e.player_id for e in entries}


def test_another_events_referee_sees_none_of_this_events_players(other_referee, event, entries):
    listed = client_for(other_referee).get("/api/v1/players/").json()
    assert listed["count"] == 0


def test_an_organizer_lists_only_their_events_players(organizer, event, entries):
    player_create(name="Nowhere")
    assert client_for(organizer).get("/api/v1/players/").json()["count"] == 12


def test_a_user_the_admin_shows_every_player_lists_all(event, entries):
    player_create(name="Nowhere")
    staff = UserFactory(username="desk", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_player"))
    assert client_for(staff).get("/api/v1/players/").json()["count"] == 13


def test_a_team_waiting_for_its_invitees_cannot_be_penalised(organizer):
    event = event_create(name="联邦 cup", slug="team-cup", format=Event.Format.TEAM,
                                  organizer=organizer)
    trio = [player_create(name=f"T{i}") for i in range(3)]
    entry = team_register(event=event, name="Pending", players=trio,
                                   registrant=trio[0])
    with pytest.raises(ServiceError) as refused:
        penalty_add(event=event, entry=entry, kind="warning", reason="x")
    assert refused.value.code == "team_pending" and not Penalty.objects.exists()
