"""The daily challenge (每日挑战): a fixed set of deals a day, each played by one person with five
careful bots, and compared with everyone else who played the same deal (复式, as BBO's robot
duplicate does). No account: a visitor gives a name, and the entry is bound to their browser
session.

A day's deals are made once, the first time the day's challenge is asked for: each deal's
cards come from a fresh secret seed and the deal's label (:func:`engine.deals.derive_deal`),
its commitment published from the start. Every person sits at the deal's fixed seat, the
bots (:class:`engine.bots.CarefulBot`, seeded by the game's version, so the same acts meet the
same answers) at the other five; no tribute (each deal is a match's first game) and the first
lead the same at every table (大纲 rules' first game: the opening seat, 1号位, leads). A deal is played once per entry; a finished deal's
score is the player's 联邦 net game points (:func:`engine.duplicate.net_points`), turned into
matchpoints against everyone else's on the same deal when read, so they follow the field as it
grows.

What is hidden: a deal's seed, its field's results and every replay of it open to an entrant
once they have finished that deal themselves, and to everyone once the day is over (the day is
the service's time zone's date; a deal unfinished at midnight is not played on and does not
count).
"""

from __future__ import annotations

import hashlib
import random
import unicodedata
from collections import Counter
from dataclasses import dataclass
from datetime import date as Date

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import engine
from engine.bots import CarefulBot
from engine.deals import commitment, derive_deal, new_seed
from engine.duplicate import matchpoints, net_points
from live.locks import lock_challenge_play
from live.models import ChallengeDay, ChallengeDeal, ChallengeEntry, ChallengePlay
from tournaments.errors import Conflict, Forbidden, NotFound, ServiceError

#: deals a day: each is a whole game of 够级 (a quarter of an hour or so against bots), so four
#: are an evening's sitting that most finish, and enough for one lucky or unlucky deal not to
#: decide the day (two seats of each 联邦 parity among them)
DEALS_PER_DAY = 4
#: the rules every deal is played under: the events' default (大纲); a table's first game is
#: led by its opening seat (1号位, seat 0 here), so the same cards start the same way everywhere
PRESET = "dagang"
#: the longest name (characters, after normalizing)
NAME_MAX = 24
#: the bots' acts in a row at most: a bug, not a rule (as in practice games)
MAX_BOT_ACTS = 5000
#: the player's seat of each deal (0-based): both 联邦 (even and odd seats), leading the first
#: round or not
SEATS = (0, 3, 4, 1)


def today() -> Date:
    """The date whose challenge is played now (the service's time zone)."""
    return timezone.localdate()


def deal_label(day: Date, number: int) -> str:
    """The label the deal's cards are derived with (:mod:`engine.deals`)."""
    return f"gouji/daily/{day.isoformat()}/deal/{number}"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# ----------------------------------------------------------------------------- the day
def challenge_day(day: Date | None = None) -> ChallengeDay:
    """The challenge of ``day`` (today by default). Today's is made the first time it is
    asked for (its seeds drawn then, once: two requests at once make one); an earlier day
    without one, or a later day, is a 404."""
    day = day or today()
    found = ChallengeDay.objects.filter(date=day).first()
    if found is not None:
        return found
    if day != today():
        raise NotFound("no_challenge", _("there is no daily challenge for %(d)s")
                       % {"d": day.isoformat()})
    try:
        with transaction.atomic():
            made = ChallengeDay.objects.create(date=day, preset=PRESET)
            for number in range(1, DEALS_PER_DAY + 1):
                seed, label = new_seed(), deal_label(day, number)
                ChallengeDeal.objects.create(
                    day=made, number=number, seed=seed, label=label,
                    commitment=commitment(seed, label), seat=SEATS[(number - 1) % len(SEATS)])
    except IntegrityError:  # made meanwhile by another request
        return ChallengeDay.objects.get(date=day)
    return made


def is_open(day: ChallengeDay) -> bool:
    """Whether the day's deals may still be entered and played (it is today)."""
    return day.date == today()


# ----------------------------------------------------------------------------- entries
def clean_name(raw) -> tuple[str, str]:
    """A display name as shown and as compared (case-folded): normalized (NFKC), spaces
    collapsed; refused empty, longer than :data:`NAME_MAX`, or with a control, format,
    private-use or unassigned character (category C: no invisible or direction-changing
    characters in a leaderboard)."""
    if not isinstance(raw, str):
        raise ServiceError("bad_name", _("give a name"))
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not name:
        raise ServiceError("bad_name", _("give a name"))
    if len(name) > NAME_MAX:
        raise ServiceError("bad_name", _("a name has at most %(n)s characters") % {"n": NAME_MAX})
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ServiceError("bad_name", _("a name may not hold control or invisible characters"))
    return name, name.casefold()


def entry_of(day: ChallengeDay, token: str | None) -> ChallengeEntry | None:
    """The entry of the session holding ``token`` in ``day``'s challenge, or ``None``."""
    if not token:
        return None
    return ChallengeEntry.objects.filter(day=day, token_hash=_hash(token)).first()


def challenge_enter(*, day: ChallengeDay, name, token: str) -> ChallengeEntry:
    """Enter ``day``'s challenge under ``name`` from the session holding ``token``. The same
    name again from the same session is its entry; refused: a day that is over (409), a
    session that entered under another name (409: one person, one entry a day), a name another
    session took today (409), a bad name (400)."""
    shown, key = clean_name(name)
    if not is_open(day):
        raise Conflict("day_over", _("this day's challenge is over: today's is open"))
    mine = entry_of(day, token)
    if mine is not None:
        if mine.name_key == key:
            return mine
        raise Conflict("already_entered", _(
            "you entered today's challenge as %(n)s: one entry a day") % {"n": mine.name})
    try:
        with transaction.atomic():
            return ChallengeEntry.objects.create(day=day, name=shown, name_key=key,
                                                 token_hash=_hash(token))
    except IntegrityError:
        raise Conflict("name_taken", _("someone already plays today as %(n)s: choose another "
                                       "name") % {"n": shown}) from None


# ----------------------------------------------------------------------------- playing
def _deal(day: ChallengeDay, number: int) -> ChallengeDeal:
    found = ChallengeDeal.objects.filter(day=day, number=number).first()
    if found is None:
        raise NotFound("not_found", _("the challenge has no deal %(n)s") % {"n": number})
    return found


def _bots_play(game: engine.Game, seat: int) -> None:
    """The careful bots play every turn that is not ``seat``'s, until it is or the game is
    over; each is seeded by the game's version, so a deal played the same way is answered the
    same way."""
    for _step in range(MAX_BOT_ACTS):
        turn = game.whose_turn()
        if turn is None or turn == seat:
            return
        game.act(turn, CarefulBot(random.Random(game.version)).choose(game, turn))
    raise RuntimeError("the challenge's bots did not reach the player's turn")  # a bug


def _finish(play: ChallengePlay, game: engine.Game) -> None:
    play.state = game.to_state()
    play.version = game.version
    if game.state == "over":
        play.status = ChallengePlay.Status.FINISHED
        play.net_points = net_points(game.result()["team_points"], play.deal.seat % 2)
        play.finished_at = timezone.now()


def challenge_play(*, entry: ChallengeEntry, number: int) -> ChallengePlay:
    """The entry's play of deal ``number`` of its day: started (dealt, the bots played up to
    the person's first question) the first time, the same play after — a deal is played once,
    never dealt again. Refused: a deal that is not the day's (404), a day that is over (409)."""
    deal = _deal(entry.day, number)
    found = ChallengePlay.objects.filter(entry=entry, deal=deal).first()
    if found is not None:
        return found
    if not is_open(entry.day):
        raise Conflict("day_over", _("this day's challenge is over: today's is open"))
    game = engine.Game(entry.day.preset, derive_deal(deal.seed, deal.label), None,
                       first_game=True)
    _bots_play(game, deal.seat)
    play = ChallengePlay(entry=entry, deal=deal)
    _finish(play, game)
    try:
        with transaction.atomic():
            play.save()
    except IntegrityError:  # started meanwhile from another tab
        return ChallengePlay.objects.get(entry=entry, deal=deal)
    return play


def challenge_act(*, play: ChallengePlay, action: dict, version: int) -> ChallengePlay:
    """The person's act in their ``play``, made against ``version``; then the bots play until
    it is their turn again. Refused without a change: a finished play, a stale version or a
    day that is over (409), an act the engine refuses (422, its code)."""
    if not isinstance(action, dict):
        raise ServiceError("bad_format", _("an act must be an object"))
    act = {k: v for k, v in action.items() if k not in ("version", "seat", "auto")}
    with transaction.atomic():
        play = lock_challenge_play(play.pk)
        if play.status == ChallengePlay.Status.FINISHED:
            raise Conflict("game_over", _("the game is over"))
        if not is_open(play.entry.day):
            raise Conflict("day_over", _("this day's challenge is over: today's is open"))
        if version != play.version:
            raise Conflict("stale_version", _(
                "the game has moved on (version %(v)s, you sent %(s)s); fetch it again") % {
                "v": play.version, "s": version}, detail={"version": play.version})
        game = engine.Game.from_state(play.state)
        seat = play.deal.seat
        try:
            game.act(seat, act)
        except engine.IllegalAction as exc:
            raise ServiceError(exc.code, exc.message, detail={
                "code": exc.code, "seat": exc.seat, "message": exc.message},
                status=422) from None
        _bots_play(game, seat)
        _finish(play, game)
        play.save(update_fields=["state", "version", "status", "net_points", "finished_at"])
    return play


def play_view(play: ChallengePlay) -> dict:
    """What the person sees of their play: their seat's view (never a bot's cards before the
    end), in the live table's shape."""
    view = engine.Game.from_state(play.state).view(play.deal.seat)
    view["outcome"] = view.get("result")
    view.update({"status": play.status, "version": play.version, "auto_seats": [],
                 "hosted_seats": [], "turn_deadline": None})
    return view


def play_record(play: ChallengePlay) -> dict:
    """The record (RECORD.md ``gouji-record/1``) of a play, for its replay."""
    return engine.Game.from_state(play.state).record()


# ----------------------------------------------------------------------------- what is shown
def may_see(deal: ChallengeDeal, entry: ChallengeEntry | None) -> bool:
    """Whether ``entry`` may see ``deal``'s seed, field and replays: once they have finished
    it, or anyone once its day is over."""
    if not is_open(deal.day):
        return True
    return entry is not None and ChallengePlay.objects.filter(
        entry=entry, deal=deal, status=ChallengePlay.Status.FINISHED).exists()


def check_may_see(deal: ChallengeDeal, entry: ChallengeEntry | None) -> None:
    """:func:`may_see`, refused as a 403 that says why."""
    if not may_see(deal, entry):
        raise Forbidden("not_finished", _("finish deal %(n)s yourself to see its results and "
                                          "replays") % {"n": deal.number})


def field_matchpoints(scores: list[int]) -> list[float | None]:
    """Each score's matchpoints against the others of the list
    (:func:`engine.duplicate.matchpoints`): worked out once per distinct score (at most 25:
    net points are −12 … 12), so a field of thousands costs a few passes, not a square."""
    counts = Counter(scores)
    by_score = {}
    for score in counts:
        field = list(scores)
        field.remove(score)
        by_score[score] = matchpoints(score, field)
    return [by_score[s] for s in scores]


@dataclass
class FieldRow:
    """One finished play of a deal, against the field."""

    play_id: int
    entry_id: int
    name: str
    net_points: int
    matchpoints: float | None
    rank: int


def _ranked(rows: list, key) -> None:
    """Shared ranks (1, 1, 3 …) by ``key`` descending, rows already sorted by it."""
    previous, rank = object(), 0
    for i, row in enumerate(rows, start=1):
        value = key(row)
        if value != previous:
            rank, previous = i, value
        row.rank = rank


def deal_field(deal: ChallengeDeal) -> list[FieldRow]:
    """Every finished play of ``deal``, best first: its net points and matchpoints against
    everyone else's (``None`` alone on the deal)."""
    plays = list(ChallengePlay.objects.filter(deal=deal, status=ChallengePlay.Status.FINISHED)
                 .select_related("entry").order_by("finished_at", "pk"))
    mps = field_matchpoints([p.net_points for p in plays])
    rows = [FieldRow(p.pk, p.entry_id, p.entry.name, p.net_points, mp, 0)
            for p, mp in zip(plays, mps, strict=True)]
    rows.sort(key=lambda r: -r.net_points)
    _ranked(rows, lambda r: r.net_points)
    return rows


def finished_counts(day: ChallengeDay) -> dict[int, int]:
    """``{deal number: plays finished}`` — what anyone may know of a deal's field."""
    counts = Counter(ChallengePlay.objects.filter(
        deal__day=day, status=ChallengePlay.Status.FINISHED).values_list(
        "deal__number", flat=True))
    return {deal.number: counts.get(deal.number, 0) for deal in day.deals.all()}


@dataclass
class BoardRow:
    """One entrant on the day's leaderboard."""

    entry_id: int
    name: str
    total: float
    played: int
    rank: int = 0

    @property
    def percent(self) -> float:
        """The mean matchpoints of the deals played, as a percentage."""
        return 100.0 * self.total / self.played if self.played else 0.0


def leaderboard(day: ChallengeDay) -> list[BoardRow]:
    """Everyone who finished a deal of ``day``, by total matchpoints (a deal alone in its
    field counts half, the field's mean), then deals played: with shared ranks. It shows no
    deal's result, only totals, so anyone may see it."""
    plays = list(ChallengePlay.objects.filter(
        deal__day=day, status=ChallengePlay.Status.FINISHED).values_list(
        "deal_id", "entry_id", "net_points"))
    names = dict(ChallengeEntry.objects.filter(day=day).values_list("pk", "name"))
    by_deal: dict[int, list] = {}
    for deal_id, entry_id, points in plays:
        by_deal.setdefault(deal_id, []).append((entry_id, points))
    rows: dict[int, BoardRow] = {}
    for field in by_deal.values():
        mps = field_matchpoints([points for _entry, points in field])
        for (entry_id, _points), mp in zip(field, mps, strict=True):
            row = rows.setdefault(entry_id, BoardRow(entry_id, names[entry_id], 0.0, 0))
            row.total += 0.5 if mp is None else mp
            row.played += 1
    ordered = sorted(rows.values(), key=lambda r: (-round(r.total, 6), -r.played, r.name))
    _ranked(ordered, lambda r: (round(r.total, 6), r.played))
    return ordered
