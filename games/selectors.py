"""Reads of games shared by the API, the pages and the services (STYLE.md: ``selectors.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from games.duplicate import result_hidden, revealed
from games.models import GameResult, GameResultVersion, ResultDispute, ResultProposal
from tournaments.models import Round, Table
from tournaments.selectors import (
    is_referee,
    public_seat_of,
    round_tables,
    table_with_viewer_where,
)


@dataclass(frozen=True)
class RecordAccess:
    """Who may see a game's record (its six dealt hands and every act): the one rule the API,
    the pages, the CSV exports and the streams apply. The event's staff (referees and
    organizers) see it as soon as it is stored, to settle a dispute; the players seated at its
    table see it too, so that the other 联邦 can check a record before confirming it; everyone
    else only once the result counts (confirmed). A result sheet holds no hidden card and is
    not a record."""

    staff: bool = False
    seated: bool = False

    def allows(self, result: GameResult) -> bool:
        """Whether the records among ``result``'s versions may be shown. A duplicate (复式)
        board's game is hidden from all but the staff until every table of its group has
        finished the board (:mod:`games.duplicate`): its own table's players see theirs."""
        if self.staff or self.seated:
            return True
        return result.status == GameResult.Status.CONFIRMED and not result_hidden(result)

    def allows_seed(self, result: GameResult) -> bool:
        """Whether the seed of ``result``'s live deal may be shown: with its record, and for
        a duplicate board — the same cards as the group's other tables — to all but the
        staff only once the group has finished it."""
        return self.staff or (self.allows(result) and not result_hidden(result))

    def allows_proposal(self) -> bool:
        """Whether a proposed correction's record may be shown: it does not count until it is
        accepted, so only to the staff and the table."""
        return self.staff or self.seated


def record_access(user, table: Table) -> RecordAccess:
    """What ``user`` may see of ``table``'s records (:class:`RecordAccess`): staff of its
    event, seated at it (its seating published), or neither."""
    staff = is_referee(user, table.round.event)
    return RecordAccess(staff=staff,
                        seated=not staff and public_seat_of(user, table) is not None)


def round_tables_with_results(rnd: Round, *, staff: bool = False) -> QuerySet[Table]:
    """:func:`tournaments.selectors.round_tables`, each table with its results by game number:
    for all but the ``staff``, without a duplicate board's results its group has not finished
    (:func:`games.duplicate.revealed`)."""
    results = GameResult.objects.order_by("number")
    if not staff:
        results = results.filter(revealed())
    return round_tables(rnd).prefetch_related(Prefetch("results", results))


#: what :func:`result_history` and a result's page read: its versions, proposed corrections
#: and disputes with their users, one query each (``prefetch_related_objects(results, *…)``)
RESULT_HISTORY_PREFETCH = (
    Prefetch("versions", queryset=GameResultVersion.objects.select_related(
        "submitted_by__player")),
    Prefetch("proposals", queryset=ResultProposal.objects.select_related(
        "proposed_by__player", "decided_by__player")),
    Prefetch("disputes", queryset=ResultDispute.objects.select_related(
        "raised_by__player", "settled_by__player")))


def result_table_with_viewer(user, result_id: int):
    """The table of result ``result_id`` with its round and event and what ``user`` is there
    (:func:`tournaments.selectors.table_with_viewer`), in one query; ``None`` when there is no
    such result. The hot path of confirming: the service reads the result itself, locked."""
    where = f'T."id" = (SELECT "table_id" FROM "{GameResult._meta.db_table}" WHERE "id" = %s)'
    return table_with_viewer_where(user, where, [result_id])


def result_first_submission(result: GameResult) -> tuple[str, str | None]:
    """The kind of result's version 1 (a sheet or a record) and its submitter's username."""
    kind, username = GameResultVersion.objects.filter(result=result, version=1).order_by(
        ).values_list("kind", "submitted_by__username").get()
    return kind, username


def result_open_proposal(result: GameResult) -> ResultProposal | None:
    """The result's open proposed correction, if any (from ``result.proposals``, prefetched or
    not)."""
    return next((p for p in result.proposals.all() if p.status == ResultProposal.Status.OPEN),
                None)


def result_history(result: GameResult, *, confirmation: bool = False) -> list[dict]:
    """Every step of a result, oldest first: who (``by``, a username; ``user``, the login
    itself, for the pages' names), when (``at``), why (``reason``). ``submitted`` (version 1; ``recorded`` by the server for a live game) and ``corrected`` (a version that did not come from
    a proposal), and for each proposed correction ``proposed`` and how it was closed:
    ``accepted`` (with the ``version`` it became), ``declined``, ``withdrawn`` or
    ``superseded`` (by a referee's correction); for each dispute ``disputed`` (with the
    ``version`` disputed) and, once a referee settled it, ``settled`` (with the ``version`` it
    stands at). A step that changed the result after its round was closed (a later round
    drawn: ``games.services._check_round_open``) carries ``after_close``, the number of the
    latest round then drawn (``None`` otherwise). Uses ``result.versions``,
    ``result.proposals`` and ``result.disputes`` with their users (prefetch them for a
    list). ``confirmation``: also the result's current confirmation, ``confirmed`` (who
    confirmed the current ``version``, when: ``result.confirmed_by``, select it with its
    player), as the pages show it (the API has it as the result's ``confirmed_by``)."""
    proposals = list(result.proposals.all())
    versions = list(result.versions.all())
    from_proposals = {p.version for p in proposals if p.version is not None}
    closed_at_version = {v.version: v.after_close for v in versions}
    first = "recorded" if result.system_recorded else "submitted"
    steps = [_step(first if v.version == 1 else "corrected", v.submitted_by,
                   v.submitted_at, v.reason, version=v.version, after_close=v.after_close)
             for v in versions if v.version not in from_proposals]
    for p in proposals:
        steps.append(_step("proposed", p.proposed_by, p.proposed_at, p.reason, proposal=p.pk))
        if p.status != ResultProposal.Status.OPEN:
            steps.append(_step(p.status, p.decided_by, p.decided_at, p.decision_reason,
                               version=p.version, proposal=p.pk,
                               after_close=closed_at_version.get(p.version)))
    for d in result.disputes.all():
        steps.append(_step("disputed", d.raised_by, d.raised_at, d.reason, version=d.version))
        if d.settled_at is not None:
            steps.append(_step("settled", d.settled_by, d.settled_at, d.settlement_reason,
                               version=d.settled_version, settlement=d.settlement,
                               after_close=d.settled_after_close))
    if confirmation and result.status == GameResult.Status.CONFIRMED and result.confirmed_at:
        steps.append(_step("confirmed", result.confirmed_by, result.confirmed_at, "",
                           version=result.version))
    steps.sort(key=lambda s: s["at"])
    return steps


def _step(step: str, user, at, reason: str, *, version: int | None = None,
          proposal: int | None = None, settlement: str = "",
          after_close: int | None = None) -> dict:
    return {"step": step, "by": getattr(user, "username", None), "user": user, "at": at,
            "reason": reason,
            "version": version, "proposal": proposal, "settlement": settlement,
            "after_close": after_close}


def result_open_dispute(result: GameResult) -> ResultDispute | None:
    """The result's open dispute, if any (from ``result.disputes``, prefetched or not)."""
    return next((d for d in result.disputes.all() if d.settled_at is None), None)


def result_record_version(result: GameResult) -> GameResultVersion | None:
    """The newest version of ``result`` that is a full record (a live game's, or an uploaded
    one): what a replay (复盘) shows; ``None`` when every version is a result sheet. Uses
    ``result.versions`` (prefetched or not)."""
    records = [v for v in result.versions.all() if v.kind == GameResultVersion.Kind.RECORD]
    return max(records, key=lambda v: v.version, default=None)


def table_results_with_history(table: Table) -> list[GameResult]:
    """A table's results in game order, each with its confirmer and its whole history
    (:data:`RESULT_HISTORY_PREFETCH`)."""
    return list(GameResult.objects.filter(table=table).order_by("number")
                .select_related("confirmed_by__player")
                .prefetch_related(*RESULT_HISTORY_PREFETCH))


def round_open_proposal_games(rnd: Round) -> set[tuple[int, int]]:
    """The (table id, game number) of the round's results with an open proposed correction."""
    return set(ResultProposal.objects.filter(
        result__table__round=rnd, status=ResultProposal.Status.OPEN).order_by()
        .values_list("result__table_id", "result__number"))


def round_result_states(rnd: Round):
    """(table id, game number, status) of each result of the round."""
    return (GameResult.objects.filter(table__round=rnd).order_by()
            .values_list("table_id", "number", "status"))


def round_result_count(rnd: Round, status: str) -> int:
    """How many of the round's results are in ``status``."""
    return GameResult.objects.filter(table__round=rnd, status=status).count()
