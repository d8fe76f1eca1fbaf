"""This process's live games (its engine :class:`engine.Game` objects), by state version.

Rebuilding a game from its stored state replays its record; the cache spares the acts and
views of a game that replay. See :class:`GameCache`.
"""

from __future__ import annotations

import datetime
import threading
from collections import OrderedDict

from django.conf import settings
from django.utils.translation import gettext_lazy as _

import engine
from live import fastjson, notify, queries
from live.models import LiveGame
from tournaments.errors import NotFound
from tournaments.sqlrows import prepared_cursor

#: how many versions back a miss looks for an older copy of the game to catch up from
CATCH_UP = 512
#: how many announced acts a stream server applies in memory at most, rather than read
ADVANCE = 64

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_MICRO = datetime.timedelta(microseconds=1)


def micros(moment: datetime.datetime) -> int:
    """``moment`` (aware) in whole microseconds since the epoch: exact, as the database keeps
    it; :func:`from_micros` turns it back."""
    return (moment - _EPOCH) // _MICRO


def from_micros(value: int) -> datetime.datetime:
    return _EPOCH + value * _MICRO


class GameGone(NotFound, LiveGame.DoesNotExist):
    """The live game was deleted while a request waited on it (its round drawn again, its
    practice game expired): a 404 for the API's long-poll; a stream just ends (its client
    finds the 404 when it reconnects) and the spectator page hears there is no game."""

    def __init__(self):
        super().__init__("not_found", _("this live game no longer exists"))


class Recent:
    """At most ``size`` values by key, the least recently used dropped first; safe across
    threads. A process's small caches: the frames its streams share
    (:data:`live.streams.frames`), the users of the tokens it authenticated
    (:data:`api.authentication.token_users`)."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            GameCache._bound(self._items, key, value, self.size)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


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

    def __init__(self, size: int | None = None):
        # (smaller than the tables in play, games and seats fall out of it faster than they come
        # back, and most acts take the locked path and a rebuild)
        self.size = size or settings.LIVE_GAME_CACHE
        self._games: OrderedDict[tuple, engine.Game] = OrderedDict()
        # (id, start, version) -> (status, turn_deadline, result id, hosted): the row's other
        # fields at that version, so the streams of one table need not read the row once each
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
        with self._lock:  # the latest older version held (a look-up each, not a scan)
            base = next((self._games.pop(key) for key in (
                (live.pk, live.started_at, version)
                for version in range(live.version - 1, max(-1, live.version - CATCH_UP), -1))
                if key in self._games), None)
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
        (:func:`live.services.unlocked_act`)."""
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

    def read_cached(self, live: LiveGame, reader):
        """:meth:`read` if the game at ``live.version`` is cached, else ``None`` (no read)."""
        key = self._key(live, live.version)
        with self._lock:
            game = self._games.get(key)
            if game is None:
                return None
            self._games.move_to_end(key)
            return reader(game)

    def put_row(self, live: LiveGame) -> None:
        """Remember ``live``'s status, turn deadline, result and seats in 托管 at its version."""
        with self._lock:
            self._bound(self._rows, self._key(live, live.version),
                        (live.status, live.turn_deadline, live.result_id, live.hosted), self.size)

    def row_at(self, live: LiveGame, version: int) -> bool:
        """Set ``live`` to ``version`` from what :meth:`put_row` remembered; whether it could."""
        with self._lock:
            return self._row_at(live, version)

    def _row_at(self, live: LiveGame, version: int) -> bool:
        row = self._rows.get(self._key(live, version))
        if row is None:
            return False
        live.version = version
        live.status, live.turn_deadline, live.result_id, live.hosted = row
        return True

    def _has(self, live: LiveGame, version: int) -> bool:
        """Whether ``live`` can be brought to ``version`` from memory (and is, if so)."""
        if not self.row_at(live, version):
            return False
        with self._lock:
            return self._key(live, version) in self._games

    def advance(self, live: LiveGame, version: int) -> bool:
        """Bring ``live`` to ``version`` from memory, moving the game on by the acts of the play
        that announcements carried here (:func:`live.notify.announced_act`) from the latest
        version this process holds, instead of reading the row and its whole state: what a
        stream server does for most acts. Whether it could (else nothing changed but the
        older copy dropped, and the caller reads). The announced acts are played by the
        engine, as :func:`_catch_up` plays the recorded ones: a version names one state, so
        the game at ``version`` is the stored one."""
        acts = []
        started = micros(live.started_at)
        with self._lock:
            base = version
            while self._key(live, base) not in self._games or \
                    self._key(live, base) not in self._rows:
                act = notify.announced_act(live.pk, base)
                if act is None or len(acts) == ADVANCE or act["t"] != started:
                    return False
                acts.append(act)
                base -= 1
            if not acts:
                return self._row_at(live, version)
            if self._rows[self._key(live, base)][0] != LiveGame.Status.RUNNING:
                return False
            game = self._games.pop(self._key(live, base))  # this thread's alone while it acts
        if game.state != "play":
            return False
        played = [{k: v for k, v in act.items() if k not in notify.ROW_KEYS}
                  for act in reversed(acts)]
        # (the engine refuses any act once the game is over: it may end only at the last)
        if not _played(game, played) or game.version != version or game.state != "play":
            return False
        key = self._key(live, version)
        with self._lock:
            self._bound(self._games, key, game, self.size)
            self._bound(self._rows, key, (LiveGame.Status.RUNNING, from_micros(acts[0]["d"]),
                                          None, acts[0]["h"]), self.size)
            return self._row_at(live, version)

    def reach(self, live: LiveGame, version: int) -> None:
        """Bring ``live`` (its row read without the state) to ``version`` or later for a view:
        from what this process remembers of that version or the acts announced since
        (:meth:`advance`), else with one read of the row and its state, after which the game is
        cached for the table's other streams here. The streams of one game woken together wait
        for one reader instead of each reading."""
        if self._has(live, version) or self.advance(live, version):
            return
        with self._readers[live.pk % len(self._readers)]:
            if self._has(live, version) or self.advance(live, version):
                return
            # one statement built once, and the state's JSON text decoded by orjson: the ORM's
            # query and the standard library's decoder took two thirds of this read's CPU
            with prepared_cursor() as cursor:  # planned once per connection
                cursor.execute(queries.row_sql(), [live.pk])
                row = cursor.fetchone()
            if row is None:
                raise GameGone()
            live.version, live.status, live.turn_deadline, live.result_id, live.hosted, text = \
                queries.row_values(row)
            state = text if isinstance(text, dict) else fastjson.loads(text)
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
    if not _played(game, actions[done:]):
        return None
    game.auto_seats = set(state.get("auto_seats", []))
    return game if game.version == state["version"] else None


def _played(game: engine.Game, actions) -> bool:
    """Whether ``game`` took every one of ``actions`` (acts of the play as the record keeps
    them, in order); when not, it is left part way, and the caller drops it."""
    try:
        for action in actions:
            game.act(action["seat"], action)
    except (engine.IllegalAction, KeyError, TypeError, ValueError):
        return False
    return True


games = GameCache()
