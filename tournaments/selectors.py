"""Reads shared by the API, the pages and the services (STYLE.md: ``selectors.py``), written
once: who runs an event, who sits where, what the public may see, a round's tables.

The rule that recurs everywhere — *this user sits at this table and its seating is public* —
is :func:`public_seat_of` here (and :data:`SEATING_PUBLIC` for queries that must spell it in
SQL, as live play does)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Prefetch, QuerySet, Subquery

from tournaments.models import Entry, Event, Player, PlayerLink, Round, Seat, Table, TeamMember

#: round statuses whose seating everyone may see (the organizers published it)
SEATING_PUBLIC = (Round.Status.PUBLISHED, Round.Status.FINISHED)


def is_organizer(user, event: Event) -> bool:
    """An organizer of ``event`` (or a superuser)."""
    if not user or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return event.organizers.filter(pk=user.pk).exists()


def is_referee(user, event: Event) -> bool:
    """Referees of the event; organizers may referee their own event."""
    if not user or not user.is_authenticated:
        return False
    return is_organizer(user, event) or event.referees.filter(pk=user.pk).exists()


def can_see_event(user, event: Event) -> bool:
    """The public sees published events; staff of an event see it always."""
    return event.published or is_referee(user, event)


def seating_public(rnd: Round) -> bool:
    """Whether everyone may see ``rnd``'s seating: a published event and a published round."""
    return rnd.event.published and rnd.status in SEATING_PUBLIC


def can_see_seating(user, rnd: Round) -> bool:
    """The round's seating is published, or ``user`` referees its event."""
    return rnd.status in SEATING_PUBLIC or is_referee(user, rnd.event)


def can_see_table(user, table: Table) -> bool:
    """``user`` may see the table: its event and seating are public, or they are its staff."""
    return can_see_event(user, table.round.event) and can_see_seating(user, table.round)


def seat_of(user, table: Table) -> Seat | None:
    """The user's seat at ``table`` (one query: through the player's login)."""
    if not user or not getattr(user, "is_authenticated", False):
        return None
    return Seat.objects.filter(table=table, player__user=user).order_by().first()


def public_seat_of(user, table: Table) -> Seat | None:
    """The user's seat at ``table`` if its seating is public (:func:`seating_public`): the
    seat they may play from (an unpublished seating is not theirs yet)."""
    if not seating_public(table.round):
        return None
    return seat_of(user, table)


@dataclass(frozen=True)
class Viewer:
    """What a user is at one table, read with the table (:func:`table_with_viewer`): their seat
    number there (``None``: not seated) and whether they are the event's staff (organizer,
    referee or superuser). The same answers as :func:`public_seat_of` and :func:`is_referee`,
    without a query each."""

    seat: int | None
    staff: bool

    def can_see(self, table: Table) -> bool:
        """:func:`can_see_table`."""
        return self.staff or (table.round.event.published and
                              table.round.status in SEATING_PUBLIC)

    def public_seat(self, table: Table) -> int | None:
        """:func:`public_seat_of`, as a seat number."""
        return self.seat if seating_public(table.round) else None


def table_with_viewer(user, pk: int) -> tuple[Table, Viewer] | None:
    """Table ``pk`` with its round and event (not the round's draw data), and what ``user`` is
    there (:class:`Viewer`), in one query: the hot path of result submission reads nothing else
    before it locks the table. ``None`` when there is no such table."""
    qs = Table.objects.select_related("round__event").defer(
        "round__draw_entries", "round__draw_input").order_by()
    signed_in = bool(user and getattr(user, "is_authenticated", False))
    if signed_in:
        event = OuterRef("round__event_id")
        qs = qs.annotate(
            viewer_seat=Subquery(Seat.objects.filter(table=OuterRef("pk"), player__user=user)
                                 .order_by().values("seat")[:1]),
            viewer_referee=Exists(Event.referees.through.objects.filter(event_id=event,
                                                                        user_id=user.pk)),
            viewer_organizer=Exists(Event.organizers.through.objects.filter(event_id=event,
                                                                            user_id=user.pk)))
    table = next(iter(qs.filter(pk=pk)[:1]), None)  # (.first() would order by pk)
    if table is None:
        return None
    if not signed_in:
        return table, Viewer(seat=None, staff=False)
    staff = user.is_superuser or table.viewer_referee or table.viewer_organizer
    return table, Viewer(seat=table.viewer_seat, staff=staff)


def round_tables(rnd: Round) -> QuerySet[Table]:
    """A round's tables in order, with their teams and their seats in order, each with its
    player."""
    return (Table.objects.filter(round=rnd).select_related("round", "team_a", "team_b")
            .prefetch_related(Prefetch("seats", Seat.objects.select_related("player")
                                       .order_by("seat")))
            .order_by("number"))


def knockout_matches(user, event: Event) -> list[dict]:
    """The knockout finals as ``user`` may see them (rounds whose seating is public, or all for
    the event's staff): every match in round and table order, its score from confirmed games
    and its winner's name once decided. The bracket API and the bracket page read this."""
    from tournaments.services import match_score

    out = []
    for rnd in event.rounds.filter(stage=Round.Stage.KNOCKOUT).order_by("number"):
        if not can_see_seating(user, rnd):
            continue
        for table in rnd.tables.select_related("round__event", "team_a__entry",
                                               "team_b__entry").order_by("number"):
            score = match_score(table=table)
            winner = None
            if score["winner"] is not None:
                winner = (table.team_a if table.team_a.entry.pk == score["winner"]
                          else table.team_b).name
            out.append({"round": rnd.number, "table": table.number,
                        "team_a": table.team_a.name, "team_b": table.team_b.name,
                        "points_a": score["points_a"], "points_b": score["points_b"],
                        "games": score["games"], "extra_games": score["extra_games"],
                        "winner": winner})
    return out


def link_resolve(token: str):
    """The working private link (:class:`tournaments.models.PlayerLink`) of ``token``, with
    its entry, event and player, or ``None``. Looked up by the token's SHA-256, then the token
    compared in constant time with the one the link makes."""
    if not isinstance(token, str) or not token.isascii() or not 20 <= len(token) <= 100:
        return None
    link = (PlayerLink.objects.filter(token_hash=hashlib.sha256(token.encode()).hexdigest(),
                                      revoked_at__isnull=True)
            .select_related("entry__event", "player__user").first())
    if link is None or not hmac.compare_digest(link.token(), token):
        return None
    return link


def current_seat(player, event: Event) -> tuple[Round | None, Seat | None]:
    """The event's current round (the latest whose seating is public) and ``player``'s seat in
    it (``None``: a bye, or not playing this round), with its table."""
    if not event.published:
        return None, None
    rnd = Round.objects.filter(event=event, status__in=SEATING_PUBLIC).order_by("-number").first()
    if rnd is None:
        return None, None
    seat = (Seat.objects.filter(round=rnd, player=player)
            .select_related("table__round__event", "table__team_a", "table__team_b").first())
    return rnd, seat


def entry_link_players(entry: Entry) -> list[Player]:
    """Who gets a private link of ``entry``: its player, or a 联邦 team's accepted members."""
    if entry.player_id:
        return [entry.player]
    return list(Player.objects.filter(memberships__team_id=entry.team_id,
                                      memberships__status=TeamMember.Status.ACCEPTED)
                .order_by("memberships__position"))


def player_link(player: Player, event: Event) -> PlayerLink | None:
    """``player``'s working private link in ``event``, if one was issued."""
    return PlayerLink.objects.filter(player=player, entry__event=event,
                                     revoked_at__isnull=True).first()
