"""The reads and conditional writes of live games that the services and the API share.

One rule is written here once: **a user acts from their own seat at a live game's table, and
only while the table is open to its players** (its event and its round's seating published).
:func:`acting_seat_sql` states it, and both act paths use it: the locked read of every act and
托管 switch (:func:`live_row_sql`, run by :func:`live.locks.lock_live`, whose ``acting_seat``
:func:`live.services._own_seat` reads) and the conditional update of an act made without the
lock (:func:`act_update_sql`). The hot paths are SQL built once per process: the ORM took
longer (about 1 ms) to build the locked read than PostgreSQL took to run it.
"""

from __future__ import annotations

import functools

from django.db import connection
from django.db.models import Prefetch, QuerySet

from live.models import LiveGame
from tournaments.models import ROUND_DRAW_DATA, Event, Player, Round, Seat, Table
from tournaments.selectors import SEATING_PUBLIC
from tournaments.sqlrows import Columns, fetch_one


def _q(model) -> str:
    """``model``'s table name, quoted for the database."""
    return connection.ops.quote_name(model._meta.db_table)


def _col(model, name: str) -> str:
    """The quoted column of ``model``'s field ``name``."""
    return connection.ops.quote_name(model._meta.get_field(name).column)


@functools.cache
def user_seat_sql(table_id: str) -> str:
    """The seat (0–5) of one user at the table whose id is the SQL ``table_id``, or NULL; one
    parameter: the user's id (NULL: no user, no seat)."""
    return (f"(SELECT s.{_col(Seat, 'seat')} FROM {_q(Seat)} s JOIN {_q(Player)} p "
            f"ON p.{_col(Player, 'id')} = s.{_col(Seat, 'player')} "
            f"WHERE s.{_col(Seat, 'table')} = {table_id} AND p.{_col(Player, 'user')} = %s "
            f"LIMIT 1)")


@functools.cache
def seating_public_sql(table_id: str) -> str:
    """Whether the table whose id is the SQL ``table_id`` is open to its players: its event
    and its round's seating are published. Parameters: :func:`seating_public_params`."""
    return (f"EXISTS (SELECT 1 FROM {_q(Table)} t JOIN {_q(Round)} r "
            f"ON r.{_col(Round, 'id')} = t.{_col(Table, 'round')} JOIN {_q(Event)} e "
            f"ON e.{_col(Event, 'id')} = r.{_col(Round, 'event')} "
            f"WHERE t.{_col(Table, 'id')} = {table_id} AND e.{_col(Event, 'published')} "
            f"AND r.{_col(Round, 'status')} IN (%s, %s))")


def seating_public_params() -> list:
    return [str(status) for status in SEATING_PUBLIC]


@functools.cache
def acting_seat_sql(table_id: str) -> str:
    """The seat rule: the seat one user acts from at the table whose id is the SQL
    ``table_id`` — theirs, while the table is open to its players — or NULL. Parameters:
    :func:`acting_seat_params`."""
    return f"(CASE WHEN {seating_public_sql(table_id)} THEN {user_seat_sql(table_id)} END)"


def acting_seat_params(user_id: int | None) -> list:
    return [*seating_public_params(), user_id]


def live_for_view(pk: int, user, table_id: int | None = None) -> LiveGame | None:
    """The live game ``pk`` (``table_id``: only if it is at that table) for the API and the
    pages, or ``None``: without its state (this process's cache has the game), with its table,
    round and event (not the round's large draw data), and with ``user_seat``, the seat
    ``user`` has at its table (``None``: not seated, or anonymous). One prepared statement,
    built once (:func:`_view_sql`): through the ORM, building the query and its four
    instances was most of the check a stream makes of its access every few minutes
    (live.aio.reopener; ``bench_live --streams``)."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    parts, sql = _view_sql()
    row = fetch_one(sql, [user_id, pk])
    if row is None:
        return None
    built, start = [], 0
    for columns in parts:
        built.append(columns.build(row[start:start + len(columns)]))
        start += len(columns)
    live, table, rnd, event = built
    if table_id is not None and live.table_id != table_id:
        return None
    rnd.event, table.round, live.table = event, rnd, table
    live.user_seat = row[start]
    return live


@functools.cache
def _view_sql() -> tuple[tuple[Columns, ...], str]:
    """:func:`live_for_view`'s statement and the columns it reads, in order (then the user's
    seat). Parameters: the user's id (or NULL), the game's id."""
    parts = (Columns(LiveGame, "lg", skip=("state",)), Columns(Table, "t"),
             Columns(Round, "r", skip=ROUND_DRAW_DATA), Columns(Event, "e"))
    table_id = f"lg.{_col(LiveGame, 'table')}"
    sql = (f"SELECT {', '.join(columns.sql for columns in parts)}, "
           f"{user_seat_sql(table_id)} FROM {_q(LiveGame)} lg "
           f"JOIN {_q(Table)} t ON t.{_col(Table, 'id')} = {table_id} "
           f"JOIN {_q(Round)} r ON r.{_col(Round, 'id')} = t.{_col(Table, 'round')} "
           f"JOIN {_q(Event)} e ON e.{_col(Event, 'id')} = r.{_col(Round, 'event')} "
           f"WHERE lg.{_col(LiveGame, 'id')} = %s")
    return parts, sql


@functools.cache
def live_row_sql() -> str:
    """One live game's row (alias ``lg``) without its state, with ``user_seat`` (seated at
    its table) and ``acting_seat`` (:func:`acting_seat_sql`). Parameters:
    :func:`live_row_params`."""
    columns = ", ".join(f"lg.{connection.ops.quote_name(f.column)}"
                        for f in LiveGame._meta.concrete_fields if f.name != "state")
    table_id = f"lg.{_col(LiveGame, 'table')}"
    return (f"SELECT {columns}, {user_seat_sql(table_id)} AS user_seat, "
            f"{acting_seat_sql(table_id)} AS acting_seat "
            f"FROM {_q(LiveGame)} lg WHERE lg.{_col(LiveGame, 'id')} = %s")


def live_row_params(live_id: int, user_id: int | None) -> list:
    return [user_id, *acting_seat_params(user_id), live_id]


@functools.cache
def state_sql() -> str:
    """The state of a live game if it is still the one named at that version, running.
    Parameters: id, start time, version, the running status."""
    return (f"SELECT {_col(LiveGame, 'state')} FROM {_q(LiveGame)} WHERE {_col(LiveGame, 'id')} "
            f"= %s AND {_col(LiveGame, 'started_at')} = %s AND {_col(LiveGame, 'version')} = %s "
            f"AND {_col(LiveGame, 'status')} = %s")


@functools.cache
def row_sql() -> str:
    """A live game's version, status, turn deadline, result id, seats in 托管 and state (its
    JSON text: see :func:`row_values`). Parameter: the id."""
    columns = ", ".join(_col(LiveGame, name) for name in (
        "version", "status", "turn_deadline", "result", "hosted", "state"))
    return f"SELECT {columns} FROM {_q(LiveGame)} WHERE {_col(LiveGame, 'id')} = %s"


def row_values(row: tuple) -> tuple:
    """A row of :func:`row_sql` with its turn deadline as the ORM gives it (a datetime; SQLite
    stores text) and its state still the JSON text (the caller decodes it)."""
    version, status, deadline, result_id, hosted, text = row
    return version, status, _as_orm_gives("turn_deadline", deadline), result_id, hosted, text


def _as_orm_gives(name: str, value):
    """A raw value of ``LiveGame``'s column ``name`` as the ORM gives it (its converters)."""
    col = LiveGame._meta.get_field(name).get_col(LiveGame._meta.db_table)
    for convert in connection.ops.get_db_converters(col):
        value = convert(value, col, connection)
    return value


@functools.cache
def facts_sql() -> str:
    """What an act without the lock needs of a game besides its state (:data:`FACTS`: what
    never changes in its row, its seats in 托管 and its status) and the seat of one user at its
    table (:func:`user_seat_sql`). Parameters: the user's id (or NULL), the game's id."""
    columns = ", ".join(f"lg.{_col(LiveGame, name)}" for name in FACTS)
    table_id = f"lg.{_col(LiveGame, 'table')}"
    return (f"SELECT {columns}, {user_seat_sql(table_id)} FROM {_q(LiveGame)} lg "
            f"WHERE lg.{_col(LiveGame, 'id')} = %s")


#: the columns of :func:`facts_sql`, then the user's seat
FACTS = ("started_at", "table", "number", "move_seconds", "hosted", "status")


def facts_values(row: tuple) -> tuple:
    """A row of :func:`facts_sql` with its start time as the ORM gives it (SQLite stores
    text)."""
    started_at, *rest = row
    return (_as_orm_gives("started_at", started_at), *rest)


@functools.cache
def act_update_sql(seated: bool, also: str | None = None) -> str:
    """The conditional update of an act made without the row lock: it stores the new state,
    version, turn deadline and update time only if the row is still the game named, at the
    version acted on, running, with no seat in 托管 (the locked path knows whose turn is
    hosted), and, ``seated``, if the seat acting is still the user's (:func:`acting_seat_sql`).
    Parameters: state, version, deadline, now, id, version, start time, the running status
    and, ``seated``, :func:`acting_seat_params` and the seat, then those of ``also``, one more
    condition (SQL) the caller adds."""
    lg = _q(LiveGame)
    sql = (f"UPDATE {lg} SET {_col(LiveGame, 'state')} = %s, {_col(LiveGame, 'version')} = %s, "
           f"{_col(LiveGame, 'turn_deadline')} = %s, {_col(LiveGame, 'updated_at')} = %s "
           f"WHERE {_col(LiveGame, 'id')} = %s AND {_col(LiveGame, 'version')} = %s "
           f"AND {_col(LiveGame, 'started_at')} = %s AND {_col(LiveGame, 'status')} = %s "
           f"AND {_col(LiveGame, 'hosted')} = 0")
    if seated:
        table_id = f"{lg}.{_col(LiveGame, 'table')}"
        sql += f" AND {acting_seat_sql(table_id)} = %s"
    if also:
        sql += f" AND {also}"
    return sql


def running_live_games(rnd: Round) -> list[tuple[int, int]]:
    """The round's games being played live now, as ``(table id, game number)``."""
    return list(LiveGame.objects.filter(table__round=rnd, status=LiveGame.Status.RUNNING)
                .order_by().values_list("table_id", "number"))


def running_live_game(through: str = "") -> Prefetch:
    """The prefetch that gives each table ``running_live``: its game being played live now, in
    a list (a table plays at most one game live at a time; empty when none), one query for
    them all. ``through``: the lookup to the tables from what is read (``"table__"`` from
    seats)."""
    return Prefetch(f"{through}live_games", LiveGame.objects.filter(
        status=LiveGame.Status.RUNNING).only("pk", "table_id", "number", "deal_label",
                                             "deal_commitment"), to_attr="running_live")


def live_game_number(table: Table) -> int | None:
    """The number of the game ``table`` plays live now, else ``None`` (``table`` read with
    :func:`running_live_game`)."""
    return table.running_live[0].number if table.running_live else None


def with_running_live_game(tables: QuerySet[Table]) -> QuerySet[Table]:
    """``tables`` with :func:`running_live_game`."""
    return tables.prefetch_related(running_live_game())
