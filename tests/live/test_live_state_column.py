"""A live or practice game's state is stored as ``json`` in PostgreSQL (its text, compressed with
lz4 where the server offers it; ``live.0003``), in pages filled to half (``live.0005``): what the
ORM and the act's own statement write reads back as the same state, through the model and as a
value, on every database; migrating back to ``jsonb`` and forward again keeps every state; and
the acts' updates of a full table stay on their rows' pages."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import engine
from live import practice, services
from live.models import LiveGame, PracticeGame
from tests.live.helpers import make_live_table, play_on_server

pytestmark = pytest.mark.django_db(transaction=True)

on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql",
                                   reason="the column's type and compression are PostgreSQL's")


def _states(model) -> list:
    return list(model.objects.order_by("pk").values_list("state", flat=True))


def test_a_state_reads_back_as_the_act_and_the_orm_wrote_it():
    lt = make_live_table()
    live = services.live_start(table=lt.table)
    lg, game = play_on_server(lt, live.pk, until=lambda g: len(g.actions) >= 30)
    # the act's statement wrote it (raw SQL): the model and a values read give the state
    assert lg.state == game.to_state() == _states(LiveGame)[0]
    assert engine.Game.from_state(lg.state).version == lg.version
    # the ORM writes it too (any JSON: text beyond ASCII, numbers past 2**53, nesting)
    odd = {**lg.state, "note": "够级 · \u2028 \"quoted\"", "big": 2**60, "deep": [[{"a": None}]]}
    LiveGame.objects.filter(pk=lg.pk).update(state=odd)
    assert LiveGame.objects.get(pk=lg.pk).state == odd == _states(LiveGame)[0]
    played, _token = practice.practice_start(preset="dagang")
    assert PracticeGame.objects.get(pk=played.pk).state == played.state


def _assert_json_compressed_with_lz4_where_offered():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings "
                       "WHERE name = 'default_toast_compression'")
        lz4 = bool((cursor.fetchone() or [False])[0])
        cursor.execute("SELECT c.relname, format_type(a.atttypid, a.atttypmod), "
                       "a.attcompression FROM pg_attribute a JOIN pg_class c "
                       "ON c.oid = a.attrelid WHERE a.attname = 'state' AND c.relname IN "
                       "('games_livegame', 'live_practicegame') ORDER BY c.relname")
        columns = cursor.fetchall()
    assert columns == [("games_livegame", "json", "l" if lz4 else ""),
                       ("live_practicegame", "json", "l" if lz4 else "")]


@pytest.mark.postgres
@on_postgresql
def test_the_state_is_json_text_compressed_with_lz4_where_offered():
    _assert_json_compressed_with_lz4_where_offered()


@pytest.mark.postgres
@on_postgresql
def test_migrating_to_jsonb_and_back_keeps_every_state():
    lt = make_live_table()
    live = services.live_start(table=lt.table)
    play_on_server(lt, live.pk, until=lambda g: len(g.actions) >= 12)
    practice.practice_start(preset="dagang")
    before = _states(LiveGame), _states(PracticeGame)
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate([("live", "0002_practicegame")])
        apps = MigrationExecutor(connection).loader.project_state(
            [("live", "0002_practicegame")]).apps
        old = apps.get_model("live", "LiveGame"), apps.get_model("live", "PracticeGame")
        assert (_states(old[0]), _states(old[1])) == before
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert (_states(LiveGame), _states(PracticeGame)) == before
    _assert_json_compressed_with_lz4_where_offered()


def _fillfactors() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reloptions FROM pg_class WHERE relname IN "
                       "('games_livegame', 'live_practicegame')")
        return {name: options for name, options in cursor.fetchall()}


@pytest.mark.postgres
@on_postgresql
def test_the_games_pages_are_filled_to_half_and_migrating_back_resets_it():
    half = {"games_livegame": ["fillfactor=50"], "live_practicegame": ["fillfactor=50"]}
    assert _fillfactors() == half
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate([("live", "0004_running_games_index")])
        assert _fillfactors() == {"games_livegame": None, "live_practicegame": None}
    finally:
        MigrationExecutor(connection).migrate(latest)
    assert _fillfactors() == half


def _pages() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT (ctid::text::point)[0]::int FROM games_livegame")
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.postgres
@on_postgresql
def test_a_full_tables_acts_update_their_rows_in_place():
    """Forty games, each moved on five acts at a time in turn as a round is played: their rows
    stay on the pages they were inserted in (every update HOT; a row moved would go to a page
    past them), and the states read back as played."""
    tables = [make_live_table() for _k in range(40)]
    ids = [services.live_start(table=lt.table).pk for lt in tables]
    first = _pages()
    played = {}
    for n in range(5, 65, 5):
        for lt, pk in zip(tables, ids, strict=True):
            played[pk] = play_on_server(lt, pk, until=lambda g, n=n: len(g.actions) >= n)[1]
    assert max(_pages()) <= max(first)
    assert {lg.pk: lg.state for lg in LiveGame.objects.all()} == \
        {pk: game.to_state() for pk, game in played.items()}
