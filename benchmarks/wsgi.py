"""The product's WSGI application (:mod:`config.wsgi`) with :mod:`benchmarks.urls` as its
URLconf: what ``bench_api --baseline`` serves, so that the product's view and the baseline view
run in the same gunicorn workers on the same database."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.conf import settings  # noqa: E402

settings.ROOT_URLCONF = "benchmarks.urls"

from config.wsgi import application  # noqa: E402,F401
