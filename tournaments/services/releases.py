"""The release of the standings after a round to the public (公布成绩)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from tournaments import locks
from tournaments.errors import ServiceError
from tournaments.models import Event, Round
from tournaments.services.matches import round_missing_results


def standings_release_missing(*, event: Event, round_number: int) -> int:
    """How many games of rounds 1 to ``round_number`` still have no confirmed result (a tied
    knockout match counts its deciding extra game): the standings after that round are final
    only at 0."""
    return sum(round_missing_results(round=rnd) for rnd in event.rounds.filter(
        number__lte=round_number).select_related("event"))


def standings_release_rounds(*, event: Event) -> list[dict]:
    """The rounds whose standings may be released (公布), in order: every round whose seating
    is published, each with ``missing`` (:func:`standings_release_missing`: 0 means complete).
    :func:`standings_release` takes a complete one as it is and an incomplete one only when
    asked to release it anyway."""
    out, missing = [], 0
    for rnd in event.rounds.filter(status__in=(Round.Status.PUBLISHED, Round.Status.FINISHED)
                                   ).select_related("event").order_by("number"):
        missing += round_missing_results(round=rnd)
        out.append({"number": rnd.number, "missing": missing})
    return out


def standings_release(*, event: Event, round_number: int | None,
                      anyway: bool = False) -> Event:
    """Release the standings after round ``round_number`` to the public (公布成绩; Tabbycat's
    release toggle): a snapshot of them is stored and the public leaderboard, the standings API
    and standings.csv show it until the next release. ``0`` shows none yet; ``None`` stops
    holding back (the public sees the live standings again). Releasing a round again replaces
    its snapshot (after a correction).

    A round whose games (or an earlier round's) still miss confirmed results is refused with
    ``results_missing`` (``detail.missing``: how many) — its standings are not the round's —
    unless ``anyway``: the organizer saw the count and releases them as they are."""
    from tournaments import standings as standings_module

    with transaction.atomic():
        event = locks.lock_event(event.pk)
        if round_number is not None:
            latest = event.rounds.filter(status__in=(Round.Status.PUBLISHED,
                                                     Round.Status.FINISHED)).aggregate(
                m=Max("number"))["m"] or 0
            if isinstance(round_number, bool) or not isinstance(round_number, int) or \
                    not 0 <= round_number <= latest:
                raise ServiceError("bad_round", _(
                    "round_number: choose a published round (0–%(n)s)") % {"n": latest})
            missing = standings_release_missing(event=event, round_number=round_number)
            if missing and not anyway:
                raise ServiceError("results_missing", _(
                    "round %(n)s still waits for %(k)s confirmed result(s): its standings are "
                    "not final") % {"n": round_number, "k": missing},
                    detail={"round": round_number, "missing": missing})
            standings_module.standings_snapshot(event=event, through_round=round_number)
        event.standings_released_round = round_number
        event.save(update_fields=["standings_released_round"])
    return event
