"""The WSGI entry point (config/wsgi.py) that gunicorn loads in every worker."""

from __future__ import annotations

import subprocess
import sys

from django.conf import settings


def test_loading_the_app_freezes_what_it_made_out_of_the_garbage_collector():
    """Full collections would otherwise walk all of Django and DRF in each worker, 45–120 ms
    each, while requests wait (config/serving.py)."""
    out = subprocess.run(
        [sys.executable, "-c", "import gc, sys, config.wsgi; "
                               "print(gc.get_freeze_count(), 'api.views' in sys.modules)"],
        cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=120,
        env={"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin",
             "DJANGO_SECRET_KEY": "a-test-key-" + "x" * 50})
    assert out.returncode == 0, out.stderr[-2000:]
    frozen, views_loaded = out.stdout.split()
    # the views are imported (not on the first request) and frozen with the rest of the app
    assert views_loaded == "True"
    assert int(frozen) > 20_000
