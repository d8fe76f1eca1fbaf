"""The database backs the one-team-per-event rule of 联邦 teams: of a player's memberships in
an event only one can be accepted, however the accepts interleave."""

from __future__ import annotations

import pytest
from django.db import IntegrityError

from tournaments.errors import Conflict
from tournaments.models import Event, TeamMember
from tournaments.services.events import event_create
from tournaments.services.players import player_create
from tournaments.services.teams import team_invitation_accept, team_register

pytestmark = pytest.mark.django_db


@pytest.fixture
def invited_twice():
    """Player 2 is invited by two teams of one event."""
    event = event_create(name="联邦 cup", slug="team-cup", format=Event.Format.TEAM)
    p = [player_create(name=f"P{i}") for i in range(5)]
    team_register(event=event, name="First", players=p[:3], registrant=p[0])
    team_register(event=event, name="Second", players=[p[3], p[4], p[2]],
                           registrant=p[3])
    first, second = TeamMember.objects.filter(player=p[2]).order_by("pk")
    return p[2], first, second


def test_the_database_refuses_a_second_accepted_membership(invited_twice):
    _player, first, second = invited_twice
    TeamMember.objects.filter(pk=first.pk).update(status=TeamMember.Status.ACCEPTED)
    with pytest.raises(IntegrityError):
        TeamMember.objects.filter(pk=second.pk).update(status=TeamMember.Status.ACCEPTED)


def test_an_accept_that_lost_the_race_is_a_conflict(invited_twice):
    # given: the first invitation was accepted by a request whose declines have not run yet
    player, first, second = invited_twice
    TeamMember.objects.filter(pk=first.pk).update(status=TeamMember.Status.ACCEPTED)

    # when / then
    with pytest.raises(Conflict) as refused:
        team_invitation_accept(membership_id=second.pk, player=player)
    assert refused.value.code == "already_in_team"
    second.refresh_from_db()
    assert second.status == TeamMember.Status.INVITED
