"""Rounds: opened (the draw's commitment published first), the draw queued on a worker and
swept again when lost, the seating published; a team event's knockout finals (淘汰赛)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments import draw as draw_module
from tournaments import locks
from tournaments.errors import ServiceError
from tournaments.models import Bye, Entry, Event, Round, TeamMember
from tournaments.services.checks import check_open, next_round_number
from tournaments.services.matches import match_score, round_missing_results

logger = logging.getLogger(__name__)


def round_eligible_entries(*, event: Event, number: int) -> list[Entry]:
    return list(Entry.objects.filter(event=event, status=Entry.Status.CHECKED_IN,
                                     first_round__lte=number).order_by("pk"))


def round_create(*, event: Event, knockout: bool = False) -> Round:
    """Open the next round: fix who is in the draw, keep a secret seed and publish its
    commitment (a hash of the seed and of the entry list) before anything is drawn.

    ``knockout`` opens a knockout round of a team event's finals instead of a Swiss round."""
    with transaction.atomic():
        event = locks.lock_event(event.pk)
        check_open(event)
        number = next_round_number(event)
        in_knockout = event.rounds.filter(stage=Round.Stage.KNOCKOUT).exists()
        if in_knockout and not knockout:
            raise ServiceError("knockout_started", _(
                "the knockout finals have begun: open knockout rounds only"))
        swiss_played = event.rounds.filter(stage=Round.Stage.SWISS).count()
        if not knockout and swiss_played >= event.rounds_planned:
            raise ServiceError("no_more_rounds", _("all %(n)s rounds have been played") % {
                "n": event.rounds_planned})
        prev = event.rounds.filter(number=number - 1).first()
        if prev is not None and prev.status == Round.Status.COMMITTED:
            raise ServiceError("previous_not_drawn", _("round %(n)s is not drawn yet") % {
                "n": prev.number})
        if prev is not None:
            missing = round_missing_results(round=prev)
            if missing:
                raise ServiceError("previous_unfinished", _(
                    "round %(n)s still waits for %(k)s confirmed result(s)") % {
                    "n": prev.number, "k": missing})
        if knockout:
            return _knockout_round_create(event=event, number=number)
        entries = swiss_draw_entries(event=event, number=number)
        ids = [e.pk for e in entries]
        draw_input = swiss_draw_input(event=event, number=number, entries=entries)
        brackets = bool(event.swiss_brackets and number > 1) or event.format == Event.Format.TEAM
        seed = draw_module.new_seed()
        rnd = Round.objects.create(
            event=event, number=number, brackets=brackets, seed=seed,
            commitment=draw_module.commitment(seed, ids, number, event.pk),
            draw_entries=ids, draw_input=draw_input)
        if event.status == Event.Status.REGISTRATION:
            event.status = Event.Status.RUNNING
            event.save(update_fields=["status"])
    return rnd


def swiss_draw_entries(*, event: Event, number: int) -> list[Entry]:
    """Who is in the draw of Swiss round ``number``: the entries checked in now (at least a
    table's worth), fixed when the round is opened or re-drawn (``Round.draw_entries``)."""
    entries = round_eligible_entries(event=event, number=number)
    minimum = 6 if event.format == Event.Format.INDIVIDUAL else 2
    if len(entries) < minimum:
        raise ServiceError("too_few_entries", _(
            "%(n)s checked-in entries: a draw needs at least %(m)s") % {
            "n": len(entries), "m": minimum})
    return entries


def swiss_draw_input(*, event: Event, number: int, entries: list[Entry]) -> dict:
    """What the draw of Swiss round ``number`` uses of its entries, published with it
    (``Round.draw_input``): their scores, their byes (轮空) of earlier rounds and, for a
    rating-balanced draw, their ratings."""
    from tournaments import standings as standings_module

    ids = [e.pk for e in entries]
    scores = standings_module.scores_for_draw(event=event, entry_ids=ids)
    byes: dict[str, int] = {}
    for b in Bye.objects.filter(round__event=event, round__number__lt=number,
                                entry_id__in=ids):
        byes[str(b.entry_id)] = byes.get(str(b.entry_id), 0) + 1
    draw_input = {"scores": {str(k): v for k, v in scores.items()}, "byes": byes}
    if event.rating_balance and event.format == Event.Format.INDIVIDUAL:
        draw_input["ratings"] = _draw_ratings(entries)
    return draw_input


def _draw_ratings(entries: list[Entry]) -> dict[str, float]:
    """The ratings a rating-balanced draw uses, fixed when the round is opened and published
    with it (``Round.draw_input["ratings"]``): entry id -> the player's rating strength (mu,
    rounded to 0.01; a player without a rating has the model's starting value)."""
    from ratings.selectors import strengths

    of_player = strengths(player_ids=[e.player_id for e in entries])
    return {str(e.pk): of_player[e.player_id] for e in entries}


def bracket_order(n: int) -> list[int]:
    """Seeds 1..n in bracket order so that 1 and 2 can meet only in the final."""
    order = [1]
    while len(order) < n:
        size = len(order) * 2
        order = [x for s in order for x in (s, size + 1 - s)]
    return order


def _knockout_round_create(*, event: Event, number: int) -> Round:
    from tournaments import standings as standings_module

    if event.format != Event.Format.TEAM or event.knockout_teams < 2:
        raise ServiceError("no_knockout", _("this event has no knockout finals"))
    last_ko = event.rounds.filter(stage=Round.Stage.KNOCKOUT).order_by("-number").first()
    if last_ko is None:
        eligible = {e.pk for e in round_eligible_entries(event=event, number=number)}
        ranked = [r.entry_id for r in standings_module.compute(event) if r.entry_id in eligible]
        k = event.knockout_teams
        if len(ranked) < k:
            raise ServiceError("too_few_entries", _(
                "the knockout finals need %(k)s teams, %(n)s are checked in") % {
                "k": k, "n": len(ranked)})
        seeds = ranked[:k]
        seeding = None
        if event.knockout_seeding == Event.KnockoutSeeding.RATING:
            seeding = {"by": "rating", "qualifiers": seeds, "ratings": _team_ratings(seeds)}
            seeds = knockout_seeds_by_rating(seeding)
        order = bracket_order(k)
        pairs = [[seeds[order[i] - 1], seeds[order[i + 1] - 1]] for i in range(0, k, 2)]
    else:
        winners = []
        for table in last_ko.tables.select_related("round__event", "team_a", "team_b").order_by(
                "number"):
            score = match_score(table=table)
            if not score["decided"]:
                raise ServiceError("previous_unfinished", _(
                    "table %(t)s of round %(n)s is not decided yet") % {
                    "t": table.number, "n": last_ko.number})
            winners.append(score["winner"])
        if len(winners) < 2:
            raise ServiceError("knockout_over", _("the knockout finals are over"))
        pairs = [[winners[i], winners[i + 1]] for i in range(0, len(winners), 2)]
        seeding = None
    ids = [e for p in pairs for e in p]
    seed = draw_module.new_seed()
    draw_input = {"knockout_pairs": pairs}
    if seeding is not None:
        draw_input["seeding"] = seeding
    return Round.objects.create(
        event=event, number=number, stage=Round.Stage.KNOCKOUT, brackets=True, seed=seed,
        commitment=draw_module.commitment(seed, ids, number, event.pk), draw_entries=ids,
        draw_input=draw_input)


def _team_ratings(entry_ids: list[int]) -> dict[str, float]:
    """Team entry id -> the mean rating strength of its three players (rounded to 0.01)."""
    from ratings.selectors import strengths

    members: dict[int, list[int]] = {}
    for entry_id, player_id in TeamMember.objects.filter(
            team__entry__pk__in=entry_ids, status=TeamMember.Status.ACCEPTED).values_list(
            "team__entry__pk", "player_id"):
        members.setdefault(entry_id, []).append(player_id)
    of_player = strengths(player_ids=[p for ps in members.values() for p in ps])
    return {str(e): round(sum(of_player[p] for p in members.get(e, [])) /
                          max(1, len(members.get(e, []))), 2) for e in entry_ids}


def knockout_seeds_by_rating(seeding: dict) -> list[int]:
    """A rating-seeded bracket (the event's knockout seeding "by rating"): the qualifiers (the
    top teams of the standings, in standings order) sorted by their published mean rating,
    best first, a tie keeping the standings order. Seed 1 and 2 then meet only in the final."""
    qualifiers = list(seeding["qualifiers"])
    ratings = seeding["ratings"]
    return sorted(qualifiers, key=lambda e: (-float(ratings[str(e)]), qualifiers.index(e)))


def round_request_draw(*, round: Round):
    """Queue the draw on a worker once this transaction commits (at once outside one); returns
    nothing (poll the round's status). The draw is the whole point of the request, so with the
    broker down it is refused (a 503 ``queue_unavailable``: nothing is stored, and the
    transaction it is part of rolls back); a broker lost between that check and the commit
    leaves the round committed and undrawn, logged, until beat's draw sweep
    (:func:`round_draw_sweep`) queues it again."""
    from config.celery import queue_ready
    from config.outage import RETRY_SECONDS

    if not queue_ready():
        raise ServiceError(
            "queue_unavailable",
            _("The task queue is unavailable for a moment, so the draw cannot start. Nothing "
              "was changed: try again in %(seconds)s seconds.") % {"seconds": RETRY_SECONDS},
            detail={"retry_after": RETRY_SECONDS}, status=503)
    round_id = round.pk
    transaction.on_commit(lambda: _queue_draw(round_id))


def _queue_draw(round_id: int) -> bool:
    """Queue ``round_draw_task`` (after a commit: a broker that refuses is logged, not raised
    into a request whose change is stored)."""
    from kombu.exceptions import OperationalError as BrokerError

    from config.celery import task_named
    from config.outage import Skipped

    try:
        task_named("tournaments.tasks.round_draw_task").delay(round_id)
    except BrokerError as exc:
        if not isinstance(exc, Skipped):  # (a skipped one: the broker's breaker logged it)
            logger.warning("the draw of round %s was not queued: %s", round_id, exc)
        return False
    return True


def round_open(*, event: Event, knockout: bool = False) -> Round:
    """Open the next round (:func:`round_create`: its commitment published) and queue its draw
    (抽签组邦) on a worker for when that has committed. In one transaction: a refusal changes
    nothing and queues nothing."""
    with transaction.atomic():
        rnd = round_create(event=event, knockout=knockout)
        round_request_draw(round=rnd)
    return rnd


def round_draw_sweep() -> dict[str, list[int]]:
    """Queue the draw again of every round still committed ``CELERY_DRAW_REQUEUE_SECONDS``
    after its commitment: its draw was queued (:func:`round_open`) and never done — the worker
    that took the message died, and Redis would give the message back only after
    ``CELERY_VISIBILITY_TIMEOUT`` (an hour), or the broker was lost before the message was
    sent. Celery beat's draw sweep (``tournaments.tasks.round_draw_sweep_task``). A draw is
    keyed on its round and locked (:func:`round_draw`): a copy delivered while the draw runs,
    after it, or the original message delivered late finds the round drawn and changes
    nothing. Returns the rounds whose draw was queued and those the broker refused (logged;
    the next sweep tries again)."""
    cutoff = timezone.now() - timedelta(seconds=settings.CELERY_DRAW_REQUEUE_SECONDS)
    outcome: dict[str, list[int]] = {"queued": [], "failed": []}
    for round_id in (Round.objects.filter(status=Round.Status.COMMITTED, committed_at__lt=cutoff)
                     .order_by("pk").values_list("pk", flat=True)):
        if _queue_draw(round_id):
            logger.warning("round %s was still not drawn %s s after its commitment: its draw "
                           "is queued again", round_id, settings.CELERY_DRAW_REQUEUE_SECONDS)
            outcome["queued"].append(round_id)
        else:
            outcome["failed"].append(round_id)
    return outcome


def round_publish(*, round: Round) -> Round:
    """Publish a drawn round's seating."""
    with transaction.atomic():
        rnd = locks.lock_round(round.pk)
        if rnd.status == Round.Status.COMMITTED:
            raise ServiceError("not_drawn", _("the round is not drawn yet"))
        if rnd.status == Round.Status.DRAWN:
            rnd.status = Round.Status.PUBLISHED
            rnd.published_at = timezone.now()
            rnd.save(update_fields=["status", "published_at"])
        return rnd
