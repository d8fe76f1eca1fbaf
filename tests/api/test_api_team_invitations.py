"""No 联邦 team without its players' consent (issue 15, finding 5): a player who registers a
team invites the other two; the team takes part in nothing until both accept, and an
invitation never locks the invitee out of their own team. The event's staff need no consent."""

from __future__ import annotations

import pytest

from tests.api.helpers import client_for, error_of
from tests.factories import UserFactory
from tournaments.models import Entry, Event, Team, TeamMember
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def team_event(organizer, referee_user):
    ev = event_create(name="联邦 cup", slug="team-cup", format=Event.Format.TEAM,
                               games_per_match=2, organizer=organizer)
    ev.referees.add(referee_user)
    event_publish(event=ev)
    return ev


@pytest.fixture
def people():
    """Six players, each with a login."""
    return [player_create(name=f"P{i}", user=UserFactory(username=f"p{i}"))
            for i in range(6)]


def register(user, event, name, players):
    return client_for(user).post(f"/api/v1/events/{event.slug}/teams/",
                                 {"name": name, "player_ids": [p.pk for p in players]},
                                 format="json")


def invitations(player):
    r = client_for(player.user).get("/api/v1/players/me/invitations/")
    assert r.status_code == 200, r.content
    return r.json()


def answer(player, invitation_id, verb):
    return client_for(player.user).post(f"/api/v1/players/me/invitations/{invitation_id}/{verb}/")


def test_naming_others_does_not_lock_them_out_of_their_own_team(team_event, people):
    # given: P0 registers a team naming P1 and P2 without asking them
    assert register(people[0].user, team_event, "Hijack", people[:3]).status_code == 201

    # when: P1 registers the team they actually play in
    r = register(people[1].user, team_event, "Real", [people[1], people[3], people[4]])

    # then: P1's own team is registered; the team that named P1 is dissolved
    assert r.status_code == 201, r.content
    assert list(Team.objects.filter(event=team_event).values_list("name", flat=True)) == [
        "Real"]
    assert invitations(people[2]) == []


def test_a_team_with_pending_invitations_cannot_check_in(team_event, people, referee_user):
    entry_id = register(people[0].user, team_event, "Pending", people[:3]).json()["id"]
    url = f"/api/v1/events/{team_event.slug}/entries/{entry_id}/check-in/"
    for user in (people[0].user, referee_user):
        assert error_of(client_for(user).post(url), 400)["code"] == "team_pending"
    # an invitee is not yet one of the team: no check-in, no withdrawal in its name
    error_of(client_for(people[1].user).post(url), 403)
    error_of(client_for(people[1].user).post(url.replace("check-in", "withdraw")), 403)
    assert Entry.objects.get(pk=entry_id).status == Entry.Status.REGISTERED


def test_invitees_see_accept_and_then_the_team_checks_in(team_event, people):
    r = register(people[0].user, team_event, "海风", people[:3])
    assert r.json()["team"]["complete"] is False
    entry_id = r.json()["id"]
    for invitee in people[1:3]:
        [invitation] = invitations(invitee)
        assert invitation["event"] == team_event.slug
        assert invitation["team"]["name"] == "海风"
        accepted = answer(invitee, invitation["id"], "accept")
        assert accepted.status_code == 200, accepted.content
    assert accepted.json()["team"]["complete"] is True
    r = client_for(people[0].user).post(
        f"/api/v1/events/{team_event.slug}/entries/{entry_id}/check-in/")
    assert r.status_code == 200 and r.json()["status"] == "checked_in"


def test_declining_dissolves_the_team(team_event, people):
    register(people[0].user, team_event, "Maybe", people[:3])
    [invitation] = invitations(people[2])
    assert answer(people[2], invitation["id"], "decline").status_code == 204
    assert not Team.objects.filter(event=team_event).exists()
    assert not Entry.objects.filter(event=team_event).exists()
    assert invitations(people[1]) == []


def test_declining_one_invitation_keeps_the_others(team_event, people):
    register(people[0].user, team_event, "First", people[:3])
    register(people[3].user, team_event, "Second", [people[3], people[4], people[2]])
    first, second = invitations(people[2])
    assert answer(people[2], first["id"], "decline").status_code == 204
    assert [i["team"]["name"] for i in invitations(people[2])] == ["Second"]
    assert answer(people[2], second["id"], "accept").status_code == 200


def test_accepting_one_invitation_declines_the_others(team_event, people):
    register(people[0].user, team_event, "First", people[:3])
    register(people[3].user, team_event, "Second", [people[3], people[4], people[2]])
    first, second = invitations(people[2])
    assert answer(people[2], first["id"], "accept").status_code == 200
    assert list(Team.objects.filter(event=team_event).values_list("name", flat=True)) == [
        "First"]
    error_of(answer(people[2], second["id"], "accept"), 404)


def test_nobody_answers_someone_elses_invitation(team_event, people, stranger):
    register(people[0].user, team_event, "Mine", people[:3])
    [invitation] = invitations(people[1])
    for user in (people[0].user, people[3].user):
        error_of(client_for(user).post(
            f"/api/v1/players/me/invitations/{invitation['id']}/accept/"), 404)
    error_of(client_for(stranger).post(
        f"/api/v1/players/me/invitations/{invitation['id']}/decline/"), 404)
    assert TeamMember.objects.get(pk=invitation["id"]).status == TeamMember.Status.INVITED


def test_a_player_who_plays_for_a_team_cannot_be_named_again(team_event, people):
    register(people[0].user, team_event, "Settled", people[:3])
    for invitee in people[1:3]:
        answer(invitee, invitations(invitee)[0]["id"], "accept")
    r = register(people[3].user, team_event, "Poach", [people[3], people[4], people[1]])
    assert error_of(r, 409)["code"] == "already_in_team"


@pytest.mark.parametrize("who", ["organizer", "referee_user"])
def test_the_events_staff_register_a_team_without_consent(request, who, team_event, people):
    r = register(request.getfixturevalue(who), team_event, "Desk", people[:3])
    assert r.status_code == 201, r.content
    assert r.json()["team"]["complete"] is True
    assert invitations(people[1]) == []
