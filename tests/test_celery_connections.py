"""A Celery worker's database connections (config/celery.py): kept from task to task and
checked as a request's are, where Celery's Django fixup closed them around every task (every
托管 timer then opened a PostgreSQL connection for one read)."""

from __future__ import annotations

from types import SimpleNamespace

import django.db
import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from config.celery import app, connections_checked
from live.models import LiveGame

pytestmark = pytest.mark.django_db(transaction=True)

WORKER_TASK = SimpleNamespace(request=SimpleNamespace(is_eager=False))


def run_tasks(fixup: DjangoWorkerFixup, n: int) -> None:
    """What the worker does around ``n`` tasks that each read the database (the fixup's and
    this project's handlers of ``task_prerun`` and ``task_postrun``)."""
    for _ in range(n):
        fixup.on_task_prerun(sender=WORKER_TASK)
        connections_checked(sender=WORKER_TASK)
        LiveGame.objects.filter(pk=0).exists()
        fixup.on_task_postrun(sender=WORKER_TASK)
        connections_checked(sender=WORKER_TASK)


@pytest.fixture
def kept_connection(monkeypatch):
    """A persistent connection (``CONN_MAX_AGE``, no pool), open. (With ``DB_POOL_MAX_SIZE`` a
    connection goes back to the pool after each task by design: the tests run without one, in
    CI on both databases, so this skip is for a developer's own pooled settings only.)"""
    if connection.settings_dict.get("OPTIONS", {}).get("pool"):
        pytest.skip("with a pool, a connection goes back to it after each task")
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    connection.close()
    connection.ensure_connection()
    return connection.connection


def test_a_worker_keeps_its_connection_from_task_to_task(kept_connection, settings):
    fixup = DjangoWorkerFixup(app)
    assert fixup.db_reuse_max == settings.CELERY_DB_REUSE_MAX >= 100
    run_tasks(fixup, 50)
    assert connection.connection is kept_connection


def test_an_unusable_connection_is_replaced_before_the_next_task(kept_connection, monkeypatch):
    if connection.vendor == "sqlite" and connection.is_in_memory_db():  # (runs on PostgreSQL)
        pytest.skip("Django never closes an in-memory SQLite database's connection")
    connection.errors_occurred = True
    monkeypatch.setattr(connection, "is_usable", lambda: False)
    connections_checked(sender=WORKER_TASK)
    assert connection.connection is None
    monkeypatch.undo()
    run_tasks(DjangoWorkerFixup(app), 1)
    assert connection.connection is not None and connection.connection is not kept_connection


def test_a_task_run_in_process_leaves_the_requests_connections_alone(monkeypatch):
    checked = []
    monkeypatch.setattr(django.db, "close_old_connections", lambda: checked.append(1))
    connections_checked(sender=SimpleNamespace(request=SimpleNamespace(is_eager=True)))
    assert checked == []
    connections_checked(sender=WORKER_TASK)
    assert checked == [1]
