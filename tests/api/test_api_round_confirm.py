"""A referee confirms every result of a round awaiting confirmation in one request and one
transaction (``games.services.round_results_confirm``): disputed results are left for the
referee to settle one by one, confirmed ones keep their confirmer, the standings follow."""

from __future__ import annotations

import pytest

from games.models import GameResult
from tests.api.helpers import client_for, error_of, seats_of, sheet
from tournaments.models import Standing

pytestmark = pytest.mark.django_db


def confirm_round_url(rnd):
    return f"/api/v1/events/{rnd.event.slug}/rounds/{rnd.number}/confirm/"


def submit(user, table, number, order):
    r = client_for(user).post(f"/api/v1/tables/{table.pk}/results/",
                              {"number": number, "sheet": sheet(order)}, format="json")
    assert r.status_code == 201, r.content
    return r.json()["id"]


@pytest.fixture
def round_submitted(published_round, table, other_table):
    """Both games of both tables submitted by seat 0; table 2's game 2 disputed, table 1's
    game 2 confirmed by the other side."""
    ids = {}
    for t in (table, other_table):
        seated = [s.player.user for s in seats_of(t)]
        for number in (1, 2):
            ids[t.number, number] = submit(seated[0], t, number, [0, 1, 2, 3, 4, 5])
    t1 = [s.player.user for s in seats_of(table)]
    t2 = [s.player.user for s in seats_of(other_table)]
    assert client_for(t1[1]).post(f"/api/v1/results/{ids[1, 2]}/confirm/").status_code == 200
    assert client_for(t2[1]).post(f"/api/v1/results/{ids[2, 2]}/dispute/",
                                  {"reason": "wrong order"}, format="json").status_code == 200
    return ids, t1[1]


def test_a_referee_confirms_the_round_in_one_request(published_round, round_submitted,
                                                     referee_user):
    ids, confirmer = round_submitted
    r = client_for(referee_user).post(confirm_round_url(published_round))
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["confirmed"], body["disputed"]) == (2, 1)
    assert sorted(body["results"]) == sorted([ids[1, 1], ids[2, 1]])
    status = dict(GameResult.objects.values_list("pk", "status"))
    assert [status[ids[k]] for k in sorted(ids)] == [
        "confirmed", "confirmed", "confirmed", "disputed"]
    by = dict(GameResult.objects.values_list("pk", "confirmed_by__username"))
    assert (by[ids[1, 1]], by[ids[2, 1]], by[ids[1, 2]]) == (
        referee_user.username, referee_user.username, confirmer.username)
    # the standings followed on commit
    assert Standing.objects.filter(event=published_round.event, points__gt=0).exists()
    # and again: nothing is waiting any more
    again = client_for(referee_user).post(confirm_round_url(published_round)).json()
    assert (again["confirmed"], again["results"], again["disputed"]) == (0, [], 1)


@pytest.mark.parametrize("who", ["player", "other_referee", "stranger"])
def test_only_the_events_referees_confirm_a_round(published_round, round_submitted, user_of,
                                                  who):
    before = list(GameResult.objects.order_by("pk").values_list("status", flat=True))
    error_of(client_for(user_of(who)).post(confirm_round_url(published_round)), 403)
    assert list(GameResult.objects.order_by("pk").values_list("status", flat=True)) == before


def test_anonymous_cannot_confirm_a_round(published_round):
    assert client_for(None).post(confirm_round_url(published_round)).status_code == 401
