"""Tasks delivered through a real broker to a real worker (STYLE.md §3: thin, idempotent tasks).

These tests run only when ``CELERY_BROKER_URL`` is set (``.ci/run`` sets it to Redis and runs
them on PostgreSQL); the default suite runs Celery eagerly and skips them. One worker is started
in-process for the whole session (tests/celery_worker.py: ``start_worker``, the threads pool with
two threads, so two deliveries of one task can really run at the same time).

The worker's threads have their own database connections, so every test is
``django_db(transaction=True)``: the worker sees only committed data. The tests that hold a row
lock while two deliveries wait need ``select_for_update``, i.e. PostgreSQL.
"""

from __future__ import annotations

import os
import random

import pytest
from django.db import connection, transaction
from django.utils import timezone

from tests.celery_worker import in_process_worker, make_event, random_sheet, wait_until
from tests.pg import backends_waiting_on_locks

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("CELERY_BROKER_URL"),
        reason="real-worker Celery tests need a broker: set CELERY_BROKER_URL "
               "(e.g. redis://127.0.0.1:6379/15); .ci/run does",
    ),
    pytest.mark.django_db(transaction=True),
]


def needs_row_locks():
    if not connection.features.has_select_for_update:
        pytest.skip("select_for_update is a no-op on this database: lock tests need PostgreSQL")


# ----------------------------------------------------------------------------- the worker
@pytest.fixture(scope="session")
def celery_worker(django_db_setup):
    """One worker for the whole session."""
    with in_process_worker() as outcomes:
        yield outcomes


@pytest.fixture
def worker(celery_worker, transactional_db):
    """The session's worker; at the end of the test, wait for what the test queued (before the
    database is flushed under it)."""
    yield celery_worker
    celery_worker.wait_idle()


# ----------------------------------------------------------------------------- data
@pytest.fixture
def played_round(worker, referee):
    """A drawn round of 12 players (two tables, no byes) whose results are submitted through
    the service but not yet confirmed: the standings are still to compute."""
    from games import services as game_services
    from tournaments.services.draws import round_draw
    from tournaments.services.rounds import round_create

    event = make_event(12, games_per_match=2)
    rnd = round_create(event=event)
    rnd = round_draw(round_id=rnd.pk)
    rng = random.Random(7)
    for table in rnd.tables.order_by("number"):
        for number in (1, 2):
            game_services.result_submit(table=table, number=number, sheet=random_sheet(rng),
                                        by=referee)
    worker.wait_idle()
    return rnd


def confirm_quietly(rnd):
    """Confirm a round's results without the service's on-commit recomputation, so the
    standings are stale until a task runs."""
    from games.models import GameResult

    GameResult.objects.filter(table__round=rnd).update(
        status=GameResult.Status.CONFIRMED, confirmed_at=timezone.now())


def seating(rnd) -> dict:
    from tournaments.models import Bye, Round, Seat, Table

    rnd = Round.objects.get(pk=rnd.pk)
    return {
        "status": rnd.status,
        "drawn_at": rnd.drawn_at,
        "tables": list(Table.objects.filter(round=rnd).order_by("number").values_list(
            "pk", "number")),
        "seats": list(Seat.objects.filter(round=rnd).order_by("table__number", "seat")
                      .values_list("pk", "table__number", "seat", "entry_id", "player_id")),
        "byes": sorted(Bye.objects.filter(round=rnd).values_list("entry_id", "points")),
    }


def standing_rows(event) -> list[tuple]:
    from tournaments.models import Standing

    return list(Standing.objects.filter(event=event).order_by("entry_id").values_list())


def expected_standings(event) -> list[tuple]:
    from tournaments import standings

    return sorted((r.entry_id, r.rank, r.points, r.games_played, r.byes)
                  for r in standings.compute(event))


def stored_standings(event) -> list[tuple]:
    from tournaments.models import Standing

    return sorted(Standing.objects.filter(event=event).values_list(
        "entry_id", "rank", "points", "games_played", "byes"))


def database_snapshot() -> dict:
    from games.models import GameResult
    from tournaments.models import Bye, Entry, Event, Round, Seat, Standing, Table

    return {
        "events": list(Event.objects.order_by("pk").values_list(
            "pk", "status", "standings_version", "standings_digest")),
        "entries": list(Entry.objects.order_by("pk").values_list("pk", "status")),
        "rounds": list(Round.objects.order_by("pk").values_list("pk", "status", "drawn_at")),
        "tables": list(Table.objects.order_by("pk").values_list("pk")),
        "seats": list(Seat.objects.order_by("pk").values_list()),
        "byes": list(Bye.objects.order_by("pk").values_list()),
        "results": list(GameResult.objects.order_by("pk").values_list("pk", "status", "version")),
        "standings": list(Standing.objects.order_by("pk").values_list()),
    }


# ----------------------------------------------------------------------------- draws
def test_round_draw_task_through_the_broker_draws_the_committed_round(worker):
    from tournaments.models import Round
    from tournaments.services.draws import round_verify
    from tournaments.services.rounds import round_create, round_request_draw

    # given a committed round of 14 players (two tables, two byes)
    event = make_event(14)
    rnd = round_create(event=event)
    assert rnd.status == Round.Status.COMMITTED

    # when the draw is requested: queued on commit, delivered by Redis to the worker
    with transaction.atomic():
        round_request_draw(round=rnd)
    wait_until(lambda: Round.objects.get(pk=rnd.pk).status != Round.Status.COMMITTED,
               "the worker to draw the round")

    # then the round is drawn, complete, and re-drawable from its public data
    rnd = Round.objects.get(pk=rnd.pk)
    assert rnd.status == Round.Status.DRAWN
    drawn = seating(rnd)
    assert len(drawn["tables"]) == 2 and len(drawn["seats"]) == 12 and len(drawn["byes"]) == 2
    assert round_verify(round=rnd) == []
    # and the byes' points reach the standings through the task the draw queued on commit
    worker.wait_idle()
    bye_entries = {entry_id for entry_id, _points in drawn["byes"]}
    stored = {row[0]: row for row in stored_standings(event)}
    assert len(stored) == 14
    assert {e for e, row in stored.items() if row[4] == 1} == bye_entries
    assert all(stored[e][2] == event.bye_points for e in bye_entries)


def test_round_draw_task_run_twice_keeps_the_first_draw(worker):
    from tournaments.services.rounds import round_create
    from tournaments.tasks import round_draw_task

    # given a round drawn by the worker
    event = make_event(14)
    rnd = round_create(event=event)
    first = worker.wait(round_draw_task.delay(rnd.pk).id)
    worker.wait_idle()
    once = seating(rnd)

    # when the task is delivered again
    second = worker.wait(round_draw_task.delay(rnd.pk).id)
    worker.wait_idle()

    # then nothing changes: same tables, same seat rows, same byes, same draw time
    assert first == ("success", {"round": rnd.pk, "status": "drawn"})
    assert second == first
    assert seating(rnd) == once


def test_two_concurrent_round_draw_deliveries_draw_once(worker):
    from tournaments.models import Round
    from tournaments.services.draws import round_verify
    from tournaments.services.rounds import round_create
    from tournaments.tasks import round_draw_task

    needs_row_locks()
    # given a committed round
    event = make_event(14)
    rnd = round_create(event=event)

    # when two deliveries of its draw run at the same time (held on the round's row lock
    # until both are waiting, then released together)
    with transaction.atomic():
        Round.objects.select_for_update().get(pk=rnd.pk)
        ids = [round_draw_task.delay(rnd.pk).id for _ in range(2)]
        wait_until(lambda: backends_waiting_on_locks() >= 2,
                   "both deliveries to wait on the round's lock")
    outcomes = [worker.wait(task_id) for task_id in ids]
    worker.wait_idle()

    # then both succeed and the round is drawn exactly once
    assert outcomes == [("success", {"round": rnd.pk, "status": "drawn"})] * 2
    drawn = seating(rnd)
    assert len(drawn["tables"]) == 2 and len(drawn["seats"]) == 12 and len(drawn["byes"]) == 2
    assert round_verify(round=Round.objects.get(pk=rnd.pk)) == []


# ----------------------------------------------------------------------------- standings
def test_standings_recompute_task_computes_the_standings(worker, played_round):
    from tournaments.models import Event
    from tournaments.tasks import standings_recompute_task

    # given confirmed results and no standings yet
    event = played_round.event
    confirm_quietly(played_round)
    assert stored_standings(event) == []

    # when the worker recomputes them
    outcome = worker.wait(standings_recompute_task.delay(event.pk).id)

    # then every entry has its row, as computed from the confirmed results
    assert outcome == ("success", {"event": event.pk, "changed": True})
    rows = stored_standings(event)
    assert rows == expected_standings(event)
    assert len(rows) == 12 and all(row[3] == 2 for row in rows)  # two games each
    event = Event.objects.get(pk=event.pk)
    assert event.standings_version == 1
    assert {s.through_round for s in event.standings.all()} == {1}


def test_confirming_results_recomputes_standings_on_the_worker(worker, played_round, referee):
    from games import services as game_services
    from games.models import GameResult

    # when a referee confirms the round's results (each confirmation queues a recomputation
    # on commit)
    event = played_round.event
    with transaction.atomic():
        confirmed = game_services.results_confirm(
            results=GameResult.objects.filter(table__round=played_round), by=referee,
            as_referee=True)
    worker.wait_idle()

    # then the worker has brought the standings up to date
    assert confirmed == 4
    assert stored_standings(event) == expected_standings(event)


def test_standings_recompute_task_run_twice_changes_nothing(worker, played_round):
    from tournaments.models import Event
    from tournaments.tasks import standings_recompute_task

    # given standings computed by the worker
    event = played_round.event
    confirm_quietly(played_round)
    assert worker.wait(standings_recompute_task.delay(event.pk).id)[1]["changed"] is True
    once = standing_rows(event)
    version = Event.objects.get(pk=event.pk).standings_version

    # when the task runs again
    outcome = worker.wait(standings_recompute_task.delay(event.pk).id)

    # then it reports no change and writes nothing (same rows, same times, same version)
    assert outcome == ("success", {"event": event.pk, "changed": False})
    assert standing_rows(event) == once
    assert Event.objects.get(pk=event.pk).standings_version == version


def test_two_concurrent_standings_deliveries_write_once(worker, played_round):
    from tournaments.models import Event
    from tournaments.tasks import standings_recompute_task

    needs_row_locks()
    # given stale standings
    event = played_round.event
    confirm_quietly(played_round)

    # when two recomputations run at the same time (held on the event's row lock until both
    # are waiting)
    with transaction.atomic():
        Event.objects.select_for_update().get(pk=event.pk)
        ids = [standings_recompute_task.delay(event.pk).id for _ in range(2)]
        wait_until(lambda: backends_waiting_on_locks() >= 2,
                   "both deliveries to wait on the event's lock")
    outcomes = [worker.wait(task_id) for task_id in ids]

    # then one writes the standings, the other finds them current
    assert all(kind == "success" for kind, _result in outcomes)
    assert sorted(result["changed"] for _kind, result in outcomes) == [False, True]
    assert stored_standings(event) == expected_standings(event)
    assert Event.objects.get(pk=event.pk).standings_version == 1


# ----------------------------------------------------------------------------- bad ids
@pytest.mark.parametrize("task_name", ["round_draw_task", "standings_recompute_task"])
def test_task_for_a_missing_id_fails_and_changes_nothing(worker, played_round, task_name):
    from tournaments import tasks
    from tournaments.models import Event, Round
    from tournaments.services.rounds import round_create

    # given an event with a drawn round, results and standings
    confirm_quietly(played_round)
    worker.wait(tasks.standings_recompute_task.delay(played_round.event_id).id)
    # and a committed round 2 that a stray draw must not touch
    assert round_create(event=played_round.event).status == Round.Status.COMMITTED
    before = database_snapshot()
    model = Round if task_name == "round_draw_task" else Event
    missing = (model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 10**6

    # when a task arrives for an id that does not exist
    task = getattr(tasks, task_name)
    kind, error = worker.wait(task.delay(missing).id)

    # then it fails with DoesNotExist (not retried) and the database is as it was
    assert kind == "failure"
    assert isinstance(error, model.DoesNotExist), repr(error)
    assert database_snapshot() == before

