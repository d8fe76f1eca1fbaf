"""Duplicate (复式) results: what is hidden until a board's group has finished it, and the
board's scores once it has (:mod:`tournaments.boards` makes the boards).

A board is *finished* when every table of its group has a confirmed result for it; it is then
scored (:func:`board_score`): each 联邦's net game points against the field's on the same
cards — the untwinned tables' 联邦 A and the twins' 联邦 B hold one set of hands, the other
two the other — by the event's method (:func:`engine.duplicate.score_board`), and a
:class:`~tournaments.models.BoardResult` is written for each table. Until then a board game's
result, record, replay and seed are hidden from everyone but the event's staff
(:class:`games.selectors.RecordAccess`, :func:`revealed`): the rows only exist once scored,
which is the one test.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from engine.duplicate import score_board
from games.models import GameResult
from tournaments.boards import group_tables, is_duplicate, table_board
from tournaments.locks import lock_board
from tournaments.models import Board, BoardResult, Event, Round, Table


def revealed() -> Q:
    """The filter of :class:`GameResult` rows anyone may see: outside a duplicate event's Swiss
    rounds, or a board whose group finished it (scored: its :class:`BoardResult` rows exist)."""
    return Q(table__round__event__duplicate=Event.Duplicate.OFF) | ~Q(
        table__round__stage=Round.Stage.SWISS) | Exists(
        BoardResult.objects.filter(table_id=OuterRef("table_id"),
                                   board__number=OuterRef("number")))


def result_hidden(result: GameResult) -> bool:
    """Whether ``result`` is a duplicate board's game whose group has not finished it."""
    return not GameResult.objects.filter(revealed(), pk=result.pk).exists()


def boards_score_on_commit(result_ids: list[int]) -> None:
    """Once the transaction commits, score the boards of those results that are duplicate
    board games (each in its own transaction, under the board's lock)."""
    def run():
        rows = (GameResult.objects.filter(pk__in=result_ids)
                .exclude(table__round__event__duplicate=Event.Duplicate.OFF)
                .filter(table__round__stage=Round.Stage.SWISS)
                .values_list("table_id", "number").distinct())
        for table_id, number in rows:
            found = table_board(Table.objects.select_related("round__event").get(pk=table_id),
                                number)
            if found is not None:
                board_score(found[0].pk)
    # robust: a failure is logged, not the act's or confirmation's error (their results are
    # committed); ``manage.py score_boards`` scores what it left behind
    transaction.on_commit(run, robust=True)


def board_score(board_id: int) -> bool:
    """Score board ``board_id`` if every table of its group has a confirmed result for it:
    the :class:`BoardResult` rows written afresh from the results (so a retried run, or a
    result corrected and confirmed again, gives the same rows and never counts twice), and
    the standings recomputed. ``False`` while a table has not finished it."""
    from tournaments.standings import standings_refresh_on_commit

    with transaction.atomic():
        board = lock_board(board_id)
        rnd = board.round
        event = rnd.event
        if not is_duplicate(event):
            return False
        tables = group_tables(rnd, board.group)
        results = {r.table_id: r for r in GameResult.objects.filter(
            table__in=tables, number=board.number, status=GameResult.Status.CONFIRMED)}
        if len(tables) < 2 or any(t.pk not in results for t in tables):
            return False
        twin_of = {t.pk: i % 2 == 1 for i, t in enumerate(tables)}
        nets = {t.pk: results[t.pk].points_a - results[t.pk].points_b for t in tables}
        # who held the board's even hands (0, 2, 4) and who the odd ones, at each table
        even = {(t, "b" if twin_of[t] else "a"): (-n if twin_of[t] else n)
                for t, n in nets.items()}
        odd = {(t, "a" if twin_of[t] else "b"): (n if twin_of[t] else -n)
               for t, n in nets.items()}
        scores = {**score_board(even, event.duplicate), **score_board(odd, event.duplicate)}
        field = len(tables) - 1
        unit = 2 if event.duplicate == Event.Duplicate.MP else 1  # 2 matchpoints a twin beaten

        def points(key):
            value = scores[key]
            return 0 if value is None else round(value * field * unit)

        BoardResult.objects.filter(board=board).delete()
        BoardResult.objects.bulk_create([BoardResult(
            board=board, table_id=t, twin=twin_of[t], net_a=n, net_b=-n,
            score_a=scores[(t, "a")], score_b=scores[(t, "b")],
            points_a=points((t, "a")), points_b=points((t, "b"))) for t, n in nets.items()])
        board.scored_at = board.scored_at or timezone.now()
        board.save(update_fields=["scored_at"])
        standings_refresh_on_commit(event_id=event.pk, from_round=rnd.number)
    return True


def group_finished(board: Board) -> bool:
    """Whether every table of ``board``'s group has finished it (it is scored)."""
    return board.scored_at is not None


def boards_unscored(event: Event | None = None) -> list[int]:
    """The boards (ids) not scored yet, of ``event`` or of every event, oldest first: those
    a lost on-commit run left behind, and those whose group is still playing."""
    boards = Board.objects.filter(scored_at__isnull=True)
    if event is not None:
        boards = boards.filter(round__event=event)
    return list(boards.order_by("pk").values_list("pk", flat=True))
