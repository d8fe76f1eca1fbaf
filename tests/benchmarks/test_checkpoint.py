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

    def last_checkpoint() -> str:
        # The control file's checkpoint, written before CHECKPOINT returns. (pg_stat_bgwriter's
        # checkpoints_req is not: the checkpointer wakes the waiting backend first and reports
        # its statistics after, so a read right after CHECKPOINT may miss it — CI saw 34 > 34.)
        with connection.cursor() as cursor:
            cursor.execute("SELECT checkpoint_lsn FROM pg_control_checkpoint()")
            return cursor.fetchone()[0]

    before, said = last_checkpoint(), []
    servers.checkpoint(say=said.append)
    assert last_checkpoint() != before and said == []


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
