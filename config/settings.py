"""Settings from the environment (STYLE.md §6).

- ``DATABASE_URL``: SQLite file ``db.sqlite3`` by default; ``postgres://…`` in production.
- ``CELERY_BROKER_URL``: none → Celery tasks run in-process; ``redis://…`` in production.
- ``DJANGO_SECRET_KEY``, ``DJANGO_DEBUG``, ``DJANGO_ALLOWED_HOSTS``.
- ``DB_POOL_MAX_SIZE`` (a psycopg pool per process), ``DB_CONNECT_TIMEOUT``, ``DB_CONN_MAX_AGE``.
- ``LIVE_PUBSUB_URL``: Redis that wakes live-play waiters (default: the broker when Redis).
- ``CELERY_VISIBILITY_TIMEOUT``: when Redis redelivers a task whose worker died.
- ``THROTTLE_*``: request rates (anonymous, user, writes, results, engine, live).
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = os.environ.get("DJANGO_DEBUG", "0").lower() in ("1", "true", "yes")
# The fallback key is for the demo and tests only; production sets DJANGO_SECRET_KEY.
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-key-set-DJANGO_SECRET_KEY")
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,testserver"
                                           ).split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "tournaments",
    "games",
    "live",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        # A persistent connection may have died with a database restart while the worker was
        # idle: check it (one round trip) before its first use in a request instead of failing
        # that request (tests/faults/test_db_restart.py).
        conn_health_checks=True,
    )
}
# DB_CONNECT_TIMEOUT (seconds, default 5): an unreachable database host fails the connection
# attempt (a 503 database_unavailable) instead of hanging the worker until gunicorn kills it.
# A ``?connect_timeout=`` in DATABASE_URL wins. (libpq counts it per host; 2 s at the least.)
if DATABASES["default"]["ENGINE"].endswith(("postgresql", "postgis")):
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", int(os.environ.get("DB_CONNECT_TIMEOUT", "5")))
# DB_POOL_MAX_SIZE: a psycopg connection pool per process (PostgreSQL), shared by its threads:
# with gunicorn's gthread workers and long-polling live clients, hundreds of threads then need
# no more connections than the pool (instead of one persistent connection each).
if os.environ.get("DB_POOL_MAX_SIZE") and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django requires it with a pool
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1, "max_size": int(os.environ["DB_POOL_MAX_SIZE"]), "timeout": 20}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# Celery: no broker configured → run tasks in-process (the demo and the default tests).
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost/"
# Live play's long-polls are woken through Redis pub/sub (live/notify.py): by default the
# broker's Redis; without one, waiting requests poll the game's version instead.
LIVE_PUBSUB_URL = os.environ.get("LIVE_PUBSUB_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None)
# An act in a live game this process knows is first tried as one conditional update, without the
# row lock (live/services.py, _act_unlocked); LIVE_FAST_PATH=0 takes the lock for every act
# (``manage.py bench_live --no-fast-path`` measures the difference).
LIVE_FAST_PATH = os.environ.get("LIVE_FAST_PATH", "1") != "0"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 600
CELERY_TASK_SOFT_TIME_LIMIT = 540
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis redelivers a message that a worker took but never acknowledged (acks_late: the worker
# died mid-task) once it has been unacknowledged for visibility_timeout seconds. It must exceed
# the longest task run plus the longest countdown (the live-play 托管 countdown, an event's
# move_seconds), or a message still running or waiting for its countdown is delivered twice.
# Tasks are idempotent, so an early redelivery is harmless; the fault tests set a few seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600")),
}
# `celery -A config beat`: re-queue the standings of any event whose recompute message was lost
# (tournaments/standings.py, standings_sweep); an event with fresh standings costs one query.
CELERY_BEAT_SCHEDULE = {
    "standings-sweep": {"task": "tournaments.tasks.standings_sweep_task", "schedule": 60.0},
    # and play a live seat whose 托管 timer message was lost (live/services.py, live_timer;
    # live/tasks.py keeps the task's first name)
    "live-sweep": {"task": "games.tasks.live_sweep_task", "schedule": 15.0},
}

# Request size caps: a full game record is ~6 KB; refuse what no client should send.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("MAX_REQUEST_BYTES", 1_000_000))
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_500_000

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.StrictJSONParser",
                               "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer",
                                 "rest_framework.renderers.BrowsableAPIRenderer"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend",
                                "rest_framework.filters.SearchFilter"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.Pagination",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "300/min"),
        "user": os.environ.get("THROTTLE_USER", "3000/min"),
        "writes": os.environ.get("THROTTLE_WRITES", "600/min"),
        "results": os.environ.get("THROTTLE_RESULTS", "600/min"),
        "engine": os.environ.get("THROTTLE_ENGINE", "120/min"),
        "live": os.environ.get("THROTTLE_LIVE", "1200/min"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "够级 tournament service API",
    "DESCRIPTION": "Events, entries, draws, results and standings for 够级 (Gouji) events. "
                   "Errors share one shape: {\"error\": {\"code\", \"message\", \"detail\"?, "
                   "\"fields\"?}}.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "api.schema.document_errors"],
    "ENUM_NAME_OVERRIDES": {
        "EventStatusEnum": "tournaments.models.Event.Status",
        "EntryStatusEnum": "tournaments.models.Entry.Status",
        "RoundStatusEnum": "tournaments.models.Round.Status",
        "ResultStatusEnum": "games.models.GameResult.Status",
    },
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if os.environ.get("CACHE_URL"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": os.environ["CACHE_URL"]}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
