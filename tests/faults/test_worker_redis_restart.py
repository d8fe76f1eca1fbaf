"""Fault test: the broker's Redis restarted under a running Celery worker (with beat in it).

A worker holds messages it has taken and not acknowledged: every 托管 timer waiting for its
countdown, every task running (``acks_late``). On a lost connection Celery 5.7.0 closes the
connection after ``collect()`` has detached its transport (celery/celery#10242); closing the
channel gives those messages back through a pool built from the detached connection's
``hostname``, and the ``AttributeError`` that raises, not being a connection error, ends the
worker: ``Unrecoverable error: AttributeError("'NoneType' object has no attribute
'hostname'")`` — standings go stale, 托管 stops. pyproject.toml keeps Celery below 5.7 for that.

Here, all of it private to the test: a ``redis-server`` on a free port of 127.0.0.1 without
persistence (tests/redisserver.py; never the shared one), and ``celery -A config worker
--beat`` on it with production's flags (gossip, mingle and heartbeats on) and pytest-django's
test database. With a 托管 timer held by the worker, Redis goes as :data:`OUTAGES` says
(restarted after 2 s; killed, as in a crash, and started 20 s later); the worker must be alive
after each outage and run what is queued after it: a standings recompute, and an overdue turn
played by the bot (by a 托管 timer the first time, by beat's sweep the second). Tasks this
process's services queue run in-process (eager): the worker gets only what the test sends it.

PostgreSQL only (the worker is another process and reads what the test commits); run with the
real-worker tests (``CELERY_BROKER_URL`` set, which it does not use).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from tests import celery_worker as shared
from tests.celery_worker import confirm_quietly, make_event, random_sheet
from tests.redisserver import PrivateRedis

REDIS_SERVER = shutil.which("redis-server")

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("CELERY_BROKER_URL"),
        reason="a real-worker test: it runs with the others (CELERY_BROKER_URL set, .ci/run's "
               "real-worker step), on a redis-server of its own"),
    pytest.mark.skipif(REDIS_SERVER is None,
                       reason="the Redis restart test starts its own redis-server: install it"),
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="the Redis restart test runs a worker in another process: it needs PostgreSQL "
               "(set DATABASE_URL=postgres://…)"),
    pytest.mark.django_db(transaction=True),
]

#: one outage after the other: how Redis goes (SIGTERM, as a restart; SIGKILL, as a crash) and
#: the seconds it stays down
OUTAGES = (("terminate", 2.0), ("kill", 20.0))
WAIT_SECONDS = 45.0   # bound of every wait (a worker retries its broker 2, 4, 6 … s apart)
AUTOPLAY = "games.tasks.live_autoplay_task"  # the 托管 timer (live/tasks.py keeps its name)
STANDINGS = "tournaments.tasks.standings_recompute_task"


def wait_until(predicate, what: str, detail=None):
    return shared.wait_until(predicate, what, WAIT_SECONDS, every=0.1, detail=detail)


def died(worker: shared.WorkerProcess, outage: int) -> str:
    """What the worker said as it exited, and the end of its log."""
    fatal = [line for line in worker.log_text().splitlines() if "CRITICAL" in line]
    return (f"the worker exited (code {worker.proc.returncode}) after outage {outage}: "
            f"{fatal[:1]}\n{worker.log_tail()}")


def held_task_ids(server: PrivateRedis) -> set[str]:
    """The tasks a worker took and has not acknowledged (kombu's ``unacked`` hash)."""
    import redis

    with redis.Redis.from_url(server.url(), socket_timeout=2) as client:
        return {json.loads(raw)[0]["headers"]["id"] for raw in client.hgetall("unacked").values()}


@pytest.fixture
def eager_here(settings):
    """Tasks the services queue in this process run here, at once (no 托管 timer is armed): the
    private broker gets only what the test sends."""
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = saved


@pytest.fixture
def redis_server():
    server = PrivateRedis().start()
    try:
        yield server
    finally:
        server.close()


class Sender:
    """Sends tasks by name to the private Redis, from a Celery app of its own (a producer on
    an explicit connection: ``CELERY_BROKER_URL`` in the environment would win over an app's
    ``broker``)."""

    def __init__(self, url: str):
        from celery import Celery

        self.url = url
        self.app = Celery("faults-sender", set_as_current=False)
        self.app.conf.update(task_serializer="json", accept_content=["json"])

    def send(self, name: str, args: tuple, **options) -> str:
        with self.app.connection_for_write(self.url) as conn:
            producer = self.app.amqp.Producer(conn)
            return self.app.send_task(name, args, producer=producer, **options).id


@pytest.fixture
def sender(redis_server):
    return Sender(redis_server.url())


@pytest.fixture
def worker(transactional_db, redis_server, tmp_path):
    """``celery worker`` with beat in it (as benchmarks/servers.py's CeleryWorker runs it) on
    the private Redis; killed before the test database is flushed."""
    process = shared.WorkerProcess(
        tmp_path / "worker.log", broker_url=redis_server.url(),
        args=["--pool", "prefork", "--concurrency", "1", "--loglevel", "INFO", "--beat",
              "--schedule", str(tmp_path / "beat-schedule")])
    try:
        yield process
    finally:
        process.stop()


def test_worker_survives_redis_restarts_and_runs_what_is_queued_after(
        eager_here, redis_server, sender, worker, referee):
    from games import services as game_services
    from games.models import GameResult
    from live import services as live
    from live.models import LiveGame
    from tests.live.helpers import make_live_table
    from tournaments.models import Event
    from tournaments.services.draws import round_draw
    from tournaments.services.rounds import round_create

    # given an event of one table with two games played, whose standings are computed
    event = make_event(6, games_per_match=2)
    table = round_draw(round_id=round_create(event=event).pk).tables.get()
    rng = random.Random(4)
    for number in (1, 2):
        game_services.result_submit(table=table, number=number, sheet=random_sheet(rng),
                                    by=referee)
    results = GameResult.objects.filter(table=table)
    # and a live game whose seat to act has ten minutes to act
    live_id = live.live_start(table=make_live_table(move_seconds=600,
                                                    client_cls=APIClient).table).pk
    # and the worker up, beat's 托管 sweep running through it
    wait_until(lambda: not worker.alive or "live_sweep_task" in worker.log_text(),
               "the worker to run beat's first 托管 sweep", detail=worker.log_tail)
    assert worker.alive, worker.log_tail()

    for number, (how, down) in enumerate(OUTAGES, 1):
        # and a 托管 timer armed for later, which the worker holds (taken, not acknowledged)
        version = LiveGame.objects.get(pk=live_id).version
        timer = sender.send(AUTOPLAY, (live_id, version), countdown=3600)
        wait_until(lambda timer=timer: timer in held_task_ids(redis_server),
                   "the worker to take the 托管 timer", detail=worker.log_tail)
        # and a result confirmed: the standings are stale
        confirm_quietly(results.filter(number=number))
        changes = Event.objects.get(pk=event.pk).results_version

        # when Redis is stopped, stays down a while and is started again
        getattr(redis_server, how)()
        time.sleep(down)
        redis_server.start()

        # then the worker runs a standings recompute queued after the restart
        sender.send(STANDINGS, (event.pk,))

        def standings_fresh(changes=changes):
            return Event.objects.get(pk=event.pk).standings_results_version >= changes

        wait_until(lambda: not worker.alive or standings_fresh(),
                   f"the standings recompute queued after outage {number} ({down} s)",
                   detail=worker.log_tail)
        assert worker.alive, died(worker, number)
        assert Event.objects.get(pk=event.pk).standings_results_version == changes

        # and the bot plays the seat once its move time is out: a 托管 timer queued now
        # (the first time) or beat's sweep (the second)
        LiveGame.objects.filter(pk=live_id).update(
            turn_deadline=timezone.now() - timedelta(seconds=1))
        if number == 1:
            sender.send(AUTOPLAY, (live_id, version))
        wait_until(lambda version=version: not worker.alive or
                   LiveGame.objects.get(pk=live_id).version > version,
                   f"the overdue turn to be played after outage {number}",
                   detail=worker.log_tail)
        assert worker.alive, died(worker, number)
        assert LiveGame.objects.get(pk=live_id).version == version + 1
