"""The standings' pages are filled to half on PostgreSQL (``tournaments.0012``): a standings run
that moves every entry's rank rewrites the rows on their own pages (HOT updates, no index
touched), and migrating back resets the setting."""

from __future__ import annotations

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


def test_runs_that_move_every_rank_rewrite_the_rows_on_their_pages():
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
        Standing.objects.filter(event=event).update(rank=0)
        Event.objects.filter(pk=event.pk).update(standings_digest="")
        standings_recompute(event_id=event.pk)
        assert dict(Standing.objects.filter(event=event).values_list("entry_id", "rank")) == ranks
    assert max(_pages()) <= max(first)
