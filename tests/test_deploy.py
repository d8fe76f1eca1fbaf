"""The production layout's files (deploy/, issue 53): the systemd units restart what dies, nginx
accepts the site, live requests are routed by game, and only anonymous public pages may be
micro-cached. The layout running is checked by deploy/check_prod_local.py (.ci/run, step 6)."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from web.caching import PERSONAL, PERSONAL_PAGES, PUBLIC, PUBLIC_PAGES

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
UNITS = ["gouji-gunicorn.service", "gouji-uvicorn@.service", "gouji-worker.service",
         "gouji-beat.service"]


def _locations() -> dict[str, re.Pattern]:
    """gouji-locations.conf's regex locations as Python patterns, by their upstream (the
    cached pages' as ``cached``)."""
    text = (DEPLOY / "nginx" / "gouji-locations.conf").read_text(encoding="utf-8")
    found: dict[str, list[re.Pattern]] = {}
    for regex, body in re.findall(r"location ~ (\S+) \{(.*?)\n\}", text, re.S):
        kind = "cached" if "proxy_cache gouji_pages" in body else \
            re.search(r"proxy_pass http://(\w+);", body).group(1)
        found.setdefault(kind, []).append(re.compile(regex.replace("(?<", "(?P<")))
    return found


def _matches(patterns: list[re.Pattern], path: str) -> re.Match | None:
    return next((m for p in patterns if (m := p.match(path))), None)


def test_every_unit_restarts_always_with_limits_a_user_and_the_environment_file():
    for name in UNITS:
        unit = configparser.ConfigParser(strict=False, interpolation=None)
        unit.read_string((DEPLOY / "systemd" / name).read_text(encoding="utf-8"))
        service = unit["Service"]
        assert service["Restart"] == "always", name
        assert int(service["LimitNOFILE"]) >= 4096, name
        assert service["User"] == "gouji" and service["EnvironmentFile"], name
        assert service["ExecStart"].startswith("/srv/gouji/.venv/bin/"), name
    # one uvicorn per core: the template's instance is its port, as nginx's upstream lists them
    uvicorn = (DEPLOY / "systemd" / "gouji-uvicorn@.service").read_text(encoding="utf-8")
    assert "--port %i" in uvicorn
    site = (DEPLOY / "nginx" / "gouji.conf").read_text(encoding="utf-8")
    ports = re.findall(r"server 127\.0\.0\.1:(\d+);", site.split("upstream live", 1)[1]
                       .split("}", 1)[0])
    target = (DEPLOY / "systemd" / "gouji.target").read_text(encoding="utf-8")
    assert ports and all(f"gouji-uvicorn@{port}.service" in target for port in ports)


@pytest.mark.parametrize("path", ["/api/v1/live/12/", "/api/v1/live/12/events/",
                                  "/api/v1/live/12/act/", "/p/AbC-123_x/live/12/events/",
                                  "/me/live/12/events/"])
def test_a_games_live_requests_go_to_the_uvicorn_process_its_id_picks(path):
    match = _matches(_locations()["live"], path)
    assert match and match["live_game"] == "12"


@pytest.mark.parametrize("path", ["/api/v1/live/12/host/", "/api/v1/tables/3/live/",
                                  "/p/AbC/live/12/", "/api/v1/live/"])
def test_other_live_paths_are_not_routed_by_game(path):
    assert _matches(_locations()["live"], path) is None


@pytest.mark.parametrize("path", [
    "/", "/ratings/", "/players/7/", "/e/cup/", "/e/cup/leaderboard/", "/e/cup/seating/",
    "/e/cup/rounds/2/", "/e/cup/rounds/2/tables/5/", "/e/cup/rounds/2/results/",
    "/e/cup/table/5/", "/e/cup/players/9/", "/e/cup/teams/3/", "/e/cup/projector/",
    "/e/cup/bracket/", "/e/cup/final/"])
def test_public_pages_may_be_micro_cached(path):
    assert _matches(_locations()["cached"], path)


@pytest.mark.parametrize("path", [
    "/e/cup/console/", "/e/cup/console/rounds/1/", "/e/cup/desk/", "/e/cup/desk/tables/4/",
    "/e/cup/dashboard/", "/console/", "/console/new/", "/p/token/", "/me/", "/me/live/3/",
    "/admin/", "/accounts/login/", "/practice/", "/practice/tok/", "/api/v1/events/",
    "/api/v1/events/cup/standings/", "/e/cup/rounds/1/slips/", "/slips/", "/qr/",
    "/e/cup/qr/", "/e/cup/rounds/1/tables/2/watch/", "/e/cup/rounds/1/tables/2/watch.json",
    "/e/cup/rounds/1/tables/2/games/1/replay/",
    "/e/cup/leaderboard/x", "/static/web/css/site.css"])
def test_private_pages_the_api_and_anything_else_are_never_cached(path):
    assert _matches(_locations()["cached"], path) is None


def test_the_services_public_pages_are_nginxs_micro_cached_ones():
    # the service marks public (web/caching.py) exactly what nginx may keep
    (cached,) = _locations()["cached"]
    assert cached.pattern == PUBLIC_PAGES.pattern


@pytest.mark.parametrize("path", [
    "/e/cup/console/", "/e/cup/desk/", "/e/cup/dashboard/", "/console/", "/p/token/", "/me/",
    "/me/live/3/", "/admin/", "/accounts/login/", "/practice/tok/", "/slips/", "/qr/",
    "/e/cup/qr/", "/e/cup/rounds/1/slips/", "/e/cup/console/report/"])
def test_personal_pages_are_never_public_for_the_service_nor_cached_by_nginx(path):
    assert PERSONAL_PAGES.match(path) and not PUBLIC_PAGES.match(path)
    assert _matches(_locations()["cached"], path) is None


def test_only_anonymous_requests_use_the_cache_and_streams_are_unbuffered():
    http = (DEPLOY / "nginx" / "gouji-http.conf").read_text(encoding="utf-8")
    assert re.search(r'map "\$cookie_sessionid\$http_authorization" \$gouji_no_cache \{\s*'
                     r'""\s+0;\s*default\s+1;', http)
    assert re.search(r"map \$upstream_http_cache_control \$gouji_upstream_private \{\s*"
                     r"~\*\(private\|no-store\|no-cache\) 1;", http)
    text = (DEPLOY / "nginx" / "gouji-locations.conf").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"location ~ (\S+) \{(.*?)\n\}", text, re.S))
    for regex, body in blocks.items():
        if "proxy_pass http://live;" in body:
            assert "proxy_buffering off;" in body and "proxy_cache off;" in body, regex
        if "proxy_cache gouji_pages" in body:
            assert "proxy_cache_bypass $gouji_no_cache;" in body
            assert "proxy_no_cache $gouji_no_cache $gouji_upstream_private;" in body
            assert "proxy_cache_methods GET HEAD;" in body
            # a few seconds, which the service's headers cannot lengthen ...
            assert re.findall(r"proxy_cache_valid[^;]*;", body) == ["proxy_cache_valid 200 5s;"]
            assert "proxy_ignore_headers Cache-Control Expires X-Accel-Expires;" in body
            # ... but a response that sets a cookie is never stored (nginx's own rule, kept)
            assert "Set-Cookie" not in body and "proxy_hide_header" not in body
            assert "$http_accept_language" in body  # the language is part of the key
    # one set of forwarded headers at the server level, inherited by every location
    assert all("proxy_set_header" not in body for body in blocks.values())
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in text


@pytest.mark.skipif(not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists())
                    or not shutil.which("openssl"),
                    reason="nginx (Debian's package) or openssl is not installed here")
def test_nginx_accepts_the_production_site(tmp_path):
    # given the site as installed: its snippets, a certificate, writable paths
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=gouji.example.org", "-keyout", str(tmp_path / "key.pem"),
                    "-out", str(tmp_path / "cert.pem")], check=True, capture_output=True)
    site = (DEPLOY / "nginx" / "gouji.conf").read_text(encoding="utf-8")
    for installed, here in [("/etc/nginx/snippets/", f"{DEPLOY}/nginx/"),
                            ("/etc/ssl/certs/gouji.example.org.fullchain.pem",
                             str(tmp_path / "cert.pem")),
                            ("/etc/ssl/private/gouji.example.org.key", str(tmp_path / "key.pem")),
                            ("/var/cache/nginx/gouji", str(tmp_path / "cache")),
                            ("/var/log/nginx/", f"{tmp_path}/")]:
        assert installed in site
        site = site.replace(installed, here)
    (tmp_path / "site.conf").write_text(site, encoding="utf-8")
    temp = " ".join(f"{kind}_temp_path {tmp_path}/{kind};" for kind in
                    ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{ include /etc/nginx/mime.types; {temp} include {tmp_path}/site.conf; }}\n",
        encoding="utf-8")
    # when nginx tests it
    out = subprocess.run([nginx, "-t", "-c", str(tmp_path / "nginx.conf")],
                         capture_output=True, text=True, timeout=30)
    # then it is accepted
    assert out.returncode == 0, out.stderr
    assert "test is successful" in out.stderr


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def nginx_before_a_stub(tmp_path):
    """nginx with the site's http pieces and locations, in front of a stub service that
    answers each path with a counter and, by path, Cache-Control: private (/e/private/),
    Set-Cookie (/e/cookie/) or a ten-minute max-age (/e/long/): a function that GETs a path
    and returns (X-Cache-Status, the counter)."""
    import http.server
    import itertools
    import threading
    import urllib.request

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip("nginx (Debian's package) is not installed here")
    counter = itertools.count()

    class Stub(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = f"{next(counter)}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            extra = {"/e/private/": ("Cache-Control", "private"),
                     "/e/cookie/": ("Set-Cookie", "csrftoken=abc; Path=/"),
                     "/e/long/": ("Cache-Control", "public, max-age=600"),
                     # the service's own two rules (web/caching.py)
                     "/e/public/": ("Cache-Control", PUBLIC),
                     "/e/personal/": ("Cache-Control", PERSONAL)}.get(self.path)
            if extra:
                self.send_header(*extra)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    stub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    port = _free_port()
    temp = " ".join(f"{kind}_temp_path {tmp_path}/{kind};" for kind in
                    ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    upstream = f"127.0.0.1:{stub.server_address[1]}"
    # the workers write the cache under tmp_path, out of reach of nginx's default user
    user = "user root;" if os.geteuid() == 0 else ""
    (tmp_path / "nginx.conf").write_text(f"""
{user}
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
daemon on;
events {{}}
http {{
    {temp}
    include {DEPLOY}/nginx/gouji-http.conf;
    access_log {tmp_path}/access.log gouji;
    upstream api {{ server {upstream}; }}
    upstream live {{ hash $live_game; server {upstream}; }}
    proxy_cache_path {tmp_path}/cache keys_zone=gouji_pages:1m;
    server {{ listen 127.0.0.1:{port}; include {DEPLOY}/nginx/gouji-locations.conf; }}
}}
""", encoding="utf-8")
    subprocess.run([nginx, "-c", str(tmp_path / "nginx.conf")], check=True, timeout=30)

    def get(path: str, **headers) -> tuple[str | None, int]:
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.headers.get("X-Cache-Status"), int(response.read())

    try:
        yield get
    finally:
        subprocess.run([nginx, "-c", str(tmp_path / "nginx.conf"), "-s", "stop"], timeout=30)
        stub.shutdown()


def test_nginx_micro_caches_only_what_it_may_and_for_seconds(nginx_before_a_stub):
    get = nginx_before_a_stub
    # an anonymous public page: the second request is the first one's copy
    first = get("/e/plain/")
    assert first[0] == "MISS" and get("/e/plain/") == ("HIT", first[1])
    # another language is another copy
    assert get("/e/plain/", **{"Accept-Language": "zh-hans"})[0] == "MISS"
    # signed in (a session cookie, a token): never from the cache
    assert get("/e/plain/", Cookie="sessionid=abc")[0] == "BYPASS"
    assert get("/e/plain/", Authorization="Token abc")[0] == "BYPASS"
    # a response that sets a cookie, or that the service marks private, is never stored
    for path in ("/e/cookie/", "/e/private/"):
        a, b = get(path), get(path)
        assert a[0] == b[0] == "MISS" and a[1] != b[1], path
    # the service's public pages are kept (their max-age=0 is for browsers only), its
    # personal ones never
    kept = get("/e/public/")
    assert kept[0] == "MISS" and get("/e/public/") == ("HIT", kept[1])
    a, b = get("/e/personal/"), get("/e/personal/")
    assert a[0] == b[0] == "MISS" and a[1] != b[1]
    # a private page is not even looked up
    a, b = get("/e/plain/console/"), get("/e/plain/console/")
    assert a[0] is None and a[1] != b[1]
    # and the service's ten minutes are five seconds at the most
    # (nginx counts in whole seconds: the copy goes between 4 and 6 s after it was stored,
    # bounded here at 8 s — and not 600)
    kept, stored = get("/e/long/"), time.monotonic()
    assert get("/e/long/") == ("HIT", kept[1])
    while (status := get("/e/long/")[0]) == "HIT" and time.monotonic() - stored < 8:
        time.sleep(0.25)
    assert status == "EXPIRED" and 4 <= time.monotonic() - stored < 8
