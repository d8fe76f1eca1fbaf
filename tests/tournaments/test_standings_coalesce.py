"""Changes coalesce into one queued recompute while it waits for a worker (a cache all
processes share): a round's thousands of confirmations must not bury a draw under as many
tasks. The mark clears when the task starts, so a change made after that queues another."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.tournaments.test_standings_heal import _empty_cache, queued, stale_event  # noqa: F401
from tournaments import services, standings
from tournaments.models import Penalty
from tournaments.tasks import standings_recompute_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared_cache(monkeypatch):
    monkeypatch.setattr(standings, "_shared_cache", lambda: True)


def change(event, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.penalty_add(event=event, entry=event.entries.first(),
                             kind=Penalty.Kind.POINT_DEDUCTION, points=1, reason="late")


def test_changes_while_a_recompute_waits_queue_no_other(stale_event, queued, shared_cache,  # noqa: F811
                                                         django_capture_on_commit_callbacks):
    for _ in range(5):
        change(stale_event, django_capture_on_commit_callbacks)
    assert queued == [stale_event.pk]


def test_a_change_after_the_task_started_queues_another(stale_event, queued, shared_cache,  # noqa: F811
                                                        django_capture_on_commit_callbacks):
    change(stale_event, django_capture_on_commit_callbacks)
    standings.standings_run_started(stale_event.pk)  # what the task does first
    change(stale_event, django_capture_on_commit_callbacks)
    assert queued == [stale_event.pk, stale_event.pk]


def test_the_task_covers_the_changes_it_stood_for(stale_event, shared_cache, monkeypatch,  # noqa: F811
                                                  django_capture_on_commit_callbacks):
    held = []
    monkeypatch.setattr(standings_recompute_task, "delay",
                        lambda event_id, *a, **k: held.append(event_id))
    for _ in range(3):
        change(stale_event, django_capture_on_commit_callbacks)
    assert len(held) == 1
    standings_recompute_task.apply(args=(held[0],))  # the worker runs the one task
    stale_event.refresh_from_db()
    assert not standings.standings_are_stale(stale_event)
    assert cache.get(standings._debounce_key(stale_event.pk)) is None


def test_with_a_per_process_cache_every_change_queues(stale_event, queued,  # noqa: F811
                                                       django_capture_on_commit_callbacks):
    for _ in range(3):
        change(stale_event, django_capture_on_commit_callbacks)
    assert queued == [stale_event.pk] * 3
