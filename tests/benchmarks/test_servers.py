"""The servers a benchmark starts are configured as production's are where it matters."""

from __future__ import annotations

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
    started = {}
    monkeypatch.setattr(servers.subprocess, "Popen",  # the worker's command, not run
                        lambda *args, env, **kw: started.update(env) or _NotRun())
    CeleryWorker("redis://127.0.0.1:6379/12", "redis://127.0.0.1:6379/13").start()
    assert started["DJANGO_SECRET_KEY"] == key  # its 托管 acts are signed with it too
    monkeypatch.setenv("DJANGO_SECRET_KEY", "the operator's own key, kept as it is given")
    assert Uvicorn(workers=1).env["DJANGO_SECRET_KEY"] == \
        "the operator's own key, kept as it is given"


class _NotRun:
    pid = 0

    def poll(self):
        return None
