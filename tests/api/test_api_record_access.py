"""Who may see a game's record (all six dealt hands and every act): one rule
(``games.selectors.RecordAccess``) for the API, the pages and the spectators' poll. Until the
result counts (confirmed), only the event's staff and the players seated at the table see it;
then everyone who may see the table."""

from __future__ import annotations

import random

import pytest
from django.test import Client as PageClient

from engine.bots import play_match
from games import services as game_services
from games.models import GameResult
from tests.api.helpers import client_for, seats_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def record():
    """A real game's record, played by the engine's bots."""
    return play_match("dagang", 1, random.Random(11))[0].record()


@pytest.fixture
def submitted(table, record):
    """Game 1 of ``table`` submitted by seat 0 as a full record, not confirmed yet."""
    seats = seats_of(table)
    return game_services.result_submit(table=table, number=1, record=record, sheet=None,
                                       by=seats[0].player.user)


def _deal_shown(data) -> bool:
    """Whether any dealt hand appears anywhere in an API answer."""
    def walk(value):
        if isinstance(value, dict):
            return "deal" in value or any(walk(v) for v in value.values())
        if isinstance(value, list):
            return any(walk(v) for v in value)
        return False
    return walk(data)


def _replay_url(table, number=1) -> str:
    rnd = table.round
    return (f"/e/{rnd.event.slug}/rounds/{rnd.number}/tables/{table.number}/games/{number}"
            f"/replay.json")


def _api_reads(user, table, result) -> list:
    client = client_for(user)
    return [client.get(f"/api/v1/results/{result.pk}/"),
            client.get(f"/api/v1/tables/{table.pk}/results/")]


def test_an_unconfirmed_record_is_hidden_from_the_public_and_other_tables(
        table, other_table, submitted, stranger):
    # given a record submitted at a table and not confirmed
    outsider = seats_of(other_table)[0].player.user  # (seated, at another table)
    for user in (None, stranger, outsider):
        # when anyone who is neither staff nor seated there reads it
        for response in _api_reads(user, table, submitted):
            # then the result is there, its record is not
            assert response.status_code == 200, response.content[:300]
            assert not _deal_shown(response.json()), user
        body = client_for(user).get(f"/api/v1/results/{submitted.pk}/").json()
        assert body["versions"][0]["kind"] == "record"
        assert body["versions"][0]["payload"] is None
        assert body["versions"][0]["engine_result"]["places"]  # (the result itself is public)
    # and the replay is not served to them either
    assert PageClient().get(_replay_url(table)).status_code == 404


def test_the_staff_and_the_table_see_the_record_before_it_is_confirmed(
        table, submitted, record, referee_user, organizer):
    seats = seats_of(table)
    for user in (referee_user, organizer, seats[1].player.user, seats[0].player.user):
        for response in _api_reads(user, table, submitted):
            assert response.status_code == 200
            body = response.json()
            version = (body if isinstance(body, dict) else body[0])["versions"][0]
            assert version["payload"]["deal"] == record["deal"], user
    # the other 联邦's player, signed in, can open the replay to check it before confirming
    page = PageClient()
    page.force_login(seats[1].player.user)
    assert page.get(_replay_url(table)).status_code == 200


def test_a_confirmed_record_is_public(table, submitted, record):
    # given the other 联邦 confirmed the record
    seats = seats_of(table)
    game_services.result_confirm(result=submitted, by=seats[1].player.user)
    assert GameResult.objects.get(pk=submitted.pk).status == GameResult.Status.CONFIRMED
    # then anyone reads it, and its replay opens
    for response in _api_reads(None, table, submitted):
        assert _deal_shown(response.json())
    assert PageClient().get(_replay_url(table)).status_code == 200


def test_a_disputed_record_stays_hidden(table, submitted):
    seats = seats_of(table)
    game_services.result_dispute(result=submitted, by=seats[1].player.user, reason="not so")
    for response in _api_reads(None, table, submitted):
        assert not _deal_shown(response.json())
    assert PageClient().get(_replay_url(table)).status_code == 404


def test_a_proposed_record_is_shown_only_to_the_staff_and_the_table(
        table, record, referee_user):
    # given a confirmed result sheet, and a player's proposed correction as a full record
    seats = seats_of(table)
    result = game_services.result_submit(
        table=table, number=1, sheet={"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6},
        record=None, by=seats[0].player.user)
    game_services.result_confirm(result=result, by=seats[1].player.user)
    game_services.result_correct(result=GameResult.objects.get(pk=result.pk),
                                 reason="the record", record=record, sheet=None,
                                 by=seats[0].player.user, as_referee=False)
    # then the public sees that a correction is proposed, not its cards
    body = client_for(None).get(f"/api/v1/results/{result.pk}/").json()
    assert body["proposal"]["kind"] == "record"
    assert body["proposal"]["submission"] is None
    assert not _deal_shown(body)
    # and the staff and the table see the cards
    for user in (referee_user, seats[1].player.user):
        body = client_for(user).get(f"/api/v1/results/{result.pk}/").json()
        assert body["proposal"]["submission"]["deal"] == record["deal"]
