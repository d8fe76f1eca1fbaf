"""Two requests at once for one table apply exactly one act (PRODUCT.md, "Live play"; STYLE.md:
row lock + version compare).

``select_for_update`` is a no-op on SQLite, so these run on PostgreSQL only (``DATABASE_URL``);
the requests run in threads with their own database connections, hence ``transaction=True``.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

from engine.game import Game
from live import services as live
from live.models import LiveGame
from tests.live.helpers import act_url, bot_pick, make_live_table, server_game, token_client
from tests.pg import backends_waiting_on_locks

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def needs_row_locks(db):
    if not connection.features.has_select_for_update:
        pytest.skip("select_for_update is a no-op on this database (SQLite): the race tests "
                    "need PostgreSQL (set DATABASE_URL=postgres://…)")




def post_together(users, live_id, body, hold_lock: bool):
    """POST ``body`` from one thread per user, released together (by a barrier, or by
    releasing a row lock they all wait on); return [(status, json)]."""
    clients = [token_client(u, APIClient) for u in users]
    barrier = threading.Barrier(len(clients))
    out = [None] * len(clients)

    def run(i):
        try:
            barrier.wait(timeout=10)
            r = clients[i].post(act_url(live_id), body, format="json")
            out[i] = (r.status_code, r.json())
        except BaseException as exc:  # reported below
            out[i] = ("exception", repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    if hold_lock:
        with transaction.atomic():
            LiveGame.objects.select_for_update().get(pk=live_id)
            for t in threads:
                t.start()
            deadline = time.monotonic() + 10
            while backends_waiting_on_locks() < len(clients):
                assert time.monotonic() < deadline, "the requests did not reach the row lock"
                time.sleep(0.02)
    else:
        for t in threads:
            t.start()
    for t in threads:
        t.join(20)
    return out


@pytest.mark.parametrize("hold_lock", [True, False], ids=["released-together", "barrier"])
def test_two_simultaneous_posts_of_one_act_apply_it_once(hold_lock):
    lt = make_live_table(client_cls=APIClient)
    live_id = live.live_start(table=lt.table).pk
    for _ in range(8):  # pre-play answers and plays
        # given the seat to act and its act at the current version
        lg = LiveGame.objects.get(pk=live_id)
        game = Game.from_state(lg.state)
        seat, action = bot_pick(game, lt.bots)
        body = {"version": lg.version, **action}

        # when the seat's player sends it twice at the same moment (two connections)
        out = post_together([lt.users[seat]] * 2, live_id, body, hold_lock)

        # then exactly one is applied, the other is refused as stale
        assert sorted(str(code) for code, _ in out) == ["200", "409"], out
        refused = next(b for code, b in out if code == 409)
        assert refused["error"]["code"] == "stale_version"
        # and the state advanced by that one act only
        game.act(seat, action)
        after = LiveGame.objects.get(pk=live_id)
        assert after.version == game.version
        assert after.state == game.to_state()


def test_acts_of_two_seats_at_one_version_apply_one(db):
    lt = make_live_table(client_cls=APIClient)
    live_id = live.live_start(table=lt.table).pk
    # given the game in play: the seat to act, and another seat sending a pass at once
    while server_game(live_id).state != "play":
        lg = LiveGame.objects.get(pk=live_id)
        seat, action = bot_pick(live.live_game(lg), lt.bots)
        live.live_act(live_id=live_id, seat=seat, action=action, version=lg.version)
    lg = LiveGame.objects.get(pk=live_id)
    game = Game.from_state(lg.state)
    seat, action = bot_pick(game, lt.bots)
    other = (seat + 3) % 6
    clients = {s: token_client(lt.users[s], APIClient) for s in (seat, other)}
    bodies = {seat: {"version": lg.version, **action},
              other: {"version": lg.version, "act": "pass"}}
    out = {}
    barrier = threading.Barrier(2)

    def run(s):
        try:
            barrier.wait(timeout=10)
            r = clients[s].post(act_url(live_id), bodies[s], format="json")
            out[s] = r.status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(s,)) for s in (seat, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    # then the seat to act is applied; the other is refused (stale or not its turn)
    assert out[seat] == 200 and out[other] in (409, 422), out
    game.act(seat, action)
    assert LiveGame.objects.get(pk=live_id).state == game.to_state()
