"""A revoked access ends its open streams at once (issue 51, item 2; live.access).

A seat's event stream (the live table page's by private link or signed in, the API's by token
or session) and a seat's long-poll show that seat's hand. The stream used to check its access
only every ``RECHECK`` (300 s): a revoked private link's stream sent 42 frames of its hand in
60 s. Here each change that ends an access — a link revoked or re-issued, a sign-out, a token
deleted, the seat's player given another login, the event unpublished — is made while a stream
(or a long-poll) waits, with ``RECHECK`` at its production value, and the stream must end within
:data:`PROMPT` seconds, having sent no view after it; the reconnect gets the refusal.

On the ASGI server's URLs (the streams are coroutines on the event loop) and on the sync
server's (a thread per stream), each in this process (the revocation is told in-process); and
across processes — a uvicorn or gunicorn server and another process that revokes — through Redis
pub/sub, and with Redis unreachable through the revocations' log in the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import AsyncClient, Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from live import notify
from live import services as live
from live.models import LiveGame
from tests.live.helpers import live_url, make_live_table
from tests.live.test_live_asgi import act_once, async_client, parse, read_views, until_waiting
from tests.live.test_live_events import parse as parse_chunks
from tests.live.test_live_events import read_in_thread
from tests.live.test_live_notify import redis_up
from tests.pages.test_live_table_views import links_of
from tournaments.models import Player, Seat
from tournaments.services.events import event_publish
from tournaments.services.links import entry_link_issue, entry_link_revoke

pytestmark = pytest.mark.django_db(transaction=True)

#: seconds within which a stream ends once its access is revoked
PROMPT = 1.5
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def started():
    lt = make_live_table(client_cls=APIClient)
    return lt, live.live_start(table=lt.table).pk


@pytest.fixture
def asgi(settings, monkeypatch):
    """The ASGI server's URLs, no pub/sub, and the dispatcher's reads finding nothing
    (SQLite's shared in-memory test database locks a table a reader is on): what reaches a
    stream is what this process tells it."""
    settings.ROOT_URLCONF = "config.asgi_urls"
    settings.LIVE_PUBSUB_URL = None
    monkeypatch.setattr(notify, "_read_versions", lambda ids: [])
    monkeypatch.setattr(notify, "_read_revocations", lambda since: [], raising=False)


def _ends_at_once(lt, live_id: int, client, url: str, revoke) -> list[dict]:
    """Open ``url``'s stream (an ASGI one), and once it waits make ``revoke`` (in a thread, as
    another request would); the stream must end within PROMPT. If it does not, the next act's
    view is what it sends: the test fails naming it. Returns the stream's views."""

    async def scenario():
        r = await client.get(url, headers={"Accept": "text/event-stream"})
        assert r.status_code == 200, r.content
        text: list[str] = []

        async def to_the_end():
            async for chunk in r.streaming_content:
                text.append(chunk.decode())

        reading = asyncio.ensure_future(to_the_end())
        await until_waiting(live_id)
        before = len(parse("".join(text)))
        await sync_to_async(revoke, thread_sensitive=False)()
        t0 = time.monotonic()
        try:
            await asyncio.wait_for(asyncio.shield(reading), PROMPT)
        except TimeoutError:
            with contextlib.suppress(AssertionError):  # (an unpublished game refuses acts)
                await sync_to_async(act_once, thread_sensitive=False)(lt, live_id)
            await asyncio.sleep(0.5)
            reading.cancel()
            after = parse("".join(text))[before:]
            hands = sum("hand" in view["data"] for view in after)
            pytest.fail(f"the stream went on for {PROMPT} s after the revocation, then sent "
                        f"{len(after)} view(s) more, {hands} with the seat's hand")
        took = time.monotonic() - t0
        views = parse("".join(text))
        assert len(views) == before, "a view was sent after the revocation"
        return views, took

    views, took = async_to_sync(scenario)()
    assert took < PROMPT
    return views


def _seat(lt, seat: int) -> Seat:
    return Seat.objects.select_related("entry", "player").get(table=lt.table, seat=seat)


# ----------------------------------------------------------------------------- ASGI, in-process
def test_revoking_a_private_link_ends_its_pages_stream_at_once(started, asgi):
    # given: the live table page's stream of seat 5, by its private link
    lt, live_id = started
    link = links_of(lt.table)[5]
    seat = _seat(lt, 5)
    url = f"{link}live/{live_id}/events/?seconds=60"
    # when: the link is revoked; then: the stream ends, with seat 5's hand sent only before
    views = _ends_at_once(lt, live_id, AsyncClient(), url, lambda: entry_link_revoke(
        entry=seat.entry, player=seat.player))
    assert views and "hand" in views[-1]["data"] and views[-1]["data"]["seat"] == 5
    # and the reconnect is refused
    assert async_to_sync(AsyncClient().get)(f"{link}live/{live_id}/events/").status_code == 404


def test_reissuing_a_private_link_ends_the_old_links_stream_at_once(started, asgi):
    lt, live_id = started
    link = links_of(lt.table)[2]
    seat = _seat(lt, 2)
    _ends_at_once(lt, live_id, AsyncClient(), f"{link}live/{live_id}/events/?seconds=60",
                  lambda: entry_link_issue(entry=seat.entry, player=seat.player))
    assert async_to_sync(AsyncClient().get)(f"{link}live/{live_id}/events/").status_code == 404


def test_signing_out_ends_the_signed_in_pages_stream_at_once(started, asgi):
    """The page's stream of a signed-in player (``/me/live/<id>/events/``) ends when that
    session signs out (``POST /accounts/logout/``, as the page's menu does), from another
    request than the stream's."""
    lt, live_id = started
    browser = AsyncClient()
    async_to_sync(browser.aforce_login)(lt.users[0])

    def sign_out():
        other = Client()
        other.cookies = browser.cookies  # (the same browser's session, another request)
        assert other.post("/accounts/logout/").status_code == 302

    _ends_at_once(lt, live_id, browser, f"/me/live/{live_id}/events/?seconds=60", sign_out)
    assert async_to_sync(browser.get)(f"/me/live/{live_id}/events/").status_code == 302


def test_deleting_a_token_ends_its_api_stream_at_once(started, asgi):
    lt, live_id = started
    client = async_client(lt.users[1])
    _ends_at_once(lt, live_id, client, f"/api/v1/live/{live_id}/events/?seconds=60",
                  lambda: Token.objects.filter(user=lt.users[1]).delete())
    assert async_to_sync(client.get)(f"/api/v1/live/{live_id}/events/").status_code == 401


def test_a_seat_whose_player_gets_another_login_ends_its_stream_at_once(started, asgi):
    """The seat's player is given another login (an organizer in the admin, who saves the
    player): the stream that showed the seat's hand on the old login ends, and that login's
    reconnect gets the public view."""
    lt, live_id = started
    client = async_client(lt.users[3])
    stand_in = type(lt.users[3]).objects.create_user("stand-in")

    def give_the_seat_away():
        player = Player.objects.get(pk=_seat(lt, 3).player_id)
        player.user = stand_in
        player.save()

    _ends_at_once(lt, live_id, client, f"/api/v1/live/{live_id}/events/?seconds=60",
                  give_the_seat_away)
    views = parse(async_to_sync(_all)(client, f"/api/v1/live/{live_id}/events/?seconds=0"))
    assert views[-1]["data"]["seat"] is None and "hand" not in views[-1]["data"]


def test_unpublishing_the_event_ends_its_seat_streams_at_once(started, asgi):
    lt, live_id = started
    client = async_client(lt.users[4])
    _ends_at_once(lt, live_id, client, f"/api/v1/live/{live_id}/events/?seconds=60",
                  lambda: event_publish(event=lt.event, published=False))
    assert async_to_sync(client.get)(f"/api/v1/live/{live_id}/events/").status_code == 404


def test_a_stream_whose_access_holds_is_not_ended_by_another_sessions_sign_out(started, asgi):
    """A revocation only makes a stream check: the player's token stream goes on when one of
    their browser sessions signs out, and shows the next act."""
    lt, live_id = started
    client = async_client(lt.users[2])
    browser = Client()
    browser.force_login(lt.users[2])

    async def scenario():
        r = await client.get(f"/api/v1/live/{live_id}/events/?seconds=60",
                             headers={"Accept": "text/event-stream"})
        reading = asyncio.ensure_future(read_views(r, want=2))
        await until_waiting(live_id)
        await sync_to_async(browser.post, thread_sensitive=False)("/accounts/logout/")
        await asyncio.sleep(0.3)  # (its check done)
        await until_waiting(live_id)
        moved = await sync_to_async(act_once, thread_sensitive=False)(lt, live_id)
        views = await reading
        await r.streaming_content.aclose()
        return moved, views

    moved, views = async_to_sync(scenario)()
    assert views[-1]["id"] == moved and views[-1]["data"]["seat"] == 2
    assert "hand" in views[-1]["data"]


def test_a_long_poll_whose_token_is_deleted_answers_at_once_without_the_hand(started, asgi):
    """The long-poll (``?since=&wait=``) waits on the event loop; its token is deleted: it
    answers at once as a request made now would (401), not with the seat's hand at the next
    act."""
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    client = async_client(lt.users[5])

    async def scenario():
        polling = asyncio.ensure_future(
            client.get(f"/api/v1/live/{live_id}/?since={version}&wait=20"))
        await until_waiting(live_id)
        await sync_to_async(Token.objects.filter(user=lt.users[5]).delete,
                            thread_sensitive=False)()
        t0 = time.monotonic()
        try:
            r = await asyncio.wait_for(asyncio.shield(polling), PROMPT)
        except TimeoutError:
            await sync_to_async(act_once, thread_sensitive=False)(lt, live_id)
            r = await asyncio.wait_for(polling, 5)
            pytest.fail(f"the long-poll waited on, then answered {r.status_code}, "
                        f"{'with' if 'hand' in r.json() else 'without'} the seat's hand")
        return r, time.monotonic() - t0

    r, took = async_to_sync(scenario)()
    assert took < PROMPT
    assert r.status_code == 401 and "hand" not in r.json()


async def _all(client, url) -> str:
    r = await client.get(url, headers={"Accept": "text/event-stream"})
    assert r.status_code == 200, r.content
    return "".join([chunk.decode() async for chunk in r.streaming_content])


# ----------------------------------------------------------------------------- WSGI, in-process
def _thread_ends(thread: threading.Thread, box: dict, revoke) -> float:
    before = box["views"]
    revoke()
    t0 = time.monotonic()
    thread.join(PROMPT)
    assert not thread.is_alive(), (
        f"the sync stream went on for {PROMPT} s after the revocation")
    assert "error" not in box, box.get("error")
    assert box["views"] == before, "a view was sent after the revocation"
    return time.monotonic() - t0


def test_under_wsgi_revoking_a_private_link_ends_its_pages_stream_at_once(started, waiting):
    lt, live_id = started
    link = links_of(lt.table)[1]
    seat = _seat(lt, 1)
    thread, box = read_in_thread(Client(), f"{link}live/{live_id}/events/?seconds=60",
                                 want=1000)
    assert waiting.acquire(timeout=10), "the stream never waited for the next move"
    _thread_ends(thread, box, lambda: entry_link_revoke(entry=seat.entry,
                                                                     player=seat.player))
    assert box["views"] == 1 and "hand" in parse_chunks(box["chunks"])[0]["data"]
    assert Client().get(f"{link}live/{live_id}/events/").status_code == 404


def test_under_wsgi_deleting_a_token_ends_its_api_stream_at_once(started, waiting):
    lt, live_id = started
    thread, box = read_in_thread(lt.clients[4], f"/api/v1/live/{live_id}/events/?seconds=60",
                                 want=1000)
    assert waiting.acquire(timeout=10), "the stream never waited for the next move"
    _thread_ends(thread, box, lambda: Token.objects.filter(user=lt.users[4]).delete())
    assert lt.clients[4].get(f"/api/v1/live/{live_id}/events/").status_code == 401


def test_under_wsgi_a_long_poll_whose_token_is_deleted_answers_at_once(started, waiting):
    lt, live_id = started
    version = LiveGame.objects.get(pk=live_id).version
    box = {}

    def poll():
        box["r"] = lt.clients[0].get(f"{live_url(live_id)}?since={version}&wait=20")

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    assert waiting.acquire(timeout=10), "the long-poll never waited"
    Token.objects.filter(user=lt.users[0]).delete()
    thread.join(PROMPT)
    assert not thread.is_alive(), f"the long-poll went on waiting for {PROMPT} s"
    assert box["r"].status_code == 401 and "hand" not in box["r"].json()


# ----------------------------------------------------------------------------- two processes
# A stream server (uvicorn, or gunicorn: the sync path) and another process that revokes, on
# one database (a SQLite file of their own) — told through Redis pub/sub, or, with Redis
# unreachable, through the revocations' log.

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(tmp: Path, pubsub: str) -> dict:
    return dict(os.environ, DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}",
                LIVE_PUBSUB_URL=pubsub, CELERY_BROKER_URL="", DJANGO_DEBUG="0",
                DJANGO_SECRET_KEY="revocations-" + "k" * 50, LOG_LEVEL="WARNING",
                DJANGO_SETTINGS_MODULE="config.settings", THROTTLE_ENGINE="100000/min",
                PYTHONPATH=str(ROOT))


def _script(env: dict, *args: str) -> str:
    """tests/live/revoking_process.py run in a process of its own: its last line of output."""
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("revoking_process.py")),
                           *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def shared_db(tmp_path_factory):
    """A SQLite file migrated, with a live game at a table whose seat 0 has a private link."""
    tmp = tmp_path_factory.mktemp("revocations")
    env = _env(tmp, "")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT,
                   check=True, timeout=300)
    return tmp, env


SERVERS = {
    "uvicorn": lambda port: [sys.executable, "-m", "uvicorn", "config.asgi:application",
                             "--host", "127.0.0.1", "--port", str(port), "--log-level",
                             "warning"],
    "gunicorn": lambda port: [sys.executable, "-m", "gunicorn", "config.wsgi:application",
                              "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread",
                              "--threads", "4", "--workers", "1"],
}


def _serve(name: str, env: dict, log_path: Path):
    port = _free_port()
    log = open(log_path, "w")  # noqa: SIM115 (closed by the caller)
    proc = subprocess.Popen(SERVERS[name](port), env=env, cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, log_path.read_text()[-3000:]
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/admin/login/")
            if conn.getresponse().status == 200:
                return proc, port, log
        except OSError:
            pass
        assert time.monotonic() < deadline, f"{name} did not answer"
        time.sleep(0.2)


def _read_stream(port: int, path: str, box: dict) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    box["status"] = response.status
    text = ""
    try:
        while chunk := response.read1(65536):
            text += chunk.decode()
            box["views"] = parse(text)
    except OSError as exc:
        box["error"] = repr(exc)
    box["ended"] = time.monotonic()


@pytest.mark.redis
@pytest.mark.slow  # (a uvicorn or gunicorn process for each case)
@pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379")
@pytest.mark.parametrize("server", ["uvicorn", "gunicorn"])
@pytest.mark.parametrize("redis", ["up", "unreachable"])
def test_a_link_revoked_in_another_process_ends_the_servers_stream_at_once(
        shared_db, server, redis, tmp_path):
    tmp, env = shared_db
    pubsub = ("redis://127.0.0.1:6379/3" if redis == "up"
              else f"redis://127.0.0.1:{_free_port()}/0")  # (nothing listens there)
    env = _env(tmp, pubsub)
    made = json.loads(_script(env, "build"))
    proc, port, log = _serve(server, env, tmp_path / "server.log")
    try:
        box: dict = {}
        reader = threading.Thread(target=_read_stream, daemon=True, args=(
            port, f"{made['link']}live/{made['live']}/events/?seconds=60", box))
        reader.start()
        deadline = time.monotonic() + 10
        while not box.get("views"):
            assert time.monotonic() < deadline, f"no first view: {box}"
            time.sleep(0.05)
        assert box["status"] == 200 and "hand" in box["views"][0]["data"]
        time.sleep(1.5)  # (the server's listener subscribed, or its log read done once)
        revoked_at = float(_script(env, "revoke", str(made["entry"]), str(made["player"])))
        reader.join(PROMPT + 1)
        assert not reader.is_alive(), (
            f"the {server} stream went on after the link was revoked elsewhere (Redis {redis})")
        assert box["ended"] - revoked_at < PROMPT, box["ended"] - revoked_at
        assert len(box["views"]) == 1
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # (still serving the stream that went on)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        log.close()
