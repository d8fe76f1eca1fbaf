"""Duplicate (复式) scoring: a 联邦's result on a board compared with the field's on the same
cards, so that what is left is the play, not the luck of the deal.

A board's *score* for a 联邦 is its net game points, its ``team_points`` less the other
联邦's (−12 … +12, RULES.md §7). The field of a score is the other scores made with the same
cards (the same hands, whichever seats' people held them). Two ways to compare, the
organizer picks:

- **matchpoints** (``"mp"``): the share of the field the score beat, a tie counting half —
  0.0 … 1.0; only the order of the scores counts.
- **IMPs** (``"imp"``, an IMP-like scale as in bridge): each difference with a score of the
  field turned into a whole number on :data:`IMP_SCALE`, which grows slower than the
  difference (a 12-point swing is worth less than twice a 6-point one), then averaged over the
  field (cross-IMPs); the size of a win counts, but a freak board cannot decide an event.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

METHODS = ("mp", "imp")

#: (least absolute difference of net game points, IMPs): 0 → 0, 1 → 1, 2 → 2, 3–4 → 3, …
IMP_SCALE = ((0, 0), (1, 1), (2, 2), (3, 3), (5, 4), (7, 5), (10, 6), (14, 7), (19, 8))


def net_points(team_points: Sequence[int], team: int) -> int:
    """The board's score of 联邦 ``team`` (0 or 1): its points less the other's."""
    return team_points[team] - team_points[1 - team]


def imps(difference: float) -> int:
    """The IMP-like value of a difference of net game points (signed)."""
    size = abs(difference)
    value = 0
    for least, worth in IMP_SCALE:
        if size >= least:
            value = worth
    return value if difference >= 0 else -value


def matchpoints(score: float, field: Sequence[float]) -> float | None:
    """The share of ``field`` that ``score`` beat, ties half; ``None`` with no field."""
    if not field:
        return None
    beaten = sum(1.0 if score > other else 0.5 if score == other else 0.0 for other in field)
    return beaten / len(field)


def cross_imps(score: float, field: Sequence[float]) -> float | None:
    """The mean IMPs of ``score`` against each score of ``field``; ``None`` with no field."""
    if not field:
        return None
    return sum(imps(score - other) for other in field) / len(field)


def compare(score: float, field: Sequence[float], method: str) -> float | None:
    """``score`` against ``field`` by ``method`` (``"mp"`` or ``"imp"``)."""
    if method == "mp":
        return matchpoints(score, field)
    if method == "imp":
        return cross_imps(score, field)
    raise ValueError(f"unknown duplicate scoring {method!r}: one of {', '.join(METHODS)}")


def score_board(scores: Mapping[Hashable, float], method: str) -> dict[Hashable, float | None]:
    """Every score of one board's cards against the others: ``{who: duplicate score}``.

    ``scores`` holds one entry per 联邦 that held the same hands (at a table or its twin)."""
    out = {}
    for who, score in scores.items():
        field = [other for key, other in scores.items() if key != who]
        out[who] = compare(score, field, method)
    return out
