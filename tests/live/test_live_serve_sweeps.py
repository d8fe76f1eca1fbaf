"""托管 without a broker (issue 52, item 9): ``make serve`` runs ``manage.py runserver`` with
Celery in-process, where nothing queues a timer; the development server runs the beat's sweeps
itself (live/sweeps.py, live/management/commands/runserver.py), so a silent seat is played by the
bot within its clock and one sweep interval."""

from __future__ import annotations

import http.client
import itertools
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
from django.conf import settings
from django.core.management import load_command_class

from live import sweeps

ROOT = Path(__file__).resolve().parents[2]
MOVE_SECONDS = 2
#: what a loaded 2-core host may add to an act's clock + sweep interval (a sweep pass, the act)
SLACK = 1.5

BUILD = """
from rest_framework.test import APIClient
from live import services as live
from tests.live.helpers import make_live_table
lt = make_live_table(move_seconds={move}, client_cls=APIClient)
print(live.live_start(table=lt.table).pk)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve_env(tmp: Path) -> dict:
    """The environment ``make serve`` gives runserver (DJANGO_DEBUG=1, no broker), on a SQLite
    file of the test's own."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CELERY_BROKER_URL", "CACHE_URL", "LIVE_PUBSUB_URL")}
    env.update(DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}", DJANGO_DEBUG="1",
               THROTTLE_ANON="100000/min", THROTTLE_LIVE="100000/min",
               DJANGO_SETTINGS_MODULE="config.settings", PYTHONUNBUFFERED="1")
    return env


def _view(port: int, live_id: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", f"/api/v1/live/{live_id}/")
    response = conn.getresponse()
    assert response.status == 200, response.read()[:500]
    return json.loads(response.read())


def _to_act(view: dict) -> int | None:
    return (view.get("to_act") or {}).get("seat")


@pytest.mark.slow  # (a runserver process, a seat's clock running out)
def test_make_serve_lets_the_bot_play_a_seat_whose_clock_ran_out(tmp_path):
    # given a migrated database with a live game whose move time is 2 s
    env = _serve_env(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env=env,
                   cwd=ROOT, check=True, timeout=300)
    built = subprocess.run([sys.executable, "manage.py", "shell", "-c",
                            BUILD.format(move=MOVE_SECONDS)],
                           env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    live_id = int(built.stdout.strip().splitlines()[-1])

    # when the server `make serve` starts runs (its autoreloader and all), and nobody acts
    port = _free_port()
    log_path = tmp_path / "runserver.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}"],
                                env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log_path.read_text()[-3000:]
            try:
                first = _view(port, live_id)
                break
            except OSError:
                assert time.monotonic() < deadline, "runserver did not answer"
                time.sleep(0.2)
        # then the bot plays each silent seat in turn (here the deal's questions: 开点 or not),
        # each within its clock + one sweep
        seen = [(time.monotonic(), first["version"], _to_act(first))]
        until = seen[0][0] + 3 * (MOVE_SECONDS + settings.LIVE_SWEEP_SECONDS + SLACK)
        while len(seen) < 4 and time.monotonic() < until:
            time.sleep(0.1)
            view = _view(port, live_id)
            if view["version"] != seen[-1][1]:
                seen.append((time.monotonic(), view["version"], _to_act(view)))
        assert len(seen) >= 3, (f"the bot played {len(seen) - 1} seat(s) in "
                                f"{until - seen[0][0]:.1f} s: {seen}\n"
                                + log_path.read_text()[-3000:])
        times = [at for at, _, _ in seen[1:]]  # (the first act may be due as the server starts)
        gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
        assert all(gap <= MOVE_SECONDS + settings.LIVE_SWEEP_SECONDS + SLACK for gap in gaps), (
            gaps)
        # (each act a clock after the one before: none played twice for one turn; the same seat
        # may act twice in a row, when the deal asks it two questions)
        assert all(gap >= MOVE_SECONDS - 0.5 for gap in gaps), f"played before the clock: {gaps}"
        assert "No broker: this process plays overdue live seats" in log_path.read_text()
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # (Ctrl-C: the reloader and its child)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_the_sweeps_start_once_a_process(monkeypatch):
    monkeypatch.setattr(sweeps, "_started", None)
    runs = []
    monkeypatch.setattr(sweeps, "run", lambda **kwargs: runs.append(kwargs))
    first = sweeps.start_in_background()
    assert first is not None and first.daemon
    first.join(5)
    assert sweeps.start_in_background() is None
    assert len(runs) == 1


@pytest.mark.parametrize("eager", [True, False])
def test_runserver_runs_the_sweeps_only_without_a_broker(monkeypatch, settings, eager):
    # given runserver as manage.py finds it (live's, not staticfiles')
    settings.CELERY_TASK_ALWAYS_EAGER = eager
    started = []
    monkeypatch.setattr(sweeps, "start_in_background", lambda: started.append(1) or object())
    command = load_command_class("live", "runserver")
    from django.core.management import get_commands

    assert get_commands()["runserver"] == "live"
    monkeypatch.setattr(type(command).__mro__[1], "on_bind", lambda self, port: None)

    # when the server has bound its port
    command.on_bind(8000)

    # then the sweeps run only when no broker is configured (beat sends them otherwise)
    assert started == ([1] if eager else [])


def test_a_failing_sweep_is_logged_and_the_next_runs(monkeypatch, caplog):
    calls = []
    stop = threading.Event()

    def overdue():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database is locked")
        stop.set()
        return 0

    monkeypatch.setattr(sweeps, "live_autoplay_overdue", overdue)
    monkeypatch.setattr(sweeps, "standings_sweep", lambda **kwargs: None)
    checked = []
    monkeypatch.setattr(sweeps, "close_old_connections", lambda: checked.append(1))
    sweeps.run(stop=stop, live_every=0.01, standings_every=60)
    assert len(calls) == 2
    assert len(checked) == 2, "the thread's connections are checked after every pass"
    assert "in-process sweep failed" in caplog.text
