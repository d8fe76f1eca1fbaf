"""联邦 teams of a team event (团体赛): registered by the staff, or by a player who invites the
two others (邀请); accepted, declined, complete."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from tournaments.errors import Conflict, NotFound, ServiceError
from tournaments.models import Entry, Event, Player, Team, TeamMember
from tournaments.services.checks import check_open, next_round_number


def team_register(*, event: Event, name: str, players: list[Player],
                  registrant: Player | None = None) -> Entry:
    """Register a 联邦 team of three players in a team event.

    ``registrant`` is a player registering their own team: they join it at once and the two
    others are *invited* (邀请, ``TeamMember.Status.INVITED``): the team takes part in nothing
    (no check-in, hence no draw) until both accept (:func:`team_invitation_accept`); one
    declining dissolves it. Without ``registrant`` the event's staff (an organizer or referee,
    the admin, a command) register the team and all three join at once — no consent needed.

    A player plays for one team per event: naming a player who already plays for another team
    is refused, an invitation is not (it binds nobody). Joining a team — registering it,
    being registered by the staff, or accepting — declines the player's other invitations in
    the event, which dissolves the teams that sent them (they can no longer be complete)."""
    if event.format != Event.Format.TEAM:
        raise ServiceError("wrong_format", _("only team events take 联邦 teams"))
    check_open(event)
    if len(players) != 3 or len({p.pk for p in players}) != 3:
        raise ServiceError("bad_team", _("a 联邦 team is three different players"))
    if registrant is not None and registrant.pk not in {p.pk for p in players}:
        raise ServiceError("bad_team", _("you register a team you play in"))
    name = (name or "").strip()
    if not name:
        raise ServiceError("bad_team", _("a team needs a name"))
    joining = [p for p in players if registrant is None or p.pk == registrant.pk]
    with transaction.atomic():
        taken = TeamMember.objects.filter(
            event=event, player__in=players, status=TeamMember.Status.ACCEPTED).select_related(
            "player", "team").first()
        if taken:
            raise Conflict("already_in_team", _("%(p)s already plays for %(t)s") % {
                "p": taken.player, "t": taken.team})
        if Team.objects.filter(event=event, name=name).exists():
            raise Conflict("team_name_taken", _("a team named %(n)s exists") % {"n": name})
        team = Team.objects.create(event=event, name=name)
        try:
            with transaction.atomic():
                TeamMember.objects.bulk_create(TeamMember(
                    team=team, event=event, player=p, position=i,
                    status=(TeamMember.Status.ACCEPTED if p in joining
                            else TeamMember.Status.INVITED)) for i, p in enumerate(players))
        except IntegrityError:  # one of them joined another team meanwhile
            raise Conflict("already_in_team", _("a player of this team joined another team")
                           ) from None
        _invitations_decline(event=event, players=joining, keep=team)
        nxt = next_round_number(event)
        return Entry.objects.create(event=event, team=team, late=nxt > 1, first_round=nxt)


def _invitations_decline(*, event: Event, players: list[Player], keep: Team | None = None):
    """Decline the pending invitations of ``players`` in ``event`` (all but ``keep``'s): the
    teams that sent them are dissolved (deleted with their entries; never drawn: incomplete
    teams cannot check in)."""
    teams = Team.objects.filter(event=event, members__player__in=players,
                                members__status=TeamMember.Status.INVITED)
    if keep is not None:
        teams = teams.exclude(pk=keep.pk)
    teams.delete()


def _invitation(*, membership_id: int, player: Player) -> TeamMember:
    membership = TeamMember.objects.select_related("team", "event").filter(
        pk=membership_id, player=player).first()
    if membership is None:
        raise NotFound("no_invitation", _("no such invitation"))
    return membership


def team_invitation_accept(*, membership_id: int, player: Player) -> TeamMember:
    """``player`` accepts their invitation to a 联邦 team (idempotent); their other
    invitations in the event are declined. Refused if they already play for another team."""
    membership = _invitation(membership_id=membership_id, player=player)
    if membership.status == TeamMember.Status.ACCEPTED:
        return membership
    check_open(membership.event)
    with transaction.atomic():
        try:
            with transaction.atomic():
                changed = TeamMember.objects.filter(
                    pk=membership.pk, status=TeamMember.Status.INVITED).update(
                    status=TeamMember.Status.ACCEPTED)
        except IntegrityError:
            raise Conflict("already_in_team", _("%(p)s already plays for another team") % {
                "p": player}) from None
        if not changed:  # the team was dissolved meanwhile
            raise NotFound("no_invitation", _("no such invitation"))
        _invitations_decline(event=membership.event, players=[player], keep=membership.team)
    membership.status = TeamMember.Status.ACCEPTED
    return membership


def team_invitation_decline(*, membership_id: int, player: Player) -> None:
    """``player`` declines their invitation: the team that sent it is dissolved (it cannot be
    complete without them). A team they already joined is left with a withdrawal instead."""
    membership = _invitation(membership_id=membership_id, player=player)
    if membership.status == TeamMember.Status.ACCEPTED:
        raise ServiceError("already_accepted", _(
            "you play for %(t)s: withdraw the team instead") % {"t": membership.team})
    Team.objects.filter(pk=membership.team_id, members__pk=membership.pk,
                        members__status=TeamMember.Status.INVITED).delete()


def team_complete(*, team_id: int) -> bool:
    """Whether all three players of a 联邦 team have accepted."""
    return not TeamMember.objects.filter(team_id=team_id,
                                         status=TeamMember.Status.INVITED).exists()
