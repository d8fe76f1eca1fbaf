"""Private links (私人链接, issue 16): issued per player of an entry, the token never stored,
re-issuing and revoking stop the old one, resolving compares in constant time."""

from __future__ import annotations

import pytest

from tests.factories import PlayerFactory
from tournaments.errors import ServiceError
from tournaments.models import PlayerLink
from tournaments.selectors import link_resolve
from tournaments.services.events import event_create
from tournaments.services.links import entry_link_issue, entry_link_revoke
from tournaments.services.players import number_claimed_by
from tournaments.services.teams import team_register

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry(checked_in_event):
    return checked_in_event.entries.order_by("pk").first()


def test_a_link_opens_its_entry_and_its_token_is_not_stored(entry):
    (link,) = entry_link_issue(entry=entry)
    token = link.token()
    assert len(token) >= 43
    assert link_resolve(token) == link
    stored = PlayerLink.objects.filter(pk=link.pk).values().get()
    assert token not in {str(v) for v in stored.values()}
    # the player has a login now, for the results they hand in through the link
    entry.player.refresh_from_db()
    assert entry.player.user.username == f"player-{entry.player.pk}"
    assert not entry.player.user.has_usable_password()


def test_reissuing_stops_the_old_token(entry):
    (old,) = entry_link_issue(entry=entry)
    old_token = old.token()
    (new,) = entry_link_issue(entry=entry)
    assert new.token() != old_token
    assert link_resolve(old_token) is None
    assert link_resolve(new.token()) == new


def test_keep_issues_only_missing_links(entry):
    (first,) = entry_link_issue(entry=entry)
    (again,) = entry_link_issue(entry=entry, keep=True)
    assert again == first and link_resolve(first.token()) == first


def test_revoking_stops_the_link(entry):
    (link,) = entry_link_issue(entry=entry)
    assert entry_link_revoke(entry=entry) == 1
    assert link_resolve(link.token()) is None
    assert entry_link_revoke(entry=entry) == 0


@pytest.mark.parametrize("token", ["", "short", "x" * 43, "é" * 43, "a" * 500])
def test_a_wrong_token_opens_nothing(entry, token):
    entry_link_issue(entry=entry)
    assert link_resolve(token) is None


def test_a_team_entry_has_a_link_per_member_and_no_outsider(db):
    event = event_create(name="Team cup", slug="team-cup", format="team")
    members = [PlayerFactory() for _ in range(3)]
    team_entry = team_register(event=event, name="Qingdao", players=members)
    links = entry_link_issue(entry=team_entry)
    assert sorted(link.player_id for link in links) == sorted(p.pk for p in members)
    with pytest.raises(ServiceError) as info:
        entry_link_issue(entry=team_entry, player=PlayerFactory())
    assert info.value.code == "not_of_entry"


def test_a_login_made_for_a_link_claims_no_number(entry):
    # an import may still match the player by number (number_claimed_by): the login
    # made for the link has never signed in; once given a password it is the player's own
    entry_link_issue(entry=entry)
    player = entry.player
    player.refresh_from_db()
    assert not number_claimed_by(player=player)
    player.user.set_password("now-they-can-sign-in")
    player.user.save()
    assert number_claimed_by(player=player)
