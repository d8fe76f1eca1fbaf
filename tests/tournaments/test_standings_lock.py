"""A standings run does not hold up confirmations (PostgreSQL): runs of one event take turns on
an advisory lock, not on the event's row, which every confirmation updates."""

from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connection, connections, transaction

from games import services as game_services
from games.models import GameResult
from tests.pg import backends_waiting_on_locks
from tournaments import standings
from tournaments.models import Event
from tournaments.services.draws import round_draw
from tournaments.services.rounds import round_create

pytestmark = pytest.mark.django_db(transaction=True)


def sheet(rng):
    order = list(range(6))
    rng.shuffle(order)
    return {"order": order, "revolutions": [], "eliminated": [], "burns": [],
            "kaidian": [rng.random() < 0.5 for _ in range(6)], "leader": rng.randrange(6)}


@pytest.fixture
def submitted(checked_in_event, referee, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("advisory locks and row locks need PostgreSQL")
    # the recomputation a confirmation queues would run in-process (eager Celery): not here
    monkeypatch.setattr(standings, "standings_queue_recompute", lambda *a, **k: False)
    event = checked_in_event
    event.referees.add(referee)
    rnd = round_draw(round_id=round_create(event=event).pk)
    rng = random.Random(5)
    for table in rnd.tables.all():
        game_services.result_submit(table=table, number=1, sheet=sheet(rng), by=referee)
    return event, list(GameResult.objects.filter(table__round=rnd))


def hold_a_standings_run(event_id, started, release):
    """A standings run that has begun (holds the event's run lock) and waits."""
    try:
        with transaction.atomic():
            standings._one_run_at_a_time(event_id)
            started.set()
            release.wait(20)
    finally:
        connections.close_all()


def test_a_confirmation_does_not_wait_for_a_running_standings_run(submitted, referee):
    event, results = submitted
    started, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=hold_a_standings_run, args=(event.pk, started, release))
    holder.start()
    try:
        assert started.wait(10)
        t0 = time.monotonic()
        game_services.result_confirm(result=results[0], by=referee, as_referee=True)
        assert time.monotonic() - t0 < 5, "the confirmation waited for the standings run"
        assert GameResult.objects.get(pk=results[0].pk).status == GameResult.Status.CONFIRMED
    finally:
        release.set()
        holder.join(20)


def test_two_standings_runs_of_one_event_take_turns(submitted, referee):
    event, results = submitted
    game_services.result_confirm(result=results[0], by=referee, as_referee=True)
    started, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=hold_a_standings_run, args=(event.pk, started, release))
    holder.start()
    done = threading.Event()

    def second_run():
        try:
            standings.standings_recompute(event_id=event.pk)
            done.set()
        finally:
            connections.close_all()

    runner = threading.Thread(target=second_run)
    try:
        assert started.wait(10)
        runner.start()
        deadline = time.monotonic() + 10
        while backends_waiting_on_locks() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert backends_waiting_on_locks() >= 1 and not done.is_set(), "the second run did not wait"
    finally:
        release.set()
        holder.join(20)
        runner.join(30)
    assert done.is_set()
    event = Event.objects.get(pk=event.pk)
    assert event.standings_results_version == event.results_version
