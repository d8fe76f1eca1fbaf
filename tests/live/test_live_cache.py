"""The per-process cache of live games (live.cache.GameCache): a cached game is exactly the
stored state, an act that fails leaves nothing stale behind, and refusals change nothing."""

from __future__ import annotations

import random
import time

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from engine.game import Game, IllegalAction
from live import cache
from live import services as live
from live.models import LiveGame
from tests.live.helpers import bot_pick, warm_game
from tournaments.errors import Conflict, ServiceError

SERVICE_KEYS = {"id", "table", "number", "status", "version", "turn_deadline", "auto_seats",
                "result", "hosted_seats"}  # what live_view sets itself
pytestmark = pytest.mark.django_db(transaction=True)  # on_commit fills the cache


def _cached(lg: LiveGame) -> Game | None:
    return cache.games._games.get(cache.games._key(lg, lg.version))


def test_every_cached_game_is_the_stored_state_through_a_whole_game(live_table):
    lg = live.live_start(table=live_table.table)
    bots = live_table.bots
    steps = 0
    while lg.status == LiveGame.Status.RUNNING:
        lg.refresh_from_db()
        stored = Game.from_state(lg.state)
        # every seat's view from the cache equals the view of a game rebuilt from the database
        for seat in (None, 0, 1, 2, 3, 4, 5):
            served, fresh = live.live_view(live=lg, seat=seat), stored.view(seat)
            assert {k: v for k, v in served.items() if k in fresh and k not in SERVICE_KEYS} \
                == {k: v for k, v in fresh.items() if k not in SERVICE_KEYS}
        cached = _cached(lg)
        assert cached is not None and cached.to_state() == lg.state
        seat, act = bot_pick(stored, bots)
        lg = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
        steps += 1
    assert steps > 20
    lg.refresh_from_db()
    assert lg.result is not None


def test_an_act_rolled_back_after_the_engine_took_it_leaves_no_cached_game(live_table):
    lg = live.live_start(table=live_table.table)
    stored = Game.from_state(lg.state)
    seat, act = bot_pick(stored, live_table.bots)
    with pytest.raises(RuntimeError), transaction.atomic():
        moved = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
        raise RuntimeError("the database failed after the act")
    assert moved.version == lg.version + 1
    lg.refresh_from_db()
    assert lg.version == moved.version - 1  # nothing was stored
    assert not any(key[0] == lg.pk and key[2] >= moved.version for key in cache.games._games)
    # the same act, made again, is applied to the stored state (the cache rebuilt it)
    again = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
    assert again.version == moved.version
    assert _cached(again).to_state() == LiveGame.objects.get(pk=lg.pk).state


def test_a_refused_act_keeps_the_cached_game_unchanged(live_table):
    lg = live.live_start(table=live_table.table)
    stored = Game.from_state(lg.state)
    seat, act = bot_pick(stored, live_table.bots)
    other = (seat + 1) % 6
    live.live_view(live=lg, seat=None)  # cached now
    before = _cached(lg).to_state()
    with pytest.raises(ServiceError):
        live.live_act(live_id=lg.pk, seat=other, action={"act": "play", "cards": ["XX"]},
                      version=lg.version)
    assert _cached(lg).to_state() == before == LiveGame.objects.get(pk=lg.pk).state


def test_the_cache_keeps_at_most_its_size(live_table):
    small = cache.GameCache(size=3)
    lg = live.live_start(table=live_table.table)
    game = Game.from_state(lg.state)
    rng = random.Random(3)
    for _ in range(6):
        seat, act = bot_pick(game, live_table.bots)
        game.act(seat, act)
        small.put(lg, Game.from_state(game.to_state()))
        rng.random()
    assert len(small._games) == 3
    assert max(key[2] for key in small._games) == game.version


def test_an_older_cached_game_catches_up_to_every_later_state_exactly(live_table):
    """Another process moved the game on: this one brings its older copy up to date with the
    recorded acts, and gets exactly what a full replay of the stored state gives."""
    lg = live.live_start(table=live_table.table)
    states = [lg.state]
    while lg.status == LiveGame.Status.RUNNING:
        game = Game.from_state(lg.state)
        seat, act = bot_pick(game, live_table.bots)
        lg = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
        lg.refresh_from_db()
        states.append(lg.state)
    caught = 0
    for i, older in enumerate(states):
        for later in states[i + 1:i + 6]:
            base = Game.from_state(older)
            game = cache._catch_up(base, later)
            if game is None:
                assert Game.from_state(older).state == "pre" or later["record"]["leader"] is None \
                    or Game.from_state(later).state != "play" or base.state != "play", \
                    "a game in play did not catch up"
                continue
            caught += 1
            assert game.to_state() == Game.from_state(later).to_state()
    assert caught > 100


def test_a_cache_miss_builds_from_an_older_version_without_a_full_replay(live_table,
                                                                         monkeypatch):
    lg = live.live_start(table=live_table.table)
    while Game.from_state(lg.state).state != "play":
        game = Game.from_state(lg.state)
        seat, act = bot_pick(game, live_table.bots)
        lg = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
        lg.refresh_from_db()
    older = Game.from_state(lg.state)  # what this process holds at this version
    for _ in range(3):  # three acts "in another process": not cached here
        game = Game.from_state(lg.state)
        seat, act = bot_pick(game, live_table.bots)
        lg = live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
        lg.refresh_from_db()
    cache.games.clear()
    cache.games.put(lg, older)
    replays = []
    real = Game.from_state
    monkeypatch.setattr(Game, "from_state", classmethod(
        lambda cls, state: replays.append(1) or real(state)))
    view = live.live_view(live=lg, seat=None)
    assert replays == [], "the game was replayed in full"
    assert view["version"] == lg.version
    assert _cached(lg).to_state() == lg.state


def _statements(queries) -> list[str]:
    """The SQL verbs sent, without transaction control."""
    verbs = [q["sql"].split(None, 1)[0].upper() for q in queries]
    return [v for v in verbs if v not in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")]


def test_an_act_is_one_locked_read_and_one_write(live_table):
    """The hot path of live play: the row with the user's seat in one query, one update."""
    lg = live.live_start(table=live_table.table)
    game = Game.from_state(lg.state)
    live.live_view(live=lg, seat=None)  # this process has the game cached
    seat, act = bot_pick(game, live_table.bots)
    with CaptureQueriesContext(connection) as queries:
        moved = live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act,
                              version=lg.version)
    assert moved.user_seat == seat and moved.version == lg.version + 1
    assert _statements(queries) == ["SELECT", "UPDATE"], [q["sql"] for q in queries]


def test_an_act_in_a_game_this_process_knows_is_one_conditional_update(live_table):
    lg, game = warm_game(live_table)
    seat, act = bot_pick(game, live_table.bots)
    with CaptureQueriesContext(connection) as queries:
        moved = live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act,
                              version=lg.version)
    assert _statements(queries) == ["UPDATE"], [q["sql"] for q in queries]
    assert moved.user_seat == seat and moved.version == lg.version + 1
    stored = LiveGame.objects.get(pk=lg.pk)
    assert stored.version == moved.version and stored.turn_deadline == moved.turn_deadline
    game.act(seat, dict(act))
    assert stored.state == game.to_state() == _cached(moved).to_state()


def test_an_act_made_in_another_process_meanwhile_is_read_once_then_one_update(live_table):
    lg, game = warm_game(live_table)
    # another process acts: this one's cache is behind
    seat, act = bot_pick(game, live_table.bots)
    live.live_act(live_id=lg.pk, seat=seat, action=act, version=lg.version)
    cache.games._games.clear()
    game = Game.from_state(LiveGame.objects.get(pk=lg.pk).state)
    seat, act = bot_pick(game, live_table.bots)
    with CaptureQueriesContext(connection) as queries:
        moved = live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act,
                              version=game.version)
    assert _statements(queries) == ["SELECT", "UPDATE"], [q["sql"] for q in queries]
    assert "FOR UPDATE" not in queries[0]["sql"] and moved.version == game.version + 1
    game.act(seat, dict(act))
    assert LiveGame.objects.get(pk=lg.pk).state == game.to_state()


def _refused_unchanged(live_table, lg, seat, act, version, exc_type, code):
    before = LiveGame.objects.values_list("version", "state", "status").get(pk=lg.pk)
    with pytest.raises(exc_type) as refused:
        live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act, version=version)
    assert refused.value.code == code
    assert LiveGame.objects.values_list("version", "state", "status").get(pk=lg.pk) == before


def test_a_known_seat_no_longer_the_users_is_refused_by_the_update(live_table):
    from tournaments.models import Seat
    from tournaments.services.players import player_create

    lg, game = warm_game(live_table)
    seat, act = bot_pick(game, live_table.bots)
    # given the seat's player replaced by a substitute after this process learnt the seat
    substitute = player_create(name="Substitute")
    Seat.objects.filter(table=live_table.table, seat=seat).update(player=substitute)
    # then the replaced player's act is refused (they sit nowhere now), and nothing changed
    _refused_unchanged(live_table, lg, seat, act, lg.version, live.NotSeated, "not_seated")


def test_a_known_seat_acts_no_more_once_the_seating_is_taken_back(live_table):
    from tournaments.models import Round

    lg, game = warm_game(live_table)
    seat, act = bot_pick(game, live_table.bots)
    Round.objects.filter(tables=live_table.table).update(status=Round.Status.DRAWN)
    _refused_unchanged(live_table, lg, seat, act, lg.version, live.NotSeated, "not_seated")


def test_a_stale_or_illegal_act_in_a_known_game_is_refused_with_its_code(live_table):
    lg, game = warm_game(live_table)
    seat, act = bot_pick(game, live_table.bots)
    _refused_unchanged(live_table, lg, seat, act, lg.version - 1, Conflict, "stale_version")
    illegal = {"act": "play", "cards": ["RJ"] * 5}
    with pytest.raises(IllegalAction) as engine_says:
        Game.from_state(lg.state).act(seat, dict(illegal))
    _refused_unchanged(live_table, lg, seat, illegal, lg.version, ServiceError,
                       engine_says.value.code)
    # and the game is still cached at its version: the next act is one update again
    with CaptureQueriesContext(connection) as queries:
        live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act, version=lg.version)
    assert _statements(queries) == ["UPDATE"]


def _streams_behind(live_table, acts: int) -> list[LiveGame]:
    """Six seats' streams (rows read without the state) of a new game, then ``acts`` acts made
    "in another process": this process has cached none of their versions."""
    lg = live.live_start(table=live_table.table)
    streams = [LiveGame.objects.defer("state").get(pk=lg.pk) for _ in range(6)]
    for _ in range(acts):
        game = Game.from_state(LiveGame.objects.get(pk=lg.pk).state)
        seat, act = bot_pick(game, live_table.bots)
        live.live_act(live_id=lg.pk, seat=seat, action=act, version=game.version)
    cache.games.clear()
    return streams


def test_a_stream_in_another_process_reads_a_new_version_once_for_all_its_seats(live_table):
    streams = _streams_behind(live_table, 3)
    stored = LiveGame.objects.get(pk=streams[0].pk)
    # when the six seats' streams of this process reach the new version
    with CaptureQueriesContext(connection) as queries:
        for stream in streams:
            cache.games.reach(stream, stored.version)
    # then the first one read the row and its state, once; the others used what it read
    assert _statements(queries) == ["SELECT"]
    for seat, stream in enumerate(streams):
        assert (stream.version, stream.status, stream.turn_deadline) == (
            stored.version, stored.status, stored.turn_deadline)
        assert live.live_view(live=stream, seat=seat)["hand"] == \
            Game.from_state(stored.state).view(seat)["hand"]


def test_streams_woken_together_read_a_new_version_once(live_table, monkeypatch):
    import threading

    from django.db import connections

    streams = _streams_behind(live_table, 2)
    version = streams[0].version + 2
    builds = []
    build = cache.games._build

    def slow_build(live_game, state=None):  # long enough for every stream to ask meanwhile
        builds.append(1)
        time.sleep(0.3)
        return build(live_game, state)

    monkeypatch.setattr(cache.games, "_build", slow_build)
    # when the six streams of this process are woken at the same instant
    barrier, errors = threading.Barrier(6), []

    def wake(stream):
        try:
            barrier.wait(timeout=10)
            cache.games.reach(stream, version)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=wake, args=(s,)) for s in streams]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    # then one of them read and built the game; the others waited for it
    assert not errors and builds == [1]
    assert all(s.version == version for s in streams)


def test_the_act_that_ends_a_known_game_is_not_replayed_again(live_table, monkeypatch):
    lg, game = warm_game(live_table)
    # given the game played on to its last act, through this process
    while True:
        seat, act = bot_pick(game, live_table.bots)
        after = Game.from_state(game.to_state())
        after.act(seat, dict(act))
        if after.state == "over":
            break
        lg = live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act,
                           version=game.version)
        game = after
    # when its last act is made, the game is not rebuilt from the stored state for it
    rebuilt = []
    monkeypatch.setattr(live.engine.Game, "from_state",
                        classmethod(lambda cls, state: rebuilt.append(1) or None))
    with CaptureQueriesContext(connection) as queries:
        ended = live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act,
                              version=game.version)
    assert rebuilt == []
    # nor is the result looked up as a submission's retry would be: the game's row, its table
    # with the event (both locked), the result under that lock, then the writes (what follows
    # the commit is the standings' recomputation, run eagerly here)
    own = queries[:[q["sql"] for q in queries].index("COMMIT")]
    # the result and its version: one statement on PostgreSQL (tournaments.sqlrows)
    inserts = ["WITH"] if connection.vendor == "postgresql" else ["INSERT", "INSERT"]
    assert _statements(own) == ["SELECT", "SELECT", "SELECT", *inserts, "UPDATE", "UPDATE"], \
        "\n".join(q["sql"][:150] for q in own)
    # and the result is stored with the game's record
    assert ended.status == LiveGame.Status.FINISHED and ended.result is not None
    assert ended.result.versions.get().payload == after.record()


def test_without_the_fast_path_an_act_in_a_known_game_takes_the_lock(live_table, settings):
    lg, game = warm_game(live_table)
    settings.LIVE_FAST_PATH = False
    seat, act = bot_pick(game, live_table.bots)
    with CaptureQueriesContext(connection) as queries:
        moved = live.live_act(live_id=lg.pk, user=live_table.users[seat], action=act,
                              version=lg.version)
    assert _statements(queries) == ["SELECT", "UPDATE"], [q["sql"] for q in queries]
    assert any(q["sql"].startswith("SELECT lg.") for q in queries)  # live.locks.lock_live
    assert moved.user_seat == seat and moved.version == lg.version + 1
