"""Duplicate (复式) boards: a round's deals made once per group of tables and played at each.

A duplicate event's round splits its tables, in number order, into groups of
``Event.duplicate_group`` tables (0: the whole round is one group; a last group left with a
single table joins the group before it, for a board needs a twin to be compared with). Game
``k`` of every table of a group is board ``k`` of the group: the same six hands, dealt from one
secret seed (:func:`engine.deals.derive_deal` with the board's label
``gouji/event/<id>/round/<n>/group/<g>/board/<k>``), its commitment public from the draw.

Twins: the second, fourth, … table of a group plays every board rotated by one seat — seat
``s`` holds the board's hand ``s − 1`` and the first lead moves with it — so the hands 联邦 A
(seats 0, 2, 4) holds at one table are 联邦 B's (seats 1, 3, 5) at its twin, and every 联邦's
cards are also played by the other side. A board is a match's first game: no tribute comes in,
and its first lead is the board's (seat ``(k − 1) mod 6`` at an untwinned table).
"""

from __future__ import annotations

from engine.deals import commitment, derive_deal, new_seed, twin_hands
from tournaments.models import Board, Event, Round, Table


def is_duplicate(event: Event) -> bool:
    """Whether ``event`` plays its rounds duplicate (复式)."""
    return event.duplicate != Event.Duplicate.OFF


def is_board_round(rnd: Round) -> bool:
    """Whether round ``rnd`` is played on boards: a Swiss round of a duplicate event (a
    knockout final is a match of its own, decided by its games' points)."""
    return rnd.stage == Round.Stage.SWISS and is_duplicate(rnd.event)


def board_label(rnd: Round, group: int, number: int) -> str:
    """The deal label of board ``number`` of ``group`` in round ``rnd``."""
    return f"gouji/event/{rnd.event_id}/round/{rnd.number}/group/{group}/board/{number}"


def groups_of(table_numbers: list[int], size: int) -> dict[int, tuple[int, bool]]:
    """``{table number: (group, twin)}`` for a round's tables (see the module's rule)."""
    numbers = sorted(table_numbers)
    size = size or len(numbers) or 1
    chunks = [numbers[i:i + size] for i in range(0, len(numbers), size)]
    if len(chunks) > 1 and len(chunks[-1]) == 1:
        chunks[-2] += chunks.pop()
    return {n: (g, i % 2 == 1) for g, chunk in enumerate(chunks, start=1)
            for i, n in enumerate(chunk)}


def table_place(table: Table) -> tuple[int, bool]:
    """``(group, twin)`` of ``table`` in its round."""
    rnd = table.round
    numbers = list(Table.objects.filter(round_id=rnd.pk).values_list("number", flat=True))
    return groups_of(numbers, rnd.event.duplicate_group)[table.number]


def group_tables(rnd: Round, group: int) -> list[Table]:
    """The tables of ``group`` in round ``rnd``, in number order."""
    tables = list(Table.objects.filter(round=rnd).order_by("number"))
    place = groups_of([t.number for t in tables], rnd.event.duplicate_group)
    return [t for t in tables if place[t.number][0] == group]


def rotated(hands: list, twin: bool) -> list:
    """The hands as seated at a table: at a twin, seat ``s`` holds hand ``s − 1``."""
    return twin_hands(hands) if twin else list(hands)


def board_hands(board: Board, twin: bool) -> list[list[str]]:
    """The six hands of ``board`` as dealt at a table (a twin: rotated one seat)."""
    return rotated(derive_deal(board.seed, board.label), twin)


def board_leader(board: Board, twin: bool) -> int:
    """The seat that leads ``board`` at a table (a twin: the next seat, holding the hand)."""
    return (board.leader + 1) % 6 if twin else board.leader


def boards_make(rnd: Round) -> list[Board]:
    """Make and commit the boards of a duplicate round's groups (idempotent: a board made
    already is kept, so its published commitment never changes); nothing for an event that
    is not duplicate. Called when the round is drawn."""
    event = rnd.event
    if not is_board_round(rnd):
        return []
    numbers = list(Table.objects.filter(round=rnd).values_list("number", flat=True))
    groups = sorted({g for g, _twin in groups_of(numbers, event.duplicate_group).values()})
    have = set(Board.objects.filter(round=rnd).values_list("group", "number"))
    made = []
    for group in groups:
        for number in range(1, event.games_per_match + 1):
            if (group, number) in have:
                continue
            label, seed = board_label(rnd, group, number), new_seed()
            made.append(Board(round=rnd, group=group, number=number, label=label, seed=seed,
                              commitment=commitment(seed, label), leader=(number - 1) % 6))
    Board.objects.bulk_create(made)
    return made


def table_board(table: Table, number: int) -> tuple[Board, bool] | None:
    """The board game ``number`` of ``table`` plays and whether the table is its twin;
    ``None`` outside a duplicate event (or before its boards are made)."""
    if not is_board_round(table.round):
        return None
    group, twin = table_place(table)
    board = Board.objects.filter(round_id=table.round_id, group=group, number=number).first()
    return None if board is None else (board, twin)


def board_hidden(label: str) -> bool:
    """Whether a live game dealt with ``label`` is a duplicate board its group has not finished
    yet (not scored): nobody but the table's players and the staff may watch it, for the
    other tables of the group play the same cards."""
    if "/board/" not in (label or ""):
        return False
    return not Board.objects.filter(label=label, scored_at__isnull=False).exists()
