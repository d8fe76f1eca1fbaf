"""PostgreSQL helpers for the race, lock and fault tests: who is connected, who is waiting.

``pg_stat_activity`` is snapshotted once per transaction: each helper clears the snapshot so it
sees the present."""

from __future__ import annotations

import time

from django.db import connection


def _count(where: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                       + where)
        return cursor.fetchone()[0]


def backends_waiting_on_locks() -> int:
    """Other connections to the test database now waiting for a lock."""
    return _count(" AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")


def backends() -> int:
    """Connections to the test database, this one included."""
    return _count("")


def start_behind_a_lock(threads, timeout: float = 10) -> None:
    """Start ``threads`` (each on its own connection) while this connection holds a lock they
    all need, and return once every one of them waits for it: releasing it lets them go at
    the same moment."""
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    while backends_waiting_on_locks() < len(threads):
        assert time.monotonic() < deadline, "the threads did not reach the lock"
        time.sleep(0.02)
