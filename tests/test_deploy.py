"""The production layout's files (deploy/, issue 53): the systemd units restart what dies, nginx
accepts the site, live requests are routed by game, and only anonymous public pages may be
micro-cached. The layout running is checked by deploy/check_prod_local.py (.ci/run, step 6)."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

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


def test_only_anonymous_requests_use_the_cache_and_streams_are_unbuffered():
    http = (DEPLOY / "nginx" / "gouji-http.conf").read_text(encoding="utf-8")
    assert re.search(r'map "\$cookie_sessionid\$http_authorization" \$gouji_no_cache \{\s*'
                     r'""\s+0;\s*default\s+1;', http)
    text = (DEPLOY / "nginx" / "gouji-locations.conf").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"location ~ (\S+) \{(.*?)\n\}", text, re.S))
    for regex, body in blocks.items():
        if "proxy_pass http://live;" in body:
            assert "proxy_buffering off;" in body and "proxy_cache off;" in body, regex
        if "proxy_cache gouji_pages" in body:
            assert "proxy_cache_bypass $gouji_no_cache;" in body
            assert "proxy_no_cache $gouji_no_cache;" in body
            assert "proxy_cache_methods GET HEAD;" in body
            assert re.search(r"proxy_cache_valid 200 [1-9]s;", body)  # a few seconds
            assert "proxy_ignore_headers" not in body  # Set-Cookie, Cache-Control honoured
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
