"""Reads of the ratings that other rooms share: the rating list, a player's history across
events, and the strengths a draw uses."""

from __future__ import annotations

from collections import Counter

from django.db.models import Exists, OuterRef, Q, QuerySet

from ratings.model import MU
from ratings.models import PlayerRating, RatingPoint
from tournaments.models import Player, Round, Seat

#: rounds whose seating the public may see
PUBLIC_ROUNDS = (Round.Status.PUBLISHED, Round.Status.FINISHED)


def strengths(*, player_ids: list[int]) -> dict[int, float]:
    """Player id -> rating strength (``mu``, rounded to 0.01 so that a published value re-runs
    a draw exactly); the model's starting value for a player without a rating."""
    found = dict(PlayerRating.objects.filter(player_id__in=player_ids).values_list(
        "player_id", "mu"))
    return {p: round(found.get(p, MU), 2) for p in player_ids}


def shown_ratings(*, player_ids) -> dict[int, float]:
    """Player id -> the rating shown beside a name (ordinal, 1 decimal), rated players only."""
    return {p: round(o, 1) for p, o in PlayerRating.objects.filter(
        player_id__in=list(player_ids)).values_list("player_id", "ordinal")}


def event_ratings(*, event) -> dict[str, float]:
    """Entry id (as a string, the JSON key) -> the shown rating of its player, for the event's
    individual entries whose player is rated: what the seating and the leaderboard show beside
    names when the organizer turns it on (``Event.show_ratings``)."""
    return {str(entry_id): round(ordinal, 1) for entry_id, ordinal in
            PlayerRating.objects.filter(player__entries__event=event).values_list(
                "player__entries__pk", "ordinal")}


def _public_player():
    """The player has played a round of a published event (a rating list and a player's page
    show no one the public has not seen play)."""
    return Exists(RatingPoint.objects.filter(player=OuterRef("player"), event__published=True))


def public_player(*, player: Player) -> bool:
    return RatingPoint.objects.filter(player=player, event__published=True).exists() or \
        Seat.objects.filter(player=player, round__status__in=PUBLIC_ROUNDS,
                            round__event__published=True).exists()


def rating_list(*, club: str = "", search: str = "", min_games: int = 0) -> QuerySet:
    """Rated players who played a published event, best first: filtered by club (exact), a
    name or number search, and a minimum of games rated."""
    rows = PlayerRating.objects.filter(_public_player()).select_related("player").order_by(
        "-ordinal", "player_id")
    if club:
        rows = rows.filter(player__club=club)
    if min_games:
        rows = rows.filter(games__gte=min_games)
    search = search.strip()
    if search:
        match = Q(player__name__icontains=search)
        if search.isdigit():
            match |= Q(player__number=int(search))
        rows = rows.filter(match)
    return rows


def rated_clubs() -> list[str]:
    """The clubs of rated players (the list's filter)."""
    return list(PlayerRating.objects.filter(_public_player()).exclude(player__club="")
                .order_by("player__club").values_list("player__club", flat=True).distinct())


def player_history(*, player: Player, top: int = 5) -> dict:
    """A player's page across events: the rating after each round (chart points, oldest
    first), the events played with games and points, and the partners and 对头 most often
    met — from published seating only."""
    points = list(RatingPoint.objects.filter(player=player, event__published=True)
                  .select_related("event", "round")
                  .order_by("drawn_at", "round_id"))
    seats = list(Seat.objects.filter(
        player=player, round__status__in=PUBLIC_ROUNDS, round__event__published=True)
        .order_by("round__drawn_at", "round_id")
        .values_list("table_id", "seat", "round__event_id", "round__event__name",
                     "round__event__slug"))
    events: dict[int, dict] = {}
    for _table, _seat, event_id, name, slug in seats:
        row = events.setdefault(event_id, {"name": name, "slug": slug, "rounds": 0})
        row["rounds"] += 1
    partners, opposites = Counter(), Counter()
    my_seat = {table: seat for table, seat, *_rest in seats}
    for table_id, seat, other in Seat.objects.filter(table_id__in=list(my_seat)).exclude(
            player=player).values_list("table_id", "seat", "player_id"):
        mine = my_seat[table_id]
        if (seat - mine) % 2 == 0:
            partners[other] += 1
        elif (seat - mine) % 6 == 3:
            opposites[other] += 1
    names = Player.objects.in_bulk(
        [p for p, _n in partners.most_common(top)] + [p for p, _n in opposites.most_common(top)])
    return {
        "points": points,
        "events": list(events.values()),
        "partners": [(names[p], n) for p, n in partners.most_common(top)],
        "opposites": [(names[p], n) for p, n in opposites.most_common(top)],
    }
