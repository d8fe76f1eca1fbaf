"""Fault: a live table hammered with concurrent stale actions (PRODUCT.md, "Live play": several
requests at once for one table must apply exactly one move, in order).

One live game is played to its end by bots behind the HTTP API. At every hammered step, K
requests are released together (a barrier; on some steps a row lock held by the test that they
all queue on): the one correct act at the current version, duplicates of it, the same act at
stale versions (version - 1, version - 5), a late retry of the previous step's act, the same
act sent by a seat whose turn it is not, by the acting player naming another seat, and by a
logged-in stranger. Each step exactly one request is applied; the rest are refused (409 stale or
game over, 422 the engine's refusal, 403) — never a server error — and the server's state is the
game with exactly that one act applied. At the end the stored record replays to the stored
result, and the table has exactly one result for the game.

``select_for_update`` is a no-op on SQLite, so this runs on PostgreSQL only (``DATABASE_URL``);
requests run in threads with their own database connections, hence ``transaction=True``.
"""

from __future__ import annotations

import functools
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest
from django.core.cache import cache
from django.db import connection, connections, transaction
from rest_framework.test import APIClient

import engine
from engine.game import RESULT_KEYS, Game
from games.models import GameResult, GameResultVersion
from live import deals as live_deals
from live import services as live
from live.models import LiveGame
from tests.factories import UserFactory
from tests.live.helpers import act_url, bot_pick, make_live_table, token_client
from tests.pg import backends_waiting_on_locks

pytestmark = pytest.mark.django_db(transaction=True)

#: requests sent at once at a hammered step (worker threads)
K = 8
#: every HOLD_EVERY-th hammered step the requests queue on a row lock the test holds and are
#: released together; the other steps they are released by a barrier
HOLD_EVERY = 10
#: refusals besides the engine's (422 with its own code): status -> error codes
REFUSALS = {409: {"stale_version", "game_over"}, 403: {"not_seated", "not_your_seat"}}
#: the requests refused before the row lock (403)
FORBIDDEN_KINDS = {"names a seat", "stranger"}


@pytest.fixture(autouse=True)
def needs_row_locks(db):
    if not connection.features.has_select_for_update:
        pytest.skip("select_for_update is a no-op on this database (SQLite): the live hammer "
                    "needs PostgreSQL (set DATABASE_URL=postgres://…)")


@pytest.fixture(autouse=True)
def _eager_and_fresh_cache(settings):
    """As tests/live/conftest.py: Celery in-process (no 托管 countdown on a broker nobody
    drains) and empty throttle counters."""
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    cache.clear()
    yield
    cache.clear()
    app.conf.task_always_eager = saved


@pytest.fixture
def seeded_deals(monkeypatch):
    """Deal from a seeded generator instead of ``secrets.SystemRandom`` (live/deals.py), so
    every run hammers the same full-length games (a random deal may be void, 流局)."""
    rng = random.Random(20240611)
    monkeypatch.setattr(live_deals, "derive_deal", lambda _seed, _label: engine.deal(rng))


class Hammer:
    """K worker threads that keep their database connections and API clients between steps
    and send one batch of requests at a time, released together by a barrier."""

    def __init__(self, k: int, live_id: int):
        self.k = k
        self.live_id = live_id
        self.pool = ThreadPoolExecutor(max_workers=k, thread_name_prefix="hammer")
        self.local = threading.local()

    def _client(self, user) -> APIClient:
        clients = self.local.__dict__.setdefault("clients", {})
        if user.pk not in clients:
            clients[user.pk] = token_client(
                user, functools.partial(APIClient, raise_request_exception=False))
        return clients[user.pk]

    def _send(self, barrier, user, body):
        try:
            barrier.wait(timeout=20)
            r = self._client(user).post(act_url(self.live_id), body, format="json")
            try:
                data = r.json()
            except ValueError:
                data = r.content[:300]
            return r.status_code, data
        except BaseException as exc:  # reported by the caller
            return "exception", repr(exc)

    def batch(self, requests, hold_lock: bool = False, reach_lock: int = 0):
        """Send ``requests`` ([(user, body)], at most ``k``) at once; with ``hold_lock``, hold
        the game's row lock until ``reach_lock`` of them wait on it. Returns [(status, json)]."""
        assert len(requests) <= self.k
        barrier = threading.Barrier(len(requests))
        if not hold_lock:
            futures = [self.pool.submit(self._send, barrier, u, b) for u, b in requests]
            return [f.result(timeout=60) for f in futures]
        with transaction.atomic():
            LiveGame.objects.select_for_update().get(pk=self.live_id)
            futures = [self.pool.submit(self._send, barrier, u, b) for u, b in requests]
            deadline = time.monotonic() + 10
            while backends_waiting_on_locks() < reach_lock:
                assert time.monotonic() < deadline, "the requests did not reach the row lock"
                time.sleep(0.01)
        return [f.result(timeout=60) for f in futures]

    def close(self):
        """Close each worker's database connection (in that worker's thread), then stop."""
        barrier = threading.Barrier(self.k)

        def close_own():
            barrier.wait(timeout=20)
            connections.close_all()

        for f in [self.pool.submit(close_own) for _ in range(self.k)]:
            f.result(timeout=30)
        self.pool.shutdown(wait=True)


@dataclass
class Hammered:
    live_id: int
    start_version: int
    steps: int = 0
    hammered: int = 0
    accepted: list = field(default_factory=list)  # (seat, act, "pre" | "play"), in order
    winners: Counter = field(default_factory=Counter)  # kind of request applied
    outcomes: Counter = field(default_factory=Counter)  # (kind, status, code) of the others
    problems: list = field(default_factory=list)


def hammer_game(lt, live_id: int, stranger, hammer_when) -> Hammered:
    """Play game ``live_id`` to its end through the API; at each step where
    ``hammer_when(step, game, ends)`` holds, send the right act together with its duplicates,
    stale versions, a late retry of the last act and wrong seats (see the module docstring).
    Check each step as it goes; return what happened."""
    users = lt.users
    out = Hammered(live_id=live_id, start_version=LiveGame.objects.get(pk=live_id).version)
    hammer = Hammer(K, live_id)
    previous = None  # (user, body) of the last applied act
    try:
        while True:
            lg = LiveGame.objects.get(pk=live_id)
            if lg.status == LiveGame.Status.FINISHED:
                return out
            assert out.steps < 2000, "the game did not end"
            game = Game.from_state(lg.state)
            assert game.version == lg.version
            seat, action = bot_pick(game, lt.bots)
            peek = Game.from_state(lg.state)
            peek.act(seat, dict(action))
            ends = peek.state == "over"
            v = lg.version
            right = {"version": v, **action}
            requests = [("right", users[seat], right)]
            if hammer_when(out.steps, game, ends):
                out.hammered += 1
                wrong = (seat + 1) % 6
                requests += [
                    ("duplicate", users[seat], dict(right)),  # double tap, retry
                    ("other seat", users[wrong], dict(right)),  # not its turn (or no cards)
                    ("names a seat", users[seat], {**right, "seat": wrong}),  # 403
                    ("stranger", stranger, dict(right)),  # not seated: 403
                ]
                requests += [(f"version-{d}", users[seat], {**right, "version": v - d})
                             for d in (1, 5) if v - d >= 0]
                if previous is not None:
                    requests.append(("late retry", *previous))
            hold = out.hammered % HOLD_EVERY == 0 and len(requests) > 1
            reach = sum(1 for kind, _, _ in requests if kind not in FORBIDDEN_KINDS)
            answers = hammer.batch([(u, b) for _, u, b in requests], hold_lock=hold,
                                   reach_lock=reach)
            out.steps += 1

            # exactly one request applied; every other one refused, never a server error
            ok = [i for i, (code, _) in enumerate(answers) if code == 200]
            if len(ok) != 1:
                out.problems.append((out.steps, f"{len(ok)} applied", answers))
                return out
            for i, (code, body) in enumerate(answers):
                if i == ok[0]:
                    continue
                kind = requests[i][0]
                err = body.get("error", {}) if isinstance(body, dict) else {}
                out.outcomes[kind, code, err.get("code")] += 1
                if code == 422:  # the engine's refusal, with its own code
                    if kind in FORBIDDEN_KINDS or err.get("detail", {}).get("code") != err.get(
                            "code"):
                        out.problems.append((out.steps, kind, code, body))
                elif err.get("code") not in REFUSALS.get(code, ()) or (
                        code == 403) != (kind in FORBIDDEN_KINDS):
                    out.problems.append((out.steps, kind, code, body))
            kind, winner_user, winner_body = requests[ok[0]]
            out.winners[kind] += 1
            assert kind not in FORBIDDEN_KINDS and winner_body["version"] == v, (
                out.steps, kind, winner_body, v)

            # the server's game is the game before the step with exactly that one act applied
            phase = game.state
            act = {k: x for k, x in winner_body.items() if k != "version"}
            winner_seat = users.index(winner_user)
            game.act(winner_seat, dict(act))
            after = LiveGame.objects.get(pk=live_id)
            assert after.version == game.version, (out.steps, after.version, game.version)
            assert after.state == game.to_state(), out.steps
            if phase == "play":  # a play act moves the version on by exactly one
                assert after.version == v + 1, (out.steps, v, after.version)
            else:  # a pre-play answer also counts the pre-play events it sets off
                assert after.version > v, (out.steps, v, after.version)
            out.accepted.append((winner_seat, act, phase))
            previous = (winner_user, winner_body)
    finally:
        hammer.close()


def check_finished(lt, played: Hammered) -> GameResult:
    """The finished game: exactly one result, system-recorded and confirmed, whose stored
    record holds every applied play act once, in order, and replays to the stored result."""
    assert not played.problems, played.problems[:10]
    lg = LiveGame.objects.get(pk=played.live_id)
    assert lg.status == LiveGame.Status.FINISHED and lg.result_id is not None
    results = GameResult.objects.filter(table=lt.table, number=lg.number)
    assert results.count() == 1
    result = results.get()
    assert result.pk == lg.result_id and result.version == 1
    assert (result.system_recorded, result.status) == (True, GameResult.Status.CONFIRMED)
    record = GameResultVersion.objects.get(result=result).payload
    assert (record["pre"], record["actions"]) == (lg.state["record"]["pre"],
                                                  lg.state["record"]["actions"])
    # every applied play act is in the record once, in order; nothing else is
    assert record["actions"] == [{"seat": s, **a} for s, a, phase in played.accepted
                                 if phase == "play"]
    assert lg.version >= played.start_version + len(played.accepted)
    # the record replays to the stored result
    replayed = engine.replay(record, first_game=(lg.number == 1))
    assert replayed.get("ok") and replayed["complete"], replayed.get("error")
    assert {k: v for k, v in replayed.items() if k in RESULT_KEYS} == {
        k: v for k, v in result.engine_result.items() if k in RESULT_KEYS}
    assert [result.points_a, result.points_b] == replayed["team_points"]
    assert result.places == replayed["places"]
    # every kind of fault was sent, and each was refused the way it should be
    assert played.outcomes["version-1", 409, "stale_version"] > 0, played.outcomes
    assert played.outcomes["late retry", 409, "stale_version"] > 0, played.outcomes
    assert played.outcomes["names a seat", 403, "not_your_seat"] > 0, played.outcomes
    assert played.outcomes["stranger", 403, "not_seated"] > 0, played.outcomes
    return result


def test_game_1_hammered_at_every_step_applies_each_act_once(seeded_deals):
    lt = make_live_table(client_cls=APIClient)
    stranger = UserFactory(username=f"hammer-stranger-{lt.table.pk}")
    live_id = live.live_start(table=lt.table).pk
    # when every step of game 1 is hammered, up to its last act
    played = hammer_game(lt, live_id, stranger, lambda step, game, ends: True)
    # then each step applied one act, and the game is stored once
    assert played.hammered == played.steps >= 100
    check_finished(lt, played)


def test_game_2_hammered_through_its_tributes_and_its_last_act_applies_each_act_once(
        seeded_deals):
    lt = make_live_table(client_cls=APIClient)
    stranger = UserFactory(username=f"hammer-stranger-{lt.table.pk}")
    # given game 1 played to its end (bots through the service, no hammering)
    first = live.live_start(table=lt.table)
    while True:
        lg = LiveGame.objects.get(pk=first.pk)
        if lg.status == LiveGame.Status.FINISHED:
            break
        seat, action = bot_pick(live.live_game(lg), lt.bots)
        live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)
    # when game 2 (with 进贡/还贡 from game 1's result) is hammered through pre-play, at every
    # third play act and at its last act
    second = live.live_start(table=lt.table)
    assert second.number == 2
    played = hammer_game(lt, second.pk, stranger, lambda step, game, ends: (
        game.state == "pre" or step % 3 == 0 or ends))
    # then each step applied one act, game 2 is stored once, and game 1 is untouched
    check_finished(lt, played)
    assert played.steps > played.hammered > 30
    assert GameResult.objects.filter(table=lt.table).count() == 2
    assert GameResult.objects.get(table=lt.table, number=1).version == 1
