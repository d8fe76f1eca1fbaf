"""A waiting live request (long-poll or event stream) gives its database connection back while
it waits, when connections come from a pool (PostgreSQL): hundreds of waiting seats must not
hold the pool's few connections (they did once, and every other request queued for one)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections
from rest_framework.test import APIClient

from live import notify as live_notify
from live import services as live
from live import streams
from tests.live.helpers import live_url, make_live_table
from tests.live.test_live_notify import redis_up
from tests.pg import backends

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pooled(monkeypatch, settings):
    """Connections 'from a pool' (close() gives them back) and waiters woken by Redis pub/sub,
    as in production: then a waiter reads nothing before it waits."""
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL backends")
    if not redis_up():
        pytest.skip("needs Redis on 127.0.0.1:6379 for pub/sub")
    monkeypatch.setattr(streams, "_pooled", lambda: True)
    settings.LIVE_PUBSUB_URL = "redis://127.0.0.1:6379/13"
    monkeypatch.setattr(live_notify, "_client", None)
    assert live_notify._ensure_listener() or live_notify._listener_ok.wait(5.0)


@pytest.mark.parametrize("kind", ["long-poll", "stream"])
def test_a_waiting_request_holds_no_connection(pooled, kind):
    lt = make_live_table(client_cls=APIClient)
    lg = live.live_start(table=lt.table)
    url = (f"{live_url(lg.pk)}?since={lg.version}&wait=3" if kind == "long-poll"
           else f"/api/v1/live/{lg.pk}/events/?since={lg.version}&seconds=3")
    before = backends()
    done = threading.Event()

    def wait():
        try:
            if kind == "stream":
                r = lt.clients[0].get(url, HTTP_ACCEPT="text/event-stream")
                b"".join(r.streaming_content)
            else:
                lt.clients[0].get(url)
        finally:
            connections.close_all()
            done.set()

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    time.sleep(1.0)  # the request has read the game and is waiting
    assert not done.is_set(), "the request did not wait"
    during = backends()
    assert during == before, f"the waiting request kept its connection ({before} → {during})"
    thread.join(10)
