"""Reads of games shared by the API, the pages and the services (STYLE.md: ``selectors.py``)."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from games.models import GameResult, ResultProposal
from tournaments.models import Round, Table
from tournaments.selectors import round_tables


def round_tables_with_results(rnd: Round) -> QuerySet[Table]:
    """:func:`tournaments.selectors.round_tables`, each table with its results by game number."""
    return round_tables(rnd).prefetch_related(
        Prefetch("results", GameResult.objects.order_by("number")))


def result_open_proposal(result: GameResult) -> ResultProposal | None:
    """The result's open proposed correction, if any (from ``result.proposals``, prefetched or
    not)."""
    return next((p for p in result.proposals.all() if p.status == ResultProposal.Status.OPEN),
                None)


def result_history(result: GameResult) -> list[dict]:
    """Every step of a result, oldest first: who (``by``, a username), when (``at``), why
    (``reason``). ``submitted`` (version 1; ``recorded`` by the server for a live game) and ``corrected`` (a version that did not come from
    a proposal), and for each proposed correction ``proposed`` and how it was closed:
    ``accepted`` (with the ``version`` it became), ``declined``, ``withdrawn`` or
    ``superseded`` (by a referee's correction). Uses ``result.versions`` and
    ``result.proposals`` with their users (prefetch them for a list)."""
    proposals = list(result.proposals.all())
    from_proposals = {p.version for p in proposals if p.version is not None}
    first = "recorded" if result.system_recorded else "submitted"
    steps = [_step(first if v.version == 1 else "corrected", v.submitted_by,
                   v.submitted_at, v.reason, version=v.version)
             for v in result.versions.all() if v.version not in from_proposals]
    for p in proposals:
        steps.append(_step("proposed", p.proposed_by, p.proposed_at, p.reason, proposal=p.pk))
        if p.status != ResultProposal.Status.OPEN:
            steps.append(_step(p.status, p.decided_by, p.decided_at, p.decision_reason,
                               version=p.version, proposal=p.pk))
    steps.sort(key=lambda s: s["at"])
    return steps


def _step(step: str, user, at, reason: str, *, version: int | None = None,
          proposal: int | None = None) -> dict:
    return {"step": step, "by": getattr(user, "username", None), "at": at, "reason": reason,
            "version": version, "proposal": proposal}
