"""The roles table of docs/SECURITY.md, pinned (issue 51, item 10): organizers confirm
results, for their role includes the referee's (``tournaments.selectors.is_referee``), and
the table says so. Each claim the organizer's and the referee's rows make of results is done
here by an organizer who is not among the event's referees, and by a superuser; the rows'
words are checked too, so that the table and the code change together."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.models import GameResult
from tests.api.helpers import client_for, seats_of, sheet
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SECURITY = Path(__file__).resolve().parents[2] / "docs" / "SECURITY.md"
FIRST, OTHER = sheet([0, 1, 2, 3, 4, 5]), sheet([1, 0, 3, 2, 5, 4])


def roles_table() -> dict[str, dict[str, str]]:
    """The rows of SECURITY.md's "Roles" table: who → {"see": …, "change": …}."""
    text = SECURITY.read_text(encoding="utf-8").split("## Roles", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split(" | ")]
            for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| ---")]
    assert rows[0] == ["who", "may see", "may change"]
    return {who: {"see": see, "change": change} for who, see, change in rows[1:]}


def test_the_roles_table_says_an_organizers_role_includes_the_referees():
    roles = roles_table()
    organizer = roles["an organizer (per event)"]["change"]
    assert organizer.startswith("everything a referee may")
    assert "`tournaments.selectors.is_referee`" in organizer
    assert "a superuser organizes every event" in organizer
    referee = roles["a referee (per event)"]["change"]
    for claim in ("submit and confirm any result of the event", "correct one (stands confirmed)",
                  "settle disputes", "accept or decline proposals", "penalties"):
        assert claim in referee, claim
    # and the players' rows say that a later round's draw closes a round to them
    assert "until a later round is drawn" in roles["a player (a login with a player profile)"][
        "change"]
    assert "until a later round is drawn" in roles["a private link's holder (`/p/<token>/`)"][
        "change"]


@pytest.fixture(params=["organizer", "superuser"])
def organizer_only(request, event):
    """An organizer of the event who is not one of its referees, or a superuser (of no
    event's staff at all)."""
    if request.param == "superuser":
        return UserFactory(username="root", is_superuser=True, is_staff=True)
    user = UserFactory(username="organizer-only")
    event.organizers.add(user)
    assert not event.referees.filter(pk=user.pk).exists()
    return user


def test_an_organizer_does_with_results_what_a_referee_may(organizer_only, event, table):
    api, players = client_for(organizer_only), [s.player.user for s in seats_of(table)]
    # submit and confirm any result of the event
    r = api.post(f"/api/v1/tables/{table.pk}/results/", {"number": 1, "sheet": FIRST},
                 format="json")
    assert r.status_code == 201, r.content
    game_1 = r.json()["id"]
    r = api.post(f"/api/v1/results/{game_1}/confirm/")
    assert r.status_code == 200, r.content
    assert (r.json()["status"], r.json()["confirmed_by"]) == ("confirmed",
                                                             organizer_only.username)
    # correct one: it stands confirmed
    r = api.post(f"/api/v1/results/{game_1}/correct/", {"reason": "misread", "sheet": OTHER},
                 format="json")
    assert (r.status_code, r.json()["status"], r.json()["version"]) == (200, "confirmed", 2)
    # settle a dispute
    r = client_for(players[0]).post(f"/api/v1/tables/{table.pk}/results/",
                                    {"number": 2, "sheet": FIRST}, format="json")
    game_2 = r.json()["id"]
    r = client_for(players[1]).post(f"/api/v1/results/{game_2}/dispute/",
                                    {"reason": "seat 2 went out first"}, format="json")
    assert r.json()["status"] == "disputed"
    r = api.post(f"/api/v1/results/{game_2}/confirm/", {"reason": "the sheet is signed"},
                 format="json")
    assert (r.status_code, r.json()["status"]) == (200, "confirmed")
    # accept a proposed correction
    r = client_for(players[5]).post(f"/api/v1/results/{game_2}/correct/",
                                    {"reason": "I went out first", "sheet": OTHER},
                                    format="json")
    assert r.status_code == 202, r.content
    r = api.post(f"/api/v1/results/{game_2}/proposals/{r.json()['proposal']['id']}/accept/")
    assert (r.status_code, r.json()["version"]) == (200, 2)
    # give a penalty
    r = api.post(f"/api/v1/events/{event.slug}/penalties/",
                 {"kind": "warning", "reason": "slow play",
                  "entry_id": seats_of(table)[0].entry_id}, format="json")
    assert r.status_code == 201, r.content
    assert GameResult.objects.filter(table=table, status="confirmed").count() == 2
