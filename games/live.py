"""Live play: a table plays a game on the service, move by move (issue: live play).

The server deals from ``secrets.SystemRandom``; the engine's :class:`engine.Game` state lives in
:class:`games.models.LiveGame` and every act is stored only if the game is still at the state
version the client saw (one conditional update, or under the row lock): a stale version is
refused, so no act is lost or applied twice.
A seat that does not act within the event's move time limit is played by the heuristic bot
(托管) from the game's timer, a Celery task queued with a countdown for each turn's deadline (one
timer a game, armed when it starts and re-armed by itself); its acts are marked ``auto``. A seat
put in 托管 (by its player, or by a referee for an absent one: :func:`live_host`) is played as
soon as its turn comes, until its player takes it back or acts.
The finished game becomes the table's result (system-recorded, confirmed) with its record.
"""

from __future__ import annotations

import functools
import logging
import secrets
import threading
from collections import OrderedDict
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import engine
from engine.bots import HeuristicBot
from engine.game import RESULT_KEYS
from games.live_notify import announce
from games.models import GameResult, LiveGame
from games.services import _check_game_number, result_record_live
from tournaments.errors import Conflict, NotFound, ServiceError
from tournaments.models import Round, Seat, Table
from tournaments.services import MAX_EXTRA_GAMES

log = logging.getLogger(__name__)

#: seconds a seat in 托管 "thinks" before the bot plays its turn, so the table can follow
HOSTED_SECONDS = 1.0


def _arm_timer(live: LiveGame, again: bool = False) -> None:
    """Queue the game's 托管 timer for its turn deadline (``live.turn_deadline``, version
    ``live.version``), once the transaction commits. A game has one timer at a time: it is
    armed when the game starts, and :func:`live_timer` re-arms it for the next deadline, so
    acts queue nothing (one countdown per act was a broker message and a task run per move:
    at 50 tables, a worker saturating the machine). Arming twice for one version queues one
    message (a key in the shared cache). Without a broker (tasks run in-process, which ignores
    countdowns) nothing is queued: ``manage.py live_tick`` plays overdue seats instead.
    ``again``: the timer of this very version fired early (clocks differ by a little): it is
    queued again, past the key that holds the turn's one timer."""
    from django.conf import settings

    if settings.CELERY_TASK_ALWAYS_EAGER or live.turn_deadline is None:
        return
    live_id, version, deadline = live.pk, live.version, live.turn_deadline
    transaction.on_commit(lambda: _queue_timer(live_id, version, deadline, again))


def _queue_timer(live_id: int, version: int, deadline, again: bool = False) -> None:
    from django.core.cache import cache

    from games.tasks import live_autoplay_task

    countdown = max(0.0, (deadline - timezone.now()).total_seconds())
    key = f"gouji:live-timer:{live_id}:{version}"
    if not cache.add(key, 1, timeout=int(countdown) + 600) and not again:
        return  # armed already for this turn
    try:
        live_autoplay_task.apply_async((live_id, version), countdown=countdown)
    except Exception as exc:  # the change is committed: the sweep on beat plays the seat
        cache.delete(key)
        log.warning("live timer not queued (%s): the 托管 sweep will play game %s",
                    type(exc).__name__, live_id)


def live_start(*, table: Table, number: int | None = None, leader: int | None = None
               ) -> LiveGame:
    """Deal and start the table's next game (or game ``number``) live."""
    event = table.round.event
    if table.round.status == Round.Status.COMMITTED:
        raise ServiceError("not_drawn", _("the round is not drawn yet"))
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        done = set(GameResult.objects.filter(table=table).values_list("number", flat=True))
        running = set(LiveGame.objects.filter(table=table).values_list("number", flat=True))
        if number is None:
            extra = MAX_EXTRA_GAMES if table.round.stage == Round.Stage.KNOCKOUT else 0
            number = next((k for k in range(1, event.games_per_match + extra + 1)
                           if k not in done and k not in running), None)
            if number is None:
                raise Conflict("match_over", _("every game of this table has been played"))
        _check_game_number(event, table, number)
        if number in done or number in running:
            raise Conflict("already_started", _("game %(n)s of this table is already played or "
                                                "running") % {"n": number})
        previous = None
        if number > 1:
            prev = GameResult.objects.filter(table=table, number=number - 1).first()
            if prev is None:
                raise ServiceError("previous_missing", _(
                    "game %(n)s has no result yet: its tributes decide this game's start") % {
                    "n": number - 1})
            previous = {k: v for k, v in prev.engine_result.items() if k in RESULT_KEYS}
        hands = engine.deal(secrets.SystemRandom())
        game = engine.Game(event.rules, hands, previous, first_game=(number == 1),
                           leader=leader)
        # seats in 托管 stay so for the match's next game, until their players take them back
        hosted = LiveGame.objects.filter(table=table, number=number - 1).values_list(
            "hosted", flat=True).first() or 0
        live = LiveGame(table=table, number=number, state=game.to_state(), version=game.version,
                        move_seconds=event.move_seconds, hosted=hosted)
        live.turn_deadline = _deadline(live, _hosted_turn(live, game))
        live.save(force_insert=True)
        _arm_timer(live)
        announce(live.pk, live.version)
    return live


class GameCache:
    """This process's live games by ``(live game id, start time, state version)``.

    Rebuilding a game from its stored state replays its record: about 7 ms at 150 acts, and
    every act and every seat's view needed it. A state version names one state exactly (each
    act moves it on by one, under the row lock), so a game cached under its version is that
    state; a miss rebuilds it from the database. (The start time guards against a reused id, as
    in tests that roll back; after restoring the database from a backup, restart the app
    processes.) Threads share the cache: :meth:`take` hands a
    game to one act alone (it is removed while the act mutates it), and :meth:`view` reads a
    game under the cache's lock, so no view sees a game halfway through an act."""

    def __init__(self, size: int = 256):
        self.size = size
        self._games: OrderedDict[tuple, engine.Game] = OrderedDict()
        # (id, start, version) -> (status, turn_deadline, result id): the row's other fields at
        # that version, so the streams of one table need not read the row once each
        self._rows: OrderedDict[tuple, tuple] = OrderedDict()
        # id -> (start time, table id, game number, move seconds): what never changes in a row
        self._facts: OrderedDict[int, tuple] = OrderedDict()
        # (id, user id) -> the seat the user had at the game's table when last checked
        self._seats: OrderedDict[tuple, int] = OrderedDict()
        self._lock = threading.Lock()
        self._readers = [threading.Lock() for _ in range(64)]  # by game id: one read at a time

    @staticmethod
    def _key(live: LiveGame, version: int) -> tuple:
        return live.pk, live.started_at, version

    def _state(self, live: LiveGame) -> dict:
        if "state" in live.get_deferred_fields():
            return LiveGame.objects.values_list("state", flat=True).get(pk=live.pk)
        return live.state

    def _build(self, live: LiveGame, state: dict | None = None) -> engine.Game:
        """A cache miss: the stored state (``state``, or read now), by catching up an older
        cached version of the game with the acts recorded since (another process made them),
        else by a full replay."""
        if state is None:
            state = self._state(live)
        with self._lock:
            older = [k for k in self._games if k[:2] == (live.pk, live.started_at)
                     and k[2] < live.version]
            base = self._games.pop(max(older, key=lambda k: k[2])) if older else None
        if base is not None:
            game = _catch_up(base, state)
            if game is not None:
                return game
        return engine.Game.from_state(state)

    def take(self, live: LiveGame) -> engine.Game:
        """The game at ``live.version``, for an act; give it back with :meth:`put`."""
        game = self.take_cached(live)
        return game if game is not None else self._build(live)

    def take_cached(self, live: LiveGame) -> engine.Game | None:
        """The game at ``live.version`` if this process has it (then as :meth:`take`)."""
        with self._lock:
            return self._games.pop(self._key(live, live.version), None)

    @staticmethod
    def _bound(cache: OrderedDict, key, value, size: int) -> None:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > size:
            cache.popitem(last=False)

    def remember(self, live: LiveGame, user=None) -> None:
        """Note ``live``'s fixed facts (and its seats in 托管) and, with ``user``, the seat the
        locked read found for them (``live.user_seat``): an act checks them again in its update
        (:func:`_act_unlocked`)."""
        with self._lock:
            self._bound(self._facts, live.pk, (live.started_at, live.table_id, live.number,
                                               live.move_seconds, live.hosted), self.size * 4)
            if user is not None and getattr(live, "user_seat", None) is not None:
                self._bound(self._seats, (live.pk, user.pk), live.user_seat, self.size * 24)

    def facts(self, live_id: int) -> tuple | None:
        with self._lock:
            return self._facts.get(live_id)

    def seat_of(self, live_id: int, user) -> int | None:
        with self._lock:
            return self._seats.get((live_id, user.pk))

    def put(self, live: LiveGame, game: engine.Game) -> None:
        with self._lock:
            self._bound(self._games, self._key(live, game.version), game, self.size)

    def read(self, live: LiveGame, reader):
        """``reader(game)`` on the game at ``live.version``, under the lock."""
        key = self._key(live, live.version)
        with self._lock:
            game = self._games.get(key)
            if game is not None:
                self._games.move_to_end(key)
                return reader(game)
        game = self._build(live)
        self.put(live, game)
        with self._lock:
            return reader(game)

    def put_row(self, live: LiveGame) -> None:
        """Remember ``live``'s status, turn deadline and result at its version."""
        with self._lock:
            self._bound(self._rows, self._key(live, live.version),
                        (live.status, live.turn_deadline, live.result_id), self.size)

    def row_at(self, live: LiveGame, version: int) -> bool:
        """Set ``live`` to ``version`` from what :meth:`put_row` remembered; whether it could."""
        with self._lock:
            row = self._rows.get(self._key(live, version))
        if row is None:
            return False
        live.version = version
        live.status, live.turn_deadline, live.result_id = row
        return True

    def _has(self, live: LiveGame, version: int) -> bool:
        """Whether ``live`` can be brought to ``version`` from memory (and is, if so)."""
        if not self.row_at(live, version):
            return False
        with self._lock:
            return self._key(live, version) in self._games

    def reach(self, live: LiveGame, version: int) -> None:
        """Bring ``live`` (its row read without the state) to ``version`` or later for a view:
        from what this process remembers of that version, else with one read of the row and
        its state, after which the game is cached for the table's other streams here. The
        streams of one game woken together wait for one reader instead of each reading."""
        if self._has(live, version):
            return
        with self._readers[live.pk % len(self._readers)]:
            if self._has(live, version):
                return
            row = LiveGame.objects.values_list(
                "version", "status", "turn_deadline", "result_id", "state").get(pk=live.pk)
            live.version, live.status, live.turn_deadline, live.result_id, state = row
            self.put_row(live)
            with self._lock:
                if self._key(live, live.version) in self._games:
                    return
            self.put(live, self._build(live, state))

    def clear(self) -> None:
        with self._lock:
            self._games.clear()
            self._rows.clear()
            self._facts.clear()
            self._seats.clear()


def _catch_up(game: engine.Game, state: dict) -> engine.Game | None:
    """``game`` (an older version, in play) moved on by the acts ``state`` recorded since, as
    :meth:`engine.Game.from_state` would replay them; ``None`` when that does not apply (still
    in pre-play, or the versions do not add up), and the caller replays the whole record."""
    rec = state["record"]
    actions = rec["actions"]
    done = len(game.actions)
    if game.state != "play" or rec.get("leader") != game.leader or \
            len(rec["pre"]) != len(game.pre_events) or done > len(actions) or \
            state.get("version") != game.version + len(actions) - done:
        return None
    try:
        for action in actions[done:]:
            game.act(action["seat"], action)
    except (engine.IllegalAction, KeyError, TypeError):
        return None
    game.auto_seats = set(state.get("auto_seats", []))
    return game if game.version == state["version"] else None


games = GameCache()


def live_game(live: LiveGame) -> engine.Game:
    """A fresh copy of the game (for callers that may change it)."""
    return engine.Game.from_state(live.state)


class NotSeated(ServiceError):
    """The user sits at no seat of this game's table (or its seating is not published yet), or
    names another seat than their own: they may not act in it."""

    status = 403


def _locked(live_id: int, user) -> LiveGame:
    """The game's row (without its state, which :data:`games` caches) locked for one act,
    annotated in the same query with the seat ``user`` has at its table (``user_seat``; None
    without a user) and whether the table is open to its players (``seating_public``: a
    published event and seating).

    Written in SQL because this is the hot path of live play: the ORM took longer to build
    this query (about 1 ms) than PostgreSQL to run it."""
    rows = list(LiveGame.objects.raw(_locked_sql(), [
        getattr(user, "pk", None), Round.Status.PUBLISHED, Round.Status.FINISHED, live_id]))
    if not rows:
        raise NotFound("not_found", _("no such live game"))
    return rows[0]


@functools.cache
def _locked_sql() -> str:
    from tournaments.models import Event, Player

    columns = ", ".join(f"lg.{connection.ops.quote_name(f.column)}"
                        for f in LiveGame._meta.concrete_fields if f.name != "state")
    lock = " FOR UPDATE OF lg" if connection.features.has_select_for_update_of else ""
    return (f"SELECT {columns}, "
            f"(SELECT s.seat FROM {_q(Seat)} s JOIN {_q(Player)} p ON p.id = s.player_id "
            f"WHERE s.table_id = lg.table_id AND p.user_id = %s LIMIT 1) AS user_seat, "
            f"(e.published AND r.status IN (%s, %s)) AS seating_public "
            f"FROM {_q(LiveGame)} lg JOIN {_q(Table)} t ON t.id = lg.table_id "
            f"JOIN {_q(Round)} r ON r.id = t.round_id JOIN {_q(Event)} e ON e.id = r.event_id "
            f"WHERE lg.id = %s{lock}")


def _q(model) -> str:
    """``model``'s table name, quoted for the database."""
    return connection.ops.quote_name(model._meta.db_table)


def _col(model, name: str) -> str:
    """The quoted column of ``model``'s field ``name``."""
    return connection.ops.quote_name(model._meta.get_field(name).column)


def live_act(*, live_id: int, action: dict, version: int, seat: int | None = None,
             user=None, auto: bool = False) -> LiveGame:
    """Apply one act made against state ``version``, for ``seat`` or for the seat ``user`` sits
    at (both: the user must sit there); refuse a stale version (409) or an illegal act (422,
    the engine's code and message) without changing anything.

    An act is one conditional update when this process knows the game (:func:`_act_unlocked`);
    otherwise, and for every refusal and the act that ends the game, it is one locked read of
    the game's row (with the user's seat) and one update (:func:`_act_locked`). Either way the
    engine's game comes from this process's cache (:class:`GameCache`)."""
    if not isinstance(action, dict):
        raise ServiceError("bad_format", _("an act must be an object"))
    if seat is None and user is None:
        raise ValueError("live_act needs the seat or the user acting")
    act = {k: v for k, v in action.items() if k not in ("version", "seat")}
    live = _act_unlocked(live_id, act, version, seat, user, auto)
    if not isinstance(live, LiveGame):
        live = _act_locked(live_id, act, version, seat, user, auto, ending=live)
    return live


def _act_unlocked(live_id: int, act: dict, version: int, seat: int | None, user, auto: bool
                  ) -> LiveGame | tuple | None:
    """The common act, without a lock: the game at ``version`` from the cache (or from one read
    of the row and its state, when another process made the last act), the engine's check, and
    one ``UPDATE`` that stores it only if, at that instant, the row is still at ``version``,
    running, and ``user`` still sits at ``seat`` of a table open to its players (the checks of
    :func:`_act_locked`, made by the database in the same statement). ``None`` when any of this
    does not hold, when the engine refuses the act, or when the act ends the game: the locked
    path then decides, and refuses with the right code, in the right order. For the act that
    ends the game: ``(seat, game)``, the game with the act applied, which the locked path
    stores with the result if the row is still where the act was made."""
    facts = games.facts(live_id)
    if facts is None:
        return None
    started_at, table_id, number, move_seconds, hosted = facts
    if hosted:
        return None  # the next turn may be a seat in 托管: its deadline and timer are set locked
    if user is not None:
        mine = games.seat_of(live_id, user)
        if mine is None or (seat is not None and seat != mine):
            return None
        seat = mine
    live = LiveGame(pk=live_id, table_id=table_id, number=number, started_at=started_at,
                    move_seconds=move_seconds, version=version,
                    status=LiveGame.Status.RUNNING, result=None)
    game = games.take_cached(live)
    if game is None:
        state = _unlocked_state(live)
        if state is None:
            return None
        game = games._build(live, state)
    if auto and game.state == "play":
        act = dict(act, auto=True)
    try:
        game.act(seat, act)
    except engine.IllegalAction:
        games.put(live, game)  # a refused act changes nothing (engine property)
        return None
    if game.state == "over":
        return seat, game  # not cached again: it is stored, or dropped, under the lock
    now = timezone.now()
    live.turn_deadline = now + timedelta(seconds=move_seconds)
    live.updated_at = now
    live.state = game.to_state()  # (a view before the cache has it, inside a transaction)
    field, when = LiveGame._meta.get_field("state"), connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(user is not None), [
            field.get_db_prep_save(live.state, connection), game.version,
            when(live.turn_deadline), when(now), live_id, version, when(started_at),
            LiveGame.Status.RUNNING,
            *([seat, user.pk, Round.Status.PUBLISHED, Round.Status.FINISHED]
              if user is not None else [])])
        stored = cursor.rowcount == 1
    if not stored:
        return None  # moved on, finished, or reseated meanwhile: the game is dropped
    live.version = game.version
    live.user_seat = seat if user is not None else None
    transaction.on_commit(lambda: (games.put(live, game), games.put_row(live)))
    announce(live.pk, live.version)
    return live


def _unlocked_state(live: LiveGame) -> dict | None:
    """The stored state if the row is still the game ``live`` names at its version."""
    field = LiveGame._meta.get_field("state")
    with connection.cursor() as cursor:
        cursor.execute(_state_sql(), [
            live.pk, connection.ops.adapt_datetimefield_value(live.started_at), live.version,
            LiveGame.Status.RUNNING])
        row = cursor.fetchone()
    return None if row is None else field.from_db_value(row[0], None, connection)


@functools.cache
def _state_sql() -> str:
    return (f"SELECT {_col(LiveGame, 'state')} FROM {_q(LiveGame)} WHERE {_col(LiveGame, 'id')} "
            f"= %s AND {_col(LiveGame, 'started_at')} = %s AND {_col(LiveGame, 'version')} = %s "
            f"AND {_col(LiveGame, 'status')} = %s")


@functools.cache
def _update_sql(seated: bool) -> str:
    """The conditional update of :func:`_act_unlocked` (with ``seated``: also the user's seat
    and the table's being open to its players, as :func:`_locked` reads them). A game with a
    seat in 托管 is left to the locked path, which knows whose turn is hosted."""
    from tournaments.models import Event, Player

    lg = _q(LiveGame)
    sql = (f"UPDATE {lg} SET {_col(LiveGame, 'state')} = %s, {_col(LiveGame, 'version')} = %s, "
           f"{_col(LiveGame, 'turn_deadline')} = %s, {_col(LiveGame, 'updated_at')} = %s "
           f"WHERE {_col(LiveGame, 'id')} = %s AND {_col(LiveGame, 'version')} = %s "
           f"AND {_col(LiveGame, 'started_at')} = %s AND {_col(LiveGame, 'status')} = %s "
           f"AND {_col(LiveGame, 'hosted')} = 0")
    if seated:
        table = f"{lg}.{_col(LiveGame, 'table')}"
        sql += (f" AND EXISTS (SELECT 1 FROM {_q(Seat)} s JOIN {_q(Player)} p "
                f"ON p.id = s.player_id WHERE s.table_id = {table} AND s.seat = %s "
                f"AND p.user_id = %s)"
                f" AND EXISTS (SELECT 1 FROM {_q(Table)} t JOIN {_q(Round)} r ON r.id = t.round_id"
                f" JOIN {_q(Event)} e ON e.id = r.event_id WHERE t.id = {table} AND e.published "
                f"AND r.status IN (%s, %s))")
    return sql


def _own_seat(live: LiveGame, seat: int | None, not_seated: str, not_yours: str) -> int:
    """The seat the locked read found for its user (``live.user_seat``), who must sit at the
    table with its seating published, and may name only that seat: else 403 ``not_seated``
    or ``not_your_seat`` with these messages (``not_yours`` gets the seat as ``%(s)s``)."""
    if live.user_seat is None or not live.seating_public:
        raise NotSeated("not_seated", not_seated)
    if seat is not None and seat != live.user_seat:
        raise NotSeated("not_your_seat", not_yours % {"s": live.user_seat})
    return live.user_seat


def _act_locked(live_id: int, act: dict, version: int, seat: int | None, user, auto: bool,
                ending: tuple | None = None) -> LiveGame:
    """:func:`live_act` under the game's row lock: every refusal, and the act that ends the
    game (its result is stored in the same transaction). ``ending``: ``(seat, game)`` from
    :func:`_act_unlocked`, the game at ``version`` with this act applied by that seat."""
    with transaction.atomic():
        # lock the game's row only: other tables' games must not queue behind it
        live = _locked(live_id, user)
        games.remember(live, user)
        if user is not None:
            seat = _own_seat(live, seat, _("only the players seated at this table act in its game"),
                             _("you sit at seat %(s)s and act only for it"))
        if live.status == LiveGame.Status.FINISHED:
            raise Conflict("game_over", _("the game is over"))
        if version != live.version:
            raise Conflict("stale_version", _(
                "the game has moved on (version %(v)s, you sent %(s)s); fetch it again") % {
                "v": live.version, "s": version}, detail={"version": live.version})
        if ending is not None and ending[0] == seat and ending[1].version == version + 1:
            game = ending[1]  # checked and applied already, against this very version
        else:
            game = games.take(live)
            if auto and game.state == "play":
                act = dict(act, auto=True)
            try:
                game.act(seat, act)
            except engine.IllegalAction as exc:
                games.put(live, game)  # a refused act changes nothing (engine property)
                raise ServiceError(exc.code, exc.message, detail={
                    "code": exc.code, "seat": exc.seat, "message": exc.message},
                    status=422) from None
        live.state = game.to_state()
        live.version = game.version
        # cached once the new state is stored; a rolled-back act leaves nothing behind
        transaction.on_commit(lambda: (games.put(live, game), games.put_row(live)))
        announce(live.pk, live.version)
        changed = ["state", "version", "status", "turn_deadline", "updated_at", "hosted"]
        if not auto and live.hosted >> seat & 1:
            live.hosted &= ~(1 << seat)  # its player is back: 托管 ends
        if game.state == "over":
            live.status = LiveGame.Status.FINISHED
            live.turn_deadline = None
            live.result = result_record_live(table_id=live.table_id, number=live.number,
                                             record=game.record())
            live.save(update_fields=changed + ["result"])
        else:
            hosted_turn = _hosted_turn(live, game)
            live.turn_deadline = _deadline(live, hosted_turn)
            live.save(update_fields=changed)
            if hosted_turn:
                _arm_timer(live)  # the timer waits for another deadline: this turn's comes first
    return live


def _hosted_turn(live: LiveGame, game: engine.Game) -> bool:
    """Whether the seat to act in ``game`` is in 托管."""
    to_act = game.to_act()
    return to_act is not None and bool(live.hosted >> to_act["seat"] & 1)


def _deadline(live: LiveGame, hosted_turn: bool):
    """When the turn now waiting runs out: after the move time, or, for a seat in 托管
    (``hosted_turn``), after :data:`HOSTED_SECONDS`."""
    seconds = HOSTED_SECONDS if hosted_turn else live.move_seconds
    return timezone.now() + timedelta(seconds=seconds)


def live_host(*, live_id: int, on: bool, seat: int | None = None, user=None,
              referee: bool = False) -> LiveGame:
    """Put a seat in 托管 (``on``) or give it back to its player. In 托管 the bot plays the
    seat's turns as they come (after :data:`HOSTED_SECONDS`), marked ``auto`` in the record,
    until it is given back or its player acts; it stays so for the match's next live game.
    A seated ``user`` switches their own seat only (as for an act: a published seating); a
    ``referee`` (of the event: the caller checks) names any ``seat``. The state version does
    not change: no act is made."""
    if seat is not None and not 0 <= seat <= 5:
        raise ServiceError("bad_seat", _("a seat is 0 to 5"))
    with transaction.atomic():
        live = _locked(live_id, user)
        if not referee:
            seat = _own_seat(live, seat, _(
                "only the players seated at this table, or its referees, switch 托管"),
                _("you sit at seat %(s)s and switch 托管 only for it"))
        seat = live.user_seat if seat is None else seat
        if seat is None:
            raise ServiceError("bad_seat", _("name the seat to switch"))
        if live.status == LiveGame.Status.FINISHED:
            raise Conflict("game_over", _("the game is over"))
        hosted = live.hosted | (1 << seat) if on else live.hosted & ~(1 << seat)
        if hosted == live.hosted:
            return live
        live.hosted = hosted
        changed = ["hosted", "updated_at"]
        to_act = games.read(live, lambda g: g.to_act())
        if to_act is not None and to_act["seat"] == seat:  # its turn now: a new deadline
            live.turn_deadline = _deadline(live, on)
            changed.append("turn_deadline")
            if on:
                _arm_timer(live, again=True)  # this version's timer waits for the old deadline
        live.save(update_fields=changed)
        games.remember(live)
    return live


def live_timer(*, live_id: int, version: int) -> bool:
    """The game's 托管 timer, armed at ``version``, has run out: if the turn in hand is past
    its deadline (nobody acted in time), the bot plays it; then the timer is armed again for
    the turn now waiting. Returns whether the bot acted. However many copies of a timer arrive,
    late or twice, the bot acts once per overdue turn (the act names the version it was made
    against), and the next turn's timer is queued once."""
    live = LiveGame.objects.filter(pk=live_id).defer("state").first()
    if live is None or live.status != LiveGame.Status.RUNNING:
        return False  # the game is over: the timer stops
    overdue = live.turn_deadline is None or live.turn_deadline <= timezone.now()
    moved = _autoplay(live) if overdue else None
    if overdue:
        live = moved or LiveGame.objects.filter(pk=live_id).defer("state").first()
    if live.status == LiveGame.Status.RUNNING:
        # fired before its own turn's deadline (clocks differ a little): queued once more
        _arm_timer(live, again=not overdue and live.version == version)
    return moved is not None


def _autoplay(live: LiveGame) -> LiveGame | None:
    """托管: the bot plays the seat whose turn it is in ``live`` (its row, read without the
    state) at ``live.version``; the game after the act, or ``None`` if nobody is to act or
    someone acted meanwhile."""

    def choose(game: engine.Game):
        to_act = game.to_act()
        return None if to_act is None else (
            to_act["seat"], HeuristicBot().choose(game, to_act["seat"]))

    chosen = games.read(live, choose)
    if chosen is None:
        return None
    seat, action = chosen
    try:
        return live_act(live_id=live.pk, seat=seat, action=action, version=live.version,
                        auto=True)
    except Conflict:
        return None  # someone acted meanwhile


def live_view(*, live: LiveGame, seat: int | None) -> dict:
    """What ``seat`` may see (``None``: spectators and staff): never another seat's cards."""
    view, auto_seats = games.read(live, lambda g: (g.view(seat), sorted(g.auto_seats)))
    view.update({
        "id": live.pk, "table": live.table_id, "number": live.number, "status": live.status,
        "version": live.version, "turn_deadline": live.turn_deadline,
        "auto_seats": auto_seats, "result": live.result_id,
        "hosted_seats": [s for s in range(6) if live.hosted >> s & 1],
    })
    return view


def live_autoplay_overdue(grace: float = 0.0) -> int:
    """Play every seat whose move time ran out more than ``grace`` seconds ago, and arm the
    games' timers again: ``manage.py live_tick`` where no Celery worker runs the timers, and
    the sweep on Celery beat (``live_sweep_task``) that restarts a timer whose message was lost."""
    n = 0
    for live_id, version in LiveGame.objects.filter(
            status=LiveGame.Status.RUNNING,
            turn_deadline__lt=timezone.now() - timedelta(seconds=grace)).values_list(
            "pk", "version"):
        n += live_timer(live_id=live_id, version=version)
    return n
