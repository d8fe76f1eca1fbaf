"""A ``celery worker`` lowers its CPU priority as it starts (``CELERY_WORKER_NICE``,
config/celery.py): its standings runs yield the cores to the servers' requests. Checked in a
process of its own (a niceness cannot be lowered again without privileges): the signal
``celery worker`` sends before it starts, sent there."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

_START = ("import os, django; django.setup(); from celery import signals; import config.celery; "
          "before = os.nice(0); signals.celeryd_init.send(sender='worker', instance=None, "
          "conf=None, options={}); print(os.nice(0) - before)")


def _raised_by(value: str | None) -> int:
    env = {k: v for k, v in os.environ.items() if k != "CELERY_WORKER_NICE"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    if value is not None:
        env["CELERY_WORKER_NICE"] = value
    done = subprocess.run([sys.executable, "-c", _START], env=env, cwd=settings.BASE_DIR,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


@pytest.mark.parametrize(("value", "raised"), [(None, 10), ("5", 5), ("0", 0)])
def test_a_starting_worker_lowers_its_priority_by_the_setting(value, raised):
    assert _raised_by(value) == raised
