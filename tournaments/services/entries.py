"""Entries: registered (a late entry after round 1), checked in (or undone), withdrawn or
disqualified."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments import locks
from tournaments.errors import Conflict, ServiceError
from tournaments.models import Entry, Event, Player, Round
from tournaments.services.checks import check_open, next_round_number
from tournaments.services.players import number_claimed_by, player_create
from tournaments.services.teams import team_complete

ACTIVE_STATUSES = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN)


def entry_register(*, event: Event, player: Player) -> Entry:
    """Register a player in an individual event; after round 1 it is a late entry that joins
    from the next round."""
    if event.format != Event.Format.INDIVIDUAL:
        raise ServiceError("wrong_format", _("team events register 联邦 teams, not players"))
    check_open(event)
    with transaction.atomic():
        nxt = next_round_number(event)
        if Entry.objects.filter(event=event, player=player).exists():
            raise Conflict("already_registered",
                           _("%(p)s is already registered") % {"p": player})
        try:
            with transaction.atomic():
                return Entry.objects.create(event=event, player=player, late=nxt > 1,
                                            first_round=nxt)
        except IntegrityError:
            raise Conflict("already_registered",
                           _("%(p)s is already registered") % {"p": player}) from None


def entry_check_in(*, entry: Entry) -> Entry:
    """Check an entry in; only checked-in entries are drawn."""
    with transaction.atomic():
        entry = locks.lock_entry(entry.pk)
        if entry.status == Entry.Status.CHECKED_IN:
            return entry
        if entry.status != Entry.Status.REGISTERED:
            raise ServiceError("cannot_check_in", _("%(e)s is %(s)s and cannot check in") % {
                "e": entry, "s": entry.get_status_display()})
        if entry.team_id and not team_complete(team_id=entry.team_id):
            raise ServiceError("team_pending", _(
                "%(e)s waits for its invited players to accept") % {"e": entry})
        check_open(entry.event)
        entry.status = Entry.Status.CHECKED_IN
        entry.checked_in_at = timezone.now()
        entry.save(update_fields=["status", "checked_in_at"])
        return entry


def entry_check_in_undo(*, entry: Entry) -> Entry:
    """Undo a check-in made by mistake (at the door): the entry is registered again and no
    draw takes it. Refused once a round's draw holds it (its commitment is published): it
    played, or plays, that round — withdraw it instead (:func:`entry_withdraw`)."""
    with transaction.atomic():
        entry = locks.lock_entry(entry.pk)
        if entry.status == Entry.Status.REGISTERED:
            return entry
        if entry.status != Entry.Status.CHECKED_IN:
            raise ServiceError("cannot_undo", _("%(e)s is %(s)s, not checked in") % {
                "e": entry, "s": entry.get_status_display()})
        if any(entry.pk in ids for ids in entry.event.rounds.values_list("draw_entries",
                                                                         flat=True)):
            raise ServiceError("in_a_draw", _(
                "%(e)s is in a round's draw already: withdraw the entry instead") % {"e": entry})
        entry.status = Entry.Status.REGISTERED
        entry.checked_in_at = None
        entry.save(update_fields=["status", "checked_in_at"])
        return entry


def entry_register_by_name(*, event: Event, name: str, club: str = "",
                           number: int | None = None, check_in: bool = False,
                           organizer=None) -> Entry:
    """Register one player at the desk (a late entry after round 1 joins from the next round:
    :func:`entry_register`), and check them in at once with ``check_in``. A number an existing
    player holds registers that player, as an import does — unless self-registration claimed
    it (:func:`number_claimed_by`); a new name makes a new player. All or nothing."""
    with transaction.atomic():
        player = Player.objects.filter(number=number).first() if number is not None else None
        if number_claimed_by(player=player, organizer=organizer):
            raise Conflict("number_claimed", _(
                "player number %(n)s was claimed by a self-registered player (%(p)s, with a "
                "login): check who holds the number") % {"n": number, "p": player},
                detail={"field": "number"})
        if player is not None and (name or "").strip() and player.name != name.strip():
            raise Conflict("number_taken", _(
                "player number %(n)s is %(p)s's: leave the number empty or correct it") % {
                "n": number, "p": player.name}, detail={"field": "number"})
        if player is None:
            player = player_create(name=name, club=club, number=number)
        entry = entry_register(event=event, player=player)
        if check_in:
            entry = entry_check_in(entry=entry)
    return entry


def entries_check_in(*, entries: Iterable[Entry]) -> int:
    """Check in many entries (admin action); returns how many changed."""
    n = 0
    for e in entries:
        if e.status == Entry.Status.REGISTERED:
            entry_check_in(entry=e)
            n += 1
    return n


def entry_withdraw(*, entry: Entry, disqualify: bool = False) -> Entry:
    """Withdraw (or disqualify) an entry: it leaves from the next round on."""
    with transaction.atomic():
        entry = locks.lock_entry(entry.pk)
        if entry.status in (Entry.Status.WITHDRAWN, Entry.Status.DISQUALIFIED):
            return entry
        last = entry.event.rounds.exclude(status=Round.Status.COMMITTED).aggregate(
            m=Max("number"))["m"] or 0
        for number, ids in entry.event.rounds.filter(status=Round.Status.COMMITTED).values_list(
                "number", "draw_entries"):
            if entry.pk in ids:  # its commitment is published: it plays that round
                last = max(last, number)
        entry.status = Entry.Status.DISQUALIFIED if disqualify else Entry.Status.WITHDRAWN
        entry.left_after_round = last
        entry.save(update_fields=["status", "left_after_round"])
        return entry
