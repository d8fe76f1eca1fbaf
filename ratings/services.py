"""Writes of the ratings (等级分): re-rating after a change, and recomputing from scratch.

The ratings are one chain across every event that counts (``Event.rated``): games are rated in
a fixed order — rounds by (draw time, id), then table and game number — never in the order they
were confirmed. After a result changes (confirmed, corrected, a late confirmation), the games
from the first changed round on are re-rated: each player starts again from their last
:class:`RatingPoint` before that round (the value after an earlier round), so the suffix is
rated exactly as a recomputation from scratch would rate it. The same results always give the
same ratings, whatever the order in which they were confirmed.

``ratings_refresh_on_commit`` is the one hook ``games.services`` calls (and
:data:`tournaments.signals.rated_changed`'s receiver): it queues the work for a
worker after the commit and does nothing else in the request.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Q

from games.models import GameResult
from ratings.model import RatedGame, State, rate_game
from ratings.models import PlayerRating, RatedResult, RatingPoint
from tournaments.locks import Advisory, advisory_xact_lock
from tournaments.models import Event, Round, Seat

log = logging.getLogger(__name__)

#: a round's position in the chain: (drawn_at, round id)
RoundKey = tuple


def _queued_key(event_id: int) -> str:
    return f"ratings-update-queued:{event_id}"


def ratings_refresh_on_commit(*, event_id: int) -> None:
    """A result of ``event_id`` changed: queue :func:`ratings_update` for when the transaction
    commits. The request pays for nothing more than queuing (and a burst of confirmations
    queues one task while one waits unstarted); whether the event counts is the task's
    question."""
    transaction.on_commit(lambda: ratings_queue_update(event_id))


def rated_changed_received(sender, *, event_id: int, **kwargs) -> None:
    """The receiver of :data:`tournaments.signals.rated_changed` (ratings/apps.py connects it):
    an event's games enter or leave the ratings."""
    ratings_refresh_on_commit(event_id=event_id)


def ratings_queue_update(event_id: int) -> bool:
    """Queue ``ratings_update_task`` unless one for the event waits unstarted; a broker that
    refuses is logged (the next change, or ``manage.py ratings_recompute``, catches up)."""
    from kombu.exceptions import OperationalError as BrokerError

    from config.celery import task_named

    if not cache.add(_queued_key(event_id), 1, timeout=300):
        return False
    try:
        task_named("ratings.tasks.ratings_update_task").delay(event_id)
    except (BrokerError, OSError) as exc:
        from config.outage import Skipped

        cache.delete(_queued_key(event_id))
        # (skipped with the broker known to be down: its breaker logs the outage, not each)
        say = log.debug if isinstance(exc, Skipped) else log.warning
        say("ratings update of event %s not queued: %s", event_id, exc)
        return False
    return True


def ratings_update_started(event_id: int) -> None:
    """The task has started: later changes must queue a new one."""
    cache.delete(_queued_key(event_id))


def _at_or_after(key: RoundKey | None, drawn_at: str = "drawn_at", round_id: str = "round_id"
                 ) -> Q:
    """Rows of rounds at or after ``key`` in the chain (all rows when None)."""
    if key is None:
        return Q()
    when, pk = key
    return Q(**{f"{drawn_at}__gt": when}) | Q(**{drawn_at: when, f"{round_id}__gte": pk})


def _first_changed_round(event: Event) -> RoundKey | bool:
    """The key of the event's first round whose rated results differ from its confirmed ones
    (added, corrected, no longer confirmed); False when nothing differs."""
    confirmed = {}
    if event.rated:
        confirmed = dict(GameResult.objects.filter(
            table__round__event=event, status=GameResult.Status.CONFIRMED).values_list(
            "pk", "version"))
    rated = {pk: (version, round_id) for pk, version, round_id in RatedResult.objects.filter(
        round__event=event).values_list("result_id", "version", "round_id")}
    changed = {pk for pk in confirmed.keys() | rated.keys()
               if confirmed.get(pk) != (rated[pk][0] if pk in rated else None)}
    if not changed:
        return False
    rounds = set(GameResult.objects.filter(pk__in=[pk for pk in changed if pk in confirmed])
                 .values_list("table__round_id", flat=True))
    rounds |= {rated[pk][1] for pk in changed if pk in rated}
    return min(Round.objects.filter(pk__in=rounds).values_list("drawn_at", "pk"))


def ratings_update(*, event_id: int) -> int:
    """Bring the ratings up to date with the event's results; returns how many games were
    (re-)rated (0: nothing changed)."""
    with transaction.atomic():
        advisory_xact_lock(Advisory.RATINGS, 0)
        event = Event.objects.filter(pk=event_id).first()
        if event is None:
            return 0
        start = _first_changed_round(event)
        if start is False:
            return 0
        return _rerate_from(start)


def ratings_queue_recompute() -> None:
    """Queue :func:`ratings_recompute` on a worker (``manage.py ratings_recompute --worker``)."""
    from config.celery import task_named

    task_named("ratings.tasks.ratings_recompute_task").delay()


def ratings_recompute() -> int:
    """Recompute every rating from scratch (``manage.py ratings_recompute``: after a change
    the hooks do not see, such as a deleted event, or to check the stored ratings); returns the
    number of games rated."""
    with transaction.atomic():
        advisory_xact_lock(Advisory.RATINGS, 0)
        return _rerate_from(None, force=True)


def states_before(key: RoundKey | None) -> dict[int, State]:
    """Every player's rating before the round ``key`` (their last point before it)."""
    states: dict[int, State] = {}
    if key is None:
        return states
    rows = (RatingPoint.objects.exclude(_at_or_after(key)).order_by("drawn_at", "round_id")
            .values_list("player_id", "mu", "sigma", "games", "wins"))
    for player_id, mu, sigma, games, wins in rows.iterator(chunk_size=5000):
        states[player_id] = State(mu, sigma, games, wins)
    return states


def rated_games(rounds) -> tuple[list[RatedGame], dict[int, tuple]]:
    """The confirmed games of ``rounds`` (a Round queryset) as :class:`RatedGame` in chain order,
    and each game's (result id, version, round id, event id, table id) by position."""
    players: dict[int, list] = {}
    for table_id, seat, player_id in Seat.objects.filter(round__in=rounds).values_list(
            "table_id", "seat", "player_id").iterator(chunk_size=10000):
        players.setdefault(table_id, [0] * 6)[seat] = player_id
    rows = GameResult.objects.filter(table__round__in=rounds,
                                     status=GameResult.Status.CONFIRMED).values_list(
        "pk", "version", "table_id", "number", "points_a", "points_b", "places", "void",
        "table__number", "table__round_id", "table__round__drawn_at", "table__round__event_id")
    out = []
    for (pk, version, table_id, number, points_a, points_b, places, void, table_number,
         round_id, drawn_at, event_id) in rows.iterator(chunk_size=10000):
        seats = players.get(table_id)
        if seats is None or 0 in seats:
            continue
        places = tuple(places) if isinstance(places, list) and len(places) == 6 else (0,) * 6
        out.append((RatedGame(key=(drawn_at, round_id, table_number, number),
                              players=tuple(seats), points_a=points_a, points_b=points_b,
                              places=places, void=void),
                    (pk, version, round_id, event_id, table_id)))
    out.sort(key=lambda pair: pair[0].key)
    return [g for g, _m in out], {i: meta for i, (_g, meta) in enumerate(out)}


def _rerate_from(key: RoundKey | None, *, force: bool = False) -> int:
    """Re-rate the games from the round ``key`` on (all games when None) and store what changed;
    returns how many games were rated.

    A player sits at one table per round, so the tables of a round are independent: a table
    none of whose games changed and none of whose players' ratings changed before it gives its
    players the values already stored for that round, and is not rated again (``force``: rate
    every game, as a recomputation from scratch does). Only rows whose values differ are
    rewritten: a correction in the last round rewrites one table's players, not the field's."""
    states = states_before(key)
    old_points = {(player, round_id): (pk, values) for pk, player, round_id, *values in
                  RatingPoint.objects.filter(_at_or_after(key)).values_list(
                      "pk", "player_id", "round_id", "mu", "sigma", "games", "wins")
                  .iterator(chunk_size=10000)}
    old_rated = dict(RatedResult.objects.filter(_at_or_after(key, "round__drawn_at"))
                     .values_list("result_id", "version"))
    rounds = Round.objects.filter(event__rated=True, drawn_at__isnull=False).filter(
        _at_or_after(key, round_id="pk"))
    games, meta = rated_games(rounds)
    current = {m[0] for m in meta.values()}
    force = force or any(pk not in current for pk in old_rated)  # a result left the ratings
    changed_tables = {m[4] for m in meta.values() if old_rated.get(m[0]) != m[1]}
    points: dict[tuple[int, int], RatingPoint] = {}
    rated: dict[int, tuple] = {}  # result id -> a RatedResult row (RATED_COLUMNS)
    dirty: set[int] = set()  # players whose rating differs from the stored one
    count = 0
    i = 0
    while i < len(games):  # one table's games at a time
        result_id, version, round_id, event_id, table_id = meta[i]
        j = i
        while j < len(games) and meta[j][4] == table_id:
            rated[meta[j][0]] = (meta[j][0], round_id, meta[j][1])
            j += 1
        players = games[i].players
        stored = [old_points.get((p, round_id)) for p in players]
        if (not force and table_id not in changed_tables and not dirty.intersection(players)
                and all(stored)):
            for p, (_pk, (mu, sigma, n, wins)) in zip(players, stored, strict=True):
                states[p] = State(mu, sigma, n, wins)
        else:
            played = [rate_game(states, games[k]) for k in range(i, j)]
            count += j - i
            for p, old in zip(players, stored, strict=True):
                s = states.get(p)
                if s is None or not any(played):
                    continue
                if old is None or old[1] != [s.mu, s.sigma, s.games, s.wins]:
                    dirty.add(p)
                else:
                    dirty.discard(p)
        if any(p in states for p in players):
            for p in players:
                s = states.get(p)
                if s is not None and (s.games or (p, round_id) in old_points):
                    points[(p, round_id)] = (p, round_id, event_id, games[i].key[0], s.mu,
                                             s.sigma, s.ordinal(), s.games, s.wins)
        i = j

    # points: drop the ones gone or changed, add the changed and new
    stale = {k for k, (_pk, values) in old_points.items()
             if k not in points or values != [points[k][4], points[k][5], *points[k][7:]]}
    _delete_by_pk(RatingPoint, [old_points[k][0] for k in stale])
    _insert(RatingPoint, POINT_COLUMNS, [pt for k, pt in points.items()
                                         if k not in old_points or k in stale])
    # the ledger: the same, by result
    stale_results = [pk for pk, version in old_rated.items()
                     if pk not in rated or rated[pk][2] != version]
    _delete_by_pk(RatedResult, stale_results)
    stale_set = set(stale_results)
    _insert(RatedResult, RATED_COLUMNS, [r for pk, r in rated.items()
                                         if pk not in old_rated or pk in stale_set])
    touched = {p for p, _r in stale} | {p for p, _r in points if (p, _r) not in old_points}
    touched |= dirty
    if key is None:
        touched |= set(PlayerRating.objects.values_list("player_id", flat=True))
    _store_current(states, touched)
    return count


#: the columns of the rows _rerate_from writes
POINT_COLUMNS = ("player_id", "round_id", "event_id", "drawn_at", "mu", "sigma", "ordinal", "games",
                 "wins")
RATED_COLUMNS = ("result_id", "round_id", "version")


def _insert(model, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Insert plain rows: PostgreSQL's COPY (a recomputation writes 250,000 rows; building
    model instances for them cost more than rating the games), elsewhere ``bulk_create``."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create([model(**dict(zip(columns, row, strict=True))) for row in rows],
                                  batch_size=2000)
        return
    quote = connection.ops.quote_name
    sql = (f"COPY {quote(model._meta.db_table)} ({', '.join(quote(c) for c in columns)}) "
           "FROM STDIN")
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row(row)


def _delete_by_pk(model, pks: list[int], chunk: int = 5000) -> None:
    for start in range(0, len(pks), chunk):
        model.objects.filter(pk__in=pks[start:start + chunk]).delete()


def _store_current(states: dict[int, State], players: Iterable[int]) -> None:
    """Write the current rating of ``players`` where it changed (none rated: removed)."""
    players = set(players)
    stored = {p: values for p, *values in PlayerRating.objects.filter(
        player_id__in=players).values_list("player_id", "mu", "sigma", "games", "wins")
        .iterator(chunk_size=10000)} if players else {}
    keep = [PlayerRating(player_id=p, mu=states[p].mu, sigma=states[p].sigma,
                         ordinal=states[p].ordinal(), games=states[p].games, wins=states[p].wins)
            for p in sorted(players) if p in states and states[p].games]
    gone = players - {r.player_id for r in keep}
    _delete_by_pk(PlayerRating, sorted(gone & set(stored)))
    changed = [r for r in keep if stored.get(r.player_id) != [r.mu, r.sigma, r.games, r.wins]]
    PlayerRating.objects.bulk_create(
        changed, batch_size=2000, update_conflicts=True, unique_fields=["player"],
        update_fields=["mu", "sigma", "ordinal", "games", "wins", "updated_at"])
