"""Every row lock and advisory lock of the tournament core, in one place.

Locks are taken in one order, across every app: **event → round → table → live game →
advisory locks** (an entry ranks with the round: after its event, before any table). A
transaction that needs two of them takes them in that order, never the other way, so two
transactions cannot wait for each other. Each app keeps its own rows' locks in its
``locks.py`` (``live/locks.py`` for a live game); nothing else calls ``select_for_update`` or
writes ``FOR UPDATE`` (``tests/test_layout.py`` checks it).

Advisory locks (PostgreSQL; SQLite serialises writers anyway) are named by one registry,
:class:`Advisory`, so that two features cannot pick the same class number.

Every function here must be called inside ``transaction.atomic()``.
"""

from __future__ import annotations

import enum
import zlib

from django.db import connection

from .models import ROUND_DRAW_DATA, Entry, Event, Round, Table


class Advisory(enum.IntEnum):
    """The classes of transaction-scoped advisory locks (``pg_advisory_xact_lock(class, key)``).
    Values are fixed: they are what PostgreSQL sees, and two processes of different versions
    must agree on them."""

    #: one event's standings runs take turns (``tournaments.standings``)
    STANDINGS = 0x5354  # "ST"
    #: one user's submissions under one Idempotency-Key take turns (``games.services``)
    SUBMISSION_KEY = 0x494B  # "IK"
    #: re-ratings take turns, all events together: ratings cross events (``ratings.services``)
    RATINGS = 0x5241  # "RA"


def advisory_xact_lock(kind: Advisory, key: int | str) -> None:
    """Hold the advisory lock ``(kind, key)`` until the transaction ends (PostgreSQL only).
    A string key is hashed to a signed 32-bit integer: keys that hash alike only take turns."""
    if connection.vendor != "postgresql":
        return
    if isinstance(key, str):
        key = zlib.crc32(key.encode()) - 2**31
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [int(kind), key])


def lock_event(event_id: int) -> Event:
    """Lock and return one event's row."""
    return Event.objects.select_for_update().get(pk=event_id)


def lock_round(round_id: int, *, with_event: bool = False) -> Round:
    """Lock and return one round's row, its event loaded — and, ``with_event``, locked first
    (the documented order), for work that must not overlap a change to the event (a draw)."""
    if with_event:
        lock_event(Round.objects.filter(pk=round_id).values_list("event_id", flat=True).get())
    return Round.objects.select_for_update(of=("self",)).select_related("event").get(pk=round_id)


def lock_entry(entry_id: int) -> Entry:
    """Lock and return one entry's row."""
    return Entry.objects.select_for_update().get(pk=entry_id)


def lock_table(table_id: int) -> Table:
    """Lock one table's row only (``of=self``): work at other tables of the same round must not
    queue behind it. Its round and event are loaded, not locked; the round's large draw data
    is not loaded."""
    return (Table.objects.select_for_update(of=("self",)).select_related("round__event")
            .defer(*(f"round__{name}" for name in ROUND_DRAW_DATA)).get(pk=table_id))


def lock_table_row(table_id: int) -> None:
    """Lock one table's row and read nothing: for a caller that has the table with its round
    and event already (result submission's hot path, docs/BENCHMARKS.md)."""
    if connection.features.has_select_for_update:
        with connection.cursor() as cursor:
            cursor.execute(f'SELECT 1 FROM "{Table._meta.db_table}" WHERE "id" = %s FOR UPDATE',
                           [table_id])


def lock_table_with_viewer(user, table_id: int):
    """:func:`tournaments.selectors.table_with_viewer` with the table's row locked by the same
    read (``FOR UPDATE OF`` the table only: its round and event are read, not locked): result
    submission's hot path, which locks the table before it reads anything else
    (``games.services.result_submit`` with ``table_locked``). Inside ``transaction.atomic()``."""
    from tournaments.selectors import table_with_viewer_where

    lock = " FOR UPDATE OF T" if connection.features.has_select_for_update_of else ""
    return table_with_viewer_where(user, 'T."id" = %s' + lock, [table_id])


def lock_tables(table_ids: list[int]) -> None:
    """Lock some table rows (of one round), in primary-key order: two seats swapped between
    tables (``services.round_seats_swap``)."""
    list(Table.objects.filter(pk__in=table_ids).select_for_update(of=("self",))
         .order_by("pk").values_list("pk", flat=True))


def lock_round_tables(round_id: int) -> None:
    """Lock every table row of one round, in primary-key order (a referee's confirmation of a
    whole round: ``games.services.round_results_confirm``)."""
    list(Table.objects.filter(round_id=round_id).select_for_update(of=("self",))
         .order_by("pk").values_list("pk", flat=True))


def lock_board(board_id: int):
    """Lock one duplicate board's row (:class:`tournaments.models.Board`), taken alone, after
    its tables' results are committed: scoring a board waits for another scoring of it."""
    from .models import Board

    return Board.objects.select_for_update(of=("self",)).select_related(
        "round__event").get(pk=board_id)
