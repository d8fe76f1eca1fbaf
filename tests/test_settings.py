"""Settings read from the environment (config/settings.py, config/wsgi.py), checked where the
process starts: issue 15, finding 9."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.conf import settings

#: The production environment docs/DEPLOY.md documents (the "production" column of its "Settings").
PRODUCTION = {"DJANGO_SECRET_KEY": "k" * 20 + "-a-long-random-secret-of-production-" + "9" * 20,
              "DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": "gouji.example.org",
              "DJANGO_HTTPS": "1", "TRUSTED_PROXY_COUNT": "1"}


def run(code: str, env: dict, *args: str) -> subprocess.CompletedProcess:
    """``python -c code`` (or ``manage.py args`` when code is empty) in a clean environment."""
    command = [sys.executable, "-c", code] if code else [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=settings.BASE_DIR, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin",
                                            "DJANGO_SETTINGS_MODULE": "config.settings", **env})


def test_manage_py_check_deploy_is_clean_with_the_documented_production_environment():
    out = run("", PRODUCTION, "check", "--deploy", "--fail-level", "WARNING")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_manage_py_check_deploy_reports_the_public_development_key_as_an_error():
    # given the production environment but no DJANGO_SECRET_KEY (the public development key)
    without_key = {k: v for k, v in PRODUCTION.items() if k != "DJANGO_SECRET_KEY"}
    # when the deployment is checked (at the default fail level: errors only)
    out = run("", without_key, "check", "--deploy")
    # then it fails, naming the key as an error, not only Django's warning about its length
    assert out.returncode != 0, out.stdout + out.stderr
    assert "ERRORS:" in out.stderr and "(gouji.E001)" in out.stderr, out.stderr[-2000:]
    assert "DJANGO_SECRET_KEY" in out.stderr
    # and so does the key set to that very value
    same = run("", {**without_key, "DJANGO_SECRET_KEY": settings.DEVELOPMENT_SECRET_KEY},
               "check", "--deploy")
    assert same.returncode != 0 and "(gouji.E001)" in same.stderr
    # while the plain check (development) still passes on it
    assert run("", {}, "check").returncode == 0


def test_the_server_refuses_to_start_on_the_public_development_key():
    # given no DJANGO_SECRET_KEY and DEBUG off
    # when the WSGI application (gunicorn's, runserver's) is loaded
    out = run("import config.wsgi", {"DJANGO_DEBUG": "0"})
    # then it stops with a message naming the variable
    assert out.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in out.stderr
    # while developing (DEBUG on), or with a key, it starts
    assert run("import config.wsgi", {"DJANGO_DEBUG": "1"}).returncode == 0
    with_key = run("import config.wsgi", {"DJANGO_SECRET_KEY": PRODUCTION["DJANGO_SECRET_KEY"]})
    assert with_key.returncode == 0, with_key.stderr[-2000:]


@pytest.mark.parametrize(("written", "rate"), [("20", (20, 60)), ("20/min", (20, 60)),
                                                ("5/s", (5, 1)), ("1000/hour", (1000, 3600))])
def test_a_throttle_rate_is_read_as_the_settings_table_writes_it(written, rate):
    # a plain number (as docs/DEPLOY.md's settings table writes it) is that many a minute
    out = run("import django; django.setup(); from rest_framework.throttling import "
              "AnonRateThrottle as T; t = T(); print(t.num_requests, t.duration)",
              {"THROTTLE_ANON": written})
    assert out.returncode == 0, out.stderr[-2000:]
    assert tuple(map(int, out.stdout.split())) == rate


@pytest.mark.parametrize(("variable", "value"), [
    ("THROTTLE_ANON", "lots"), ("THROTTLE_LOGIN", "10/fortnight"), ("THROTTLE_USER", "0"),
    ("TRUSTED_PROXY_COUNT", "one"), ("LOGIN_FAILURE_LIMIT", "0"), ("DB_CONN_MAX_AGE", "-1"),
    ("LOGIN_FAILURE_LIMIT_USERNAME", "many"), ("LOGIN_FAILURE_LIMIT_ADDRESS", "0"),
    ("CELERY_DB_REUSE_MAX", "0")])
def test_a_value_that_cannot_be_read_stops_the_process_naming_the_variable(variable, value):
    out = run("", {variable: value}, "check")
    assert out.returncode != 0
    assert f"{variable}={value!r}" in out.stderr, out.stderr[-2000:]


def test_the_login_lockouts_limits_are_read_from_the_environment():
    out = run("import django; django.setup(); from django.conf import settings; "
              "print(settings.LOGIN_LOCKOUTS, settings.AXES_LOCKOUT_PARAMETERS)",
              {"LOGIN_FAILURE_LIMIT": "5", "LOGIN_FAILURE_LIMIT_USERNAME": "40",
               "LOGIN_FAILURE_LIMIT_ADDRESS": "300"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[0] == (
        "[(['username', 'ip_address'], 5), ('username', 40), ('ip_address', 300)] "
        "[['username', 'ip_address'], 'username', 'ip_address']")


@pytest.mark.django_db
def test_pages_carry_a_content_security_policy_without_inline_code(client):
    response = client.get("/")
    assert response.status_code == 200
    policy = dict(part.strip().split(" ", 1) for part in
                  response["Content-Security-Policy"].split(";") if part.strip())
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"


def test_the_redis_cache_of_every_request_in_a_process_shares_one_connection_pool():
    # given the shared cache on Redis (nothing is connected: a pool connects when used)
    code = ("import asyncio, django; django.setup(); from django.core.cache import caches\n"
            "async def backend():\n"
            "    return caches['default']\n"
            "async def requests():\n"  # each task is a context of its own, as an ASGI request
            "    return await asyncio.gather(*(asyncio.create_task(backend()) for _ in range(5)))\n"
            "backends = asyncio.run(requests())\n"
            "pools = {id(b._cache._get_connection_pool(True)) for b in backends}\n"
            "print(len({id(b) for b in backends}), len(pools))")
    # when five requests served on one event loop take the cache
    out = run(code, {"CACHE_URL": "redis://127.0.0.1:6379/14"})
    # then each has a backend of its own (Django's are per request) but all share one pool: an
    # open event stream no longer holds a Redis connection of its own (config/cache.py)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["5", "1"]
