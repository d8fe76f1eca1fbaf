"""Checks of the running production layout through its nginx (`deploy/prod-local start` first;
.ci/run's step 6; docs/DEPLOY.md, "Checking a layout"):

1. a public page and a static file (the file served by nginx itself: no upstream in its log
   line), and the micro-cache's rules: a response with Set-Cookie is never served from the
   cache, a signed-in request never is, the console is not cached at all;
2. live games dealt through the API; an event stream whose first event arrives while the
   stream is still open, and the next one, after an act, too (nginx does not buffer it);
3. an act accepted (200) on the uvicorn process of its game;
4. every live request of a game answered by one uvicorn process: nginx's access log names
   the upstream of each request (``upstream=127.0.0.1:PORT``), and each game's are all one;
5. the worker killed (its whole process group, SIGKILL): supervisord starts it again, and a
   result confirmed meanwhile reaches the standings once it is back.

    .venv/bin/python deploy/check_prod_local.py [--run-dir .prod-local]

Prints what it saw; exits 1 at the first check that fails. It creates its own event (a slug
``layout-check-…``) in the layout's database through the services."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES_LIVE = 3  # games dealt live: enough for the hash to spread them over the processes
STARTED = time.monotonic()
#: where nginx's access log stood when the checks began: only the lines after it are theirs
LOG_FROM = 0


def say(text: str) -> None:
    print(f"[{time.monotonic() - STARTED:6.1f} s] {text}", flush=True)


def fail(text: str) -> None:
    print(f"FAILED: {text}", file=sys.stderr, flush=True)
    sys.exit(1)


def check(condition, text: str) -> None:
    if not condition:
        fail(text)


def load_env(run_dir: Path) -> None:
    for line in (run_dir / "env").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            os.environ[key] = value
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class Site:
    """HTTPS requests to the layout's nginx, checking its certificate."""

    def __init__(self, port: int, cafile: Path):
        self.port = port
        self.context = ssl.create_default_context(cafile=str(cafile))

    def connection(self, timeout: float = 15) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection("localhost", self.port, context=self.context,
                                           timeout=timeout)

    def request(self, method: str, path: str, body=None, token: str | None = None,
                headers: dict | None = None) -> tuple[int, dict, bytes]:
        conn = self.connection()
        sent = {"Accept-Language": "en", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        if body is not None:
            sent["Content-Type"] = "application/json"
            body = json.dumps(body)
        try:
            conn.request(method, path, body, sent)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, \
                response.read()
        finally:
            conn.close()


def make_event():
    """A published event of one-game matches, 6 × (TABLES_LIVE + 1) players with logins and
    a referee, round 1 drawn and published; [(table, the seats' tokens)] and the referee's."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from rest_framework.authtoken.models import Token

    from tournaments.models import Seat
    from tournaments.services.draws import round_draw
    from tournaments.services.entries import entry_check_in, entry_register
    from tournaments.services.events import event_create, event_publish, event_staff_add
    from tournaments.services.players import player_create
    from tournaments.services.rounds import round_create, round_publish

    tag = f"{int(time.time())}-{os.getpid()}"
    User = get_user_model()
    event = event_create(name=f"Layout check {tag}", slug=f"layout-check-{tag}",
                                  games_per_match=1, rounds_planned=1, move_seconds=600)
    event_publish(event=event)
    referee = User.objects.create(username=f"layout-referee-{tag}")
    event_staff_add(event=event, user=referee, role="referee")
    with transaction.atomic():
        for i in range(6 * (TABLES_LIVE + 1)):
            user = User.objects.create(username=f"layout-{tag}-{i}")
            Token.objects.create(user=user)
            player = player_create(name=f"Layout {tag} {i}", user=user)
            entry_check_in(entry=entry_register(event=event, player=player))
    rnd = round_create(event=event)
    rnd = round_draw(round_id=rnd.pk)
    rnd = round_publish(round=rnd)
    tokens = dict(Token.objects.filter(user__username__startswith=f"layout-{tag}-")
                  .values_list("user_id", "key"))
    tables = []
    for table in rnd.tables.order_by("number"):
        seats = Seat.objects.filter(table=table).select_related("player").order_by("seat")
        tables.append((table.pk, [tokens[s.player.user_id] for s in seats]))
    from django.db import connection

    connection.close()
    return event.slug, tables, Token.objects.create(user=referee).key


def pages_and_static(site: Site, slug: str, run_dir: Path) -> None:
    status, headers, body = site.request("GET", f"/e/{slug}/")
    check(status == 200 and b"Layout check" in body, f"the event page: {status}")
    say(f"public page /e/{slug}/: 200, {len(body)} bytes, served by {headers.get('server')}")
    static = sorted((run_dir / "static" / "web" / "css").glob("*.css"))
    check(static, "collectstatic left no web/css/*.css")
    path = f"/static/web/css/{static[0].name}"
    status, headers, body = site.request("GET", path)
    check(status == 200 and body == static[0].read_bytes(), f"{path}: {status}")
    line = last_log_line(run_dir, path)
    check(line and "upstream=- " in line, f"{path} was not served by nginx itself: {line}")
    say(f"static file {path}: 200, {len(body)} bytes, by nginx itself ({line.split('] ')[1]})")

    # the micro-cache: twice the same anonymous page; a second copy from the cache only when
    # the service sent no cookie with it
    statuses = []
    for _ in range(2):
        status, headers, _body = site.request("GET", f"/e/{slug}/leaderboard/")
        check(status == 200, f"the leaderboard: {status}")
        statuses.append((headers.get("x-cache-status"), "set-cookie" in headers))
    if any(cookie for _s, cookie in statuses):
        check(all(s != "HIT" for s, _c in statuses),
              f"a response with Set-Cookie came from the cache: {statuses}")
        say(f"micro-cache: the leaderboard sets a cookie, so it is never cached ({statuses})")
    else:
        check(statuses[1][0] == "HIT", f"an anonymous public page was not cached: {statuses}")
        say(f"micro-cache: the second anonymous leaderboard came from the cache ({statuses})")
    _s, headers, _b = site.request("GET", f"/e/{slug}/leaderboard/", token="x" * 40)
    check(headers.get("x-cache-status") in ("BYPASS", None),
          f"a request with credentials was answered from the cache: {headers}")
    status, headers, _b = site.request("GET", f"/e/{slug}/console/")
    check("x-cache-status" not in headers, "the console went through the cache")
    say(f"micro-cache: a signed-in request bypasses it ({_s}), the console is not cached "
        f"({status})")


def access_log(run_dir: Path) -> str:
    """nginx's access log since the checks began (nginx writes a line as a request ends)."""
    time.sleep(0.3)
    with open(run_dir / "logs" / "nginx.access.log", "rb") as log:
        log.seek(LOG_FROM)
        return log.read().decode("utf-8", errors="replace")


def last_log_line(run_dir: Path, path: str) -> str | None:
    lines = [ln for ln in access_log(run_dir).splitlines() if f" {path} " in ln]
    return lines[-1] if lines else None


def start_games(site: Site, tables) -> list[tuple[int, list[str]]]:
    games = []
    for table_id, keys in tables[:TABLES_LIVE]:
        for key in keys:
            status, _h, body = site.request("POST", f"/api/v1/tables/{table_id}/live/ready/",
                                            {}, token=key)
            check(status == 200, f"seat ready at table {table_id}: {status} {body[:200]!r}")
        status, _h, body = site.request("POST", f"/api/v1/tables/{table_id}/live/", {},
                                        token=keys[0])
        check(status == 201, f"dealing table {table_id}: {status} {body[:300]!r}")
        games.append((json.loads(body)["id"], keys))
    say(f"{len(games)} live games dealt through nginx: ids {[g for g, _k in games]}")
    return games


class Stream:
    """An event stream read as it arrives (chunked, unbuffered)."""

    def __init__(self, site: Site, live_id: int, key: str):
        self.conn = site.connection(timeout=20)
        self.conn.request("GET", f"/api/v1/live/{live_id}/events/",
                          headers={"Authorization": f"Token {key}", "Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        check(self.response.status == 200, f"the stream of game {live_id}: "
                                           f"{self.response.status}")
        self.buffer = b""

    def next_view(self, after: int, seconds: float = 20) -> tuple[int, float]:
        """The version of the next ``view`` event past ``after``, and how long it took; the
        stream must still be open then."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            for match in re.finditer(rb"event: view\n(?:id: [^\n]*\n)?data: ([^\n]*)\n\n",
                                     self.buffer):
                version = json.loads(match.group(1))["version"]
                if version > after:
                    self.buffer = self.buffer[match.end():]
                    return version, time.monotonic() - t0
            chunk = self.response.read1(65536)
            check(chunk, "the stream ended before its event arrived")
            self.buffer += chunk
        fail(f"no view past version {after} within {seconds} s (buffered by the proxy?)")

    def still_open(self) -> bool:
        return not self.response.isclosed()

    def close(self) -> None:
        self.conn.close()


def act(site: Site, live_id: int, keys: list[str]) -> int:
    """The seat whose turn it is acts (its first legal act); returns the new version."""
    for key in keys:
        status, _h, body = site.request("GET", f"/api/v1/live/{live_id}/", token=key)
        check(status == 200, f"the view of game {live_id}: {status} {body[:200]!r}")
        view = json.loads(body)
        if view.get("legal"):
            sent = {"version": view["version"], **view["legal"][0]}
            status, _h, body = site.request("POST", f"/api/v1/live/{live_id}/act/", sent,
                                            token=key)
            check(status == 200, f"the act {sent}: {status} {body[:300]!r}")
            answer = json.loads(body)
            say(f"act accepted in game {live_id}: {view['legal'][0]} at version "
                f"{view['version']} -> {answer['version']}")
            return answer["version"]
    fail(f"no seat of game {live_id} has a legal act")


def streams_and_acts(site: Site, games) -> None:
    live_id, keys = games[0]
    stream = Stream(site, live_id, keys[0])
    version, took = stream.next_view(after=-1)
    check(stream.still_open(), "the stream closed after its first event")
    say(f"event stream of game {live_id}: its first view (version {version}) arrived "
        f"{took * 1000:.0f} ms after opening, the stream still open")
    new_version = act(site, live_id, keys)
    seen, took = stream.next_view(after=version)
    check(seen >= new_version, f"the stream sent version {seen}, the act made {new_version}")
    check(stream.still_open(), "the stream closed after the act's event")
    say(f"  and the act's view (version {seen}) {took * 1000:.0f} ms after the act, "
        "the stream still open: nginx does not buffer it")
    stream.close()
    for other, other_keys in games[1:]:
        act(site, other, other_keys)
    for game, game_keys in games:  # and every seat's view of every game (long-poll's path)
        for key in game_keys:
            status, _h, body = site.request("GET", f"/api/v1/live/{game}/", token=key)
            check(status == 200, f"a seat's view of game {game}: {status} {body[:200]!r}")


def same_process_per_game(run_dir: Path, games, live_ports: set[str]) -> None:
    log = access_log(run_dir)
    spread = {}
    for live_id, _keys in games:
        upstreams = re.findall(rf'"\w+ /api/v1/live/{live_id}/[^"]*" \d+ \d+ upstream=(\S+)',
                               log)
        check(upstreams, f"no live request of game {live_id} in nginx's log")
        check(set(upstreams) <= live_ports,
              f"game {live_id}'s live requests went to {set(upstreams)}, not uvicorn {live_ports}")
        check(len(set(upstreams)) == 1,
              f"game {live_id}'s live requests went to several processes: {set(upstreams)}")
        spread[live_id] = upstreams[0]
        say(f"game {live_id}: all {len(upstreams)} live requests answered by {upstreams[0]} "
            "(nginx's access log, upstream=)")
    say(f"games by uvicorn process: {spread} ({len(set(spread.values()))} of "
        f"{len(live_ports)} processes in use)")


def supervisorctl(run_dir: Path, *args: str) -> str:
    return subprocess.run([str(ROOT / ".venv/bin/supervisorctl"), "-c",
                           str(run_dir / "supervisord.conf"), *args],
                          capture_output=True, text=True, timeout=30).stdout.strip()


def worker_killed_and_back(site: Site, run_dir: Path, slug: str, tables, referee: str) -> None:
    pid = int(supervisorctl(run_dir, "pid", "worker"))
    os.killpg(os.getpgid(pid), signal.SIGKILL)
    killed = time.monotonic()
    say(f"worker killed: process group of pid {pid}, SIGKILL")

    # a result confirmed while it is down: its standings run waits in Redis
    table_id, _keys = tables[TABLES_LIVE]
    status, _h, body = site.request(
        "POST", f"/api/v1/tables/{table_id}/results/",
        {"number": 1, "sheet": {"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6}},
        token=referee)
    check(status == 201, f"the result at table {table_id}: {status} {body[:300]!r}")
    result_id = json.loads(body)["id"]
    status, _h, body = site.request("POST", f"/api/v1/results/{result_id}/confirm/", {},
                                    token=referee)
    check(status == 200, f"confirming result {result_id}: {status} {body[:300]!r}")
    say(f"result {result_id} at table {table_id} submitted and confirmed by the referee")

    deadline = time.monotonic() + 60
    while True:
        line = supervisorctl(run_dir, "status", "worker")
        match = re.search(r"RUNNING\s+pid (\d+)", line)
        if match and int(match.group(1)) != pid:
            say(f"worker started again by supervisord after {time.monotonic() - killed:.1f} s: "
                f"{line}")
            break
        check(time.monotonic() < deadline, f"the worker was not restarted: {line}")
        time.sleep(0.5)

    deadline = time.monotonic() + 90
    while True:
        status, _h, body = site.request("GET", f"/api/v1/events/{slug}/standings/")
        check(status == 200, f"the standings: {status}")
        rows = json.loads(body)
        rows = rows.get("results", rows) if isinstance(rows, dict) else rows
        played = [r for r in rows if r.get("games_played")]
        if len(played) == 6:
            say(f"standings caught up {time.monotonic() - killed:.1f} s after the kill: "
                f"{len(played)} entries with a game, leader {played[0]['entry']['name']} "
                f"({played[0]['points']} points)")
            return
        check(time.monotonic() < deadline,
              f"the standings did not catch up: {len(played)} entries with a game")
        time.sleep(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", default=os.environ.get("PROD_LOCAL_DIR",
                                                             str(ROOT / ".prod-local")))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PROD_LOCAL_PORT", 8480)))
    args = parser.parse_args()
    run_dir = Path(args.run_dir)
    load_env(run_dir)
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    site = Site(args.port, run_dir / "tls.crt")
    global LOG_FROM
    log_path = run_dir / "logs" / "nginx.access.log"
    LOG_FROM = log_path.stat().st_size if log_path.exists() else 0
    conf = (run_dir / "nginx" / "nginx.conf").read_text(encoding="utf-8")
    live_block = conf.split("upstream live", 1)[1].split("}", 1)[0]
    live_ports = set(re.findall(r"server (127\.0\.0\.1:\d+);", live_block))
    say(f"nginx on https://localhost:{args.port}/, uvicorn processes {sorted(live_ports)}")

    slug, tables, referee = make_event()
    say(f"event {slug}: {len(tables)} tables drawn and published")
    pages_and_static(site, slug, run_dir)
    games = start_games(site, tables)
    streams_and_acts(site, games)
    same_process_per_game(run_dir, games, live_ports)
    worker_killed_and_back(site, run_dir, slug, tables, referee)
    say("every check passed")


if __name__ == "__main__":
    main()
