"""The checkpoint a benchmark run starts after (benchmarks.servers.checkpoint), on PostgreSQL:
what the database server did before the run is not written and synced during it."""

from __future__ import annotations

import pytest
from django.db import connection

import benchmarks.servers as servers

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="PostgreSQL's checkpoints")


@pytest.mark.django_db(transaction=True)
def test_a_run_starts_after_a_checkpoint():
    """What the database server did before a run (a test suite's databases made and dropped)
    is written and synced before it, not by a checkpoint during it."""

    def requested() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT checkpoints_req FROM pg_stat_bgwriter")
            return cursor.fetchone()[0]

    before, said = requested(), []
    servers.checkpoint(say=said.append)
    assert requested() > before and said == []


@pytest.mark.django_db(transaction=True)
def test_a_server_that_refuses_the_checkpoint_is_named_and_the_run_goes_on():
    with connection.cursor() as cursor:
        cursor.execute("DROP ROLE IF EXISTS gouji_no_checkpoint")
        cursor.execute("CREATE ROLE gouji_no_checkpoint")
        cursor.execute("SET ROLE gouji_no_checkpoint")
    said = []
    try:
        servers.checkpoint(say=said.append)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
            cursor.execute("DROP ROLE gouji_no_checkpoint")
    assert len(said) == 1 and said[0].startswith("no checkpoint before the run: ")
    assert "pg_checkpoint" in said[0] or "superuser" in said[0]
