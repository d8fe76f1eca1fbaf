"""The minimal project's settings: what a Django + DRF project needs to authenticate a token,
parse a JSON body and insert one row, and nothing else. The database connection is kept as the
product keeps its own (persistent, health-checked), so the two differ by their stacks only.

``MINIMAL_DATABASE_URL`` names its database (PostgreSQL); ``DJANGO_SECRET_KEY`` its key.
"""

from __future__ import annotations

import os

import dj_database_url

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or "minimal-drf-benchmark-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "rest_framework",
    "rest_framework.authtoken",
    "benchmarks.minimal_drf",
]
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "benchmarks.minimal_drf.urls"
WSGI_APPLICATION = "benchmarks.minimal_drf.wsgi.application"

DATABASE_URL = os.environ.get("MINIMAL_DATABASE_URL",
                              "postgres://postgres@127.0.0.1:5432/gouji_bench_minimal")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60,
                                              conn_health_checks=True)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_THROTTLE_CLASSES": [],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # (not a line per 401 of the start-up checks, which ask without a token)
    "loggers": {"django.request": {"level": os.environ.get("LOG_LEVEL", "WARNING")}},
}
