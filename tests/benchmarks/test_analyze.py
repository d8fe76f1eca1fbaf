"""The planner's statistics after a benchmark's set-up (benchmarks.servers.analyze), on a
PostgreSQL without autovacuum: the run's statements are planned as production's would be."""

from __future__ import annotations

import pytest
from django.db import connection

import benchmarks.servers as servers
from tests.factories import PlayerFactory

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="PostgreSQL's statistics")


def _autovacuum() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        return cursor.fetchone()[0] == "on"


def _rows_known(table: str) -> float:
    """The planner's count of ``table``'s rows (-1: never analyzed nor vacuumed)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_the_tables_a_set_up_filled_are_analyzed_where_autovacuum_is_off():
    if _autovacuum():
        pytest.skip("autovacuum analyzes the tables on this PostgreSQL: nothing to do")
    PlayerFactory.create_batch(40)
    said = []
    servers.analyze(say=said.append)
    assert _rows_known("tournaments_player") == 40
    assert said == ["autovacuum is off: the tables analyzed after the set-up, as its analyze "
                    "would"]
