"""Changes coalesce into one queued recompute while it waits for a worker (a cache all
processes share): a round's thousands of confirmations must not bury a draw under as many
tasks. The task waits :data:`standings.GATHER_SECONDS` on the queue, so the changes of those
seconds cost one run. The mark clears when the task starts, so a change made after that queues
another."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.tournaments.test_standings_heal import _empty_cache, queued, stale_event  # noqa: F401
from tournaments import standings
from tournaments.models import Penalty
from tournaments.services.penalties import penalty_add
from tournaments.tasks import standings_recompute_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared_cache(monkeypatch):
    monkeypatch.setattr(standings, "_shared_cache", lambda: True)


@pytest.fixture
def gathered(monkeypatch):
    """The recomputes queued to run later (event id, countdown), not run."""
    calls: list[tuple[int, float]] = []

    def later(args, kwargs=None, *, countdown=None, **options):
        calls.append((args[0], countdown))
    monkeypatch.setattr(standings_recompute_task, "apply_async", later)
    return calls


def change(event, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        penalty_add(event=event, entry=event.entries.first(),
                             kind=Penalty.Kind.POINT_DEDUCTION, points=1, reason="late")


def test_changes_while_a_recompute_waits_queue_no_other(stale_event, gathered, queued,  # noqa: F811
                                                         shared_cache,
                                                         django_capture_on_commit_callbacks):
    for _ in range(5):
        change(stale_event, django_capture_on_commit_callbacks)
    assert gathered == [(stale_event.pk, standings.GATHER_SECONDS)] and not queued
    assert 0 < standings.GATHER_SECONDS < standings.PENDING_SECONDS


def test_a_change_after_the_task_started_queues_another(stale_event, gathered, shared_cache,  # noqa: F811
                                                        django_capture_on_commit_callbacks):
    change(stale_event, django_capture_on_commit_callbacks)
    standings.standings_run_started(stale_event.pk)  # what the task does first
    change(stale_event, django_capture_on_commit_callbacks)
    assert [event_id for event_id, _ in gathered] == [stale_event.pk, stale_event.pk]


def test_the_task_covers_the_changes_it_stood_for(stale_event, gathered, shared_cache,  # noqa: F811
                                                  django_capture_on_commit_callbacks):
    for _ in range(3):
        change(stale_event, django_capture_on_commit_callbacks)
    assert len(gathered) == 1
    standings_recompute_task.apply(args=(gathered[0][0],))  # the worker runs the one task
    stale_event.refresh_from_db()
    assert not standings.standings_are_stale(stale_event)
    assert cache.get(standings._debounce_key(stale_event.pk)) is None


def test_with_a_per_process_cache_every_change_queues(stale_event, queued,  # noqa: F811
                                                       django_capture_on_commit_callbacks):
    for _ in range(3):
        change(stale_event, django_capture_on_commit_callbacks)
    assert queued == [stale_event.pk] * 3


def test_a_refused_gathered_task_leaves_the_next_change_to_queue_it(
        stale_event, gathered, shared_cache, monkeypatch,  # noqa: F811
        django_capture_on_commit_callbacks):
    from kombu.exceptions import OperationalError as BrokerError

    def refuse(*args, **kwargs):
        raise BrokerError("Error 111 connecting to redis:6379. Connection refused.")
    with monkeypatch.context() as broker_down:
        broker_down.setattr(standings_recompute_task, "apply_async", refuse)
        change(stale_event, django_capture_on_commit_callbacks)  # stored; the task not queued
    assert cache.get(standings._debounce_key(stale_event.pk)) is None
    change(stale_event, django_capture_on_commit_callbacks)
    assert gathered == [(stale_event.pk, standings.GATHER_SECONDS)]
