"""The standings' pages are filled to half on PostgreSQL (``tournaments.0012``): a standings run
that moves every entry's rank rewrites the rows on their own pages (HOT updates, no index
touched), and migrating back resets the setting."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.factories import EntryFactory, EventFactory
from tournaments.models import Event, Standing
from tournaments.standings import standings_recompute

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(connection.vendor != "postgresql",
                                 reason="PostgreSQL's fillfactor")]


def _fillfactor() -> list | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'tournaments_standing'")
        return cursor.fetchone()[0]


def _pages() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT (ctid::text::point)[0]::int FROM tournaments_standing")
        return {row[0] for row in cursor.fetchall()}


def test_the_standings_pages_are_filled_to_half_and_migrating_back_resets_it():
    assert _fillfactor() == ["fillfactor=50"]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate([("tournaments", "0011_round_standings_and_dirty_from")])
        assert _fillfactor() is None
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert _fillfactor() == ["fillfactor=50"]


def _after_older_transactions(bound: float = 30.0) -> None:
    """Wait until no transaction that began before now is open anywhere on the server. One
    that is (another database's, on a shared server) keeps the old versions on a page from being
    pruned, so the next rewrite would have to move rows whatever the fillfactor; skipped if the
    server is never quiet within ``bound`` seconds, rather than failing on someone else's load."""
    deadline = time.monotonic() + bound
    with connection.cursor() as cursor:
        while True:
            cursor.execute("SELECT txid_current_snapshot()::text")
            if cursor.fetchone()[0].endswith(":"):  # xmin:xmax: with no transaction in progress
                return
            if time.monotonic() > deadline:
                pytest.skip(f"a transaction stayed open on the server for {bound:.0f} s")
            time.sleep(0.02)


@pytest.fixture
def no_autovacuum():
    """No autovacuum in the test database while the test runs. An ANALYZE of any of its tables
    holds a snapshot, and while one is held the old versions on a page cannot be pruned: an
    update must then go to another page whatever the fillfactor (on a loaded machine the
    workers' ANALYZEs of the 600 new rows made this test fail)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT quote_ident(relname) FROM pg_class WHERE relkind = 'r' "
                       "AND relnamespace = current_schema()::regnamespace")
        tables = [row[0] for row in cursor.fetchall()]
        for table in tables:
            cursor.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
        deadline = time.monotonic() + 60  # (a worker started before ends its table first)
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
                           "'autovacuum worker' AND datname = current_database()")
            if not cursor.fetchone()[0]:
                break
            time.sleep(0.2)
    yield
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ALTER TABLE {table} RESET (autovacuum_enabled)")


def test_runs_that_move_every_rank_rewrite_the_rows_on_their_pages(no_autovacuum):
    """600 entries' standings stored, then rewritten whole six times, as the runs after the
    first games' ends move nearly every rank (here the stored rows are made stale by hand:
    every rank changes at every run): the rows stay on the pages they were inserted in (every
    update HOT; a row moved would go to a page past them), and the ranks read back right."""
    event = EventFactory()
    EntryFactory.create_batch(600, event=event)
    standings_recompute(event_id=event.pk)
    first = _pages()
    ranks = dict(Standing.objects.filter(event=event).values_list("entry_id", "rank"))
    assert sorted(ranks.values()) == list(range(1, 601))
    for _run in range(6):
        _after_older_transactions()
        Standing.objects.filter(event=event).update(rank=0)
        Event.objects.filter(pk=event.pk).update(standings_digest="")
        _after_older_transactions()
        standings_recompute(event_id=event.pk)
        assert dict(Standing.objects.filter(event=event).values_list("entry_id", "rank")) == ranks
    assert max(_pages()) <= max(first)
