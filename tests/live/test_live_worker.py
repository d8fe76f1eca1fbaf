"""托管 through a real Celery worker: a seat that does not act within the event's move time is
played by the bot when the sweep Celery beat sends (live/services.py, live_autoplay_overdue),
and a seat in 托管 from its turn's timer, a task queued with a countdown (live_timer).

Runs only with a broker (``CELERY_BROKER_URL``, e.g. ``redis://127.0.0.1:6379/15``) and on
PostgreSQL (the worker's threads need committed data and real row locks). The worker is
tests/celery_worker.py's, in-process; here it lives for this module only.
"""

from __future__ import annotations

import os
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

import engine
from games.models import GameResult
from live import services as live
from live.models import LiveGame
from live.tasks import live_autoplay_task, live_sweep_task
from tests.celery_worker import in_process_worker, wait_until
from tests.live.helpers import (
    act_url,
    all_ready,
    bot_pick,
    live_url,
    make_live_table,
    start_url,
)

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("CELERY_BROKER_URL"),
        reason="real-worker Celery tests need a broker: set CELERY_BROKER_URL "
               "(e.g. redis://127.0.0.1:6379/15); .ci/run does",
    ),
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
]


@pytest.fixture(autouse=True)
def celery_eager(settings):
    """Overrides the package's eager fixture: here tasks go through the broker."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    yield


@pytest.fixture(autouse=True)
def needs_row_locks(transactional_db):
    if not connection.features.has_select_for_update:
        pytest.skip("select_for_update is a no-op on this database: the worker tests need "
                    "PostgreSQL (DATABASE_URL)")


@pytest.fixture(scope="module")
def module_worker(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), in_process_worker() as outcomes:
        yield outcomes


@pytest.fixture
def worker(module_worker, transactional_db):
    from config.celery import app

    app.conf.task_always_eager = False
    yield module_worker
    module_worker.wait_idle(timeout=60)
    assert module_worker.failures() == []


def act_over_api(lt, live_id) -> bool:
    """The seat to act acts through its own client; False when the bot got there first."""
    lg = LiveGame.objects.get(pk=live_id)
    game = live.live_game(lg)
    if game.state == "over":
        return True
    seat, action = bot_pick(game, lt.bots)
    version = lt.clients[seat].get(live_url(live_id)).json()["version"]
    r = lt.clients[seat].post(act_url(live_id), {"version": version, **action}, format="json")
    assert r.status_code in (200, 409), r.content[:300]
    return r.status_code == 200


def started_in_play(move_seconds: int):
    """A live game started over the API, its seats acting in time up to its first play:
    (table, game id, row, seat to act, how many actions its record holds)."""
    lt = make_live_table(move_seconds=move_seconds, client_cls=APIClient)
    all_ready(lt)
    r = lt.clients[0].post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 201
    live_id = r.json()["id"]
    while live.live_game(LiveGame.objects.get(pk=live_id)).state != "play":
        act_over_api(lt, live_id)
    lg = LiveGame.objects.get(pk=live_id)
    return lt, live_id, lg, live.live_game(lg).turn, len(lg.state["record"]["actions"])


def moved_past(lg: LiveGame, timeout: float) -> LiveGame:
    """The game's row once it is past ``lg``'s version (the worker's bot acted)."""
    return wait_until(lambda: (lambda g: g if g.version > lg.version else None)(
        LiveGame.objects.get(pk=lg.pk)), "the worker's bot to act", timeout=timeout)


def swept_past(lg: LiveGame, timeout: float) -> LiveGame:
    """Celery beat's part: the sweep sent every ``LIVE_SWEEP_SECONDS`` through the broker until
    the worker's bot acted in the game; its row then."""
    from django.conf import settings

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        live_sweep_task.delay()
        row = LiveGame.objects.get(pk=lg.pk)
        if row.version > lg.version:
            return row
        time.sleep(settings.LIVE_SWEEP_SECONDS)
    raise AssertionError(f"the worker's bot did not act within {timeout} s")


def test_a_silent_seat_is_played_by_the_bot_on_the_worker(worker):
    # given a live game (2 s move time) whose seats act in time through the API up to play
    lt, live_id, lg, seat, n_actions = started_in_play(move_seconds=2)

    # when the seat to act stays silent past its move time, the sweeps beat sends going on
    t0 = time.monotonic()
    after = swept_past(lg, timeout=15)
    waited = time.monotonic() - t0

    # then the worker's bot played it once, after the move time, marked auto
    assert 1.0 < waited < 10.0, waited
    act = after.state["record"]["actions"][n_actions]
    assert act["seat"] == seat and act["auto"] is True
    view = lt.clients[seat].get(live_url(live_id)).json()
    assert seat in view["auto_seats"]

    # and when the seats play on in time to the end, the record keeps the auto act and replays
    while LiveGame.objects.get(pk=live_id).status != LiveGame.Status.FINISHED:
        act_over_api(lt, live_id)
    lg = LiveGame.objects.get(pk=live_id)
    result = GameResult.objects.get(pk=lg.result_id)
    record = result.versions.get().payload
    assert record["actions"][n_actions] == act
    assert engine.replay(record, first_game=True) == result.engine_result
    assert result.system_recorded and result.status == GameResult.Status.CONFIRMED


def test_a_seat_put_in_hosting_is_played_by_the_worker_without_its_move_time(worker):
    # given a live game with a 10 s move time, in play
    lt, live_id, lg, seat, n_actions = started_in_play(move_seconds=10)

    # when the seat to act hands itself to the bot (托管)
    t0 = time.monotonic()
    r = lt.clients[seat].post(f"/api/v1/live/{live_id}/host/", {"on": True}, format="json")
    assert r.status_code == 200, r.content

    # then the worker's bot plays it after the short pause, not the move time, marked auto
    after = moved_past(lg, timeout=10)
    assert time.monotonic() - t0 < 6
    act = after.state["record"]["actions"][n_actions]
    assert act["seat"] == seat and act["auto"] is True
    # (the game stops here: its timers find it over)
    LiveGame.objects.filter(pk=live_id).update(status=LiveGame.Status.FINISHED)


def test_late_and_duplicate_timers_act_once_per_overdue_turn(worker, monkeypatch):
    # given a game in play whose timers are not queued (the test sends the tasks itself)
    monkeypatch.setattr(live, "_queue_timer", lambda *args: None)
    lt = make_live_table(move_seconds=1, client_cls=APIClient)
    live_id = live.live_start(table=lt.table).pk
    while live.live_game(LiveGame.objects.get(pk=live_id)).state != "play":
        act_over_api(lt, live_id)
    old = LiveGame.objects.get(pk=live_id).version
    assert act_over_api(lt, live_id)
    current = LiveGame.objects.get(pk=live_id)
    time.sleep(1.1)  # the turn in hand is overdue

    # when a late timer (armed at an older version) and two copies of the current one are
    # delivered at once
    sent = [live_autoplay_task.delay(live_id, old).id] + [
        live_autoplay_task.delay(live_id, current.version).id for _ in range(2)]
    outcomes = [worker.wait(task_id) for task_id in sent]

    # then the bot played the overdue turn once
    assert all(kind == "success" for kind, _ in outcomes), outcomes
    assert sorted(result["acted"] for _, result in outcomes) == [False, False, True]
    after = LiveGame.objects.get(pk=live_id)
    assert after.version == current.version + 1
    assert after.state["record"]["actions"][-1]["auto"] is True
