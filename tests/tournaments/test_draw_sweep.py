"""A draw lost with its worker is queued again by beat's sweep, and drawn once.

``round_open`` publishes a round's commitment and queues its draw. If the worker that took the
message dies, Redis gives the message back only after the visibility timeout (an hour), and the
round waits, committed, as long. ``round_draw_sweep`` (``round_draw_sweep_task``,
Celery beat every 30 s) queues the draw again of every round still committed
``CELERY_DRAW_REQUEUE_SECONDS`` after its commitment. The draw is keyed on its round and locked
(``round_draw``): a copy run while the draw runs or after it, or the original message delivered
late, finds the round drawn and changes nothing.

Celery runs eagerly here: a queued draw runs in-process, at once. A round created with
``round_create`` alone is one whose draw message was lost. The worker-kill flavour, with a real
worker, is in tests/faults/test_worker_kill.py.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from tests.pg import start_behind_a_lock
from tournaments import locks
from tournaments.models import Bye, Round, Seat, Table
from tournaments.services.draws import compute_draw, round_draw, round_verify
from tournaments.services.rounds import round_create, round_draw_sweep
from tournaments.tasks import round_draw_sweep_task, round_draw_task

pytestmark = pytest.mark.usefixtures("celery_eager")  # (tests/conftest.py: tasks in-process)


def stuck_round(event) -> Round:
    """A committed round of ``event`` whose draw was never run, committed longer ago than the
    sweep's bound."""
    rnd = round_create(event=event)
    Round.objects.filter(pk=rnd.pk).update(committed_at=timezone.now() - timedelta(
        seconds=settings.CELERY_DRAW_REQUEUE_SECONDS + 1))
    return Round.objects.get(pk=rnd.pk)


def stored_draw(rnd) -> dict:
    """Everything a draw writes, row by row (ids included: a second draw would make new ones)."""
    rnd = Round.objects.get(pk=rnd.pk)
    return {"status": rnd.status, "drawn_at": rnd.drawn_at,
            "tables": list(Table.objects.filter(round=rnd).order_by("pk").values_list(
                "pk", "number")),
            "seats": list(Seat.objects.filter(round=rnd).order_by("pk").values_list(
                "pk", "table_id", "seat", "entry_id")),
            "byes": list(Bye.objects.filter(round=rnd).order_by("pk").values_list(
                "pk", "entry_id", "points"))}


def seating(rnd) -> dict:
    """The draw's outcome as ``compute_draw`` gives it: each table's entries by seat, the byes."""
    return {"tables": [list(Seat.objects.filter(table=table).order_by("seat").values_list(
                "entry_id", flat=True)) for table in Table.objects.filter(round=rnd)
                .order_by("number")],
            "byes": sorted(Bye.objects.filter(round=rnd).values_list("entry_id", flat=True))}


def test_beat_sweeps_the_draws_every_half_minute():
    from config.celery import app

    sweep = settings.CELERY_BEAT_SCHEDULE["draw-sweep"]
    assert sweep["task"] == round_draw_sweep_task.name and sweep["task"] in app.tasks
    assert sweep["schedule"] == 30.0 < settings.CELERY_DRAW_REQUEUE_SECONDS
    assert sweep["options"]["expires"] == 30.0  # (sweeps a stopped worker missed are dropped)


@pytest.mark.django_db
def test_a_round_left_committed_past_the_bound_is_drawn_once_by_the_sweep(checked_in_event):
    # given a round committed longer ago than the bound, its draw never run
    rnd = stuck_round(checked_in_event)
    expected = compute_draw(round=rnd)

    # when beat's sweep runs
    outcome = round_draw_sweep_task.delay().get()

    # then the round's draw was queued again and drawn, as the draw from its public data
    assert outcome == {"queued": [rnd.pk], "failed": []}
    drawn = Round.objects.get(pk=rnd.pk)
    assert drawn.status == Round.Status.DRAWN
    assert seating(rnd) == {"tables": expected["tables"], "byes": sorted(expected["byes"])}
    assert round_verify(round=drawn) == []
    # and the next sweep finds nothing to do
    before = stored_draw(rnd)
    assert round_draw_sweep() == {"queued": [], "failed": []}
    assert stored_draw(rnd) == before


@pytest.mark.django_db
def test_a_round_committed_within_the_bound_is_left_to_its_queued_draw(checked_in_event):
    # given a round whose commitment is a moment old (its draw is queued and on its way)
    rnd = round_create(event=checked_in_event)

    # when the sweep runs, then it leaves it alone
    assert round_draw_sweep() == {"queued": [], "failed": []}
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.COMMITTED


@pytest.mark.django_db
def test_after_the_sweep_s_draw_the_original_message_and_another_sweep_change_nothing(
        checked_in_event):
    # given a stuck round that the sweep has drawn
    rnd = stuck_round(checked_in_event)
    assert round_draw_sweep()["queued"] == [rnd.pk]
    after_sweep = stored_draw(rnd)
    assert after_sweep["status"] == Round.Status.DRAWN and after_sweep["tables"]

    # when the original draw message is delivered late (the visibility timeout ran out)
    late = round_draw_task.apply(args=(rnd.pk,)).get()
    # and beat sweeps again
    again = round_draw_sweep()

    # then nothing changed: the same tables, seats and byes, the same draw time
    assert late == {"round": rnd.pk, "status": Round.Status.DRAWN}
    assert again == {"queued": [], "failed": []}
    assert stored_draw(rnd) == after_sweep


@pytest.mark.django_db
def test_a_broker_refusing_the_sweep_s_draw_is_logged_and_left_to_the_next_sweep(
        checked_in_event, monkeypatch, caplog):
    # given a stuck round, and a broker that refuses messages
    rnd = stuck_round(checked_in_event)
    with monkeypatch.context() as broken:
        broken.setattr(round_draw_task, "delay", lambda *a, **k: (_ for _ in ()).throw(
            BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")))

        # when the sweep runs
        with caplog.at_level(logging.WARNING, logger="tournaments.services.rounds"):
            outcome = round_draw_sweep()

    # then the round is reported and logged, still committed
    assert outcome == {"queued": [], "failed": [rnd.pk]}
    assert f"the draw of round {rnd.pk} was not queued" in caplog.text
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.COMMITTED
    # and the next sweep, the broker back, draws it
    assert round_draw_sweep() == {"queued": [rnd.pk], "failed": []}
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.DRAWN


@pytest.mark.django_db(transaction=True)
def test_a_sweep_while_the_draw_runs_changes_nothing(checked_in_event):
    if not connection.features.has_select_for_update:
        pytest.skip("select_for_update is a no-op on SQLite: the race needs PostgreSQL")
    # given a stuck round
    rnd = stuck_round(checked_in_event)
    expected = compute_draw(round=rnd)
    outcome = {}

    def sweep():
        try:
            outcome.update(round_draw_sweep())
        finally:
            connections.close_all()

    sweeper = threading.Thread(target=sweep)
    # when its draw is running (holding the locks round_draw takes) as the sweep comes
    with transaction.atomic():
        locks.lock_round(rnd.pk, with_event=True)
        # (the sweep queues a copy of the draw, which waits for the running one)
        start_behind_a_lock([sweeper])
        round_draw(round_id=rnd.pk)
    sweeper.join(30)
    assert not sweeper.is_alive()

    # then the round was drawn once, by the draw that ran; the sweep's copy changed nothing
    assert outcome == {"queued": [rnd.pk], "failed": []}
    assert seating(rnd) == {"tables": expected["tables"], "byes": sorted(expected["byes"])}
    assert Table.objects.filter(round=rnd).count() == len(expected["tables"])
    assert Seat.objects.filter(round=rnd).count() == 6 * len(expected["tables"])
    assert Bye.objects.filter(round=rnd).count() == len(expected["byes"])
    assert round_verify(round=Round.objects.get(pk=rnd.pk)) == []
