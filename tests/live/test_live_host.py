"""托管 switched on: ``POST /api/v1/live/<id>/host/`` (``live.services.live_host``). A seated player
hands their own seat to the bot, or a referee an absent player's; the bot then plays the seat's
turns as they come (after ``HOSTED_SECONDS``, not the move time), marked ``auto``, until the
seat is given back or its player acts. Without a broker, ``live_tick`` plays the hosted turns;
with one, the timer is queued for the hosted turn's short deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from live import services as live
from live.models import LiveGame
from tests.live.helpers import (
    act_url,
    all_ready,
    bot_pick,
    in_play,
    live_url,
    play_on_server,
    start_url,
    warm_game,
)

pytestmark = pytest.mark.django_db


def host_url(live_id: int) -> str:
    return f"/api/v1/live/{live_id}/host/"


@pytest.fixture
def in_play_game(live_table):
    """A game (60 s move time) played by the bots up to its first play: (table, row, game)."""
    all_ready(live_table)
    r = live_table.clients[0].post(start_url(live_table.table.pk), {}, format="json")
    assert r.status_code == 201, r.content
    lg, game = play_on_server(live_table, r.json()["id"], until=in_play)
    return live_table, lg, game


@pytest.fixture
def no_pause(monkeypatch):
    """Hosted turns are due at once (not after HOSTED_SECONDS): no test waits for them."""
    monkeypatch.setattr(live, "HOSTED_SECONDS", 0.0)


def play_with_hosted(lt, live_id, seat, turns=400) -> LiveGame:
    """Play on: the bot of ``live_tick`` (``live_autoplay_overdue``) for the hosted ``seat``,
    in time for the others; until the game is over."""
    for _ in range(turns):
        live.live_autoplay_overdue()
        row = LiveGame.objects.get(pk=live_id)
        game = live.live_game(row)
        if game.state == "over":
            return row
        turn = game.to_act()["seat"]
        if turn != seat:
            other, action = bot_pick(game, lt.bots)
            if other == seat:  # the bots would burn (烧牌) with the hosted seat: its player's
                # own act, which takes the seat back from 托管; the seat to act plays instead
                other, action = turn, lt.bots[turn].choose(game, turn)
            live.live_act(live_id=live_id, seat=other, action=action, version=row.version)
    raise AssertionError("the game did not end")


def test_a_player_hands_their_seat_to_the_bot_and_it_plays_as_its_turns_come(in_play_game):
    lt, lg, game = in_play_game
    seat = game.to_act()["seat"]
    # when the seat to act switches 托管 on
    r = lt.clients[seat].post(host_url(lg.pk), {"on": True}, format="json")
    assert r.status_code == 200, r.content
    view = r.json()
    # then nothing was played by the switch, and its turn is due in HOSTED_SECONDS, not 60 s
    assert view["version"] == lg.version and view["hosted_seats"] == [seat]
    deadline = LiveGame.objects.get(pk=lg.pk).turn_deadline
    assert deadline <= timezone.now() + timedelta(seconds=live.HOSTED_SECONDS)


def test_the_bot_plays_every_turn_of_a_hosted_seat_to_the_end(in_play_game, no_pause):
    lt, lg, game = in_play_game
    seat = game.to_act()["seat"]
    acted_before = sum(1 for a in game.actions if a["seat"] == seat)
    live.live_host(live_id=lg.pk, seat=seat, on=True, user=lt.users[seat])
    row = play_with_hosted(lt, lg.pk, seat)
    game = live.live_game(row)
    hosted = [a for a in game.actions if a["seat"] == seat][acted_before:]
    assert len(hosted) >= 3 and all(a.get("auto") for a in hosted), hosted
    assert row.status == LiveGame.Status.FINISHED and row.hosted == 1 << seat


def test_the_players_own_act_takes_the_seat_back(in_play_game):
    lt, lg, game = in_play_game
    seat = game.to_act()["seat"]
    live.live_host(live_id=lg.pk, seat=seat, on=True, user=lt.users[seat])
    # when the player acts before the bot does
    _seat, action = bot_pick(game, lt.bots)
    r = lt.clients[seat].post(act_url(lg.pk), {"version": lg.version, **action}, format="json")
    # then the act is theirs (not auto) and 托管 is off again, with the move time for the rest
    assert r.status_code == 200, r.content
    assert r.json()["hosted_seats"] == []
    assert not live.live_game(LiveGame.objects.get(pk=lg.pk)).actions[-1].get("auto")


def test_switching_it_off_gives_the_turn_its_move_time_again(in_play_game):
    lt, lg, game = in_play_game
    seat = game.to_act()["seat"]
    lt.clients[seat].post(host_url(lg.pk), {"on": True}, format="json")
    r = lt.clients[seat].post(host_url(lg.pk), {"on": False}, format="json")
    assert r.status_code == 200 and r.json()["hosted_seats"] == []
    row = LiveGame.objects.get(pk=lg.pk)
    assert row.turn_deadline > timezone.now() + timedelta(seconds=50)
    assert row.version == lg.version


def test_a_conditional_get_sees_the_switch(in_play_game):
    lt, lg, _game = in_play_game
    etag = lt.clients[1].get(live_url(lg.pk))["ETag"]
    live.live_host(live_id=lg.pk, seat=2, on=True, referee=True)
    r = lt.clients[1].get(live_url(lg.pk), HTTP_IF_NONE_MATCH=etag)
    assert r.status_code == 200 and r.json()["hosted_seats"] == [2]
    live.live_host(live_id=lg.pk, seat=2, on=False, referee=True)
    r = lt.clients[1].get(live_url(lg.pk), HTTP_IF_NONE_MATCH=etag)
    assert r.status_code == 304  # as it was


def test_a_referee_hosts_an_absent_players_seat_and_sees_no_cards(in_play_game):
    lt, lg, game = in_play_game
    absent = (game.to_act()["seat"] + 1) % 6
    r = lt.referee.post(host_url(lg.pk), {"on": True, "seat": absent}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["hosted_seats"] == [absent]
    assert r.json()["seat"] is None and "hand" not in r.json()  # the public view
    # a referee must name the seat
    r = lt.referee.post(host_url(lg.pk), {"on": True}, format="json")
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_seat")


@pytest.mark.parametrize("who, body, status, code", [
    ("other player", {"on": True, "seat": "theirs"}, 403, "not_your_seat"),
    ("stranger", {"on": True}, 403, "not_seated"),
    ("anonymous", {"on": True}, 401, None),
    ("player", {"on": "maybe"}, 400, None),
    ("player", {}, 400, None),
    ("player", {"on": True, "seat": 6}, 400, None),
])
def test_who_may_switch_it_and_bad_requests_change_nothing(in_play_game, who, body, status,
                                                            code):
    lt, lg, game = in_play_game
    seat = game.to_act()["seat"]
    client = {"other player": lt.clients[(seat + 1) % 6], "stranger": lt.stranger,
              "anonymous": lt.anon, "player": lt.clients[seat]}[who]
    if body.get("seat") == "theirs":
        body = dict(body, seat=seat)
    before = LiveGame.objects.values("hosted", "turn_deadline", "version").get(pk=lg.pk)
    r = client.post(host_url(lg.pk), body, format="json")
    assert r.status_code == status, r.content
    if code:
        assert r.json()["error"]["code"] == code
    assert LiveGame.objects.values("hosted", "turn_deadline", "version").get(pk=lg.pk) == before


def test_after_the_game_it_is_refused(live_table):
    live_id = live.live_start(table=live_table.table).pk
    play_on_server(live_table, live_id)
    r = live_table.clients[0].post(host_url(live_id), {"on": True}, format="json")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "game_over")


def test_a_hosted_seat_stays_hosted_in_the_matchs_next_game(live_table, no_pause):
    lt = live_table
    first = live.live_start(table=lt.table).pk
    live.live_host(live_id=first, seat=4, on=True, referee=True)
    play_with_hosted(lt, first, 4)
    second = live.live_start(table=lt.table)
    assert second.hosted == 1 << 4
    view = lt.clients[0].get(live_url(second.pk)).json()
    assert view["hosted_seats"] == [4]


def _locked_read(queries) -> bool:
    return any(q["sql"].startswith("SELECT lg.") for q in queries)  # live.locks.lock_live


@pytest.mark.django_db(transaction=True)  # the cache is filled on commit
def test_a_game_with_a_hosted_seat_is_played_under_the_lock(live_table):
    # given a game whose acts take the unlocked path (one conditional update)
    lt = live_table
    lg, game = warm_game(lt)
    seat, action = bot_pick(game, lt.bots)
    absent = (seat + 1) % 6
    # when a seat is hosted, then the act that hands it the turn reads the row under the lock,
    # and gives the hosted turn its short deadline
    live.live_host(live_id=lg.pk, seat=absent, on=True, referee=True)
    with CaptureQueriesContext(connection) as queries:
        moved = live.live_act(live_id=lg.pk, user=lt.users[seat], action=action,
                              version=lg.version)
    sql = [q["sql"] for q in queries if q["sql"].split(None, 1)[0] in ("SELECT", "UPDATE")]
    assert sql[0].startswith("SELECT lg."), sql  # no unlocked update tried first, in vain
    if live.live_game(moved).to_act()["seat"] == absent:
        assert moved.turn_deadline <= timezone.now() + timedelta(seconds=live.HOSTED_SECONDS)
    # and when it is given back, acts are one conditional update again
    live.live_host(live_id=lg.pk, seat=absent, on=False, referee=True)
    row = LiveGame.objects.get(pk=lg.pk)
    seat, action = bot_pick(live.live_game(row), lt.bots)
    with CaptureQueriesContext(connection) as queries:
        live.live_act(live_id=lg.pk, user=lt.users[seat], action=action, version=row.version)
    assert not _locked_read(queries), [q["sql"][:60] for q in queries]


@pytest.mark.django_db(transaction=True)
def test_a_seat_hosted_by_another_process_is_not_missed_by_the_unlocked_update(live_table):
    # given a game this process knows without a hosted seat
    lt = live_table
    lg, game = warm_game(lt)
    seat, action = bot_pick(game, lt.bots)
    # when another process hosts the seat whose turn comes next
    after = live.live_game(lg)
    after.act(seat, dict(action))
    nxt = after.to_act()["seat"]
    LiveGame.objects.filter(pk=lg.pk).update(hosted=1 << nxt)
    # then this process's act is refused by the update and made under the lock, which gives the
    # hosted turn its short deadline
    with CaptureQueriesContext(connection) as queries:
        moved = live.live_act(live_id=lg.pk, user=lt.users[seat], action=action,
                              version=lg.version)
    assert _locked_read(queries)
    assert moved.turn_deadline <= timezone.now() + timedelta(seconds=live.HOSTED_SECONDS)


def test_with_a_broker_the_hosted_turn_gets_its_own_timer(started_with_broker, monkeypatch,
                                                          django_capture_on_commit_callbacks):
    lt, live_id, queued = started_with_broker
    with django_capture_on_commit_callbacks(execute=True):
        lg, game = play_on_server(lt, live_id, until=in_play)
    seat = game.to_act()["seat"]
    # when the seat to act is hosted, a timer is queued for its short deadline
    with django_capture_on_commit_callbacks(execute=True):
        live.live_host(live_id=live_id, seat=seat, on=True, user=lt.users[seat])
    assert queued[-1] == ((live_id, lg.version), round(live.HOSTED_SECONDS))
    # and when another seat's act hands the turn to a hosted seat, so is one for that turn
    nxt = (seat + 1) % 6
    with django_capture_on_commit_callbacks(execute=True):
        live.live_host(live_id=live_id, seat=nxt, on=True, referee=True)
        moved = live.live_timer(live_id=live_id, version=lg.version)  # not due yet
    assert moved is False
    monkeypatch.setattr(live, "HOSTED_SECONDS", 0.0)
    LiveGame.objects.filter(pk=live_id).update(turn_deadline=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        assert live.live_timer(live_id=live_id, version=lg.version) is True
    row = LiveGame.objects.get(pk=live_id)
    to_act = live.live_game(row).to_act()
    if to_act is not None and row.hosted >> to_act["seat"] & 1:
        assert ((live_id, row.version), 0) in queued
