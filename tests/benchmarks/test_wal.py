"""PostgreSQL's WAL figures a ``bench_live`` run reports an act (benchmarks.servers.wal_written):
what a committed write adds, read from the server's own statistics."""

from __future__ import annotations

import pytest
from django.db import connection

import benchmarks.servers as servers


@pytest.mark.django_db(transaction=True)
def test_a_committed_write_adds_wal_records_bytes_a_flush_and_a_commit():
    if connection.vendor != "postgresql":
        assert servers.wal_written() is None
        return
    before = servers.wal_written()
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE wal_probe (n int)")
        try:
            cursor.execute("INSERT INTO wal_probe SELECT generate_series(1, 100)")
        finally:
            cursor.execute("DROP TABLE wal_probe")
        # (a backend's statistics reach the server's at its next idle moment after this)
        cursor.execute("SELECT pg_stat_force_next_flush()")
    after = servers.wal_written()
    assert set(after) == {"records", "bytes", "syncs", "commits"}
    assert after["records"] >= before["records"] + 100
    assert after["bytes"] > before["bytes"]
    assert after["syncs"] > before["syncs"] and after["commits"] >= before["commits"] + 3
