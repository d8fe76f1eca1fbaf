"""Fault tests: a Celery worker killed in the middle of a draw and of a standings run.

The tasks are ``acks_late`` with ``reject_on_worker_lost`` (config/settings.py): a message is
acknowledged only when its task has finished, so a worker that dies mid-task leaves it to be
delivered again, and the tasks are idempotent, so the outcome is the one a run without the fault
gives. These tests check that with a real worker in a separate process, killed with SIGKILL:

- the pool child only: the main process sees its child lost, rejects the message with requeue,
  and hands it to the child it starts in its place;
- the whole worker (main process and child): the message stays unacknowledged in Redis until
  the transport's ``visibility_timeout``; a worker started after that restores it and runs it.
  The workers here get ``CELERY_VISIBILITY_TIMEOUT`` = a few seconds (production: an hour).
- the whole worker, with production's hour of visibility timeout: beat's draw sweep
  (``round_draw_sweep_task``) queues the draw again once the round has waited
  ``CELERY_DRAW_REQUEUE_SECONDS``, and the original message, delivered at last, changes nothing.

The kill lands mid-task without any sleep in production code: the test holds the row lock the
task takes first (the round's for a draw, the event's for standings), waits until the task's
database backend is waiting on it (pg_stat_activity), kills, waits until the redelivered task
waits on the lock too, then releases it. The killed task's backend cannot commit anything: its
client is gone, so PostgreSQL rolls its transaction back.

They run only on PostgreSQL (row locks) with a Redis broker (``CELERY_BROKER_URL``), like
tests/test_celery_worker.py. The worker consumes the default queue, as in production, so the
standings refresh a draw with byes queues is run too: the broker's database must not be shared
with another test run at the same time (each run purges the default queue and the messages it
left unacknowledged).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, transaction

from tests import celery_worker as shared
from tests.celery_worker import confirm_quietly, make_event, random_sheet

BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")

pytestmark = [
    pytest.mark.skipif(
        not BROKER_URL.startswith(("redis://", "rediss://")),
        reason="worker-kill fault tests need a Redis broker: set CELERY_BROKER_URL "
               "(e.g. redis://127.0.0.1:6379/15); .ci/run's real-worker step does",
    ),
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="worker-kill fault tests need PostgreSQL (row locks, pg_stat_activity): "
               "set DATABASE_URL=postgres://…",
    ),
    pytest.mark.django_db(transaction=True),
]

VISIBILITY_TIMEOUT = 3  # seconds, for the workers started here
DRAW_REQUEUE = 2  # seconds: CELERY_DRAW_REQUEUE_SECONDS of the draw sweep's test
WAIT_SECONDS = 60.0     # bound of every wait (a worker starts in 1-5 s, more on a busy box)


def wait_until(predicate, what: str, timeout: float = WAIT_SECONDS, **kwargs):
    return shared.wait_until(predicate, what, timeout, **kwargs)


# ----------------------------------------------------------------------------- the broker
def celery_app():
    from config.celery import app

    assert not app.conf.task_always_eager, "CELERY_BROKER_URL is set: tasks must not be eager"
    return app


def queue_name() -> str:
    return celery_app().conf.task_default_queue


@contextlib.contextmanager
def redis_channel():
    with celery_app().connection_for_write() as conn:
        yield conn.default_channel


def unacked_messages() -> dict[str, tuple[str, float]]:
    """Messages of the default queue that a worker took and has not acknowledged:
    task id -> (delivery tag, time it was taken)."""
    queue = queue_name()
    out = {}
    with redis_channel() as channel:
        client = channel.client
        for tag, raw in client.hgetall(channel.unacked_key).items():
            message, _exchange, routing_key = json.loads(raw)
            if routing_key == queue:
                score = client.zscore(channel.unacked_index_key, tag)
                out[message["headers"]["id"]] = (tag, score or 0.0)
    return out


def queued_count() -> int:
    with redis_channel() as channel:
        return channel._size(queue_name())


def broker_idle() -> bool:
    """Nothing waits in the default queue and nothing taken from it is unacknowledged."""
    return queued_count() == 0 and not unacked_messages()


def broker_clear() -> None:
    """Drop what an earlier (aborted) run left: queued messages and unacknowledged ones, which
    a worker with a short visibility timeout would otherwise restore into this run."""
    with redis_channel() as channel:
        channel.queue_purge(queue_name())
        for tag, _score in unacked_messages().values():
            channel.client.pipeline().hdel(channel.unacked_key, tag).zrem(
                channel.unacked_index_key, tag).execute()


# ----------------------------------------------------------------------------- the worker
class Worker(shared.WorkerProcess):
    """``celery -A config worker --pool prefork --concurrency 1`` on the default queue, with a
    visibility timeout of ``visibility_timeout`` seconds (:data:`VISIBILITY_TIMEOUT`) and
    ``env`` (settings) more."""

    def __init__(self, log_dir: Path, number: int, *,
                 visibility_timeout: int = VISIBILITY_TIMEOUT, env: dict[str, str] | None = None):
        self.name = f"faults-{uuid.uuid4().hex[:8]}-{number}@%h"
        super().__init__(
            log_dir / f"worker-{number}.log", broker_url=BROKER_URL,
            env={"CELERY_VISIBILITY_TIMEOUT": str(visibility_timeout), **(env or {})},
            args=["--pool", "prefork", "--concurrency", "1", "-Q", queue_name(), "-n", self.name,
                  "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
                  "--without-heartbeat"])

    def kill_pool_child(self) -> int:
        children = self.pool_children()
        assert len(children) == 1, f"expected one pool child, found {children}\n{self.log_tail()}"
        os.kill(children[0], signal.SIGKILL)
        return children[0]


class Workers:
    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.started: list[Worker] = []

    def start(self, **kwargs) -> Worker:
        worker = Worker(self.log_dir, len(self.started) + 1, **kwargs)
        self.started.append(worker)
        return worker

    def logs(self) -> str:
        return "\n".join(w.log_tail() for w in self.started)

    def stop_all(self) -> None:
        for worker in self.started:
            worker.stop()


@pytest.fixture
def workers(transactional_db, tmp_path):
    """Start workers against the test database; every one of them is killed at the end (before
    the database is flushed), whatever the test did."""
    broker_clear()
    pool = Workers(tmp_path)
    try:
        yield pool
    finally:
        pool.stop_all()
        broker_clear()


# ----------------------------------------------------------------------------- locks
def backends_waiting_on_locks() -> set[int]:
    """Backends of other connections to the test database now waiting for a lock.
    (pg_stat_activity is snapshotted once per transaction: clear the snapshot first.)"""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")
        return {row[0] for row in cursor.fetchall()}


def backend_exists(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid])
        return cursor.fetchone() is not None


def kill_mid_task(workers: Workers, worker: Worker, task_id: str, kill: str) -> set[int]:
    """With the task's row lock held by the caller: wait until the delivered task waits on it,
    kill (``pool_child`` or ``whole_worker``), and wait until the redelivered task waits on it
    again. Returns the killed task's backend pids once the redelivery is blocked inside its
    transaction."""
    first = wait_until(backends_waiting_on_locks, "the delivered task to wait on the row lock",
                       detail=workers.logs)
    assert len(first) == 1, f"one task backend should wait on the lock, found {first}"
    assert task_id in unacked_messages(), "a running acks_late task's message is unacknowledged"

    if kill == "pool_child":
        killed = worker.kill_pool_child()
        # the main process survives, replaces its child and requeues the lost task's message
        wait_until(lambda: worker.pool_children() not in ([], [killed]),
                   "the worker to start a new pool child", detail=workers.logs)
        assert worker.alive, f"the main worker process died\n{worker.log_tail()}"
    else:
        worker.stop()  # SIGKILL to the main process and its child: nothing is acknowledged
        assert not worker.alive
        assert queued_count() == 0
        _tag, taken_at = unacked_messages()[task_id]
        # Redis gives the message back once it has been unacknowledged for visibility_timeout;
        # a worker restores such messages when it starts (then about every 100 s: kombu's
        # unacked_restore_interval × unacked_restore_throttle).
        wait_until(lambda: time.time() > taken_at + VISIBILITY_TIMEOUT + 0.2,
                   "the message's visibility timeout", timeout=VISIBILITY_TIMEOUT + 5)
        workers.start()

    # the killed task's backend still waits (its client is gone; PostgreSQL notices when it
    # next talks to it, and rolls its transaction back); the redelivered one joins it
    wait_until(lambda: backends_waiting_on_locks() - first,
               "the redelivered task to wait on the row lock", detail=workers.logs)
    return first


def assert_killed_backends_gone(killed: set[int]) -> None:
    """The killed task's transaction was rolled back: its backend has ended."""
    wait_until(lambda: not any(backend_exists(pid) for pid in killed),
               f"the killed task's database backend(s) {sorted(killed)} to end")


# ----------------------------------------------------------------------------- data
def stored_draw(rnd) -> dict:
    from tournaments.models import Bye, Round, Seat, Table

    rnd = Round.objects.get(pk=rnd.pk)
    tables = []
    for table in Table.objects.filter(round=rnd).order_by("number"):
        tables.append([s.entry_id for s in Seat.objects.filter(table=table).order_by("seat")])
    return {"status": rnd.status, "tables": tables,
            "byes": sorted(Bye.objects.filter(round=rnd).values_list("entry_id", flat=True)),
            "table_rows": Table.objects.filter(round=rnd).count(),
            "seat_rows": Seat.objects.filter(round=rnd).count(),
            "bye_rows": Bye.objects.filter(round=rnd).count()}


STANDING_FIELDS = ("entry_id", "rank", "points", "match_points", "game_wins", "head_count",
                   "opponents_points", "head_to_head", "games_played", "byes",
                   "penalty_points", "drawn", "previous_rank", "through_round")


def standing_rows(event) -> list[tuple]:
    from tournaments.models import Standing

    return list(Standing.objects.filter(event=event).order_by("entry_id").values_list(
        *STANDING_FIELDS))


def standings_state(event) -> dict:
    from tournaments.models import Event

    event = Event.objects.get(pk=event.pk)
    return {"rows": standing_rows(event), "digest": event.standings_digest,
            "version": event.standings_version, "results_version": event.results_version,
            "covered": event.standings_results_version}


def standings_from_scratch(event) -> dict:
    """The standings a forced recomputation writes into an event without any: computed in a
    transaction that is rolled back."""
    from tournaments import standings
    from tournaments.models import Event, Standing

    with transaction.atomic():
        Standing.objects.filter(event=event).delete()
        Event.objects.filter(pk=event.pk).update(standings_digest="")
        assert standings.standings_recompute(event_id=event.pk, force=True) is True
        fresh = standings_state(event)
        transaction.set_rollback(True)
    return fresh


def outcome_detail(workers: Workers, state):
    return lambda: (f"state: {state()}\nqueued: {queued_count()}, unacked: "
                    f"{sorted(unacked_messages())}\n{workers.logs()}")


KILLS = ["pool_child", "whole_worker"]


# ----------------------------------------------------------------------------- the draw
@pytest.mark.parametrize("kill", KILLS)
def test_worker_killed_mid_draw_redelivers_and_draws_once(workers, kill):
    from tournaments.models import Event, Round
    from tournaments.services.draws import compute_draw, round_verify
    from tournaments.services.rounds import round_create
    from tournaments.tasks import round_draw_task

    # given a committed round of 14 players (two tables, two byes worth points), and the draw
    # its committed seed and input give, run from the same public data as round_verify does
    event = make_event(14)
    rnd = round_create(event=event)
    assert rnd.status == Round.Status.COMMITTED and event.bye_points > 0
    expected = compute_draw(round=Round.objects.get(pk=rnd.pk))
    assert len(expected["tables"]) == 2 and len(expected["byes"]) == 2
    worker = workers.start()

    # when the worker is killed while the draw task runs (blocked on the round's row lock)
    with transaction.atomic():
        Round.objects.select_for_update().get(pk=rnd.pk)
        task_id = round_draw_task.delay(rnd.pk).id
        killed = kill_mid_task(workers, worker, task_id, kill)
        # (the killed run wrote nothing: it never got past the lock)
        assert stored_draw(rnd)["table_rows"] == 0
    # ... and the lock is released: the redelivered task draws the round, and the standings
    # refresh that the draw queues on commit (byes earn points) runs too
    def done():
        e = Event.objects.get(pk=event.pk)
        return (Round.objects.get(pk=rnd.pk).status == Round.Status.DRAWN and bool(
            e.standings_digest) and e.standings_results_version >= e.results_version
            and broker_idle())

    wait_until(done, "the redelivered draw and its standings refresh to finish",
               detail=outcome_detail(workers, lambda: stored_draw(rnd)))

    # then the round is drawn exactly once, as the draw without the fault
    drawn = stored_draw(rnd)
    assert drawn["status"] == Round.Status.DRAWN
    assert (drawn["table_rows"], drawn["seat_rows"], drawn["bye_rows"]) == (2, 12, 2), drawn
    assert drawn["tables"] == expected["tables"], "the seating differs from the fault-free draw"
    assert drawn["byes"] == sorted(expected["byes"])
    assert round_verify(round=Round.objects.get(pk=rnd.pk)) == []
    # and the byes reached the standings once
    e = Event.objects.get(pk=event.pk)
    assert e.standings_version == 1 and e.standings_results_version == e.results_version == 1
    scored = {row[0]: row for row in standing_rows(e)}
    assert len(scored) == 14
    assert {entry for entry, row in scored.items() if row[9] == 1} == set(expected["byes"])
    assert all(scored[entry][2] == e.bye_points for entry in expected["byes"])
    # and the killed run's transaction has ended without committing anything
    assert_killed_backends_gone(killed)


def test_worker_killed_mid_draw_is_drawn_by_the_sweep_not_after_the_visibility_timeout(workers):
    from tournaments.models import Event, Round
    from tournaments.services.draws import compute_draw, round_verify
    from tournaments.services.rounds import round_create
    from tournaments.tasks import round_draw_sweep_task, round_draw_task

    # given a committed round of 14 players and the draw its public data give, and workers that
    # give back a dead worker's message only after an hour (production's visibility timeout),
    # their draw sweep queueing again the draw of a round committed DRAW_REQUEUE seconds ago
    event = make_event(14)
    rnd = round_create(event=event)
    expected = compute_draw(round=Round.objects.get(pk=rnd.pk))
    patient = {"visibility_timeout": 3600,
               "env": {"CELERY_DRAW_REQUEUE_SECONDS": str(DRAW_REQUEUE)}}
    worker = workers.start(**patient)

    # when the whole worker is killed while the draw task runs (blocked on the round's lock)
    with transaction.atomic():
        Round.objects.select_for_update().get(pk=rnd.pk)
        task_id = round_draw_task.delay(rnd.pk).id
        killed = wait_until(backends_waiting_on_locks, "the draw to wait on the row lock",
                            detail=workers.logs)
        worker.stop()
    assert_killed_backends_gone(killed)
    # (its message stays with Redis, unacknowledged, for the hour)
    assert task_id in unacked_messages() and queued_count() == 0
    # and another worker starts, then beat's draw sweep runs once the round has waited its bound
    workers.start(**patient)
    committed_at = Round.objects.get(pk=rnd.pk).committed_at.timestamp()
    wait_until(lambda: time.time() > committed_at + DRAW_REQUEUE + 0.2, "the sweep's bound",
               timeout=DRAW_REQUEUE + 5)
    round_draw_sweep_task.delay()

    # then the round is drawn (and the standings refresh its byes queue is run), long before
    # the original message comes back
    def done():
        e = Event.objects.get(pk=event.pk)
        return (Round.objects.get(pk=rnd.pk).status == Round.Status.DRAWN
                and e.standings_results_version >= e.results_version and queued_count() == 0)

    wait_until(done, "the sweep's draw and its standings refresh to finish",
               detail=outcome_detail(workers, lambda: stored_draw(rnd)))
    assert set(unacked_messages()) == {task_id}
    drawn = stored_draw(rnd)
    assert (drawn["table_rows"], drawn["seat_rows"], drawn["bye_rows"]) == (2, 12, 2), drawn
    assert drawn["tables"] == expected["tables"]
    assert drawn["byes"] == sorted(expected["byes"])
    standings = standings_state(event)
    assert standings["version"] == 1

    # and when the original message is delivered after all (a worker that gives back what was
    # unacknowledged for VISIBILITY_TIMEOUT seconds starts: it looks as it starts, then about
    # every 100 s), it changes nothing
    _tag, taken_at = unacked_messages()[task_id]
    wait_until(lambda: time.time() > taken_at + VISIBILITY_TIMEOUT + 0.2,
               "the message's visibility timeout", timeout=VISIBILITY_TIMEOUT + 5)
    workers.start()
    wait_until(broker_idle, "the original draw message to be delivered and run",
               detail=outcome_detail(workers, lambda: stored_draw(rnd)))
    assert stored_draw(rnd) == drawn
    assert standings_state(event) == standings
    assert round_verify(round=Round.objects.get(pk=rnd.pk)) == []


# ----------------------------------------------------------------------------- standings
@pytest.mark.parametrize("kill", KILLS)
def test_worker_killed_mid_standings_run_redelivers_and_writes_once(workers, referee, kill):
    from games import services as game_services
    from games.models import GameResult
    from tournaments import standings
    from tournaments.models import Event, Round
    from tournaments.services.draws import round_draw
    from tournaments.services.rounds import round_create
    from tournaments.tasks import standings_recompute_task

    # given a drawn round of 12 players (two tables, no byes) with two games per table,
    event = make_event(12, games_per_match=2)
    rnd = round_draw(round_id=round_create(event=event).pk)
    assert rnd.status == Round.Status.DRAWN
    rng = random.Random(11)
    for table in rnd.tables.order_by("number"):
        for number in (1, 2):
            game_services.result_submit(table=table, number=number, sheet=random_sheet(rng),
                                        by=referee)
    results = GameResult.objects.filter(table__round=rnd)
    # standings computed after the first games were confirmed,
    confirm_quietly(results.filter(number=1))
    assert standings.standings_recompute(event_id=event.pk) is True
    before = standings_state(event)
    assert before["version"] == 1 and before["covered"] == before["results_version"] == 1
    # and the second games confirmed since: the standings are stale
    confirm_quietly(results.filter(number=2))
    stale = standings_state(event)
    assert stale == dict(before, results_version=2)
    worker = workers.start()

    # when the worker is killed while the recomputation runs (blocked on the event's row lock)
    with transaction.atomic():
        Event.objects.select_for_update().get(pk=event.pk)
        task_id = standings_recompute_task.delay(event.pk).id
        killed = kill_mid_task(workers, worker, task_id, kill)
        assert standings_state(event) == stale, "the killed run must not have written"

    # ... and the lock is released: the redelivered task recomputes them
    def done():
        e = Event.objects.get(pk=event.pk)
        return e.standings_results_version >= e.results_version and broker_idle()

    wait_until(done, "the redelivered standings run to finish",
               detail=outcome_detail(workers, lambda: standings_state(event)))

    # then the standings were written once and cover every confirmed result,
    after = standings_state(event)
    assert after["version"] == before["version"] + 1, after
    assert after["covered"] == after["results_version"] == 2
    assert after["rows"] != before["rows"] and all(row[8] == 2 for row in after["rows"])
    # equal to the standings computed from scratch (a forced run finds nothing to change)
    fresh = standings_from_scratch(event)
    assert after["rows"] == fresh["rows"]
    assert after["digest"] == fresh["digest"]
    assert standings.standings_recompute(event_id=event.pk, force=True) is False
    assert standings_state(event) == after
    assert_killed_backends_gone(killed)
