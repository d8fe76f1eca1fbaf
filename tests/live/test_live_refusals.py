"""Refused live acts change nothing (PRODUCT.md, "Live play": several requests at once apply
exactly one move in order; a seat acts only with its own credential).

- a stale version, and the same act sent twice (the second is stale): 409 ``stale_version``
- an illegal act: 422 with the engine's code and its error object
- a user not seated at the table (another table's player, a referee, a stranger): 403;
  a seat naming another seat in its act: 403
- an act after the game ended: 409 ``game_over``
"""

from __future__ import annotations

import pytest

from live import services as live
from live.models import LiveGame
from tests.live.helpers import (
    act_url,
    bot_pick,
    in_play,
    live_url,
    make_live_table,
    play_on_server,
    server_game,
    token_client,
)

pytestmark = pytest.mark.django_db


def snapshot(live_id):
    lg = LiveGame.objects.get(pk=live_id)
    return lg.version, lg.state, lg.status, lg.turn_deadline


def error(r, status, code=None):
    assert r.status_code == status, (r.status_code, r.content[:400])
    body = r.json()
    assert set(body) == {"error"}, body
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]


@pytest.fixture
def started(live_table):
    lg = live.live_start(table=live_table.table)
    return live_table, lg.pk


def test_a_stale_version_is_refused_and_changes_nothing(started):
    lt, live_id = started
    # given the game moved on from the version a client saw
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    old = game.version
    r = lt.clients[seat].post(act_url(live_id), {"version": old, **action}, format="json")
    assert r.status_code == 200
    before = snapshot(live_id)

    # when the next seat acts naming the old version (and a version from the future)
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    stale = lt.clients[seat].post(act_url(live_id), {"version": old, **action}, format="json")
    future = lt.clients[seat].post(act_url(live_id), {"version": game.version + 5, **action},
                                   format="json")

    # then both are refused with the current version, and nothing changed
    err = error(stale, 409, "stale_version")
    assert err["detail"] == {"version": game.version}
    error(future, 409, "stale_version")
    assert snapshot(live_id) == before


def test_the_same_act_sent_twice_is_applied_once(started):
    lt, live_id = started
    # given the seat to act and its act at the current version
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    body = {"version": game.version, **action}

    # when its client sends the same body twice (a retry after a lost response)
    first = lt.clients[seat].post(act_url(live_id), body, format="json")
    after_first = snapshot(live_id)
    second = lt.clients[seat].post(act_url(live_id), body, format="json")

    # then the first is applied, the second is stale and changes nothing
    assert first.status_code == 200 and first.json()["version"] == after_first[0]
    error(second, 409, "stale_version")
    assert snapshot(live_id) == after_first


def test_an_illegal_pre_play_act_is_refused_with_the_engines_code(started):
    lt, live_id = started
    game = server_game(live_id)
    seat = game.to_act()["seat"]
    before = snapshot(live_id)
    # when the seat asked a pre-play question answers with a play act
    r = lt.clients[seat].post(act_url(live_id), {"version": game.version, "act": "pass"},
                              format="json")
    # then 422 with the engine's code and error object, nothing changed
    err = error(r, 422, "bad_pre")
    assert err["detail"]["code"] == "bad_pre" and err["detail"]["seat"] == seat
    assert err["detail"]["message"] == err["message"]
    assert snapshot(live_id) == before


@pytest.mark.parametrize("make_act, code", [
    (lambda game, seat: {"act": "play", "cards": ["3S", "3S", "3S", "3S", "3S"]},
     "not_in_hand"),
    (lambda game, seat: {"act": "play", "cards": ["XX"]}, "bad_card"),
    (lambda game, seat: {"act": "pass"}, "not_entitled"),  # the leader cannot pass
    (lambda game, seat: {"act": "yield"}, "illegal_yield"),
    (lambda game, seat: {"act": "dance"}, "bad_format"),
    (lambda game, seat: {"act": "play", "cards": []}, None),
], ids=["not-in-hand", "bad-card", "leader-passes", "leader-yields", "unknown-act", "no-cards"])
def test_an_illegal_play_is_refused_with_the_engines_code(started, make_act, code):
    lt, live_id = started
    _, game = play_on_server(lt, live_id, until=in_play)
    seat = game.turn
    before = snapshot(live_id)
    r = lt.clients[seat].post(act_url(live_id), {"version": game.version,
                                                 **make_act(game, seat)}, format="json")
    err = error(r, 422, code)
    assert err["detail"]["code"] == err["code"]
    assert snapshot(live_id) == before


def test_a_seat_out_of_turn_is_refused(started):
    lt, live_id = started
    _, game = play_on_server(lt, live_id, until=in_play)
    other = (game.turn + 1) % 6
    card = next(iter(game.hands[other]))
    before = snapshot(live_id)
    r = lt.clients[other].post(act_url(live_id), {"version": game.version, "act": "play",
                                                  "cards": [card]}, format="json")
    err = error(r, 422)
    assert err["code"] in ("not_your_turn", "not_entitled")
    assert snapshot(live_id) == before


def test_users_not_seated_at_the_table_cannot_act(started):
    lt, live_id = started
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    body = {"version": game.version, **action}
    before = snapshot(live_id)
    # given a player seated at another table (another event), the event's referee, a stranger
    elsewhere = make_live_table()
    # when each sends the seat's act; and the public does
    for client in (elsewhere.clients[seat], lt.referee, lt.stranger):
        error(client.post(act_url(live_id), body, format="json"), 403)
    anon = lt.anon.post(act_url(live_id), body, format="json")
    # then: 403 (401 without credentials), nothing changed
    assert anon.status_code == 401, anon.status_code
    assert snapshot(live_id) == before
    # and they read only the public view
    for client in (elsewhere.clients[seat], lt.referee, lt.stranger, lt.anon):
        view = client.get(live_url(live_id)).json()
        assert view["seat"] is None and "hand" not in view and "legal" not in view


def test_a_player_cannot_act_for_the_seat_to_act(started):
    lt, live_id = started
    # given the seat to act and the act it may make
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    other = (seat + 1) % 6
    before = snapshot(live_id)
    # when the next seat's player sends that act naming the seat to act
    r = lt.clients[other].post(act_url(live_id), {"version": game.version, "seat": seat,
                                                  **action}, format="json")
    # then it is refused as acting for another seat (403), and nothing changed
    assert snapshot(live_id) == before
    error(r, 403)


def test_an_act_naming_another_seat_is_not_applied_as_the_senders(started):
    lt, live_id = started
    # given the seat to act and its legal act
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    other = (seat + 1) % 6
    before = snapshot(live_id)
    # when its client sends the act but names another seat (the engine refuses such an act:
    # "the act names another seat")
    r = lt.clients[seat].post(act_url(live_id), {"version": game.version, "seat": other,
                                                 **action}, format="json")
    # then it is refused and nothing changed
    assert r.status_code != 200, f"an act naming seat {other} was applied as seat {seat}'s"
    assert snapshot(live_id) == before
    error(r, 403)


def test_an_act_after_the_game_ended_is_refused(started):
    lt, live_id = started
    # given a game played to its end
    play_on_server(lt, live_id)
    before = snapshot(live_id)
    assert before[2] == LiveGame.Status.FINISHED
    # when a seat acts at the final version (and at an old one)
    for seat in range(6):
        for version in (before[0], before[0] - 1):
            r = lt.clients[seat].post(act_url(live_id), {"version": version, "act": "pass"},
                                      format="json")
            error(r, 409, "game_over")
    # then nothing changed
    assert snapshot(live_id) == before


@pytest.mark.parametrize("body, status", [
    ({"act": "pass"}, 400),  # no version
    ({"version": "x", "act": "pass"}, 400),
    ({"version": -1, "act": "pass"}, 400),
    ({"version": 0, "act": "pa\u0000ss"}, 400),
    ({"version": 0, "act": "play", "cards": "3S"}, 400),
])
def test_malformed_acts_are_refused_in_the_api_error_shape(started, body, status):
    lt, live_id = started
    before = snapshot(live_id)
    error(lt.clients[0].post(act_url(live_id), body, format="json"), status)
    assert snapshot(live_id) == before


def test_a_hidden_events_live_game_is_not_found_for_the_public(started):
    from tournaments.services.events import event_publish

    lt, live_id = started
    event_publish(event=lt.event, published=False)
    error(lt.anon.get(live_url(live_id)), 404)
    error(token_client(None).get(live_url(live_id + 10**6)), 404)


def test_a_seated_player_acts_only_once_the_seating_is_published(started):
    from tournaments.models import Round

    lt, live_id = started
    game = server_game(live_id)
    seat, action = bot_pick(game, lt.bots)
    # given the round's seating taken back to "drawn" (not published: players may not see it)
    Round.objects.filter(tables=lt.table).update(status=Round.Status.DRAWN)
    before = snapshot(live_id)
    # when the seat to act sends its act
    r = lt.clients[seat].post(act_url(live_id), {"version": game.version, **action},
                              format="json")
    # then the table is not found for them (as its other pages) and nothing changed
    error(r, 404)
    assert snapshot(live_id) == before


def test_an_act_on_a_game_that_does_not_exist_is_not_found(started):
    lt, live_id = started
    r = lt.clients[0].post(act_url(live_id + 1000), {"version": 0, "act": "pass"},
                           format="json")
    error(r, 404, "not_found")
