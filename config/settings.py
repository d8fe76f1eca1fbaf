"""Settings from the environment (STYLE.md §6).

- ``DATABASE_URL``: SQLite file ``db.sqlite3`` by default; ``postgres://…`` in production.
- ``CELERY_BROKER_URL``: none → Celery tasks run in-process; ``redis://…`` in production.
- ``DJANGO_SECRET_KEY``, ``DJANGO_DEBUG``, ``DJANGO_ALLOWED_HOSTS``: the web server refuses to
  start without a key unless ``DJANGO_DEBUG`` is on (config/wsgi.py).
- ``DJANGO_HTTPS``, ``DJANGO_HSTS_SECONDS``, ``TRUSTED_PROXY_COUNT``: serving behind TLS and
  proxies (secure cookies, HSTS, the client's address and scheme from the proxies' headers).
- ``LOGIN_FAILURE_LIMIT``, ``LOGIN_FAILURE_LIMIT_USERNAME``, ``LOGIN_FAILURE_LIMIT_ADDRESS``,
  ``LOGIN_COOLOFF_MINUTES``: login lockouts (django-axes) of a username from one address, of a
  username, of an address.
- ``DJANGO_STATIC_ROOT``: where ``collectstatic`` gathers the static files (default ``staticfiles/``
  beside ``manage.py``; set it when the service is installed as a package).
- ``DB_POOL_MAX_SIZE`` (a psycopg pool per process), ``DB_CONNECT_TIMEOUT``, ``DB_CONN_MAX_AGE``.
- ``LIVE_PUBSUB_URL``: Redis that wakes live-play waiters (default: the broker when Redis).
- ``LIVE_STREAM_DB_THREADS``: the database threads of an ASGI process's streams and acts
  (default 2).
- ``LIVE_GAME_CACHE``: the running live games each process keeps in memory (default 2048).
- ``LIVE_SWEEP_SECONDS``: how often Celery beat's 托管 sweep plays the seats whose move time ran
  out (default 1); without a broker, runserver runs the sweep itself (live/sweeps.py).
- ``LIVE_ACT_SHORT_PATH``: 0 sends every act the ASGI server gets through the DRF view.
- ``LIVE_ACT_ON_LOOP``: 0 checks and stores the short path's acts in a stream database thread,
  not on the event loop (PostgreSQL only).
- ``LIVE_LOOP_DB_CONNECTIONS``: the event loop's own connections for them, per process (2).
- ``LIVE_SPECTATOR_WAITERS``, ``LIVE_SPECTATOR_WAITERS_PER_ADDRESS``: spectators' open streams
  and long-polls per process (100), and per client address (4).
- ``CELERY_VISIBILITY_TIMEOUT``: when Redis redelivers a task whose worker died.
- ``CELERY_DRAW_REQUEUE_SECONDS``: when beat's sweep queues again the draw of a round that is
  still not drawn (default 120).
- ``CELERY_WORKER_NICE``: how far below the servers' CPU priority a ``celery worker`` runs.
- ``THROTTLE_*``: request rates (anonymous, user, writes, results, engine, live, login, links,
  link_misses, practice, daily): ``20`` (a minute) or ``20/min``, ``/s``, ``/hour``, ``/day``.

A value that cannot be read stops the process at start with a message naming the variable.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def _flag(name: str, default: str = "0") -> bool:
    return os.environ.get(name, default).lower() in ("1", "true", "yes", "on")


def _whole(name: str, default: int, minimum: int = 0) -> int:
    """A whole-number variable, or a stop at start naming it."""
    value = os.environ.get(name, "").strip() or str(default)
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < minimum:
        raise ImproperlyConfigured(f"{name}={value!r}: expected a whole number >= {minimum}")
    return number


_RATE_PERIODS = {"s": "s", "sec": "s", "second": "s", "m": "min", "min": "min",
                 "minute": "min", "h": "hour", "hour": "hour", "d": "day", "day": "day"}


def _rate(name: str, default: str) -> str:
    """A request rate: ``20`` (a minute) or ``20/min`` (also ``/s``, ``/hour``, ``/day``), as
    DRF reads it; anything else stops the process at start, naming the variable."""
    value = os.environ.get(name, "").strip() or default
    count, _slash, period = value.partition("/")
    period = _RATE_PERIODS.get((period or "min").strip().lower())
    if not count.strip().isdigit() or int(count) < 1 or period is None:
        raise ImproperlyConfigured(
            f"{name}={value!r}: expected a number of requests a minute (20) or a rate such as "
            "20/min, 5/s, 1000/hour, 10000/day")
    return f"{int(count)}/{period}"


DEBUG = _flag("DJANGO_DEBUG")
#: Used by management commands, the worker and the tests when DJANGO_SECRET_KEY is unset; the
#: web server (config/wsgi.py) refuses to start on it unless DEBUG is on.
DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-set-DJANGO_SECRET_KEY"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or DEVELOPMENT_SECRET_KEY
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,testserver"
                                           ).split(",") if h]

INSTALLED_APPS = [
    # first: its `runserver` (staticfiles' plus the sweeps beat would send, when no broker is
    # configured: live/management/commands/runserver.py) is the one manage.py finds
    "live",
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
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from our static files
    "axes",
    "tournaments",
    "games",
    "ratings",
    "api",
    "web",
    "benchmarks",
]

MIDDLEWARE = [
    # first: it sees what the others added (web/caching.py: who may keep a copy of a page)
    "web.caching.CacheRulesMiddleware",
    # an ETag (the body's hash) on every answer that has none, and 304 for a poll that sends it
    # back: the seating's and a table's polls download nothing when nothing changed
    "django.middleware.http.ConditionalGetMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "api.middleware.QueryNulMiddleware",  # a NUL in an API query string: a 400 before any view
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's, building no policy for the API's answers (config/middleware.py)
    "config.middleware.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes requires
]

# ----------------------------------------------------------------------------- behind TLS
# TRUSTED_PROXY_COUNT: how many proxies of ours stand in front of the server, each adding the
# address it saw to X-Forwarded-For. 0 (the default): the client's address is REMOTE_ADDR and
# the forwarded headers are ignored (a client could write them). 1 behind one nginx: the last
# address of X-Forwarded-For, and X-Forwarded-Proto tells HTTPS (SECURE_PROXY_SSL_HEADER).
# Throttles and login lockouts use that address (api/throttling.py, client_address).
TRUSTED_PROXY_COUNT = _whole("TRUSTED_PROXY_COUNT", 0)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if TRUSTED_PROXY_COUNT else None
# DJANGO_HTTPS=1: the site is served over TLS only: cookies are sent over HTTPS only, plain
# HTTP is redirected, and browsers are told to keep to HTTPS (HSTS) for DJANGO_HSTS_SECONDS
# (default a year, on every subdomain, preload-ready; 0 turns HSTS off).
HTTPS = _flag("DJANGO_HTTPS")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = _whole("DJANGO_HSTS_SECONDS", 31_536_000) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SESSION_COOKIE_HTTPONLY = True

# Messages: Django's cookie-then-session storage, built when a request first uses it (an API
# request never does: config/middleware.py)
MESSAGE_STORAGE = "config.middleware.LazyFallbackStorage"

# Content-Security-Policy (django-csp) on every page: scripts, styles, images and requests from
# this site only; no inline script or style, no plugin, no framing. The API under /api/ (JSON,
# and DRF's browsable API, which uses inline styles) is left out — but its Swagger UI and Redoc
# pages, served from our static files (drf-spectacular-sidecar), set this policy themselves,
# Redoc's with inline styles and a blob worker on top (api/urls.py).
_SELF, _NONE = "'self'", "'none'"
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/"],
    "DIRECTIVES": {
        "default-src": [_SELF], "script-src": [_SELF], "style-src": [_SELF],
        "img-src": [_SELF, "data:"], "connect-src": [_SELF], "font-src": [_SELF],
        "object-src": [_NONE], "base-uri": [_SELF], "form-action": [_SELF],
        "frame-ancestors": [_NONE],
    },
}

# ----------------------------------------------------------------------------- logins
# django-axes locks logins out for LOGIN_COOLOFF_MINUTES after the last failure — a username
# from one client address after LOGIN_FAILURE_LIMIT failures, the username from everywhere
# after LOGIN_FAILURE_LIMIT_USERNAME, an address for every username after
# LOGIN_FAILURE_LIMIT_ADDRESS (config/lockout.py: axes itself holds all to one limit) — at the
# admin's login, the pages' sign-in and the API's token view (api/auth_views.py). Failures are
# counted in the database (one row per username, address and browser, updated under a row
# lock) and listed in the admin ("Access attempts"), where staff can lift a lockout. An attempt
# refused while locked out is not counted (a guesser locked out at one address would go on to
# lock the username out everywhere), and a success clears its username's failures from its
# address.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend",
                           "django.contrib.auth.backends.ModelBackend"]
AXES_HANDLER = "config.lockout.TieredLockoutHandler"
AXES_FAILURE_LIMIT = _whole("LOGIN_FAILURE_LIMIT", 10, minimum=1)
#: each lockout parameter of axes, and the failures that lock it (config/lockout.py)
LOGIN_LOCKOUTS = [
    (["username", "ip_address"], AXES_FAILURE_LIMIT),
    ("username", _whole("LOGIN_FAILURE_LIMIT_USERNAME", 100, minimum=1)),
    ("ip_address", _whole("LOGIN_FAILURE_LIMIT_ADDRESS", 100, minimum=1)),
]
AXES_LOCKOUT_PARAMETERS = [parameter for parameter, _limit in LOGIN_LOCKOUTS]
AXES_COOLOFF_TIME = _whole("LOGIN_COOLOFF_MINUTES", 15, minimum=1) / 60  # hours
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "config.ratelimit.client_address"
AXES_LOCKOUT_CALLABLE = "api.errors.login_locked_out"
AXES_VERBOSE = False

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
        conn_max_age=_whole("DB_CONN_MAX_AGE", 60),
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
        "connect_timeout", _whole("DB_CONNECT_TIMEOUT", 5))
# DB_POOL_MAX_SIZE: a psycopg connection pool per process (PostgreSQL), shared by its threads:
# with gunicorn's gthread workers and long-polling live clients, hundreds of threads then need
# no more connections than the pool (instead of one persistent connection each).
if os.environ.get("DB_POOL_MAX_SIZE") and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django requires it with a pool
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1, "max_size": _whole("DB_POOL_MAX_SIZE", 1, minimum=1), "timeout": 20}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
# The zh-hans catalogue of every app, inside the config package so that an installed wheel has it.
LOCALE_PATHS = [Path(__file__).resolve().parent / "locale"]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles"

# Celery: no broker configured → run tasks in-process (the demo and the default tests).
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost/"
# Live play's long-polls are woken through Redis pub/sub (live/notify.py): by default the
# broker's Redis; without one, waiting requests poll the game's version instead.
LIVE_PUBSUB_URL = os.environ.get("LIVE_PUBSUB_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None)
# An act in a live game this process knows is first tried as one conditional update, without the
# row lock (live/services.py, unlocked_act); LIVE_FAST_PATH=0 takes the lock for every act
# (``manage.py bench_live --no-fast-path`` measures the difference).
LIVE_FAST_PATH = os.environ.get("LIVE_FAST_PATH", "1") != "0"
# The ASGI server answers the common act itself (api/fast_act.py), without Django's middleware
# and DRF's dispatch; LIVE_ACT_SHORT_PATH=0 sends every act through the DRF view.
LIVE_ACT_SHORT_PATH = os.environ.get("LIVE_ACT_SHORT_PATH", "1") != "0"
# ... and, on PostgreSQL, checks and stores the common act on the event loop (live/aiodb.py);
# LIVE_ACT_ON_LOOP=0 does it in a stream database thread.
LIVE_ACT_ON_LOOP = os.environ.get("LIVE_ACT_ON_LOOP", "1") != "0"
# The event loop's own connections for those acts, per process. One makes every act wait for
# the one before it; more absorb a slow statement better but cost every process more CPU an act
# on a host short of cores (about a tenth more with four than with two, measured with
# bench_live --streams 10000).
LIVE_LOOP_DB_CONNECTIONS = int(os.environ.get("LIVE_LOOP_DB_CONNECTIONS", "2"))
# Spectators' waiting requests (event streams and long-polls of anyone neither seated at the table
# nor its referee) per process, in all and per client address: each holds a stream worker's
# thread, so keep LIVE_SPECTATOR_WAITERS well below the stream workers' --threads; seated
# players and referees are never counted nor refused (live/streams.py, SpectatorSlots).
LIVE_SPECTATOR_WAITERS = _whole("LIVE_SPECTATOR_WAITERS", 100)
LIVE_SPECTATOR_WAITERS_PER_ADDRESS = _whole("LIVE_SPECTATOR_WAITERS_PER_ADDRESS", 4)
# Under ASGI (config/asgi.py) an open stream is not a thread: it waits on the event loop and
# reads the database only when its game moves, in one of LIVE_STREAM_DB_THREADS threads per
# process (live/aio.py), each with at most one connection: 10,000 streams, 2 connections. The
# acts stored off the loop use them too; more threads fight the event loop for the GIL (with 4,
# an act's p99 was ten times that with 2 at 556 acts/s under bench_live --streams 10000).
LIVE_STREAM_DB_THREADS = _whole("LIVE_STREAM_DB_THREADS", 2, minimum=1)
# LIVE_GAME_CACHE: the live games each process keeps (live.cache, about 40 KB each), and with them
# who sits where: an act in a game the process does not hold rebuilds it from the database and,
# without its seats, takes the row lock. At least the running tables an event plays at once.
LIVE_GAME_CACHE = _whole("LIVE_GAME_CACHE", 2048, minimum=16)
# LIVE_SWEEP_SECONDS: how often Celery beat sends the 托管 sweep (config below), which plays every
# seat whose move time ran out: the most a silent seat waits past its deadline
LIVE_SWEEP_SECONDS = _whole("LIVE_SWEEP_SECONDS", 1, minimum=1)
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
# A worker keeps its database connections from task to task, checked before and after each as a
# request's are (config/celery.py); Celery's Django fixup closes them every 2 × this many tasks.
# Its default closes them around every task (a pool's whole pool, in a prefork worker), so that
# each short task — a 托管 timer's one read — would open a PostgreSQL connection.
CELERY_DB_REUSE_MAX = _whole("CELERY_DB_REUSE_MAX", 1000, minimum=1)
# CELERY_WORKER_NICE: how far below the servers' CPU priority a `celery worker` runs (its
# niceness, raised as it starts; its pool's processes and an embedded beat inherit it). A
# standings run at 10,000 entries is a tenth of a second of CPU: on a host the stream servers
# share, niced, it runs in their idle time instead of delaying the live tables' acts. 0 leaves
# it alone.
CELERY_WORKER_NICE = _whole("CELERY_WORKER_NICE", 10, minimum=0)
# Redis redelivers a message that a worker took but never acknowledged (acks_late: the worker
# died mid-task) once it has been unacknowledged for visibility_timeout seconds. It must exceed
# the longest task run plus the longest countdown (the live-play 托管 countdown, an event's
# move_seconds), or a message still running or waiting for its countdown is delivered twice.
# Tasks are idempotent, so an early redelivery is harmless; the fault tests set a few seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _whole("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=1),
    # a broker that is down fails a request's publish in half a second, not the 4 s
    # connection timeout, nor for ever on a connection that no longer answers (kombu's advice);
    # the worker's BRPOP is read by its event loop, which no socket timeout governs
    "socket_connect_timeout": 0.5, "socket_timeout": 0.5,
}
# ... so a draw whose worker died would wait that long: beat's draw sweep (below) queues the draw
# again of a round still committed (its draw queued, not done) this many seconds after its
# commitment; a draw takes seconds at 10,000 entries, and a copy finds the round drawn.
CELERY_DRAW_REQUEUE_SECONDS = _whole("CELERY_DRAW_REQUEUE_SECONDS", 120, minimum=1)
# Publishing to a broker that is down: one immediate retry (a connection that died with a Redis
# restart is replaced by a new one), not three spaced ones; then the request goes on without
# the task (config/outage.py, config/celery.py) and a beat sweep does its work later.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0,
                                    "interval_step": 0.2, "interval_max": 0.2}
# `celery -A config beat`: re-queue the standings of any event whose recompute message was lost
# (tournaments/standings.py, standings_sweep); an event with fresh standings costs one query.
CELERY_BEAT_SCHEDULE = {
    "standings-sweep": {"task": "tournaments.tasks.standings_sweep_task", "schedule": 60.0},
    # and draw the rounds whose draw was lost (tournaments/services/rounds.py, round_draw_sweep): a
    # round waits at most CELERY_DRAW_REQUEUE_SECONDS and a half minute (one query when none)
    "draw-sweep": {"task": "tournaments.tasks.round_draw_sweep_task", "schedule": 30.0,
                   "options": {"expires": 30.0}},
    # and let the bot play every live seat whose move time ran out (live/services.py,
    # live_autoplay_overdue: a turn in 托管 has a timer of its own; live/tasks.py keeps the task's
    # first name): a seat is played at most LIVE_SWEEP_SECONDS after its deadline
    # (a sweep not run within ten of them is dropped: a worker back after an hour away runs
    # one, not 3,600)
    "live-sweep": {"task": "games.tasks.live_sweep_task", "schedule": LIVE_SWEEP_SECONDS,
                   "options": {"expires": 10 * LIVE_SWEEP_SECONDS}},
}

# Request size caps: a full game record is ~6 KB; refuse what no client should send.
DATA_UPLOAD_MAX_MEMORY_SIZE = _whole("MAX_REQUEST_BYTES", 1_000_000, minimum=1)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_500_000

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # JSON bodies only: a form or multipart body to a JSON endpoint is a 415 (a garbage one to
    # POST …/publish/ was read as no fields, and the defaults published the event); the CSV
    # import takes its file as multipart (api.views.entries.EntryImportApi)
    "DEFAULT_PARSER_CLASSES": ["api.parsers.StrictJSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer",
                                 "rest_framework.renderers.BrowsableAPIRenderer"],
    # ?format= (json, api) picks a renderer; a value none has is left to the view's filters
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.ContentNegotiation",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend",
                                "rest_framework.filters.SearchFilter"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.Pagination",
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    # Fixed windows counted with atomic increments on the cache (config/ratelimit.py, api/throttling.py): requests
    # sent at the same moment cannot pass a limit together. Share the cache (CACHE_URL) between
    # processes for the limits to hold across them.
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttling.AnonRateThrottle",
        "api.throttling.UserRateThrottle",
        "api.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": _rate("THROTTLE_ANON", "300/min"),
        "user": _rate("THROTTLE_USER", "3000/min"),
        "writes": _rate("THROTTLE_WRITES", "600/min"),
        "results": _rate("THROTTLE_RESULTS", "600/min"),
        "engine": _rate("THROTTLE_ENGINE", "120/min"),
        "live": _rate("THROTTLE_LIVE", "1200/min"),
        # the table-side pages (/p/<token>/, /me/) per player, and links that open nothing per
        # client address (web/views/table.py)
        "links": _rate("THROTTLE_LINKS", "120/min"),
        "link_misses": _rate("THROTTLE_LINK_MISSES", "30/min"),
        # practice games against the bots started per client address (web/views/practice.py)
        "practice": _rate("THROTTLE_PRACTICE", "30/hour"),
        # daily challenge entries (names) per client address (web/views/daily.py)
        "daily": _rate("THROTTLE_DAILY", "10/hour"),
        # token logins, per client address and per username (api/auth_views.py)
        "login": _rate("THROTTLE_LOGIN", "20/min"),
    },
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "够级 tournament service API",
    "DESCRIPTION": "Events, entries, draws, results and standings for 够级 (Gouji) events. "
                   "Errors share one shape: {\"error\": {\"code\", \"message\", \"detail\"?, "
                   "\"fields\"?}}.",
    "VERSION": "1.0.0",
    # the docs pages work offline: Swagger UI and Redoc from drf-spectacular-sidecar's static
    # files, not a CDN (tests/api/test_docs_offline.py)
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "api.schema.document_errors"],
    "ENUM_NAME_OVERRIDES": {
        "EventStatusEnum": "tournaments.models.Event.Status",
        "EntryStatusEnum": "tournaments.models.Entry.Status",
        "RoundStatusEnum": "tournaments.models.Round.Status",
        "ResultStatusEnum": "games.models.GameResult.Status",
        "ResultKindEnum": "games.models.GameResultVersion.Kind",
        "ProposalStatusEnum": "games.models.ResultProposal.Status",
    },
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if os.environ.get("CACHE_URL"):
    # Redis down: the process's own memory instead, tried again every few seconds
    # (config/cache.py, config/outage.py); half a second at most to connect or to answer
    CACHES = {"default": {"BACKEND": "config.cache.RedisCache",
                          "LOCATION": os.environ["CACHE_URL"],
                          # one pool per process, not one per request (config/cache.py)
                          "OPTIONS": {"pool_class": "config.cache.SharedConnectionPool",
                                      "socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
