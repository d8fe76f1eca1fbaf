"""Waking long-polls (live.notify): in the process at once, across processes through
Redis pub/sub, and by polling the stored version when there is no pub/sub."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

from live import notify as live_notify


def wait_in_thread(live_id, since, timeout, read_version):
    box = {}

    def run():
        t0 = time.monotonic()
        box["moved"] = live_notify.wait_for_version(live_id, since, timeout, read_version)
        box["took"] = time.monotonic() - t0

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture
def no_pubsub(settings):
    settings.LIVE_PUBSUB_URL = None


def test_an_announcement_in_the_process_wakes_the_waiter_at_once(no_pubsub):
    thread, box = wait_in_thread(9001, 4, 10.0, lambda: 4)
    time.sleep(0.1)
    assert not box, "the waiter returned before anything changed"
    live_notify._seen(9001, 5)  # what announce() runs once the act commits
    thread.join(2.0)
    assert box["moved"] == 5 and box["took"] < 2.0


def test_an_announcement_of_another_game_does_not_wake_the_waiter(no_pubsub):
    thread, box = wait_in_thread(9002, 4, 0.8, lambda: 4)
    live_notify._seen(9003, 50)
    thread.join(3.0)
    assert box == {"moved": None, "took": pytest.approx(0.8, abs=0.5)}


def test_a_version_already_past_answers_without_waiting(no_pubsub):
    t0 = time.monotonic()
    assert live_notify.wait_for_version(9004, 2, 10.0, lambda: 3) == 3
    assert time.monotonic() - t0 < 1.0


def test_without_pubsub_the_waiter_sees_a_change_by_polling_the_version(no_pubsub):
    stored = {"version": 7}
    thread, box = wait_in_thread(9005, 7, 10.0, lambda: stored["version"])
    time.sleep(0.3)
    stored["version"] = 8  # changed by another process, announced to nobody here
    thread.join(3.0)
    assert box["moved"] == 8 and box["took"] < 3.0


def test_nothing_new_returns_false_after_the_timeout(no_pubsub):
    t0 = time.monotonic()
    assert live_notify.wait_for_version(9006, 1, 0.5, lambda: 1) is None
    assert 0.4 < time.monotonic() - t0 < 2.0


@pytest.mark.redis
@pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")
def test_a_change_published_by_another_process_wakes_the_waiter_through_redis(settings):
    import redis

    settings.LIVE_PUBSUB_URL = "redis://127.0.0.1:6379/13"
    live_notify._client = None
    assert live_notify._ensure_listener() or live_notify._listener_ok.wait(5.0)
    stored = {"version": 3}  # the database would not show the change in time: only Redis does
    thread, box = wait_in_thread(9007, 3, 20.0, lambda: stored["version"])
    time.sleep(0.2)
    other = redis.Redis.from_url("redis://127.0.0.1:6379/13")
    other.publish(f"{live_notify.CHANNEL_PREFIX}9007", "4")
    thread.join(3.0)
    assert box["moved"] == 4 and box["took"] < 3.0


def test_a_waiter_reads_the_version_once_while_the_subscription_is_new(monkeypatch):
    """A change made between the caller's read and Redis confirming the subscription was
    announced to no one here: right after (re)subscribing, a waiter reads the version first."""
    working = threading.Event()
    working.set()  # pub/sub works (no Redis needed: only the waiter's logic is under test)
    monkeypatch.setattr(live_notify, "_ensure_listener", lambda: True)
    monkeypatch.setattr(live_notify, "_listener_ok", working)
    stored = {"version": 4}  # moved on from 3; no announcement will come
    monkeypatch.setattr(live_notify, "_subscribed_at", time.monotonic())
    t0 = time.monotonic()
    assert live_notify.wait_for_version(9008, 3, 10.0, lambda: stored["version"]) == 4
    assert time.monotonic() - t0 < 1.0
    # and with a subscription older than that, the waiter relies on the announcements
    monkeypatch.setattr(live_notify, "_subscribed_at", time.monotonic() - 60)
    assert live_notify.wait_for_version(9008, 3, 0.3, lambda: stored["version"]) is None


@pytest.mark.django_db(transaction=True)
def test_an_act_over_http_is_announced_once_its_answer_is_sent(live_table, no_pubsub):
    """The acting seat has its answer before the table's streams wake (they would take the
    CPU to render their views while the answer is still being written)."""
    import json

    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory
    from rest_framework.authtoken.models import Token

    from engine.game import Game
    from live import services as live
    from tests.live.helpers import act_url, bot_pick

    lg = live.live_start(table=live_table.table)
    seat, act = bot_pick(Game.from_state(lg.state), live_table.bots)
    token, _ = Token.objects.get_or_create(user=live_table.users[seat])
    environ = RequestFactory().post(
        act_url(lg.pk), json.dumps({"version": lg.version, **act}),
        content_type="application/json", HTTP_AUTHORIZATION=f"Token {token.key}").environ
    answered = []
    response = WSGIHandler()(environ, lambda status, headers: answered.append(status))
    assert answered == ["200 OK"], b"".join(response)
    # the act is stored, its answer ready, and no one here has been told yet
    assert live.LiveGame.objects.get(pk=lg.pk).version == lg.version + 1
    assert live_notify._latest.get(lg.pk, -1) < lg.version + 1
    b"".join(response)
    response.close()  # the server has sent the answer
    assert live_notify._latest[lg.pk] == lg.version + 1


@pytest.mark.django_db(transaction=True)
def test_outside_a_request_an_announcement_goes_out_at_once(no_pubsub):
    from django.db import transaction

    with transaction.atomic():
        live_notify.announce(9100, 4)
        assert live_notify._latest.get(9100, -1) < 4  # not before the commit
    assert live_notify._latest[9100] == 4


def test_the_publish_command_is_written_as_redis_py_packs_it():
    """The announcement's ``PUBLISH`` in Redis's protocol, formatted at once, is byte for byte
    what redis-py's own packing writes, whatever the data holds (line ends, spaces, bytes
    beyond ASCII, nothing, a large act)."""
    from redis.connection import Connection

    packer = Connection()
    for data in (b"", b"7", b"12 {\"seat\":3} 0f\r\n ab", bytes(range(256)), b"x" * 70_000):
        channel = f"gouji:live:{len(data)}"
        assert live_notify._publish_command(channel.encode(), data) == b"".join(
            packer.pack_command("PUBLISH", channel, data))


@pytest.mark.redis
@pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")
def test_the_publisher_delivers_every_announcement_in_order_without_waiting_for_replies(settings):
    """live.notify.Publisher writes each PUBLISH and reads the replies later, UNREAD at a time:
    more announcements than that reach a subscriber, in order, and a broken connection fails
    the publish written into it, the next one opening another connection."""
    import redis

    settings.LIVE_PUBSUB_URL = url = "redis://127.0.0.1:6379/13"
    subscriber = redis.Redis.from_url(url).pubsub(ignore_subscribe_messages=True)
    subscriber.subscribe("gouji:test:publisher")
    publisher = live_notify.Publisher()
    count = publisher.UNREAD * 2 + 5
    try:
        for n in range(count):
            publisher.publish("gouji:test:publisher", b"%d" % n)
        assert publisher._unread == 5  # (the others' replies read already)
        publisher.flush()
        assert publisher._unread == 0
        heard = []
        deadline = time.monotonic() + 5
        while len(heard) < count and time.monotonic() < deadline:
            message = subscriber.get_message(timeout=0.5)
            if message:
                heard.append(int(message["data"]))
        assert heard == list(range(count))
        # the server drops the publisher's connection: the publish written into it fails, then
        # the next one connects again and is heard
        publisher._connection.send_command("CLIENT", "ID")
        redis.Redis.from_url(url).client_kill_filter(_id=publisher._connection.read_response())
        failures = 0
        for _ in range(3):
            try:
                publisher.publish("gouji:test:publisher", b"again")
                publisher.flush()
            except redis.RedisError:
                failures += 1
        assert failures == 1  # (the publish written into the closed connection)
        message = subscriber.get_message(timeout=2)
        assert message and message["data"] == b"again"
    finally:
        publisher.close()
        subscriber.close()


@pytest.mark.redis
@pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")
def test_on_an_event_loop_announcements_go_out_a_turn_of_the_loop_in_one_write(
        settings, monkeypatch):
    """A stream server's acts are announced on its event loop's publisher (a redis.asyncio
    connection), never the process's, without the act waiting: the announcements of a turn of
    the loop in one write, those made while it is written in the next; each heard, in order."""
    import redis
    from redis.asyncio.connection import Connection

    from config import loopredis

    settings.LIVE_PUBSUB_URL = url = "redis://127.0.0.1:6379/12"
    subscriber = redis.Redis.from_url(url).pubsub(ignore_subscribe_messages=True)
    # (this game's channel only: pub/sub is one namespace for every database of the server, and
    # other processes' live games may be announced on it meanwhile)
    subscriber.subscribe(f"{live_notify.CHANNEL_PREFIX}990001")
    monkeypatch.setattr(live_notify._publisher, "publish", None)  # (not called on a loop)

    writes = []
    send = Connection.send_packed_command

    async def recorded(connection, command, check_health=True):
        writes.append(b"".join(command) if isinstance(command, list) else command)
        return await send(connection, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", recorded)

    async def run():
        for version in (1, 2, 3):
            live_notify.announce_committed(990_001, version)
        while not any(b"PUBLISH" in data for data in writes):  # (connected, the three sent)
            await asyncio.sleep(0.001)
        live_notify.announce_committed(990_001, 4)
        live_notify.announce_committed(990_001, 5)
        publisher = live_notify.LoopPublisher.of(asyncio.get_running_loop(), url)
        while publisher._sending is not None:
            await asyncio.sleep(0.01)
        await loopredis.close_all()

    try:
        asyncio.run(run())
        heard = []
        deadline = time.monotonic() + 5
        while len(heard) < 5 and time.monotonic() < deadline:
            message = subscriber.get_message(timeout=0.5)
            if message:
                heard.append(message["data"])
    finally:
        subscriber.close()
    assert heard == [b"1", b"2", b"3", b"4", b"5"]
    assert [data.count(b"PUBLISH") for data in writes if b"PUBLISH" in data] == [3, 2]


def test_a_forked_publisher_opens_its_own_connection_and_leaves_the_parents_open(monkeypatch):
    class Connection:
        closed = False

        def disconnect(self):
            self.closed = True

    publisher = live_notify.Publisher()
    parents = publisher._connection = Connection()
    publisher._pid, publisher._url = -1, "redis://127.0.0.1:1/0"  # another process's
    monkeypatch.setattr(live_notify, "_redis_url", lambda: "redis://127.0.0.1:1/0")
    import redis

    with pytest.raises(redis.ConnectionError):  # (nothing listens on port 1)
        publisher.publish("gouji:test:fork", b"1")
    assert not parents.closed and publisher._connection is None


def test_on_an_event_loop_a_dead_redis_opens_the_breaker_and_the_act_goes_on(settings):
    """Announcements on the loop to a Redis that is not there: the act is not held up (the
    publish returns at once), the failure opens the pub/sub breaker once the connection
    fails, and the announcements after it are skipped while it is open."""
    from config import loopredis, outage

    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    settings.LIVE_PUBSUB_URL = url = f"redis://127.0.0.1:{free.getsockname()[1]}/0"
    free.close()  # (nothing listens there now)
    sent = []

    async def run():
        publisher = live_notify.LoopPublisher.of(asyncio.get_running_loop(), url)
        publish = publisher.publish
        publisher.publish = lambda channel, data: (sent.append(data), publish(channel, data))
        started = time.monotonic()
        live_notify.announce_committed(990_002, 1)
        assert time.monotonic() - started < 0.05 and live_notify.latest(990_002) == 1
        while publisher._sending is not None:
            await asyncio.sleep(0.01)
        opened = outage.PUBSUB.is_open
        live_notify.announce_committed(990_002, 2)  # (skipped: the breaker is open)
        await loopredis.close_all()
        return opened

    outage.reset()
    try:
        assert asyncio.run(run()) is True
        assert sent == [b"1"] and live_notify.latest(990_002) == 2
    finally:
        outage.reset()
