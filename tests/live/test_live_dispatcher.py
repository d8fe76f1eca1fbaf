"""The async waiters' dispatcher (live.notify.Dispatcher): one pub/sub subscription for every
waiter of an event loop, a fan-out to the waiters of the game announced, waiters removed however
they end, and the stored versions of every game waited on read in one query."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from asgiref.sync import async_to_sync

from live import notify
from tests.live.test_live_notify import redis_up

REDIS = "redis://127.0.0.1:6379/2"

# (the reads are replaced below, but the stream database threads check their connections
# before each, as a request would: live.aio)
pytestmark = pytest.mark.django_db


@pytest.fixture
def reads(monkeypatch):
    """The dispatcher's version reads, recorded: ``stored`` (id -> version) is what they find."""
    box = {"calls": [], "stored": {}}

    def read(ids):
        box["calls"].append(sorted(ids))
        return [(i, box["stored"][i]) for i in ids if i in box["stored"]]

    monkeypatch.setattr(notify, "_read_versions", read)
    return box


async def _waiters(games: dict[int, int], per_game: int, timeout: float):
    """``per_game`` waiters on each game (id -> the version they have), as tasks."""
    return {live_id: [asyncio.ensure_future(notify.wait_for_version_async(live_id, since, timeout))
                      for _ in range(per_game)]
            for live_id, since in games.items()}


async def _until(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


def test_an_announcement_wakes_every_waiter_of_its_game_and_no_other(settings, reads):
    settings.LIVE_PUBSUB_URL = None

    async def scenario():
        tasks = await _waiters({7001: 3, 7002: 3}, per_game=400, timeout=2.0)
        hub = notify.dispatcher()
        await _until(lambda: hub.waiting() == 800)
        t0 = time.monotonic()
        # an act served by another thread of this process announces the game's version
        threading.Thread(target=notify._seen, args=(7001, 4)).start()
        woken = await asyncio.gather(*tasks[7001])
        took = time.monotonic() - t0
        others = await asyncio.gather(*tasks[7002])
        return woken, took, others, hub.waiting()

    woken, took, others, left = async_to_sync(scenario)()
    assert woken == [4] * 400 and took < 1.0
    assert others == [None] * 400  # timed out: their game did not move
    assert left == 0  # every waiter removed itself


def test_a_cancelled_waiter_is_removed(settings, reads):
    settings.LIVE_PUBSUB_URL = None

    async def scenario():
        tasks = await _waiters({7003: 1}, per_game=50, timeout=30.0)
        hub = notify.dispatcher()
        await _until(lambda: hub.waiting() == 50)
        for task in tasks[7003]:
            task.cancel()  # the clients left (the server cancels their requests)
        await asyncio.gather(*tasks[7003], return_exceptions=True)
        return hub.waiting(), hub._waiters

    assert async_to_sync(scenario)() == (0, {})


def test_without_pubsub_one_query_reads_the_versions_of_all_games_waited_on(settings, reads):
    settings.LIVE_PUBSUB_URL = None
    games = {7100 + k: 10 for k in range(50)}
    reads["stored"] = {7100 + k: 10 + (k % 2) for k in range(50)}  # every other game moved

    async def scenario():
        tasks = await _waiters(games, per_game=6, timeout=1.5)
        return {live_id: await asyncio.gather(*ts) for live_id, ts in tasks.items()}

    t0 = time.monotonic()
    got = async_to_sync(scenario)()
    assert time.monotonic() - t0 < 5
    assert all(got[7100 + k] == [11] * 6 for k in range(1, 50, 2))
    assert all(got[7100 + k] == [None] * 6 for k in range(0, 50, 2))
    # 300 waiters, a read every FALLBACK_POLL or so for all of them: not one per waiter
    assert reads["calls"] and len(reads["calls"]) <= 1.5 / notify.FALLBACK_POLL + 2
    assert reads["calls"][0] == sorted(games)


@pytest.mark.redis
@pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")
def test_thousands_of_waiters_share_one_subscription(settings, reads):
    import redis

    settings.LIVE_PUBSUB_URL = REDIS
    publisher = redis.Redis.from_url(REDIS)

    async def scenario():
        games = {7200 + k: 5 for k in range(300)}
        tasks = await _waiters(games, per_game=6, timeout=20.0)  # 1,800 waiting streams
        hub = notify.dispatcher()
        await _until(lambda: hub.subscribed and hub.waiting() == 1800)
        for live_id in games:  # another process's acts, announced through Redis
            publisher.publish(f"{notify.CHANNEL_PREFIX}{live_id}", "6")
        got = await asyncio.wait_for(
            asyncio.gather(*(t for ts in tasks.values() for t in ts)), 10)
        return got, hub.subscriptions, hub.waiting()

    got, subscriptions, left = async_to_sync(scenario)()
    assert got == [6] * 1800
    assert subscriptions == 1  # one Redis connection for all of them
    assert left == 0


def test_a_version_already_known_wakes_no_waiter(settings, reads, monkeypatch):
    """Only a newer version wakes a game's waiters: the echo through Redis of an act this
    process announced, or a safety read that finds the version unchanged, wakes none (each
    woken waiter re-arms its wait; at 10,000 streams, every safety read woke them all). The
    act such an announcement carries is kept all the same."""
    settings.LIVE_PUBSUB_URL = None
    woken = []

    async def scenario():
        hub = notify.dispatcher()
        wake = hub._wake
        monkeypatch.setattr(hub, "_wake", lambda live_id: (woken.append(live_id),
                                                           wake(live_id)))
        notify._seen(7301, 5)
        tasks = await _waiters({7301: 5}, per_game=6, timeout=5.0)
        await _until(lambda: hub.waiting() == 6)
        notify._seen(7301, 5, {"seat": 1, "act": "pass", "d": 0, "t": 0, "h": 0})  # an echo
        notify._seen(7301, 4)  # an older one, late
        await asyncio.sleep(0.05)
        before = list(woken)
        notify._seen(7301, 6)
        return before, await asyncio.gather(*tasks[7301])

    before, got = async_to_sync(scenario)()
    assert before == []
    assert got == [6] * 6 and woken == [7301]
    assert notify.announced_act(7301, 5)["act"] == "pass"


@pytest.mark.redis
@pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")
def test_the_subscription_is_kept_alive_and_made_again_when_redis_drops_it(settings, reads,
                                                                          monkeypatch):
    """A quiet subscription is pinged and stays; one Redis closes (``CLIENT KILL``), or that
    stops answering (``CLIENT PAUSE``), is made again, and the announcements wake the waiters
    after it as before."""
    import redis

    settings.LIVE_PUBSUB_URL = REDIS
    monkeypatch.setattr(notify._Subscriber, "HEALTH", 0.2)
    admin = redis.Redis.from_url(REDIS)

    async def woken(live_id: int, hub) -> int:
        task = asyncio.ensure_future(notify.wait_for_version_async(live_id, 1, 10.0))
        await _until(lambda: hub.waiting() == 1)
        admin.publish(f"{notify.CHANNEL_PREFIX}{live_id}", "2")
        return await asyncio.wait_for(task, 5)

    async def scenario():
        hub = notify.dispatcher()
        asyncio.ensure_future(notify.wait_for_version_async(7300, 1, 0.05))  # (starts it)
        await _until(lambda: hub.subscribed)
        await asyncio.sleep(0.7)  # three pings answered: the same connection
        quiet = hub.subscriptions
        assert await woken(7301, hub) == 2
        admin.client_kill_filter(_type="pubsub")
        await _until(lambda: hub.subscriptions == quiet + 1 and hub.subscribed)
        assert await woken(7302, hub) == 2
        admin.execute_command("CLIENT", "PAUSE", "900", "ALL")  # no answer to its ping
        await _until(lambda: hub.subscriptions == quiet + 2 and hub.subscribed, timeout=6.0)
        assert await woken(7303, hub) == 2
        return quiet

    assert async_to_sync(scenario)() == 1


def test_long_waits_share_a_timer_a_slice_and_end_within_it_after_their_timeout(settings,
                                                                                  reads):
    """Waits of a second or more end on the dispatcher's timers, one for all the waits that
    end in one slice of :data:`notify.EXPIRY_SLICE` (a timer made and freed for every wait was
    4 % of a stream server's samples); a woken wait leaves its slice at once, and a short wait
    keeps a timer of its own, to the millisecond."""
    settings.LIVE_PUBSUB_URL = None

    async def scenario():
        loop = asyncio.get_running_loop()
        hub = notify.dispatcher()
        timers, call_at = [], loop.call_at

        def counted(when, callback, *args, **kwargs):
            timers.append(getattr(callback, "__name__", callback))
            return call_at(when, callback, *args, **kwargs)

        loop.call_at = counted
        try:
            t0 = loop.time()
            tasks = [asyncio.ensure_future(notify.wait_for_version_async(7400 + i % 2, 1, 1.2))
                     for i in range(50)]
            await _until(lambda: hub.waiting() == 50)
            notify._seen(7400, 2)  # (an act of this process: half the waits woken)
            assert await asyncio.gather(*tasks[0::2]) == [2] * 25
            assert sum(len(waits) for waits in hub._expiring.values()) == 25
            assert await asyncio.gather(*tasks[1::2]) == [None] * 25
            long_wait = loop.time() - t0
            assert hub._expiring == {} and hub.waiting() == 0
            assert 1 <= timers.count("_expire") <= 2 and "_resolve" not in timers  # (a slice
            # boundary may fall between the first wait and the last)
            t1 = loop.time()
            assert await notify.wait_for_version_async(7402, 1, 0.05) is None
            short_wait = loop.time() - t1
            assert timers.count("_resolve") == 1
        finally:
            del loop.call_at
        return long_wait, short_wait

    long_wait, short_wait = async_to_sync(scenario)()
    assert 1.2 <= long_wait < 1.2 + notify.EXPIRY_SLICE + 0.3
    assert 0.05 <= short_wait < 0.25


def test_a_revocation_in_the_log_reaches_only_its_keys_watches_for_one_read_for_all(
        settings, reads, monkeypatch):
    """Without pub/sub, the dispatcher reads the revocations' log with the versions, once per
    FALLBACK_POLL for all the streams of the loop (not once per stream); a revocation found
    there wakes the waits that watch its key (the user's streams), and no other."""
    settings.LIVE_PUBSUB_URL = None
    logged = {"rows": [], "reads": 0}

    def read_log(since):
        logged["reads"] += 1
        return list(logged["rows"])

    monkeypatch.setattr(notify, "_read_revocations", read_log)

    async def scenario():
        loop = asyncio.get_running_loop()
        watches = [notify.watch((f"u:{i}", "e:1"), loop) for i in range(300)]
        tasks = [asyncio.ensure_future(notify.wait_for_version_async(7500 + i % 50, 1, 3.0, w))
                 for i, w in enumerate(watches)]
        hub = notify.dispatcher()
        await _until(lambda: hub.waiting() == 300)
        t0, before = time.monotonic(), logged["reads"]
        logged["rows"] = [(41, "u:7 u:8")]  # (written by another process)
        woken = await asyncio.wait_for(asyncio.gather(tasks[7], tasks[8]), 2)
        took = time.monotonic() - t0
        await asyncio.sleep(0.5)
        pending = sum(not t.done() for t in tasks)
        reads_in = logged["reads"] - before, time.monotonic() - t0
        for w in watches:
            notify.unwatch(w)
        await asyncio.gather(*tasks)
        return woken, took, [w.revoked for w in watches], pending, reads_in

    woken, took, revoked, pending, (reads, seconds) = async_to_sync(scenario)()
    assert woken == [None, None] and took < 1.0
    assert [i for i, r in enumerate(revoked) if r] == [7, 8]
    assert pending == 298  # the others wait on, unchecked
    assert reads <= seconds / notify.FALLBACK_POLL + 2  # one read for all 300


def test_a_malformed_revocation_message_is_dropped_and_a_heard_one_is_told_once():
    watched = notify.watch(("u:9",))
    try:
        for data in (b"", b"x u:9", b"\xff", None):
            notify._revocation_message(data)
        assert not watched.revoked
        notify._revocation_message(b"77 u:9")
        assert watched.revoked and watched.event.is_set()
        watched.revoked = False
        notify.revoked(["u:9"], 77)  # (the same row, read from the log later)
        assert not watched.revoked
    finally:
        notify.unwatch(watched)
