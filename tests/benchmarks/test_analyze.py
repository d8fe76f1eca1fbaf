"""The planner's statistics after a benchmark's set-up (benchmarks.servers.analyze), on
PostgreSQL: where autovacuum is off the run analyzes the tables itself, so that its statements
are planned as production's are; where it is on, autovacuum's analyze does, and the run leaves
them be. Both cases are played by what :func:`benchmarks.servers.autovacuum_on` answers."""

from __future__ import annotations

import pytest
from django.db import connection

import benchmarks.servers as servers
from tests.factories import PlayerFactory

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(connection.vendor != "postgresql",
                                 reason="PostgreSQL's statistics")]


def _rows_known(table: str) -> float:
    """The planner's count of ``table``'s rows (-1: never analyzed nor vacuumed)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        return cursor.fetchone()[0]


def test_autovacuum_on_reads_the_servers_setting():
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting = 'on' FROM pg_settings WHERE name = 'autovacuum'")
        assert servers.autovacuum_on() is cursor.fetchone()[0]


def test_where_autovacuum_is_off_the_tables_a_set_up_filled_are_analyzed(monkeypatch):
    monkeypatch.setattr(servers, "autovacuum_on", lambda: False)
    PlayerFactory.create_batch(40)
    said = []
    servers.analyze(say=said.append)
    assert _rows_known("tournaments_player") == 40
    assert said == ["autovacuum is off: the tables analyzed after the set-up, as its analyze "
                    "would"]


def test_where_autovacuum_is_on_the_run_leaves_the_statistics_to_it(monkeypatch):
    monkeypatch.setattr(servers, "autovacuum_on", lambda: True)
    PlayerFactory.create_batch(40)
    before, said = _rows_known("tournaments_player"), []
    servers.analyze(say=said.append)
    assert _rows_known("tournaments_player") == before and said == []
