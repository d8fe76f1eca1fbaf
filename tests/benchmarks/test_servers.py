"""The servers a benchmark starts are configured as production's are where it matters."""

from __future__ import annotations

import pytest
from django.conf import settings

import benchmarks.servers as servers
from benchmarks.servers import CeleryWorker, Gunicorn, Uvicorn


def test_every_server_of_a_run_shares_one_secret_key(monkeypatch):
    """The API signs the acts its announcements carry (live.notify); a stream server with
    another key drops them and reads every game instead: the 10,000-stream runs measured
    that, not the product, until the servers shared one key."""
    monkeypatch.delenv("DJANGO_SECRET_KEY", raising=False)
    api, streams = Gunicorn(workers=1, threads=2), Uvicorn(workers=1)
    key = api.env["DJANGO_SECRET_KEY"]
    assert key == streams.env["DJANGO_SECRET_KEY"] != settings.DEVELOPMENT_SECRET_KEY
    assert len(key) >= 50
    started, command = {}, []
    monkeypatch.setattr(servers.subprocess, "Popen",  # the worker's command, not run
                        lambda args, env, **kw: command.extend(args) or started.update(env)
                        or _NotRun())
    monkeypatch.setattr(CeleryWorker, "forget_earlier_runs", lambda self: None)
    CeleryWorker("redis://127.0.0.1:6379/12", "redis://127.0.0.1:6379/13").start()
    assert started["DJANGO_SECRET_KEY"] == key  # its 托管 acts are signed with it too
    assert "--beat" in command  # (the 托管 sweep plays the seats whose move time ran out)
    monkeypatch.setenv("DJANGO_SECRET_KEY", "the operator's own key, kept as it is given")
    assert Uvicorn(workers=1).env["DJANGO_SECRET_KEY"] == \
        "the operator's own key, kept as it is given"


class _NotRun:
    pid = 0

    def poll(self):
        return None


@pytest.mark.redis
@pytest.mark.django_db
def test_a_worker_starts_on_a_broker_emptied_of_earlier_runs_messages_and_games():
    """Queued messages and those a stopped worker held unacknowledged (Redis hands them to
    the next worker) are gone before the worker starts: an earlier run's 托管 timers would
    have it play that run's games; and so are the live games earlier runs left running, which
    the 托管 sweep would play — but not a game of any other event."""
    import uuid

    import redis

    from live import services as live
    from live.models import LiveGame
    from tests.live.helpers import make_live_table
    from tests.live.test_live_notify import redis_up
    from tournaments.models import Event

    if not redis_up():
        pytest.skip("needs Redis on 127.0.0.1:6379")
    broker = "redis://127.0.0.1:6379/11"
    client = redis.Redis.from_url(broker)
    client.rpush("celery", b"{}")
    client.hset("unacked", uuid.uuid4().hex, b"{}")
    client.zadd("unacked_index", {uuid.uuid4().hex: 1.0})
    earlier, other = make_live_table(), make_live_table()
    Event.objects.filter(pk=earlier.event.pk).update(slug=f"{servers.BENCH_EVENTS}1-2")
    left = live.live_start(table=earlier.table).pk
    kept = live.live_start(table=other.table).pk
    CeleryWorker(broker, "redis://127.0.0.1:6379/13").forget_earlier_runs()
    assert client.exists("celery", "unacked", "unacked_index") == 0
    assert LiveGame.objects.get(pk=left).status == LiveGame.Status.FINISHED
    assert LiveGame.objects.get(pk=kept).status == LiveGame.Status.RUNNING
