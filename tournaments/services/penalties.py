"""A referee's penalties (大纲 第二十九条) and what each implies."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils.translation import gettext as _

from tournaments.errors import ServiceError
from tournaments.models import Entry, Event, Player, Round, Table, TeamMember
from tournaments.services.entries import entry_withdraw
from tournaments.services.teams import team_complete
from tournaments.signals import forced_last


def penalty_add(*, event: Event, entry: Entry, kind: str, reason: str, points: int = 0,
                player: Player | None = None, round: Round | None = None,
                table: Table | None = None, game_number: int | None = None, by=None):
    """Record a referee's penalty (大纲 第二十九条) and apply what it implies:

    - ``point_deduction`` (罚分) takes ``points`` off the entry's standing;
    - ``forced_last`` (罚为大落) rewrites that game's result with the player placed 大落, as a
      referee correction with the penalty as its reason;
    - ``disqualification`` (取消参赛资格) removes the entry from later draws;
    - ``warning`` (警告) and ``lead_forfeit`` (取消一次发牌权) are recorded.
    """
    from tournaments.models import Penalty

    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _("a penalty needs a reason"))
    if kind not in Penalty.Kind.values:
        raise ServiceError("bad_penalty", _("unknown penalty %(k)s") % {"k": kind})
    if entry.event_id != event.pk:
        raise ServiceError("wrong_event", _("the entry is not in this event"))
    if entry.team_id and not team_complete(team_id=entry.team_id):
        raise ServiceError("team_pending", _(
            "%(e)s waits for its invited players to accept") % {"e": entry})
    if kind == Penalty.Kind.POINT_DEDUCTION and points < 1:
        raise ServiceError("bad_penalty", _("a point deduction needs points"))
    if kind != Penalty.Kind.POINT_DEDUCTION:
        points = 0
    if table is not None and table.round.event_id != event.pk:
        raise ServiceError("wrong_event", _("the table is not in this event"))
    if round is not None and round.event_id != event.pk:
        raise ServiceError("wrong_event", _("the round is not in this event"))
    if player is not None and player.pk != entry.player_id and not TeamMember.objects.filter(
            team_id=entry.team_id, player=player, status=TeamMember.Status.ACCEPTED).exists():
        raise ServiceError("wrong_event", _("%(p)s does not play for %(e)s") % {
            "p": player, "e": entry}, detail={"field": "player_id"})
    with transaction.atomic():
        if kind == Penalty.Kind.FORCED_LAST and not forced_last.send(
                Penalty, event=event, entry=entry, player=player, table=table,
                game_number=game_number, reason=reason, by=by):
            raise ImproperlyConfigured("nothing rewrites the result of a forced 大落")
        penalty = Penalty.objects.create(
            event=event, entry=entry, player=player, round=round or (table.round if table else None),
            table=table, game_number=game_number, kind=kind, points=points, reason=reason,
            created_by=by)
        if kind == Penalty.Kind.DISQUALIFICATION:
            entry_withdraw(entry=entry, disqualify=True)
        from tournaments.standings import standings_refresh_on_commit

        standings_refresh_on_commit(event_id=event.pk)
    return penalty
