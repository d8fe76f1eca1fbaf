"""Live play: a table plays a game on the service, move by move (issue: live play).

The server deals verifiably (:mod:`live.deals`); the engine's :class:`engine.Game` state lives in
:class:`live.models.LiveGame` and every act is stored only if the game is still at the state
version the client saw (one conditional update, or under the row lock): a stale version is
refused, so no act is lost or applied twice.
A seat that does not act within the event's move time limit is played by the engine's hosted bot
(托管) from the game's timer, a Celery task queued with a countdown for each turn's deadline (one
timer a game, armed when it starts and re-armed by itself); its acts are marked ``auto``. A seat
put in 托管 (by its player, or by a referee for an absent one: :func:`live_host`) is played as
soon as its turn comes, until its player takes it back or acts.
The finished game becomes the table's result (system-recorded, confirmed) with its record.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import engine
from engine.bots import hosted_act
from engine.game import RESULT_KEYS
from games.models import GameResult
from games.services import TABLE_OPENING_SEAT, _check_game_number, result_record_live
from live import deals, fastjson, queries
from live.cache import games, micros
from live.locks import lock_live
from live.models import LiveGame, SeatReady
from live.notify import announce, announce_committed
from live.selectors import ready_seats
from tournaments.boards import board_hands, board_leader, table_board
from tournaments.errors import Conflict, ServiceError
from tournaments.locks import lock_table
from tournaments.models import Round, Table
from tournaments.selectors import is_referee, public_seat_of
from tournaments.services.matches import most_games
from tournaments.sqlrows import prepared_cursor

log = logging.getLogger(__name__)

#: seconds a seat in 托管 "thinks" before the bot plays its turn, so the table can follow
HOSTED_SECONDS = 1.0


def _arm_timer(live: LiveGame, again: bool = False) -> None:
    """Queue a 托管 timer for the turn in hand of ``live`` (its deadline ``live.turn_deadline``,
    version ``live.version``), once the transaction commits: for a turn of a seat in 托管,
    whose bot plays after :data:`HOSTED_SECONDS`. Every other turn has no timer: its move time
    running out is found by the sweep on Celery beat (:func:`live_autoplay_overdue`, every
    ``LIVE_SWEEP_SECONDS``), one query for every running game. A timer for each turn's move
    time — re-armed about once a minute for every game, as each fired early and found its game
    moved on — came in waves (a round's games start together): at 1,667 tables, 1,667 timers
    in 25 s every minute, a third of a core (``bench_live --streams 10000``,
    beed985:docs/BENCHMARKS.md "Seventeenth pass"). Arming twice for one version queues one
    message (a key in the shared cache). Without a broker (tasks run in-process, which ignores
    countdowns) nothing is queued: the sweep in the serving process plays overdue seats instead
    (live/sweeps.py).
    ``again``: the timer of this very version fired early (clocks differ by a little): it is
    queued again, past the key that holds the turn's one timer."""
    if settings.CELERY_TASK_ALWAYS_EAGER or live.turn_deadline is None:
        return
    live_id, version, deadline = live.pk, live.version, live.turn_deadline
    transaction.on_commit(lambda: _queue_timer(live_id, version, deadline, again))


def _queue_timer(live_id: int, version: int, deadline, again: bool = False) -> None:
    from django.core.cache import cache

    from config.celery import task_named

    countdown = max(0.0, (deadline - timezone.now()).total_seconds())
    key = f"gouji:live-timer:{live_id}:{version}"
    if not cache.add(key, 1, timeout=int(countdown) + 600) and not again:
        return  # armed already for this turn
    try:
        # (by name: live.tasks plays through these services)
        task_named("games.tasks.live_autoplay_task").apply_async((live_id, version),
                                                                  countdown=countdown)
    except Exception as exc:  # the change is committed: the sweep on beat plays the seat
        from config.outage import Skipped

        cache.delete(key)
        # (skipped with the broker known to be down: its breaker logs the outage, not each act)
        say = log.debug if isinstance(exc, Skipped) else log.warning
        say("live timer not queued (%s): the 托管 sweep will play game %s",
            type(exc).__name__, live_id)


def live_start(*, table: Table, number: int | None = None, leader: int | None = None,
               by=None) -> LiveGame:
    """Deal and start the table's next game (or game ``number``) live.

    ``by``: who asks; ``None`` for the service's own callers (a command, a benchmark's
    setup). A referee of the event deals at once. A player seated at the table deals only when
    every seat is present: ready (:func:`live_ready`, within ``READY_SECONDS``), their own seat
    by asking — else 409 ``seats_not_ready`` with the ``missing`` seats, for once dealt, a
    seat's clock runs and 托管 plays it when it runs out, to a result recorded as confirmed.
    Anyone else is refused (403). Dealing clears the table's ready marks."""
    event = table.round.event
    if table.round.status == Round.Status.COMMITTED:
        raise ServiceError("not_drawn", _("the round is not drawn yet"))
    present = None  # (None: no readiness asked)
    if by is not None and not is_referee(by, event):
        seat = public_seat_of(by, table)
        if seat is None:
            raise NotSeated("not_seated", _("only the players of this table or a referee deal "
                                            "its games"))
        present = {seat.seat}
    with transaction.atomic():
        table = lock_table(table.pk)
        done = set(GameResult.objects.filter(table=table).values_list("number", flat=True))
        running = set(LiveGame.objects.filter(table=table).values_list("number", flat=True))
        if number is None:
            number = next((k for k in range(1, most_games(table.round) + 1)
                           if k not in done and k not in running), None)
            if number is None:
                raise Conflict("match_over", _("every game of this table has been played"))
        _check_game_number(event, table, number)
        if number in done or number in running:
            raise Conflict("already_started", _("game %(n)s of this table is already played or "
                                                "running") % {"n": number})
        previous = None
        board = table_board(table, number)  # a duplicate event's board: a match's first game
        if number > 1 and board is None:
            prev = GameResult.objects.filter(table=table, number=number - 1).first()
            if prev is None:
                raise ServiceError("previous_missing", _(
                    "game %(n)s has no result yet: its tributes decide this game's start") % {
                    "n": number - 1})
            previous = {k: v for k, v in prev.engine_result.items() if k in RESULT_KEYS}
        if present is not None:
            missing = sorted(set(range(6)) - present - ready_seats(table))
            if missing:
                raise Conflict("seats_not_ready", _(
                    "game %(n)s is dealt live once every seat is ready, or by a referee: "
                    "seats %(seats)s are not ready") % {
                    "n": number, "seats": ", ".join(str(s) for s in missing)},
                    detail={"number": number, "missing": missing})
        SeatReady.objects.filter(table=table).delete()
        # verifiable (live.deals): a fresh secret seed and the game's label; the commitment
        # is public from now on, the seed once the record may be seen
        if board is not None:  # the board's hands (rotated at a twin), seed and first lead
            board, twin = board
            hands, leader = board_hands(board, twin), board_leader(board, twin)
            verifiable = {"deal_label": board.label, "deal_seed": board.seed,
                          "deal_commitment": board.commitment}
        else:
            hands, verifiable = deals.deal(deals.event_game_label(table, number))
        game = engine.Game(event.rules, hands, previous, TABLE_OPENING_SEAT,
                           first_game=(number == 1 or board is not None), leader=leader)
        game.published_deal = deals.public_deal(verifiable)
        # seats in 托管 stay so for the match's next game, until their players take them back
        hosted = LiveGame.objects.filter(table=table, number=number - 1).values_list(
            "hosted", flat=True).first() or 0
        live = LiveGame(table=table, number=number, state=game.to_state(), version=game.version,
                        move_seconds=event.move_seconds, hosted=hosted, **verifiable)
        hosted_turn = _hosted_turn(live, game)
        live.turn_deadline = _deadline(live, hosted_turn)
        live.save(force_insert=True)
        if hosted_turn:
            _arm_timer(live)
        announce(live.pk, live.version)
    return live


def live_ready(*, table: Table, user, ready: bool = True) -> set[int]:
    """Say that ``user``'s seat at ``table`` is present for its next live game (到齐), or,
    ``ready=False``, no longer; the seats ready now (:func:`live.selectors.ready_seats`).
    Only a player seated there (its seating published) may: else 403 ``not_seated``."""
    seat = public_seat_of(user, table)
    if seat is None:
        raise NotSeated("not_seated", _("you have no seat at this table"))
    if ready:
        SeatReady.objects.update_or_create(table=table, seat=seat.seat,
                                           defaults={"at": timezone.now()})
    else:
        SeatReady.objects.filter(table=table, seat=seat.seat).delete()
    return ready_seats(table)


def live_game(live: LiveGame) -> engine.Game:
    """A fresh copy of the game (for callers that may change it)."""
    return engine.Game.from_state(live.state)


class NotSeated(ServiceError):
    """The user sits at no seat of this game's table (or its seating is not published yet), or
    names another seat than their own: they may not act in it."""

    status = 403


def live_act(*, live_id: int, action: dict, version: int, seat: int | None = None,
             user=None, auto: bool = False) -> LiveGame:
    """Apply one act made against state ``version``, for ``seat`` or for the seat ``user`` sits
    at (both: the user must sit there); refuse a stale version (409) or an illegal act (422,
    the engine's code and message) without changing anything.

    In three steps: :func:`_act_refuse` (who may act, at which version), :func:`_act_apply`
    (the engine's game, from this process's cache, checks the act — whose turn, whether
    legal — and makes it) and :func:`_act_store` (the row, and the result when the act ends the
    game), under the game's row lock (read with the user's seat in one statement:
    :func:`live.locks.lock_live`). In a game this process knows, the act is first tried
    without the lock, as one conditional update (:func:`unlocked_act`, then
    :func:`store_planned`, unless ``settings.LIVE_FAST_PATH`` is off); every refusal, and the
    act that ends the game, take the locked path."""
    act = _act_of(action)
    if seat is None and user is None:
        raise ValueError("live_act needs the seat or the user acting")
    ending = None
    if settings.LIVE_FAST_PATH:
        made = unlocked_act(live_id, act, version, seat, user, auto)
        if isinstance(made, UnlockedAct):
            stored = store_planned(made)
            if stored is not None:
                return stored
        elif made is not None:
            ending = made  # (seat, game): the act that ends the game, stored under the lock
    with transaction.atomic():
        # lock the game's row only: other tables' games must not queue behind it
        live = lock_live(live_id, user)
        games.remember(live, user)
        seat = _act_refuse(live, version=version, seat=seat, user=user)
        if ending is not None and ending[0] == seat and ending[1].version == version + 1:
            game = ending[1]  # checked and applied already, against this very version
        else:
            game = _act_apply(live, act, seat=seat, auto=auto)
        _act_store(live, game, seat=seat, auto=auto)
    return live


def _act_of(action) -> dict:
    """The act in ``action`` (what a client sent, without the version and seat it names)."""
    if not isinstance(action, dict):
        raise ServiceError("bad_format", _("an act must be an object"))
    return {k: v for k, v in action.items() if k not in ("version", "seat")}


def live_act_planned(*, live_id: int, user, action: dict, version: int,
                     seat: int | None = None, also: tuple[str, list] | None = None,
                     read: bool = True) -> UnlockedAct | object | None:
    """:func:`live_act`'s common case for the ASGI server's short path (api/fast_act.py), the
    one place both its ways (on the event loop, in a thread) check and make the act: ``user``'s
    act made on the game and the statement that stores it (:class:`UnlockedAct`: its caller
    runs it, or :func:`store_planned` does); ``None`` when the act is not the common one
    (:func:`live_act` decides; nothing has changed). ``read=False``: from memory only, for the
    event loop, :data:`NEEDS_READ` when a read is due. ``also``: one more condition (SQL and
    parameters) the update must meet (:func:`api.authentication.token_holds_sql`)."""
    if not settings.LIVE_FAST_PATH or not isinstance(action, dict):
        return None
    made = unlocked_act(live_id, _act_of(action), version, seat, user, auto=False, also=also,
                        read=read)
    return made if isinstance(made, UnlockedAct) or made is NEEDS_READ else None


def store_planned(made: UnlockedAct) -> LiveGame | None:
    """Run ``made``'s conditional ``UPDATE`` (prepared once per connection): the game, cached
    and announced on commit, or ``None`` when it moved on, finished or was reseated meanwhile
    (nothing stored)."""
    with prepared_cursor() as cursor:
        cursor.execute(made.sql, made.params)
        stored = cursor.rowcount == 1
    if not stored:
        return None
    transaction.on_commit(made.stored)
    return made.live


class UnlockedAct:
    """An act checked and made on this process's copy of the game (:func:`unlocked_act`),
    waiting for its conditional ``UPDATE``: ``sql`` with ``params``. Stored (the statement
    changed one row, committed), :meth:`stored` caches the game at its new version and
    announces it."""

    __slots__ = ("live", "game", "sql", "params")

    def __init__(self, live: LiveGame, game: engine.Game, sql: str, params: list):
        self.live, self.game, self.sql, self.params = live, game, sql, params

    def stored(self) -> None:
        live, game = self.live, self.game
        games.put(live, game)
        games.put_row(live)
        announce_committed(live.pk, live.version, _carried(live, game))


#: :func:`unlocked_act` with ``read=False`` and nothing in memory to act on: a read is due
NEEDS_READ = object()


def unlocked_act(live_id: int, act: dict, version: int, seat: int | None, user, auto: bool,
                 also: tuple[str, list] | None = None, *, read: bool = True
                 ) -> UnlockedAct | tuple | object | None:
    """The common act, without a lock: the game at ``version`` from the cache (or one read of
    the row and its state), the engine's check, and the act made; the ``UPDATE`` that stores
    it only if the row is still at ``version``, running, and the seat still ``user``'s
    (:func:`live.queries.act_update_sql`) is returned with it (:class:`UnlockedAct`). ``None``
    when any of this does not hold or the engine refuses the act: the locked path then
    refuses with the right code, in the right order. For the act that ends the game:
    ``(seat, game)``, which the locked path stores with the result. ``read=False``: from
    memory only (an event loop's), :data:`NEEDS_READ` when a read is due."""
    facts = games.facts(live_id)
    if facts is None or (user is not None and games.seat_of(live_id, user) is None):
        if not read:
            return NEEDS_READ
        if not _learn(live_id, user):
            return None
        facts = games.facts(live_id)
    started_at, table_id, number, move_seconds, hosted = facts
    if hosted:
        return None  # the next turn may be a seat in 托管: its deadline and timer are set locked
    if user is not None:
        mine = games.seat_of(live_id, user)
        if mine is None or (seat is not None and seat != mine):
            return None
        seat = mine
    live = _running_row(live_id, table_id, number, started_at, move_seconds, version)
    game = games.take_cached(live)
    if game is None:
        if not read:
            return NEEDS_READ
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
    when = connection.ops.adapt_datetimefield_value
    params = [fastjson.db_param(_state_encoding(game)), game.version,
              when(live.turn_deadline), when(now), live_id, version, when(started_at),
              LiveGame.Status.RUNNING,
              *([*queries.acting_seat_params(user.pk), seat] if user is not None else []),
              *(also[1] if also else [])]
    # what the row holds once stored (the statement is conditional: only then is it used)
    live.version = game.version
    live.user_seat = seat if user is not None else None
    return UnlockedAct(live, game, queries.act_update_sql(user is not None, also and also[0]),
                       params)


def _state_encoding(game: engine.Game) -> dict:
    """``game.to_state()`` for the act's update, its record's acts already JSON
    (:func:`acts_json`), not the whole record rebuilt and encoded again at every act — late in
    a game, a tenth of the stream server's CPU (``bench_live --streams``)."""
    state = game.to_state(actions=False)
    state["record"]["actions"] = fastjson.fragment(acts_json(game))
    return state


def acts_json(game: engine.Game) -> bytes:
    """The acts of ``game``'s record so far as JSON, each act encoded once, as it is made, and
    kept with the game (:attr:`_ACTS_JSON`): the act's stored state (:func:`_state_encoding`)
    and the views that carry every act (:func:`live_view_parts`) splice it in. A record's acts
    are only ever appended, never changed: the encoding of the first ones stays theirs."""
    acts = game.actions
    done, encoded = getattr(game, _ACTS_JSON, (0, b"[]"))
    if done > len(acts):  # (not this game's history: encoded afresh)
        done, encoded = 0, b"[]"
    if done < len(acts):
        more = fastjson.encode(acts[done:])
        encoded = more if done == 0 else encoded[:-1] + b"," + more[1:]
        setattr(game, _ACTS_JSON, (len(acts), encoded))
    return encoded


#: the attribute of a live game's engine object that holds its record's acts as JSON, and how
#: many of them (:func:`acts_json`)
_ACTS_JSON = "_live_acts_json"


def _running_row(live_id: int, table_id: int, number: int, started_at, move_seconds: int,
                 version: int) -> LiveGame:
    """The row of a running game with no seat in 托管, at ``version``, as an act without the
    lock knows it (its state, deadline and update time are the act's to set), built as the ORM
    builds the rows it reads (``Model.from_db``: the constructor with keywords took 12 µs)."""
    values = {"id": live_id, "table_id": table_id, "number": number,
              "status": LiveGame.Status.RUNNING, "version": version,
              "move_seconds": move_seconds, "hosted": 0, "started_at": started_at}
    return LiveGame.from_db(DEFAULT_DB_ALIAS, _COLUMNS, [values.get(c) for c in _COLUMNS])


#: the attributes of LiveGame's columns but its state, in the order ``Model.from_db`` takes
#: their values: the state is left deferred (an act stores it encoded, and a view that needs it
#: before the cache has the game — inside a transaction — reads what the act stored)
_COLUMNS = [field.attname for field in LiveGame._meta.concrete_fields if field.name != "state"]


def _carried(live: LiveGame, game: engine.Game) -> dict | None:
    """What the announcement of the act ``game`` has just made carries to the stream servers,
    which then move their copy of the game on without reading it
    (:meth:`live.cache.GameCache.advance`): an act of the play, as the record keeps it — the
    seat and the cards it played, or its pass, which every seat and spectator sees — with the
    next turn's deadline (``d``), the game's start (``t``) and its seats in 托管 (``h``, bits).
    ``None`` for a pre-play act (a tribute, 买3: hidden cards) and for the act that ends the
    game (the row changes more)."""
    if game.state != "play" or not game.actions:
        return None
    return dict(game.actions[-1], d=micros(live.turn_deadline), t=micros(live.started_at),
                h=live.hosted)


def _learn(live_id: int, user) -> bool:
    """Read and remember (one prepared statement) what an act without the lock needs of a game
    this process has not seen yet, or of a user whose seat it does not know: the row's fixed
    facts and the user's seat. Before, only the locked path learned them, one act per seat and
    process: at 1,667 tables, nearly every act of a minute's play took the lock (py-spy of
    ``bench_live --streams 10000``). Whether the game is running and, with a user, they sit at
    its table (else the locked path refuses, with the right code). The act's ``UPDATE`` checks
    the seat again, and that the seating is public, as it commits."""
    with prepared_cursor() as cursor:
        cursor.execute(queries.facts_sql(), [getattr(user, "pk", None), live_id])
        row = cursor.fetchone()
    if row is None:
        return False
    started_at, table_id, number, move_seconds, hosted, status, user_seat = \
        queries.facts_values(row)
    if status != LiveGame.Status.RUNNING or (user is not None and user_seat is None):
        return False
    live = LiveGame(pk=live_id, started_at=started_at, table_id=table_id, number=number,
                    move_seconds=move_seconds, hosted=hosted)
    live.user_seat = user_seat
    games.remember(live, user)
    return True


def _unlocked_state(live: LiveGame) -> dict | None:
    """The stored state if the row is still the game ``live`` names at its version."""
    field = LiveGame._meta.get_field("state")
    with prepared_cursor() as cursor:
        cursor.execute(queries.state_sql(), [
            live.pk, connection.ops.adapt_datetimefield_value(live.started_at), live.version,
            LiveGame.Status.RUNNING])
        row = cursor.fetchone()
    return None if row is None else field.from_db_value(row[0], None, connection)


def _own_seat(live: LiveGame, seat: int | None, not_seated: str, not_yours: str) -> int:
    """The seat the locked read found its user acts from (``live.acting_seat``: the rule is
    :func:`live.queries.acting_seat_sql`), the only one they may name: else 403 ``not_seated``
    or ``not_your_seat`` with these messages (``not_yours`` gets the seat as ``%(s)s``)."""
    if live.acting_seat is None:
        raise NotSeated("not_seated", not_seated)
    if seat is not None and seat != live.acting_seat:
        raise NotSeated("not_your_seat", not_yours % {"s": live.acting_seat})
    return live.acting_seat


def _act_refuse(live: LiveGame, *, version: int, seat: int | None, user) -> int:
    """The refusals made before the engine is asked, in this order: a ``user`` who does not
    sit at the table (or names another seat), a finished game, a stale ``version``. Returns
    the seat acting."""
    if user is not None:
        seat = _own_seat(live, seat, _("only the players seated at this table act in its game"),
                         _("you sit at seat %(s)s and act only for it"))
    if live.status == LiveGame.Status.FINISHED:
        raise Conflict("game_over", _("the game is over"))
    if version != live.version:
        raise Conflict("stale_version", _(
            "the game has moved on (version %(v)s, you sent %(s)s); fetch it again") % {
            "v": live.version, "s": version}, detail={"version": live.version})
    return seat


def _act_apply(live: LiveGame, act: dict, *, seat: int, auto: bool) -> engine.Game:
    """The engine's game at ``live.version`` with ``seat``'s act made; the engine refuses a
    seat whose turn it is not, or an act that is not legal (422, its code and message), and
    then nothing has changed (an engine property): the game goes back to the cache."""
    game = games.take(live)
    if auto and game.state == "play":
        act = dict(act, auto=True)
    try:
        game.act(seat, act)
    except engine.IllegalAction as exc:
        games.put(live, game)
        raise ServiceError(exc.code, exc.message, detail={
            "code": exc.code, "seat": exc.seat, "message": exc.message}, status=422) from None
    return game


def _act_store(live: LiveGame, game: engine.Game, *, seat: int, auto: bool) -> None:
    """Store the act ``game`` has made in ``live``'s row (locked): the new state and version, 托管
    ended for a seat whose player acted, the next turn's deadline, or, when the act ends the
    game, the finished status and the table's result (:func:`games.services.result_record_live`)
    in the same transaction. The game is cached, and the new version announced (with the act
    of the play: :func:`_carried`), on commit."""
    live.state = game.to_state()
    live.version = game.version
    # cached once the new state is stored; a rolled-back act leaves nothing behind
    transaction.on_commit(lambda: (games.put(live, game), games.put_row(live)))
    changed = ["state", "version", "status", "turn_deadline", "updated_at", "hosted"]
    if not auto and live.hosted >> seat & 1:
        live.hosted &= ~(1 << seat)  # its player is back: 托管 ends
    if game.state == "over":
        live.status = LiveGame.Status.FINISHED
        live.turn_deadline = None
        live.result = result_record_live(table_id=live.table_id, number=live.number,
                                         record=game.record())
        live.save(update_fields=changed + ["result"])
        announce(live.pk, live.version)
        return
    hosted_turn = _hosted_turn(live, game)
    live.turn_deadline = _deadline(live, hosted_turn)
    live.save(update_fields=changed)
    announce(live.pk, live.version, _carried(live, game))
    if hosted_turn:
        _arm_timer(live)


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
        live = lock_live(live_id, user)
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
                _arm_timer(live, again=True)  # (one this version had may have run already)
        live.save(update_fields=changed)
        games.remember(live)
    return live


def live_timer(*, live_id: int, version: int) -> bool:
    """A 托管 timer armed at ``version`` has run out, or the sweep found the game's turn overdue:
    if the turn in hand is past its deadline (nobody acted in time), the bot plays it (and the
    act arms the next turn's timer if that seat is in 托管 too). Returns whether the bot acted.
    However many copies of a timer arrive, late or twice, the bot acts once per overdue turn
    (the act names the version it was made against). A timer that fires before its own turn's
    deadline (clocks differ a little) is queued once more; one for a turn since played ends."""
    live = LiveGame.objects.filter(pk=live_id).defer("state").first()
    if live is None or live.status != LiveGame.Status.RUNNING:
        return False  # the game is over: the timer stops
    overdue = live.turn_deadline is None or live.turn_deadline <= timezone.now()
    if not overdue:
        if live.version == version:
            _arm_timer(live, again=True)
        return False
    return _autoplay(live) is not None


def _autoplay(live: LiveGame) -> LiveGame | None:
    """托管: the bot plays the seat whose turn it is in ``live`` (its row, read without the
    state) at ``live.version``; the game after the act, or ``None`` if nobody is to act or
    someone acted meanwhile."""

    chosen = games.read(live, hosted_act)
    if chosen is None:
        return None
    seat, action = chosen
    try:
        return live_act(live_id=live.pk, seat=seat, action=action, version=live.version,
                        auto=True)
    except Conflict:
        return None  # someone acted meanwhile


def live_view(*, live: LiveGame, seat: int | None, acts_after: int | None = None) -> dict:
    """What ``seat`` may see (``None``: spectators and staff): never another seat's cards.
    Its two parts (:func:`live_view_parts`) together, in the order a stream's frame has them;
    ``acts_after``: only the acts from that index on, as :func:`live_view_parts` has them."""
    own, shown = live_view_parts(live=live, seat=seat, acts_after=acts_after)
    return {**own, **shown}


def live_view_parts(*, live: LiveGame, seat: int | None, public: bool = True,
                    read: bool = True, acts_after: int | None = None,
                    acts_encoded: bool = False) -> tuple[dict, dict | None] | None:
    """:func:`live_view` in its two parts (:meth:`engine.Game.seat_view` and
    :meth:`engine.Game.public_view`): ``(seat's own part, the part every viewer sees, with
    the row's fields)``, the second ``None`` unless ``public`` (a caller that has it encoded
    already). Together they are :func:`live_view`. ``read=False``: from this process's memory
    only, ``None`` when it does not hold the game at ``live.version``.

    ``acts_after``: a stream's view that carries only the acts its client does not have yet,
    the ``actions`` from index ``acts_after`` on (all of them if the game has fewer), with
    ``actions_from``, the index of the first, in the seat's own part; the public part then has
    no ``actions``. ``acts_encoded``: the public part's ``actions`` are JSON already
    (:func:`acts_json`, a :func:`live.fastjson.fragment`), for a caller that encodes the view
    with :mod:`live.fastjson`: every act of the game, not encoded again for every view."""
    def parts(game):
        own = game.seat_view(seat)
        if acts_after is not None:
            done = len(game.actions)
            own["actions_from"] = first = acts_after if acts_after <= done else 0
            own["actions"] = game.actions[first:]
        shown = game.public_view(actions=acts_after is None) if public else None
        if shown is not None and acts_after is None and acts_encoded:
            shown["actions"] = fastjson.fragment(acts_json(game))  # (in its place, as GET's)
        return own, shown, sorted(game.auto_seats) if public else None

    got = games.read(live, parts) if read else games.read_cached(live, parts)
    if got is None:
        return None
    own, shown, auto_seats = got
    return own, None if shown is None else _view_with_row(live, shown, auto_seats)


def _view_with_row(live: LiveGame, view: dict, auto_seats: list) -> dict:
    """The engine's ``view`` of ``live`` (or its public part) with the row's fields."""
    view["outcome"] = view.get("result")  # the engine's result once over ("result": its id)
    view.update({
        "id": live.pk, "table": live.table_id, "number": live.number, "status": live.status,
        "version": live.version, "turn_deadline": live.turn_deadline,
        "auto_seats": auto_seats, "result": live.result_id,
        "hosted_seats": [s for s in range(6) if live.hosted >> s & 1],
    })
    return view


def live_autoplay_overdue() -> int:
    """Play every seat whose move time ran out: the sweep on Celery beat (``live_sweep_task``,
    every ``LIVE_SWEEP_SECONDS``), which finds every turn whose move time ran out (and a 托管
    turn whose timer's message was lost), and ``manage.py live_tick`` where no Celery worker
    runs. One query for all running games (an index holds just them: :class:`live.models.
    LiveGame`)."""
    n = 0
    for live_id, version in LiveGame.objects.filter(
            status=LiveGame.Status.RUNNING, turn_deadline__lt=timezone.now()).order_by(
            ).values_list("pk", "version"):  # (unordered: the model's order joins 3 tables)
        n += live_timer(live_id=live_id, version=version)
    return n
