"""Writes for players, entries, rounds and draws (STYLE.md: services own the writes).

Every function is keyword-only, runs in one transaction and sends its side effects (tasks) on
commit. Refusals raise :class:`tournaments.errors.ServiceError` and change nothing.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max, Model, Q
from django.utils import timezone
from django.utils.translation import gettext as _

import engine
from tournaments import draw as draw_module
from tournaments import locks
from tournaments.errors import Conflict, NotFound, ServiceError
from tournaments.models import (
    Bye,
    Entry,
    Event,
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
from tournaments.selectors import entry_link_players, round_seating
from tournaments.signals import access_ended, forced_last, rated_changed

logger = logging.getLogger(__name__)

ACTIVE_STATUSES = (Entry.Status.REGISTERED, Entry.Status.CHECKED_IN)


# ----------------------------------------------------------------------------- events & players
def event_create(*, name: str, slug: str, format: str = Event.Format.INDIVIDUAL,
                 rules="dagang", rounds_planned: int = 7, games_per_match: int = 4,
                 bye_points: int = 0, swiss_brackets: bool = False,
                 tie_breaks: list[str] | None = None, knockout_teams: int = 0,
                 move_seconds: int = 60, rated: bool = False, show_ratings: bool = False,
                 rating_balance: bool = False,
                 knockout_seeding: str = Event.KnockoutSeeding.STANDINGS,
                 spectator_delay: int = 0, organizer=None) -> Event:
    """Create an event after checking its rules with the engine and its settings against the
    bounds on the model's fields (``tournaments.models``: games per match, rounds, move time,
    bye score)."""
    check_bounds(model=Event, code="bad_event", values={
        "name": name, "slug": slug, "rounds_planned": rounds_planned,
        "games_per_match": games_per_match, "bye_points": bye_points,
        "move_seconds": move_seconds, "spectator_delay": spectator_delay})
    rules = rules_check(rules=rules)
    if tie_breaks:
        from tournaments.models import TIE_BREAK_CHOICES

        bad = [t for t in tie_breaks if t not in TIE_BREAK_CHOICES]
        if bad:
            raise ServiceError("bad_tie_break", _("unknown tie-break %(name)s") % {"name": bad[0]})
    if format not in Event.Format.values:
        raise ServiceError("bad_format", _("unknown event format %(f)s") % {"f": format})
    _check_knockout(format, knockout_teams)
    _check_knockout_seeding(knockout_seeding)
    with transaction.atomic():
        if Event.objects.filter(slug=slug).exists():
            raise Conflict("slug_taken", _("an event with slug %(s)s exists") % {"s": slug},
                           detail={"field": "slug"})
        event = Event.objects.create(
            name=name, slug=slug, format=format, rules=rules, rounds_planned=rounds_planned,
            games_per_match=games_per_match, bye_points=bye_points,
            swiss_brackets=swiss_brackets, tie_breaks=list(tie_breaks or []),
            knockout_teams=knockout_teams, move_seconds=move_seconds, rated=rated,
            show_ratings=show_ratings, rating_balance=rating_balance,
            knockout_seeding=knockout_seeding,
            spectator_delay=spectator_delay)
        if organizer is not None:
            event.organizers.add(organizer)
    return event


def event_slug(name: str) -> str:
    """A free, readable slug for an event's address made from its name: Chinese in pinyin, a
    syllable a word ("2026 青岛够级公开赛" → ``2026-qing-dao-gou-ji-gong-kai-sai``), cut at a
    word to fit the field, with ``-2``, ``-3``… if taken."""
    from django.utils.text import slugify
    from pypinyin import lazy_pinyin

    base = slugify(" ".join(lazy_pinyin(name or ""))) or "event"
    limit = Event._meta.get_field("slug").max_length - 4
    if len(base) > limit:
        base = base[:limit].rsplit("-", 1)[0] or base[:limit]
    slug, n = base, 1
    while Event.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def check_bounds(*, model: type[Model], code: str, values: dict) -> None:
    """Refuse a value its model field's validators refuse (a length, a range: the bounds the
    database or the game needs), naming the field in the message and in ``detail.field``."""
    for name, value in values.items():
        if value is None:
            continue
        try:
            model._meta.get_field(name).run_validators(value)
        except ValidationError as exc:
            raise ServiceError(code, f"{name}: {exc.messages[0]}",
                               detail={"field": name}) from None


def _check_knockout(format: str, knockout_teams: int) -> None:
    if knockout_teams not in (0, 2, 4, 8, 16, 32, 64):
        raise ServiceError("bad_event", _("knockout finals take 2, 4, 8, 16, 32 or 64 teams"))
    if knockout_teams and format != Event.Format.TEAM:
        raise ServiceError("bad_event", _("knockout finals are for team events"))


def _check_knockout_seeding(value: str) -> None:
    if value not in Event.KnockoutSeeding.values:
        raise ServiceError("bad_event", _("knockout seeding is by standings or by rating"))


def rules_check(*, rules):
    """Return the rules spec if the engine accepts it, else refuse with the engine's reason."""
    try:
        return engine.Rules.from_spec(rules).spec()
    except engine.RulesError as exc:
        raise ServiceError("bad_rules", str(exc)) from None


def player_create(*, name: str, club: str = "", number: int | None = None, user=None) -> Player:
    name, club = (name or "").strip(), (club or "").strip()
    if not name:
        raise ServiceError("bad_player", _("a player needs a name"), detail={"field": "name"})
    check_bounds(model=Player, code="bad_player",
                 values={"name": name, "club": club, "number": number})
    if number is not None and Player.objects.filter(number=number).exists():
        raise Conflict("number_taken", _("player number %(n)s is taken") % {"n": number},
                       detail={"field": "number"})
    return Player.objects.create(name=name, club=club, number=number, user=user)


# ----------------------------------------------------------------------------- entries
def _next_round_number(event: Event) -> int:
    last = event.rounds.aggregate(m=Max("number"))["m"] or 0
    return last + 1


def _check_open(event: Event):
    if event.status == Event.Status.FINISHED:
        raise ServiceError("event_finished", _("the event is finished"))


def entry_register(*, event: Event, player: Player) -> Entry:
    """Register a player in an individual event; after round 1 it is a late entry that joins
    from the next round."""
    if event.format != Event.Format.INDIVIDUAL:
        raise ServiceError("wrong_format", _("team events register 联邦 teams, not players"))
    _check_open(event)
    with transaction.atomic():
        nxt = _next_round_number(event)
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
    _check_open(event)
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
        nxt = _next_round_number(event)
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
    _check_open(membership.event)
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
        _check_open(entry.event)
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


# ----------------------------------------------------------------------------- rounds & draws
def round_eligible_entries(*, event: Event, number: int) -> list[Entry]:
    return list(Entry.objects.filter(event=event, status=Entry.Status.CHECKED_IN,
                                     first_round__lte=number).order_by("pk"))


def round_create(*, event: Event, knockout: bool = False) -> Round:
    """Open the next round: fix who is in the draw, keep a secret seed and publish its
    commitment (a hash of the seed and of the entry list) before anything is drawn.

    ``knockout`` opens a knockout round of a team event's finals instead of a Swiss round."""
    with transaction.atomic():
        event = locks.lock_event(event.pk)
        _check_open(event)
        number = _next_round_number(event)
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
        entries = _swiss_draw_entries(event=event, number=number)
        ids = [e.pk for e in entries]
        draw_input = _swiss_draw_input(event=event, number=number, entries=entries)
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


def _swiss_draw_entries(*, event: Event, number: int) -> list[Entry]:
    """Who is in the draw of Swiss round ``number``: the entries checked in now (at least a
    table's worth), fixed when the round is opened or re-drawn (``Round.draw_entries``)."""
    entries = round_eligible_entries(event=event, number=number)
    minimum = 6 if event.format == Event.Format.INDIVIDUAL else 2
    if len(entries) < minimum:
        raise ServiceError("too_few_entries", _(
            "%(n)s checked-in entries: a draw needs at least %(m)s") % {
            "n": len(entries), "m": minimum})
    return entries


def _swiss_draw_input(*, event: Event, number: int, entries: list[Entry]) -> dict:
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


def _confirmed_points(round: Round) -> dict[int, list[tuple[int, int]]]:
    """The round's confirmed games' points (table id -> [(points_a, points_b), ...])."""
    from games.models import GameResult

    confirmed: dict[int, list] = {}
    for table_id, a, b in GameResult.objects.filter(
            table__round=round, status=GameResult.Status.CONFIRMED).values_list(
            "table_id", "points_a", "points_b"):
        confirmed.setdefault(table_id, []).append((a, b))
    return confirmed


def _tied(round: Round, confirmed: dict[int, list[tuple[int, int]]]) -> set[int]:
    if round.stage != Round.Stage.KNOCKOUT:
        return set()
    gpm = round.event.games_per_match
    return {table_id for table_id, games in confirmed.items() if len(games) >= gpm
            and sum(g[0] for g in games) == sum(g[1] for g in games)}


def round_tied_matches(*, round: Round) -> set[int]:
    """The tables of a knockout round whose match is tied with every game of it confirmed:
    each waits for a deciding extra game (加赛). Empty for a Swiss round."""
    if round.stage != Round.Stage.KNOCKOUT:
        return set()
    return _tied(round, _confirmed_points(round))


def round_results_to_come(*, round: Round) -> tuple[int, set[int]]:
    """:func:`round_missing_results` and :func:`round_tied_matches` from one read of the
    round's confirmed games."""
    gpm = round.event.games_per_match
    confirmed = _confirmed_points(round)
    tied = _tied(round, confirmed)
    missing = sum(max(0, gpm - len(confirmed.get(table_id, [])))
                  for table_id in round.tables.values_list("pk", flat=True))
    return missing + len(tied), tied


def round_missing_results(*, round: Round) -> int:
    """How many games of the round have no confirmed result yet (in a knockout round, a tied
    match also waits for its deciding extra game)."""
    return round_results_to_come(round=round)[0]


MAX_EXTRA_GAMES = 5


def most_games(round: Round) -> int:
    """The most games a match of ``round`` plays: its event's games per match and, in a
    knockout round, up to :data:`MAX_EXTRA_GAMES` deciding extra games (加赛) after them while
    the match stays tied."""
    gpm = round.event.games_per_match
    return gpm + MAX_EXTRA_GAMES if round.stage == Round.Stage.KNOCKOUT else gpm


def match_score(*, table: Table) -> dict:
    """A table's match so far from confirmed games: points of each side, games played, and
    (knockout) the winning team entry once decided — a tie after the games per match goes to
    deciding extra games (加赛)."""
    from games.models import GameResult

    games = list(GameResult.objects.filter(table=table, status=GameResult.Status.CONFIRMED)
                 .order_by("number").values_list("points_a", "points_b"))
    a, b = sum(g[0] for g in games), sum(g[1] for g in games)
    gpm = table.round.event.games_per_match
    decided = len(games) >= gpm and a != b
    winner = None
    if decided and table.team_a_id:
        winner = (table.team_a if a > b else table.team_b).entry.pk
    return {"points_a": a, "points_b": b, "games": len(games), "decided": decided,
            "winner": winner, "extra_games": max(0, len(games) - gpm)}


def _bracket_order(n: int) -> list[int]:
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
        order = _bracket_order(k)
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

    from config.outage import Skipped
    from tournaments.tasks import round_draw_task

    try:
        round_draw_task.delay(round_id)
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


def compute_draw(*, round: Round, history_rounds=None):
    """Run the pure draw from public data: the revealed seed, the entry list, the scores and
    bye counts fixed at commitment, and the seating of earlier rounds."""
    event = round.event
    inputs = round.draw_input or {}
    scores = {int(k): v for k, v in inputs.get("scores", {}).items()}
    byes = {int(k): v for k, v in inputs.get("byes", {}).items()}
    earlier = list(history_rounds) if history_rounds is not None else list(
        Round.objects.filter(event=event, number__lt=round.number).order_by("number"))
    seats = (Seat.objects.filter(round__in=earlier).order_by("round__number", "table__number",
                                                             "seat")
             .values_list("round_id", "table_id", "seat", "entry_id", "player_id"))
    tables: dict[int, list] = {}
    seat_counts: dict[int, list[int]] = {}
    player_seat_counts: dict[int, list[int]] = {}
    for _r, table_id, seat, entry_id, player_id in seats:
        tables.setdefault(table_id, [None] * 6)
        key = entry_id if event.format == Event.Format.INDIVIDUAL else player_id
        tables[table_id][seat] = key
        seat_counts.setdefault(entry_id, [0] * 6)[seat] += 1
        player_seat_counts.setdefault(player_id, [0] * 6)[seat] += 1
    history = draw_module.History.from_tables(
        [tuple(t) for t in tables.values() if None not in t])
    ids = list(round.draw_entries)
    if event.format == Event.Format.INDIVIDUAL:
        players = [draw_module.DrawPlayer(id=i, score=float(scores.get(i, 0)),
                                          byes=byes.get(i, 0),
                                          seat_counts=tuple(seat_counts.get(i, [0] * 6)))
                   for i in ids]
        ratings = inputs.get("ratings")
        result = draw_module.draw_individual(
            players, history, round.seed, brackets=round.brackets,
            ratings=None if ratings is None else {int(k): v for k, v in ratings.items()})
        return {"tables": [list(t) for t in result.tables], "byes": list(result.byes)}
    # team events: Swiss pairing of 联邦 teams, then seat each table
    met: set[tuple[int, int]] = set()
    for a, b in Table.objects.filter(round__in=earlier, team_a__isnull=False).values_list(
            "team_a__entry", "team_b__entry"):
        met.add((min(a, b), max(a, b)))
    teams = [draw_module.DrawTeam(id=i, score=float(scores.get(i, 0)), byes=byes.get(i, 0))
             for i in ids]
    if round.stage == Round.Stage.KNOCKOUT:  # pairs fixed by the bracket, not drawn
        paired = draw_module.TeamDrawResult(
            pairs=[tuple(p) for p in inputs["knockout_pairs"]], bye=None)
    else:
        paired = draw_module.draw_teams(teams, met, round.seed)
    members = {}
    for entry_id, player_id in TeamMember.objects.filter(team__entry__pk__in=ids).values_list(
            "team__entry__pk", "player_id").order_by("team__entry__pk", "position"):
        members.setdefault(entry_id, []).append(player_id)
    out_tables = []
    for k, (a, b) in enumerate(paired.pairs):
        seating = draw_module.seat_team_table(
            members[a], members[b], history,
            {p: tuple(player_seat_counts.get(p, [0] * 6)) for p in members[a] + members[b]},
            f"{round.seed}:{k}")
        out_tables.append({"team_a": a, "team_b": b, "players": list(seating)})
    return {"tables": out_tables, "byes": [paired.bye] if paired.bye is not None else []}


def round_draw(*, round_id: int) -> Round:
    """Draw a committed round (idempotent: a drawn round is returned unchanged)."""
    with transaction.atomic():
        rnd = locks.lock_round(round_id, with_event=True)
        if rnd.status != Round.Status.COMMITTED:
            return rnd
        event = rnd.event
        drawn = compute_draw(round=rnd)
        entries = {e.pk: e for e in Entry.objects.filter(pk__in=rnd.draw_entries)}
        table_objs, seat_objs = [], []
        if event.format == Event.Format.INDIVIDUAL:
            table_objs = [Table(round=rnd, number=k + 1) for k in range(len(drawn["tables"]))]
        else:
            team_of = {e.pk: e.team_id for e in entries.values()}
            for k, t in enumerate(drawn["tables"]):
                table_objs.append(Table(round=rnd, number=k + 1, team_a_id=team_of[t["team_a"]],
                                        team_b_id=team_of[t["team_b"]]))
        Table.objects.bulk_create(table_objs)
        table_objs = list(Table.objects.filter(round=rnd).order_by("number"))
        if event.format == Event.Format.INDIVIDUAL:
            for table, ids in zip(table_objs, drawn["tables"], strict=True):
                for seat, entry_id in enumerate(ids):
                    seat_objs.append(Seat(table=table, round=rnd, seat=seat,
                                          player_id=entries[entry_id].player_id,
                                          entry_id=entry_id))
        else:
            entry_of_player = dict(TeamMember.objects.filter(
                team__entry__pk__in=rnd.draw_entries).values_list("player_id", "team__entry__pk"))
            for table, t in zip(table_objs, drawn["tables"], strict=True):
                for seat, player_id in enumerate(t["players"]):
                    seat_objs.append(Seat(table=table, round=rnd, seat=seat, player_id=player_id,
                                          entry_id=entry_of_player[player_id]))
        Seat.objects.bulk_create(seat_objs, batch_size=2000)
        Bye.objects.bulk_create([Bye(round=rnd, entry_id=e, points=event.bye_points)
                                 for e in drawn["byes"]])
        rnd.status = Round.Status.DRAWN
        rnd.drawn_at = timezone.now()
        rnd.save(update_fields=["status", "drawn_at"])
        if drawn["byes"] and event.bye_points:
            from tournaments.standings import standings_refresh_on_commit

            standings_refresh_on_commit(event_id=event.pk, from_round=rnd.number)
    return rnd


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


# ----------------------------------------------------------------------------- checking a draw
# Before its seating is published, the organizers check a drawn round and may swap two seats
# or draw it again. Both keep the draw verifiable, in the round's public record:
#
# - a swap is appended to ``Round.draw_changes`` (which two places, who sat there, who made
#   it, when and why); the verification re-runs the draw from the revealed seed and then
#   applies the swaps in order, so it still ends at the seating stored — "verified, with N
#   manual changes", each listed;
# - a re-draw keeps the draw it replaces in ``Round.draw_history`` (its commitment, seed,
#   entries, inputs, seating and swaps, and who re-drew it, when and why), then commits to a
#   new secret seed — a new commitment, published before the new draw runs on a worker, as
#   for any round. An organizer who re-draws until a seating suits them cannot hide it: every
#   earlier draw stays verifiable and public, and the seating page counts them.

#: the longest reason a swap or a re-draw takes (it is published with the round)
DRAW_REASON_MAX = 500


@dataclass(frozen=True)
class SeatRef:
    """A seat as the organizer saw it when choosing it: the table's number, the seat (0–5) and
    the player sitting there. A swap asked of a seating that has changed since is refused —
    unless it is the very swap just made (a double click), which changes nothing."""

    table: int
    seat: int
    player_id: int


def _draw_reason(reason) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("reason_required", _(
            "reason: say why (a change to a draw is published with its reason)"),
            detail={"field": "reason"})
    if "\x00" in reason:  # (PostgreSQL's JSON refuses it)
        raise ServiceError("bad_reason", _("reason: a NUL character is not text"),
                           detail={"field": "reason"})
    if len(reason) > DRAW_REASON_MAX:
        raise ServiceError("bad_reason", _("reason: at most %(n)s characters") % {
            "n": DRAW_REASON_MAX}, detail={"field": "reason"})
    return reason


def _made_by(by, reason: str) -> dict:
    """Who made a change to a draw, when and why, as the round's public record says it."""
    named = getattr(by, "pk", None) is not None
    return {"at": timezone.now().isoformat(), "by": person_name(by) if named else "",
            "by_id": by.pk if named else None, "reason": reason}


def _check_drawn_unpublished(rnd: Round) -> None:
    """A draw may change between its draw and the publication of its seating only."""
    if rnd.status == Round.Status.COMMITTED:
        raise Conflict("not_drawn", _("the round is not drawn yet"))
    if rnd.status != Round.Status.DRAWN:
        raise Conflict("round_published", _(
            "the seating of round %(n)s is published: its draw can no longer change") % {
            "n": rnd.number})


def _check_not_in_play(rnd: Round, table_ids: list[int] | None = None) -> None:
    """Refuse to change tables that have a result, a live game or a penalty already (a
    referee may enter them before the seating is published)."""
    tables = Table.objects.filter(round=rnd)
    if table_ids is not None:
        tables = tables.filter(pk__in=table_ids)
    busy = sorted(set(tables.filter(
        Q(results__isnull=False) | Q(live_games__isnull=False) | Q(penalties__isnull=False))
        .values_list("number", flat=True)))
    if busy:
        raise Conflict("table_in_play", _(
            "table %(t)s has results, a live game or a penalty already: its seats can no "
            "longer change") % {"t": busy[0]}, detail={"tables": busy})


def round_seats_swap(*, round: Round, seat_a: SeatRef, seat_b: SeatRef, by,
                     reason: str) -> Round:
    """Swap two players' seats (at one table or two) in a drawn round whose seating is not
    published yet; ``reason`` is required. In a team event (团体赛) a player changes seats with
    a teammate only: the same table, the same 联邦.

    The swap is appended to the round's public record (``Round.draw_changes``: the two places
    ``{"table", "seat", "entry", "player", "name"}`` with who sat there before, ``at``, ``by``,
    ``reason``), which the verification applies after re-running the draw
    (:func:`round_verification`). ``seat_a`` and ``seat_b`` are the seats as the organizer saw
    them: if the seating has changed since, the swap is refused (409 ``seating_changed``) —
    unless it is the swap just made, asked again by a double click: then nothing changes.
    Refused once the seating is published (409 ``round_published``). Locks: event → round →
    the two tables."""
    reason = _draw_reason(reason)
    places = {(seat_a.table, seat_a.seat), (seat_b.table, seat_b.seat)}
    if len(places) == 1 or seat_a.player_id == seat_b.player_id:
        raise ServiceError("same_seat", _("choose two different players"))
    if not all(0 <= ref.seat <= 5 for ref in (seat_a, seat_b)):
        raise ServiceError("bad_seat", _("a table has seats 1 to 6"))
    with transaction.atomic():
        rnd = locks.lock_round(round.pk, with_event=True)
        _check_drawn_unpublished(rnd)
        if rnd.event.format == Event.Format.TEAM and (
                seat_a.table != seat_b.table or seat_a.seat % 2 != seat_b.seat % 2):
            raise ServiceError("team_seats", _(
                "in a team event a player changes seats with a teammate only (the same table "
                "and 联邦)"))
        tables = {t.number: t for t in Table.objects.filter(
            round=rnd, number__in={seat_a.table, seat_b.table})}
        missing = sorted({seat_a.table, seat_b.table} - set(tables))
        if missing:
            raise NotFound("no_table", _("round %(n)s has no table %(t)s") % {
                "n": rnd.number, "t": missing[0]})
        locks.lock_tables(sorted(t.pk for t in tables.values()))
        _check_not_in_play(rnd, [t.pk for t in tables.values()])
        seats = {(s.table.number, s.seat): s for s in Seat.objects.filter(
            table__in=tables.values()).select_related("table", "player")}
        a, b = seats[(seat_a.table, seat_a.seat)], seats[(seat_b.table, seat_b.seat)]
        if (a.player_id, b.player_id) == (seat_b.player_id, seat_a.player_id) and \
                _is_last_swap(rnd, seat_a, seat_b):
            return rnd  # asked twice: made once
        if (a.player_id, b.player_id) != (seat_a.player_id, seat_b.player_id):
            raise Conflict("seating_changed", _(
                "the seating has changed since you chose these seats: look again and choose "
                "again"))
        Seat.objects.filter(pk__in=[a.pk, b.pk]).delete()  # (one player per round: no update)
        Seat.objects.bulk_create([
            Seat(table=a.table, round=rnd, seat=a.seat, player_id=b.player_id,
                 entry_id=b.entry_id),
            Seat(table=b.table, round=rnd, seat=b.seat, player_id=a.player_id,
                 entry_id=a.entry_id)])
        rnd.draw_changes = [*rnd.draw_changes, {
            "kind": "swap",
            "seats": [{"table": s.table.number, "seat": s.seat, "entry": s.entry_id,
                       "player": s.player_id, "name": s.player.name} for s in (a, b)],
            **_made_by(by, reason)}]
        rnd.save(update_fields=["draw_changes"])
    return rnd


def _is_last_swap(rnd: Round, seat_a: SeatRef, seat_b: SeatRef) -> bool:
    """Whether the round's last manual change is the swap of these two seats and players."""
    if not rnd.draw_changes:
        return False
    last = rnd.draw_changes[-1]
    return last.get("kind") == "swap" and {
        (s["table"], s["seat"], s["player"]) for s in last["seats"]} == {
        (ref.table, ref.seat, ref.player_id) for ref in (seat_a, seat_b)}


def round_redraw(*, round: Round, by, reason: str, commitment: str | None = None) -> Round:
    """Draw a drawn round again before its seating is published; ``reason`` is required.

    The draw it replaces goes to the round's public history (``Round.draw_history``: its
    commitment, seed, entries and inputs, the seating and byes it gave, its swaps, and who
    re-drew it, when and why), its tables are removed, and the round is committed again as
    :func:`round_create` commits one: a new secret seed, the entries checked in now (a late
    arrival, a no-show withdrawn) with their scores, byes and ratings (a knockout round keeps
    its pairs), and a new commitment, published before the new draw runs on a worker.

    ``commitment``: the commitment the organizer saw — a re-draw asked again of a draw that is
    already replaced (a double click) changes nothing; one asked of a draw they never saw is
    refused (409 ``draw_changed``). Refused once the seating is published (409
    ``round_published``), while a draw is running (409 ``not_drawn``) and when a table has
    results already. Locks: event → round → the round's entries left out → its tables."""
    reason = _draw_reason(reason)
    with transaction.atomic():
        rnd = locks.lock_round(round.pk, with_event=True)
        if commitment is not None and commitment != rnd.commitment:
            if any(d["commitment"] == commitment for d in rnd.draw_history):
                return rnd  # asked twice: re-drawn once
            raise Conflict("draw_changed", _(
                "the draw has changed since you looked at it: look again"))
        _check_drawn_unpublished(rnd)
        event = rnd.event
        if rnd.stage == Round.Stage.KNOCKOUT:
            entries = None
            ids = list(rnd.draw_entries)
        else:
            entries = _swiss_draw_entries(event=event, number=rnd.number)
            ids = [e.pk for e in entries]
        # an entry withdrawn since the draw no longer plays this round
        Entry.objects.filter(pk__in=set(rnd.draw_entries) - set(ids),
                             left_after_round__gte=rnd.number).update(
            left_after_round=rnd.number - 1)
        locks.lock_round_tables(rnd.pk)
        _check_not_in_play(rnd)
        replaced = {
            "commitment": rnd.commitment, "seed": rnd.seed, "entries": list(rnd.draw_entries),
            "input": rnd.draw_input, "brackets": rnd.brackets,
            "committed_at": rnd.committed_at.isoformat(),
            "drawn_at": rnd.drawn_at.isoformat() if rnd.drawn_at else None,
            **round_seating(rnd), "changes": list(rnd.draw_changes),
            "redraw": _made_by(by, reason)}
        Table.objects.filter(round=rnd).delete()  # and their seats
        had_byes = Bye.objects.filter(round=rnd).delete()[0]
        if entries is not None:
            rnd.draw_input = _swiss_draw_input(event=event, number=rnd.number, entries=entries)
        rnd.seed = draw_module.new_seed()
        rnd.commitment = draw_module.commitment(rnd.seed, ids, rnd.number, event.pk)
        rnd.draw_entries = ids
        rnd.draw_changes = []
        rnd.draw_history = [*rnd.draw_history, replaced]
        rnd.status = Round.Status.COMMITTED
        rnd.committed_at, rnd.drawn_at = timezone.now(), None
        rnd.save(update_fields=["seed", "commitment", "draw_entries", "draw_input",
                                "draw_changes", "draw_history", "status", "committed_at",
                                "drawn_at"])
        if had_byes and event.bye_points:
            from tournaments.standings import standings_refresh_on_commit

            standings_refresh_on_commit(event_id=event.pk, from_round=rnd.number)
        round_request_draw(round=rnd)
    return rnd


@dataclass(frozen=True)
class DrawVerification:
    """What re-running a round's draw from its public data found (:func:`round_verification`):
    ``problems`` (empty: verified), the manual changes the re-run applied
    (``Round.draw_changes``, in order) and the earlier draws a re-draw replaced
    (``Round.draw_history``, oldest first), each of them checked the same way."""

    problems: list[str]
    changes: list[dict]
    redraws: list[dict]

    @property
    def verified(self) -> bool:
        return not self.problems


def round_verification(*, round: Round) -> DrawVerification:
    """Re-run a drawn round from its public data: the commitment must match the revealed seed
    and entry list, and the draw from that seed, with the recorded seat swaps applied in
    order, must give the seating and byes stored. Each earlier draw of the round (replaced by
    a re-draw) is checked the same way against the seating it gave."""
    earlier_rounds = list(Round.objects.filter(event=round.event_id, number__lt=round.number)
                          .order_by("number"))
    problems = []
    if round.status == Round.Status.COMMITTED:
        problems.append(_("the round is not drawn: its seed is still secret"))
    else:
        problems += _draw_problems(round, round, round_seating(round), round.draw_changes,
                                   earlier_rounds)
    for k, earlier in enumerate(round.draw_history, start=1):
        replay = Round(event=round.event, number=round.number, stage=round.stage,
                       brackets=earlier["brackets"], seed=earlier["seed"],
                       commitment=earlier["commitment"], draw_entries=earlier["entries"],
                       draw_input=earlier["input"])
        problems += [_("draw %(k)s (re-drawn): %(p)s") % {"k": k, "p": p} for p in _draw_problems(
            round, replay, earlier, earlier["changes"], earlier_rounds)]
    return DrawVerification(problems=problems, changes=list(round.draw_changes),
                            redraws=list(round.draw_history))


def round_verify(*, round: Round) -> list[str]:
    """:func:`round_verification`'s differences (empty = verified)."""
    return round_verification(round=round).problems


def _draw_problems(rnd: Round, draw: Round, stored: dict, changes: list[dict],
                   earlier_rounds: list[Round]) -> list[str]:
    """How one draw of ``rnd`` (``draw``: its seed, entries and inputs) differs from the
    seating ``stored`` once ``changes`` are applied to its re-run."""
    problems = []
    expect = draw_module.commitment(draw.seed, list(draw.draw_entries), rnd.number, rnd.event_id)
    if expect != draw.commitment:
        problems.append(_("the commitment does not match the revealed seed and entry list"))
    seeding = (draw.draw_input or {}).get("seeding")
    if seeding is not None:
        seeds = knockout_seeds_by_rating(seeding)
        order = _bracket_order(len(seeds))
        expect_pairs = [[seeds[order[i] - 1], seeds[order[i + 1] - 1]]
                        for i in range(0, len(seeds), 2)]
        if expect_pairs != draw.draw_input.get("knockout_pairs"):
            problems.append(_("the bracket does not follow the published ratings"))
    drawn = compute_draw(round=draw, history_rounds=earlier_rounds)
    team_event = rnd.event.format != Event.Format.INDIVIDUAL
    seated = [t["players"] if team_event else t for t in drawn["tables"]]
    key = "player" if team_event else "entry"
    for k, change in enumerate(changes, start=1):
        places = [(s["table"], s["seat"]) for s in change["seats"]]
        if not all(1 <= t <= len(seated) and seated[t - 1][seat] == s[key]
                   for (t, seat), s in zip(places, change["seats"], strict=True)):
            problems.append(_("manual change %(k)s does not fit the draw it changes") % {"k": k})
            return problems
        seated = draw_module.apply_swaps(seated, [tuple(places)])
    if team_event:
        for table, players in zip(drawn["tables"], seated, strict=True):
            table["players"] = players
    else:
        drawn["tables"] = seated
    if stored["tables"] != drawn["tables"]:
        for k, (a, b) in enumerate(zip(stored["tables"], drawn["tables"], strict=False)):
            if a != b:
                problems.append(_("table %(n)s differs: stored %(a)s, re-drawn %(b)s") % {
                    "n": k + 1, "a": a, "b": b})
                break
        if len(stored["tables"]) != len(drawn["tables"]):
            problems.append(_("%(a)s tables stored, %(b)s re-drawn") % {
                "a": len(stored["tables"]), "b": len(drawn["tables"])})
    if sorted(stored["byes"]) != sorted(drawn["byes"]):
        problems.append(_("byes differ: stored %(a)s, re-drawn %(b)s") % {
            "a": sorted(stored["byes"]), "b": sorted(drawn["byes"])})
    return problems


def draw_change_text(change: dict) -> str:
    """A manual change to a draw in words, as the verification and the pages list it:
    "swapped 张伟 (table 1, seat 3) and 李娜 (table 2, seat 5)" (seats 1–6, 号位)."""
    from django.utils.translation import pgettext

    def place(s):
        return _("%(name)s (table %(t)s, %(seat)s)") % {
            "name": s["name"], "t": s["table"],
            "seat": pgettext("seat position", "seat %(n)s") % {"n": s["seat"] + 1}}

    a, b = change["seats"]
    return _("swapped %(a)s and %(b)s") % {"a": place(a), "b": place(b)}


# ----------------------------------------------------------------------------- penalties
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


# ----------------------------------------------------------------------------- event settings
EDITABLE_ALWAYS = {"name", "bye_points", "tie_breaks", "rounds_planned", "move_seconds",
                   "rated", "show_ratings", "rating_balance", "knockout_seeding",
                   "spectator_delay"}
EDITABLE_BEFORE_ROUND_1 = {"rules", "format", "games_per_match", "swiss_brackets",
                           "knockout_teams"}


#: the event's address (/e/<slug>/): changed only while nobody may have it (:func:`slug_fixed`)
EDITABLE_UNTIL_PUBLIC = {"slug"}


def slug_fixed(event: Event) -> str | None:
    """Why ``event``'s slug can no longer change (``None``: it can): once the event is
    published its address is out (shared links, printed QR codes, slips), and once it has a
    round its draws are committed with its pages' addresses."""
    if event.published:
        return _("the event is published: its address may be printed and shared already")
    if event.rounds.exists():
        return _("the event has rounds: their seating and slips use its address")
    return None


def event_update(*, event: Event, **fields) -> Event:
    """Change an event's settings; rules, format and games per match are fixed once round 1
    exists (results already scored under them), the slug once it is published or has a round
    (:func:`slug_fixed`)."""
    unknown = set(fields) - EDITABLE_ALWAYS - EDITABLE_BEFORE_ROUND_1 - EDITABLE_UNTIL_PUBLIC
    if unknown:
        raise ServiceError("bad_field", _("%(f)s cannot be changed") % {"f": sorted(unknown)[0]})
    check_bounds(model=Event, code="bad_event", values=fields)
    with transaction.atomic():
        event = locks.lock_event(event.pk)
        started = event.rounds.exists()
        if "slug" in fields and fields["slug"] != event.slug:
            why = slug_fixed(event)
            if why:
                raise ServiceError("slug_fixed", _("the slug cannot change: %(why)s") % {
                    "why": why}, detail={"field": "slug"})
            if Event.objects.filter(slug=fields["slug"]).exclude(pk=event.pk).exists():
                raise Conflict("slug_taken", _("an event with slug %(s)s exists") % {
                    "s": fields["slug"]}, detail={"field": "slug"})
        for key, value in fields.items():
            if key in EDITABLE_BEFORE_ROUND_1 and started and getattr(event, key) != value:
                raise ServiceError("event_started", _(
                    "%(f)s cannot change once round 1 exists") % {"f": key})
        if "rules" in fields:
            fields["rules"] = rules_check(rules=fields["rules"])
        if "knockout_teams" in fields or "format" in fields:
            _check_knockout(fields.get("format", event.format),
                            fields.get("knockout_teams", event.knockout_teams))
        if "tie_breaks" in fields:
            from tournaments.models import TIE_BREAK_CHOICES

            bad = [t for t in fields["tie_breaks"] or [] if t not in TIE_BREAK_CHOICES]
            if bad:
                raise ServiceError("bad_tie_break", _("unknown tie-break %(name)s") % {
                    "name": bad[0]})
        if "knockout_seeding" in fields:
            _check_knockout_seeding(fields["knockout_seeding"])
        if "rounds_planned" in fields:
            played = event.rounds.count()
            if fields["rounds_planned"] < max(1, played):
                raise ServiceError("bad_event", _("%(n)s rounds exist already") % {"n": played})
        for key, value in fields.items():
            setattr(event, key, value)
        event.save(update_fields=list(fields))
    if {"tie_breaks", "bye_points"} & set(fields):
        from tournaments.standings import standings_refresh_on_commit

        standings_refresh_on_commit(event_id=event.pk)
    if "rated" in fields:  # counted or no longer: its games enter or leave the ratings
        rated_changed.send(Event, event_id=event.pk)
    return event


def event_publish(*, event: Event, published: bool = True) -> Event:
    """Publish an event, or hide it again (its open streams then end: :data:`access_ended`)."""
    changed = Event.objects.filter(pk=event.pk, published=not published).update(
        published=published)
    if changed and not published:
        access_ended.send(Event, users=[], events=[event.pk])
    event.refresh_from_db(fields=["published"])
    return event


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


def event_finish(*, event: Event) -> Event:
    """Close the event: it takes no more entries, check-ins or rounds."""
    with transaction.atomic():
        event = locks.lock_event(event.pk)
        if event.status != Event.Status.FINISHED:
            event.status = Event.Status.FINISHED
            event.save(update_fields=["status"])
    return event


def event_prizes_set(*, event: Event, prizes: Iterable[tuple[int, int, str]]) -> list[Prize]:
    """Set the event's prizes (奖项) by place range, replacing those it had: each
    ``(place_from, place_to, name)`` gives ``name`` to every place of the range in the final
    standings. Refused (naming the prize, counted from 1) when a range is out of order or
    overlaps another, or a name is empty or too long; ``[]`` removes them all."""
    wanted = []
    for i, (place_from, place_to, name) in enumerate(prizes, start=1):
        name = (name or "").strip()
        where = {"n": i}
        if not name:
            raise ServiceError("bad_prize", _("prize %(n)s: give it a name") % where,
                               detail={"prize": i, "field": "name"})
        values = {"place_from": place_from, "place_to": place_to, "name": name}
        try:
            check_bounds(model=Prize, code="bad_prize", values=values)
        except ServiceError as exc:
            raise ServiceError("bad_prize", _("prize %(n)s: %(why)s") % {**where,
                               "why": exc.message}, detail={"prize": i, **exc.detail}) from None
        if place_to < place_from:
            raise ServiceError("bad_prize", _(
                "prize %(n)s: its places run from %(a)s to %(b)s, backwards") % {
                **where, "a": place_from, "b": place_to}, detail={"prize": i})
        wanted.append(Prize(event=event, place_from=place_from, place_to=place_to, name=name))
    wanted.sort(key=lambda p: p.place_from)
    for before, after in zip(wanted, wanted[1:], strict=False):
        if after.place_from <= before.place_to:
            raise ServiceError("bad_prize", _(
                "prizes “%(a)s” and “%(b)s” both name place %(p)s") % {
                "a": before.name, "b": after.name, "p": after.place_from})
    with transaction.atomic():
        locks.lock_event(event.pk)
        Prize.objects.filter(event=event).delete()
        return Prize.objects.bulk_create(wanted)


def event_staff_add(*, event: Event, user, role: str) -> None:
    if role == "organizer":
        event.organizers.add(user)
    elif role == "referee":
        event.referees.add(user)
    else:
        raise ServiceError("bad_role", _("role must be organizer or referee"))


def event_staff_remove(*, event: Event, user, role: str) -> None:
    """Take ``user``'s role (organizer or referee) in ``event`` away; an event keeps at least
    one organizer (or it could be run from the admin only)."""
    if role == "organizer":
        with transaction.atomic():
            event = locks.lock_event(event.pk)
            if not event.organizers.exclude(pk=user.pk).exists():
                raise ServiceError("last_organizer", _("an event keeps at least one organizer"))
            event.organizers.remove(user)
    elif role == "referee":
        event.referees.remove(user)
    else:
        raise ServiceError("bad_role", _("role must be organizer or referee"))


def number_claimed_by(*, player: Player | None, organizer=None) -> bool:
    """Whether ``player``'s number is *claimed by self-registration*: the player has a login
    (``Player.user``) other than ``organizer``'s. An import or an organizer's player never has
    one — a login is linked to a player only by its owner (``POST /players/me/``) or by a
    superuser in the admin — so a number held by a player with a login was chosen by whoever
    holds that login, and may be someone else's number. A login without a usable password —
    made for a private link (:func:`entry_link_issue`) — has never signed in, so it claimed
    nothing."""
    return (player is not None and player.user_id is not None
            and (organizer is None or player.user_id != organizer.pk)
            and player.user.has_usable_password())


def _import_row(i: int, row: dict) -> dict:
    """One CSV row's values, checked against the database's bounds (400 ``bad_csv`` naming
    the line and the field)."""
    name = (row.get("name") or "").strip()
    club = (row.get("club") or "").strip()
    number_text = str(row.get("number") or "").strip()
    try:
        number = int(number_text) if number_text else None
    except ValueError:
        raise ServiceError("bad_csv", _("line %(i)s: number %(n)s is not a whole number")
                           % {"i": i, "n": number_text},
                           detail={"line": i, "field": "number"}) from None
    if not name:
        raise ServiceError("bad_csv", _("line %(i)s: a player needs a name") % {"i": i},
                           detail={"line": i, "field": "name"})
    try:
        check_bounds(model=Player, code="bad_csv",
                     values={"name": name, "club": club, "number": number})
    except ServiceError as exc:
        raise ServiceError("bad_csv", _("line %(i)s: %(m)s") % {"i": i, "m": exc.message},
                           detail={"line": i, **exc.detail}) from None
    return {"name": name, "club": club, "number": number,
            "checked_in": _import_yes(row.get("checked_in"))}


def _import_yes(value) -> bool:
    """A yes in an import's ``checked_in`` column (1, yes, true, y, 是)."""
    return str(value or "").strip().lower() in ("1", "yes", "true", "y", "是")


def _import_team_row(i: int, row: dict) -> dict:
    """A team import row: ``team`` and three players ``player_1``…``player_3`` (with optional
    ``number_1``…``number_3``; ``club`` and ``checked_in`` for the whole team)."""
    name = (row.get("team") or "").strip()
    if not name:
        raise ServiceError("bad_csv", _("line %(i)s: a 联邦 team needs a name") % {"i": i},
                           detail={"line": i, "field": "team"})
    try:
        check_bounds(model=Team, code="bad_csv", values={"name": name})
    except ServiceError as exc:
        raise ServiceError("bad_csv", _("line %(i)s: team %(m)s") % {"i": i, "m": exc.message},
                           detail={"line": i, "field": "team"}) from None
    players = []
    for k in (1, 2, 3):
        try:
            players.append(_import_row(i, {"name": row.get(f"player_{k}"),
                                           "number": row.get(f"number_{k}"),
                                           "club": row.get("club")}))
        except ServiceError as exc:
            field = {"name": f"player_{k}", "number": f"number_{k}"}.get(
                exc.detail.get("field"), exc.detail.get("field"))
            raise ServiceError("bad_csv", _("%(m)s (player %(k)s)") % {"m": exc.message, "k": k},
                               detail={"line": i, "field": field}) from None
    return {"team": name, "players": players, "checked_in": _import_yes(row.get("checked_in"))}


def _number_claim(i: int, number: int, name: str, player: Player) -> dict:
    """An import line whose number a self-registered player holds: what the answer says."""
    return {"line": i, "number": number, "name": name, "player": player.pk,
            "message": _("line %(i)s: player number %(n)s was claimed by a self-registered "
                         "player (%(p)s, with a login): not linked; check who holds the number "
                         "and register them by hand") % {"i": i, "n": number, "p": player}}


def _number_claims_refused(*, organizer, claims: list[dict], players: dict) -> Conflict:
    """The import's refusal; each claim is written to the claimed player's history in the
    admin (and the organizer's "recent actions"), so that the admin shows what was refused."""
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.contenttypes.models import ContentType

    if organizer is not None:
        content_type = ContentType.objects.get_for_model(Player)
        LogEntry.objects.bulk_create([LogEntry(
            user_id=organizer.pk, content_type=content_type, object_id=str(c["player"]),
            object_repr=str(players[c["number"]])[:200], action_flag=CHANGE,
            change_message=c["message"]) for c in claims])
    return Conflict("number_claimed", claims[0]["message"], detail={"collisions": claims})


def entries_import(*, event: Event, rows: list[dict], organizer=None,
                   dry_run: bool = False) -> dict:
    """Register players (individual events: rows ``{"name", "club", "number", "checked_in"}``)
    or 联邦 teams (team events: rows ``{"team", "player_1", "number_1", …, "player_3",
    "number_3", "club", "checked_in"}``) imported by ``organizer``: all rows or none.

    Every value is checked against the database's bounds first (a name or club of at most 100
    characters, a number from 0 to 2³¹−1): a bad row refuses the file with 400 ``bad_csv``
    naming the line and the field (``detail.line``, ``detail.field``). A row whose number
    matches an existing player registers that player — unless that number is claimed by
    self-registration (:func:`number_claimed_by`: the player has someone else's login): then
    the whole file is refused with 409 ``number_claimed``, ``detail.collisions`` lists every
    such line (line, number, the row's name, the claimed player's id, why), and each one is
    written to that player's history in the admin. Nothing is linked silently: the organizer
    checks who holds the number and registers that player by hand, or corrects the file.

    Importing the same file again changes nothing: a player already in the event (by number,
    or by name for a player without one) and a team of that name with the same players are
    ``unchanged``; the same player twice in one file is refused. The answer counts what was
    done and lists each line (``lines``: line, what, action or error).

    ``dry_run``: check every line and roll everything back — the preview: no line raises, each
    has its ``error`` instead, and no claim is written to a player's history."""
    team_event = event.format == Event.Format.TEAM
    lines: dict[int, dict] = {}
    values = []
    for i, row in enumerate(rows, start=2):
        try:
            values.append((i, (_import_team_row if team_event else _import_row)(i, row)))
        except ServiceError as exc:
            if not dry_run:
                raise
            lines[i] = {"line": i, "what": _import_what(row, team_event), "error": exc.message}
    people = [(i, p) for i, v in values for p in (v["players"] if team_event else [v])]
    known = {p.number: p for p in Player.objects.filter(
        number__in={p["number"] for _i, p in people if p["number"] is not None})}
    claims = [_number_claim(i, p["number"], p["name"], known[p["number"]]) for i, p in people
              if number_claimed_by(player=known.get(p["number"]), organizer=organizer)]
    if claims and not dry_run:
        raise _number_claims_refused(organizer=organizer, claims=claims, players=known)
    for claim in claims:
        lines.setdefault(claim["line"], {"line": claim["line"], "error": claim["message"]})
    counts = {"players_created": 0, "registered": 0, "checked_in": 0, "unchanged": 0}
    seen: set = set()
    with transaction.atomic():
        for i, v in values:
            what = _import_what(v, team_event)
            if i in lines:
                lines[i]["what"] = what
                continue
            try:
                with transaction.atomic():
                    action = (_import_team if team_event else _import_player)(
                        line=i, event=event, values=v, organizer=organizer, counts=counts,
                        seen=seen)
            except ServiceError as exc:
                if not dry_run:
                    raise ServiceError(exc.code, exc.message if "line" in exc.detail else _(
                        "line %(i)s: %(m)s") % {"i": i, "m": exc.message},
                        detail={"line": i, **exc.detail}, status=exc.status) from None
                lines[i] = {"line": i, "what": what, "error": exc.message}
                continue
            lines[i] = {"line": i, "what": what, "action": action}
        if dry_run:
            transaction.set_rollback(True)
    return {**counts, "lines": [lines[i] for i in sorted(lines)]}


def _import_what(values: dict, team_event: bool) -> str:
    """A line as the organizer reads it: a player's name and number, or a team and its
    players."""
    def person(p):
        number = str(p.get("number") or "").strip()
        return f"{(p.get('name') or '').strip()} (#{number})" if number else (
            p.get("name") or "").strip()
    if not team_event:
        return person(values)
    players = values.get("players") or [{"name": values.get(f"player_{k}"),
                                         "number": values.get(f"number_{k}")} for k in (1, 2, 3)]
    return f"{(values.get('team') or '').strip()}: " + ", ".join(person(p) for p in players)


def _import_person(*, line: int, values: dict, organizer, counts: dict) -> Player:
    """The player a line names: the one holding its number (never a self-registered one),
    else a new player."""
    player = Player.objects.filter(number=values["number"]).first() if values[
        "number"] is not None else None
    if number_claimed_by(player=player, organizer=organizer):  # claimed meanwhile
        raise Conflict("number_claimed", _number_claim(line, values["number"], values["name"],
                                                       player)["message"], detail={"line": line})
    if player is None:
        player = player_create(name=values["name"], club=values["club"],
                               number=values["number"])
        counts["players_created"] += 1
    return player


def _import_player(*, line, event, values, organizer, counts, seen) -> str:
    key = values["number"] if values["number"] is not None else values["name"]
    if key in seen:
        raise Conflict("already_registered", _("%(p)s is already registered") % {
            "p": values["name"]})
    seen.add(key)
    entry = Entry.objects.filter(event=event, **(
        {"player__number": values["number"]} if values["number"] is not None else
        {"player__number__isnull": True, "player__name": values["name"]})).first()
    if entry is None:
        entry = entry_register(event=event, player=_import_person(
            line=line, values=values, organizer=organizer, counts=counts))
        counts["registered"] += 1
        action = "registered"
    else:
        counts["unchanged"] += 1
        action = "unchanged"
    if values["checked_in"] and entry.status == Entry.Status.REGISTERED:
        entry_check_in(entry=entry)
        counts["checked_in"] += 1
        action = "checked_in" if action == "unchanged" else action
    return action


def _import_team(*, line, event, values, organizer, counts, seen) -> str:
    if values["team"] in seen:
        raise Conflict("team_name_taken", _("team %(t)s is twice in the file") % {
            "t": values["team"]})
    seen.add(values["team"])
    team = Team.objects.filter(event=event, name=values["team"]).first()
    if team is not None:
        members = [m.player for m in team.members.select_related("player")]
        if not all(any(m.number == p["number"] if p["number"] is not None else
                       m.name == p["name"] for m in members) for p in values["players"]):
            raise Conflict("team_name_taken", _(
                "team %(t)s is registered with other players") % {"t": values["team"]})
        counts["unchanged"] += 1
        return "unchanged"
    players = [_import_person(line=line, values=p, organizer=organizer, counts=counts)
               for p in values["players"]]
    entry = team_register(event=event, name=values["team"], players=players)
    counts["registered"] += 1
    if values["checked_in"]:
        entry_check_in(entry=entry)
        counts["checked_in"] += 1
    return "registered"


# ----------------------------------------------------------------------------- private links
def _player_login(player: Player):
    """The player's login, made when they have none (a username of their id, no usable
    password): results handed in through a private link are theirs, and the two-person rule
    of confirming (``games.services``) knows their seat by it. An organizer may give it a
    password later in the admin for signing in at ``/accounts/login/`` (from then on it counts
    as the player's own login: :func:`number_claimed_by`)."""
    if player.user_id is None:
        User = get_user_model()
        username = f"player-{player.pk}"
        if User.objects.filter(username=username).exists():  # (an admin chose it meanwhile)
            username = f"{username}-{secrets.token_hex(4)}"
        user = User(username=username)
        user.set_unusable_password()
        user.save()
        player.user = user
        player.save(update_fields=["user"])
    return player.user


def entry_link_issue(*, entry: Entry, player: Player | None = None, by=None,
                     keep: bool = False) -> list:
    """Issue a private link (``/p/<token>/``) for each player of ``entry`` (or only
    ``player``): a new token, and the previous link of that player stops working. With
    ``keep`` a player's working link is kept (printing slips issues only the missing ones).
    Returns the players' working links (:class:`tournaments.models.PlayerLink`)."""
    players = entry_link_players(entry)
    if player is not None:
        if player.pk not in {p.pk for p in players}:
            raise ServiceError("not_of_entry", _("%(player)s does not play for this entry") % {
                "player": player})
        players = [player]
    links = []
    with transaction.atomic():
        locks.lock_entry(entry.pk)  # one issue of an entry's links at a time
        for p in players:
            active = PlayerLink.objects.filter(entry=entry, player=p,
                                               revoked_at__isnull=True).first()
            if active is not None and keep:
                links.append(active)
                continue
            if active is not None:
                active.revoked_at = timezone.now()
                active.save(update_fields=["revoked_at"])
                access_ended.send(PlayerLink, users=[p.user_id], events=[])
            _player_login(p)
            link = PlayerLink(entry=entry, player=p, nonce=secrets.token_urlsafe(32),
                              created_by=by if getattr(by, "pk", None) else None)
            link.token_hash = hashlib.sha256(link.token().encode()).hexdigest()
            link.save()
            links.append(link)
    return links


def entry_link_revoke(*, entry: Entry, player: Player | None = None) -> int:
    """Revoke the working private links of ``entry`` (or of its ``player`` only): they open
    nothing from now on. Returns how many were revoked."""
    links = PlayerLink.objects.filter(entry=entry, revoked_at__isnull=True)
    if player is not None:
        links = links.filter(player=player)
    with transaction.atomic():
        users = list(links.values_list("player__user_id", flat=True))
        revoked = links.update(revoked_at=timezone.now())
        if revoked:
            access_ended.send(PlayerLink, users=users, events=[])
    return revoked
