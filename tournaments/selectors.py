"""Reads shared by the API, the pages and the services (STYLE.md: ``selectors.py``), written
once: who runs an event, who sits where, what the public may see, a round's tables.

The rule that recurs everywhere — *this user sits at this table and its seating is public* —
is :func:`public_seat_of` here (and :data:`SEATING_PUBLIC` for queries that must spell it in
SQL, as live play does)."""

from __future__ import annotations

import functools
import hashlib
import hmac
from dataclasses import dataclass

from django.db.models import Prefetch, Q, QuerySet

from tournaments.models import (
    ROUND_DRAW_DATA,
    Bye,
    Entry,
    Event,
    Penalty,
    Player,
    PlayerLink,
    Prize,
    Round,
    Seat,
    Table,
    Team,
    TeamMember,
)
from tournaments.names import person_name
from tournaments.sqlrows import Columns, fetch_one

#: round statuses whose seating everyone may see (the organizers published it)
SEATING_PUBLIC = (Round.Status.PUBLISHED, Round.Status.FINISHED)


def is_organizer(user, event: Event) -> bool:
    """An organizer of ``event`` (or a superuser)."""
    if not user or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return event.organizers.filter(pk=user.pk).exists()


def can_create_event(user) -> bool:
    """Whether ``user`` may create events (and then organizes them): a superuser, a staff
    member, or a user given the permission to add events (the API's rule as well)."""
    if not user or not user.is_authenticated:
        return False
    return user.is_superuser or user.is_staff or user.has_perm("tournaments.add_event")


def organized_events(user) -> QuerySet[Event]:
    """The events ``user`` organizes (a superuser: every event), newest first."""
    if not user or not user.is_authenticated:
        return Event.objects.none()
    events = Event.objects.all() if user.is_superuser else Event.objects.filter(organizers=user)
    return events.order_by("-created_at", "pk")


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


_TABLE = Columns(Table, "T")
_ROUND = Columns(Round, "R", skip=ROUND_DRAW_DATA)
_EVENT = Columns(Event, "E")


@functools.cache
def _table_with_viewer_sql(where: str) -> str:
    seat, player = Seat._meta, Player._meta
    referees = Event.referees.through._meta.db_table
    organizers = Event.organizers.through._meta.db_table
    return f"""
        SELECT {_TABLE.sql}, {_ROUND.sql}, {_EVENT.sql},
          (SELECT S."seat" FROM "{seat.db_table}" S
             JOIN "{player.db_table}" P ON P."id" = S."player_id"
            WHERE S."table_id" = T."id" AND P."user_id" = %s LIMIT 1),
          EXISTS (SELECT 1 FROM "{referees}" X WHERE X."event_id" = E."id" AND X."user_id" = %s),
          EXISTS (SELECT 1 FROM "{organizers}" X WHERE X."event_id" = E."id" AND X."user_id" = %s)
        FROM "{Table._meta.db_table}" T
        JOIN "{Round._meta.db_table}" R ON R."id" = T."round_id"
        JOIN "{Event._meta.db_table}" E ON E."id" = R."event_id"
        WHERE {where}"""


def table_with_viewer(user, pk: int) -> tuple[Table, Viewer] | None:
    """Table ``pk`` with its round and event (not the round's draw data), and what ``user`` is
    there (:class:`Viewer`), in one query (result submission's hot path reads it with the table's
    row lock: ``tournaments.locks.lock_table_with_viewer``). ``None`` when there is no such
    table."""
    return table_with_viewer_where(user, 'T."id" = %s', [pk])


def table_with_viewer_where(user, where: str, params: list) -> tuple[Table, Viewer] | None:
    """:func:`table_with_viewer` of the table that the SQL condition ``where`` (on ``T``, the
    table) picks, e.g. a result's table (``games.selectors.result_table_with_viewer``)."""
    signed_in = bool(user and getattr(user, "is_authenticated", False))
    user_id = user.pk if signed_in else None
    row = fetch_one(_table_with_viewer_sql(where), [user_id, user_id, user_id, *params])
    if row is None:
        return None
    a, b, c = len(_TABLE), len(_TABLE) + len(_ROUND), len(_TABLE) + len(_ROUND) + len(_EVENT)
    table, rnd, event = _TABLE.build(row[:a]), _ROUND.build(row[a:b]), _EVENT.build(row[b:c])
    rnd.event = event
    table.round = rnd
    seat, referee, organizer = row[c:]
    if not signed_in:
        return table, Viewer(seat=None, staff=False)
    return table, Viewer(seat=seat, staff=bool(user.is_superuser or referee or organizer))


def closed_by_sql(round_id: str) -> str:
    """:func:`round_closed_by` in SQL, for the hand-written statements of the hot paths
    (``games.services``): the number of the latest round of the event of round ``round_id`` (an
    SQL expression: a column, or ``%s``) drawn after it, NULL while there is none."""
    rounds = Round._meta.db_table
    return (f'(SELECT MAX(L."number") FROM "{rounds}" L JOIN "{rounds}" M'
            f' ON M."event_id" = L."event_id" WHERE M."id" = {round_id}'
            f' AND L."number" > M."number" AND L."status" <> \'{Round.Status.COMMITTED}\')')


def round_closed_by(rnd: Round, *, rounds: list[Round] | None = None) -> int | None:
    """The number of the latest round of ``rnd``'s event already drawn after it, or ``None``.

    A round is *closed* once a later round is drawn: that draw used the standings as they
    were, so from then on the round's results change only by a referee, and each such change
    is marked as made after the close (``games.services._check_round_open``, issue 51). In
    SQL for the hot paths: :func:`closed_by_sql` (a test holds the two to one answer).
    ``rounds``: the event's rounds, read already, to answer without a query."""
    if rounds is None:
        return fetch_one(f"SELECT {closed_by_sql('%s')}", [rnd.pk])[0]
    return max((r.number for r in rounds if r.event_id == rnd.event_id and r.number > rnd.number
                and r.status != Round.Status.COMMITTED), default=None)


def round_seating(rnd: Round) -> dict:
    """A drawn round's stored seating in the shape its draw gives it
    (``tournaments.services.compute_draw``): ``tables`` in order — each the entry ids by seat
    (individual events), or ``{"team_a", "team_b", "players"}`` (team events) — and ``byes``,
    the entry ids that sat out, sorted."""
    team_event = rnd.event.format == Event.Format.TEAM
    tables = []
    for table in (rnd.tables.order_by("number").select_related("team_a__entry", "team_b__entry")
                  .prefetch_related(Prefetch("seats", Seat.objects.order_by("seat")))):
        seats = list(table.seats.all())
        if team_event:
            tables.append({"team_a": table.team_a.entry.pk, "team_b": table.team_b.entry.pk,
                           "players": [s.player_id for s in seats]})
        else:
            tables.append([s.entry_id for s in seats])
    return {"tables": tables, "byes": sorted(rnd.byes.values_list("entry_id", flat=True))}


def round_tables(rnd: Round) -> QuerySet[Table]:
    """A round's tables in order, with their teams and their seats in order, each with its
    player."""
    return (Table.objects.filter(round=rnd).select_related("round", "team_a", "team_b")
            .prefetch_related(Prefetch("seats", Seat.objects.select_related("player")
                                       .order_by("seat")))
            .order_by("number"))


@dataclass(frozen=True)
class Repeat:
    """Two players of a drawn table who meet again as they met before (the repeats a draw's
    cost counts, ``tournaments.draw.table_repeats``): their seats (0–5), the relation
    (``draw.OPPOSITE`` 对头, ``draw.PARTNER`` same 联邦, ``draw.TABLEMATE`` other 联邦) and the
    earlier rounds they met in so."""

    seats: tuple[int, int]
    relation: int
    rounds: tuple[int, ...]


def round_repeats(rnd: Round) -> dict:
    """What a drawn round's seating achieved against the earlier rounds of its event (the
    organizers' check of a draw): ``tables`` (table number -> its :class:`Repeat` list; in a team
    event teammates are partners by rule, so only 对头 and other-联邦 repeats count),
    ``totals`` (relation -> how many pairs meet again) and, in a team event, ``rematches``
    (table number -> the earlier rounds its two teams met in)."""
    from tournaments import draw as draw_module

    team_event = rnd.event.format == Event.Format.TEAM
    key = "player_id" if team_event else "entry_id"
    earlier: dict[int, list] = {}
    numbers: dict[int, int] = {}
    for table_id, number, seat, who in (Seat.objects.filter(
            round__event=rnd.event_id, round__number__lt=rnd.number)
            .values_list("table_id", "round__number", "seat", key)):
        earlier.setdefault(table_id, [None] * 6)[seat] = who
        numbers[table_id] = number
    history = draw_module.History()
    met: dict[tuple, list[int]] = {}  # (a, b, relation) -> rounds
    for table_id, table in earlier.items():
        if None in table:
            continue
        history.add_table(table)
        for i, j in draw_module.PAIRS:
            pair = (min(table[i], table[j]), max(table[i], table[j]))
            met.setdefault((*pair, draw_module.seat_relation(i, j)), []).append(
                numbers[table_id])
    tables: dict[int, list[Repeat]] = {}
    totals = dict.fromkeys((draw_module.OPPOSITE, draw_module.PARTNER, draw_module.TABLEMATE), 0)
    current: dict[int, list] = {}
    for number, seat, who in Seat.objects.filter(round=rnd).values_list(
            "table__number", "seat", key):
        current.setdefault(number, [None] * 6)[seat] = who
    for number, table in sorted(current.items()):
        found = []
        for i, j, relation, _times in draw_module.table_repeats(table, history):
            if team_event and relation == draw_module.PARTNER:
                continue
            pair = (min(table[i], table[j]), max(table[i], table[j]))
            found.append(Repeat(seats=(i, j), relation=relation,
                                rounds=tuple(sorted(met[(*pair, relation)]))))
            totals[relation] += 1
        if found:
            tables[number] = found
    out = {"tables": tables, "totals": totals, "rematches": {}}
    if team_event:
        met_teams: dict[tuple[int, int], list[int]] = {}
        for a, b, number in Table.objects.filter(
                round__event=rnd.event_id, round__number__lt=rnd.number,
                team_a__isnull=False).values_list("team_a_id", "team_b_id", "round__number"):
            met_teams.setdefault((min(a, b), max(a, b)), []).append(number)
        for number, a, b in rnd.tables.filter(team_a__isnull=False).values_list(
                "number", "team_a_id", "team_b_id"):
            if (min(a, b), max(a, b)) in met_teams:
                out["rematches"][number] = sorted(met_teams[(min(a, b), max(a, b))])
    return out


def knockout_matches(user, event: Event) -> list[dict]:
    """The knockout finals as ``user`` may see them (rounds whose seating is public, or all for
    the event's staff): every match in round and table order, its score from confirmed games
    and its winner's name once decided. The bracket API and the bracket page read this."""
    from tournaments.services.matches import match_score

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


@functools.lru_cache(maxsize=20_000)
def _pinyin_keys(name: str) -> tuple[str, str]:
    """A name's pinyin without tones, whole and as initials ("张伟" → ``zhangwei``, ``zw``),
    for typing a Chinese name on a phone's Latin keyboard."""
    from pypinyin import lazy_pinyin

    syllables = [s.lower() for s in lazy_pinyin(name) if s.strip()]
    return "".join(syllables).replace(" ", ""), "".join(s[0] for s in syllables if s[0].isalnum())


def _entry_matches(query: str, names: list[str], clubs: list[str], numbers: list) -> bool:
    text = query.casefold()
    if any(text in n.casefold() for n in names + clubs if n):
        return True
    if query.isascii() and query.isdigit() and any(str(n) == query for n in numbers if n
                                                   is not None):
        return True
    if query.isascii() and query.replace(" ", "").isalpha():
        compact = text.replace(" ", "")
        return any(compact in whole or initials.startswith(compact)
                   for whole, initials in map(_pinyin_keys, names))
    return False


def entry_search(event: Event, query: str = "") -> list[Entry]:
    """The event's entries matching ``query`` — a player's (or a team's, or a team member's)
    name, club or number, or a name's pinyin (``zhangwei``, ``zw``) — in the order people
    registered, with their players and teams (team members in ``team.members``). Every
    entry when ``query`` is empty."""
    entries = list(Entry.objects.filter(event=event).select_related("player", "team")
                   .prefetch_related(Prefetch("team__members", TeamMember.objects
                                              .select_related("player").order_by("position")))
                   .order_by("pk"))
    query = (query or "").strip()
    if not query:
        return entries
    found = []
    for entry in entries:
        people = [entry.player] if entry.player_id else [m.player for m in
                                                         entry.team.members.all()]
        names = [p.name for p in people] + ([entry.team.name] if entry.team_id else [])
        if _entry_matches(query, names, [p.club for p in people], [p.number for p in people]):
            found.append(entry)
    return found


def staff_candidates(event: Event, by) -> list:
    """The people ``by`` (an organizer of ``event``) may make its referees, by name: the
    event's players who have a login they sign in with, the site's staff, and the staff of the
    other events ``by`` organizes — never the logins made for private links (they have no
    password, so they could not sign in to the desk), sorted by :func:`person_name`."""
    from django.contrib.auth import get_user_model
    from django.db.models import Q

    users = get_user_model().objects.filter(
        Q(player__entries__event=event) | Q(player__memberships__event=event)
        | Q(is_staff=True) | Q(organized_events__organizers=by)
        | Q(refereed_events__organizers=by)).exclude(is_active=False).distinct()
    people = [u for u in users.select_related("player") if u.has_usable_password()]
    return sorted(people, key=lambda u: person_name(u, number=True).casefold())


def results_released_through(event: Event) -> int | None:
    """The last round whose results the public sees round by round (the round results
    pages, a player's or a team's rounds): every round while the event shows its live
    standings (``None``), else up to the round whose standings were released — the results
    pages follow the standings release, so that they do not tell what the leaderboard holds
    back. A table's own page stays live: its players follow their match there."""
    return event.standings_released_round
class Prizes:
    """An event's prizes (奖项) by place: ``prizes.of(rank)`` is the name of the prize a place
    gets ("" for none); iterating gives the :class:`~tournaments.models.Prize` rows in place
    order."""

    def __init__(self, event: Event):
        self.rows = list(Prize.objects.filter(event=event).order_by("place_from"))

    def __iter__(self):
        return iter(self.rows)

    def __bool__(self) -> bool:
        return bool(self.rows)

    def of(self, rank: int | None) -> str:
        for prize in self.rows:
            if rank is not None and prize.place_from <= rank <= prize.place_to:
                return prize.name
        return ""


# ----------------------------------------------------------------------------- the public pages' reads
def penalties_listed(**filters) -> QuerySet[Penalty]:
    """Penalties as the pages list them (who, by whom, at which table), oldest first."""
    return (Penalty.objects.filter(**filters)
            .select_related("player", "entry__player", "entry__team", "round", "created_by__player",
                            "table__round__event").order_by("created_at", "pk"))


def public_round_numbers(event: Event) -> list[int]:
    """The numbers of the event's rounds whose seating is public, in order."""
    return list(Round.objects.filter(event=event, status__in=SEATING_PUBLIC)
                .order_by("number").values_list("number", flat=True))


def public_byes(entry: Entry) -> QuerySet[Bye]:
    """An entry's byes (轮空) in rounds whose seating is public, in round order."""
    return (Bye.objects.filter(entry=entry, round__status__in=SEATING_PUBLIC)
            .select_related("round").order_by("round__number"))


def event_entry(event: Event, *, player: Player | None = None,
                team: Team | None = None) -> Entry | None:
    """The entry of ``player`` (individual events) or of ``team`` in ``event``, if any."""
    return Entry.objects.filter(event=event, **(
        {"player": player} if team is None else {"team": team})).first()


def tables_with_teams(table_ids) -> QuerySet[Table]:
    """The tables ``table_ids`` with their round and both 联邦 teams."""
    return Table.objects.filter(pk__in=table_ids).select_related("round", "team_a", "team_b")


# ----------------------------------------------------------------------------- the desk's reads
def drawn_rounds(event: Event) -> list[Round]:
    """The event's rounds that have tables (drawn, published or finished), in order, without
    their bulky draw data."""
    return list(Round.objects.filter(event=event).exclude(status=Round.Status.COMMITTED)
                .defer(*ROUND_DRAW_DATA).order_by("number"))


def round_tables_matching(rnd: Round, query: str) -> set[int]:
    """The ids of the round's tables found by table number, player number, or a player's or
    team's name."""
    match = (Q(seats__player__name__icontains=query) | Q(team_a__name__icontains=query)
             | Q(team_b__name__icontains=query))
    if query.isascii() and query.isdigit() and len(query) <= 9:
        match |= Q(number=int(query)) | Q(seats__player__number=int(query))
    return set(Table.objects.filter(round=rnd).filter(match).order_by()
               .values_list("pk", flat=True).distinct())


def table_penalties(table: Table) -> QuerySet[Penalty]:
    """The penalties given at ``table``, oldest first, with their player and entry."""
    return (Penalty.objects.filter(table=table).select_related("player", "entry")
            .order_by("created_at", "pk"))


# ----------------------------------------------------------------------------- the API's reads
def players_visible_to(user) -> QuerySet[Player]:
    """The players a staff user may list: all of them for a superuser or a holder of
    ``tournaments.view_player``, else those of the events they organize or referee."""
    if user.is_superuser or user.has_perm("tournaments.view_player"):
        return Player.objects.all()
    events = Event.objects.filter(Q(organizers=user) | Q(referees=user))
    return Player.objects.filter(Q(entries__event__in=events)
                                 | Q(memberships__event__in=events)).distinct()


def pending_invitations(player: Player | None) -> QuerySet[TeamMember]:
    """``player``'s invitations to 联邦 teams still waiting for an answer, oldest first."""
    return (TeamMember.objects.filter(player=player, status=TeamMember.Status.INVITED)
            .select_related("event", "team").prefetch_related("team__members__player")
            .order_by("pk"))
