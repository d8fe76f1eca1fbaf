"""A duplicate (复式) round's boards for everyone: each board's commitment from the draw, and
once every table of its group has finished it, each table's result, the scores, the seed and
how to check the deal. Nothing of a board shows before that but its commitment and how many
tables have finished it (:mod:`games.duplicate`)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404, render

from games.models import GameResult
from live.deals import VERIFY_COMMAND
from tournaments.boards import groups_of, is_duplicate
from tournaments.models import Board, BoardResult, Table
from tournaments.names import side_names
from web.views.shown import base_context, public_event, public_round


def _duplicate_round(slug: str, number: int):
    event = public_event(slug)
    if not is_duplicate(event):
        raise Http404("this event is not duplicate")
    return event, public_round(event, number)


def _groups(rnd) -> dict[int, list[int]]:
    """``{group: [table numbers]}`` of the round."""
    numbers = list(Table.objects.filter(round=rnd).values_list("number", flat=True))
    groups: dict[int, list[int]] = {}
    for table, (group, _twin) in sorted(groups_of(numbers, rnd.event.duplicate_group).items()):
        groups.setdefault(group, []).append(table)
    return groups


def round_boards(request, slug, number):
    """Every board of a duplicate round, by group."""
    event, rnd = _duplicate_round(slug, number)
    groups = _groups(rnd)
    finished = dict(((t, n), 1) for t, n in GameResult.objects.filter(
        table__round=rnd, status=GameResult.Status.CONFIRMED).values_list(
        "table__number", "number"))
    views = []
    for board in Board.objects.filter(round=rnd).order_by("group", "number"):
        tables = groups.get(board.group, [])
        views.append({"board": board, "scored": board.scored_at is not None,
                      "tables": tables,
                      "done": sum((t, board.number) in finished for t in tables)})
    return render(request, "web/public/boards.html", {
        **base_context(event, "seating"), "round": rnd, "boards": views,
        "groups": groups})


def board_detail(request, slug, number, group, board):
    """One board of a duplicate round: hidden, or each table's result and the scores."""
    event, rnd = _duplicate_round(slug, number)
    item = get_object_or_404(Board, round=rnd, group=group, number=board)
    tables = _groups(rnd).get(group, [])
    rows = []
    scored = item.scored_at is not None
    if scored:
        for r in BoardResult.objects.filter(board=item).select_related("table").order_by(
                "table__number"):
            sides = side_names(r.table)
            rows.append({"table": r.table, "twin": r.twin, "sides": sides,
                         "url": r.table.get_absolute_url(),
                         "net": (r.net_a, r.net_b), "score": (r.score_a, r.score_b),
                         "points": (r.points_a, r.points_b)})
    done = GameResult.objects.filter(table__round=rnd, table__number__in=tables,
                                     number=item.number,
                                     status=GameResult.Status.CONFIRMED).count()
    return render(request, "web/public/board.html", {
        **base_context(event, "seating"), "round": rnd, "board": item, "scored": scored,
        "rows": rows, "tables": tables, "done": done, "method": event.duplicate,
        "command": VERIFY_COMMAND.format(seed=item.seed, label=item.label,
                                         commitment=item.commitment) if scored else None})
