"""The act's short path on the ASGI server: ``POST /api/v1/live/<id>/act/`` answered without
Django's middleware and DRF's dispatch around the view, when the act is the common one.

An act is a few microseconds of the engine's work and one conditional ``UPDATE``; through
gunicorn, Django's middleware and DRF it cost about 2 ms of CPU (py-spy of ``bench_live
--streams 10000``, docs/BENCHMARKS.md): two cores could not carry 1,667 tables' acts. Here,
:func:`serve` (called by config/asgi.py) reads the request and — on the event loop itself
when the process holds what the act needs (:func:`_act_here`: the statement awaited on the
loop's own connection, :mod:`live.aiodb`), else in a stream database thread
(:mod:`live.aio`) — makes the view's checks with the view's code: the host against
``ALLOWED_HOSTS``, HTTPS when the site requires it, the token (:class:`api.authentication.
TokenAuthentication`), the view's throttles, counted once (:func:`api.throttling.
allow_for_view`), the body (:class:`api.parsers.StrictJSONParser`, then
:class:`api.live_views.LiveActSerializer`); then it stores the act with the same conditional
update (:func:`live.services.live_act_planned`, its statement awaited on the loop or run by
:func:`live.services.store_planned`). The answer is the view's: the seat's view as JSON
(on the loop, the data of the seat's stream frame, rendered once for both:
:func:`live.streams.view_json_cached`; in a thread, as :class:`api.live_views.FastJSONRenderer`
renders it), with the headers DRF and the middleware give it (:func:`_headers`;
``tests/api/test_fast_act.py`` holds every header to theirs).

Anything else is handed, untouched (its body replayed), to Django's handler, and the DRF view
(:class:`api.live_views.LiveActApi`) answers as it always has, errors included: no token or a
session, a token that fails, a throttle that refuses, a body the parser or the serializer
refuses, another answer format asked for (``Accept``, ``?format``), and every act the
conditional update does not store (a stale version, an illegal act, another seat's, the act
that ends the game, a game with a seat in 托管). Nothing has changed then, so the view starts
afresh; the throttles it runs know the request was counted here (:data:`config.ratelimit.
COUNTED`). Served here, an act's process is the one that holds its game's streams when the
proxy sends a game's requests to one process (the README's production layout): they render
the new version from memory.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import io
import logging
import re
from collections.abc import Awaitable, Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.locale import LocaleMiddleware
from django.middleware.security import SecurityMiddleware
from django.utils import translation
from django.utils.module_loading import import_string
from redis.exceptions import RedisError
from rest_framework.exceptions import APIException

from api.authentication import TokenAuthentication, token_holds_sql, token_users
from api.live_views import FastJSONRenderer, LiveActApi, LiveActSerializer, plain_act
from api.parsers import StrictJSONParser
from api.throttling import allow_for_view, counters_for_view, let_through
from config.ratelimit import COUNTED, count_on_redis, counts_in_process, on_redis
from live import aiodb, queries, streams
from live import services as live
from live.aio import in_db_thread

log = logging.getLogger(__name__)

#: the path served here, with the live game's id
PATH = re.compile(r"^/api/v1/live/(\d+)/act/$")
#: the one query string served here: the count of acts the client has (the answer carries
#: the acts from there on; :func:`live.streams.acts_from_asked` says which counts are good);
#: any other, ``?format`` included, goes to the view
QUERY = re.compile(rb"^actions_from=([0-9]{1,9})$")
#: a larger body is not an act (at most 54 cards): Django's handler reads it
MAX_BODY = 16 * 1024
#: the Accept headers DRF answers with the JSON renderer, compact (no ``indent``)
_JSON_ACCEPTS = {b"", b"*/*", b"application/json"}
_CHECKED = {b"accept", b"content-type", b"authorization", b"content-length"}
_JSON_TYPES = {b"application/json", b"application/json; charset=utf-8",
               b"application/json;charset=utf-8"}

_view = LiveActApi()
_renderer = FastJSONRenderer()
#: the middleware that adds headers to the view's answer (each reads its settings when built)
_HEADER_MIDDLEWARE = (LocaleMiddleware, XFrameOptionsMiddleware, SecurityMiddleware)
#: and the one that sets ``Cache-Control`` last (first in the settings; named, not imported: the
#: pages' room is not the API's)
_CACHE_RULES = "web.caching.CacheRulesMiddleware"

#: the middleware stack whose part in a token-authenticated act the short path accounts for:
#: it makes the security, language and framing headers (:data:`_HEADER_MIDDLEWARE`), checks
#: the host and HTTPS as CommonMiddleware and SecurityMiddleware do; a token request has no
#: session, cookie, CSRF check (DRF's token views are exempt), message, page to put a CSP on,
#: or login for axes; the cache rules' ``Cache-Control`` it sets as they would; an act is a POST
#: (no conditional answer) whose only query is ``actions_from`` (a NUL there: the view's 400).
#: Any other stack sends every act to the view (:func:`fits`).
KNOWN_MIDDLEWARE = (
    _CACHE_RULES,
    "django.middleware.http.ConditionalGetMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "api.middleware.QueryNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",
)
#: the act view's own policy the short path makes as the view would (:func:`policy`): its token
#: check (a token's user is authenticated; a session is the view's), the view's throttles counted
#: once (:func:`api.throttling.allow_for_view`), the JSON parser, the default negotiation
KNOWN_VIEW_POLICY = (
    ("authentication", ("api.authentication.TokenAuthentication",
                        "rest_framework.authentication.SessionAuthentication")),
    ("permission", ("rest_framework.permissions.IsAuthenticated",)),
    ("throttle", ("api.throttling.AnonRateThrottle", "api.throttling.UserRateThrottle",
                  "api.throttling.ScopedRateThrottle")),
    ("throttle_scope", "live"),
    ("parser", ("api.parsers.StrictJSONParser",)),
    ("renderer", ("api.live_views.FastJSONRenderer",
                  "rest_framework.renderers.BrowsableAPIRenderer")),
    ("negotiation", ("api.negotiation.ContentNegotiation",)),
    ("versioning", ("builtins.NoneType",)),
)


@functools.cache
def _named(*classes) -> tuple[str, ...]:
    return tuple(f"{c.__module__}.{c.__qualname__}" for c in classes)


def policy() -> tuple:
    """Everything that decides how the act is checked and answered: the settings' middleware,
    the user agents refused, and :class:`LiveActApi`'s authentication, permission, throttle,
    parser, renderer, negotiation and versioning classes, as names."""
    view = LiveActApi
    return (tuple(settings.MIDDLEWARE), tuple(settings.DISALLOWED_USER_AGENTS), (
        ("authentication", _named(*view.authentication_classes)),
        ("permission", _named(*view.permission_classes)),
        ("throttle", _named(*view.throttle_classes)),
        ("throttle_scope", getattr(view, "throttle_scope", None)),
        ("parser", _named(*view.parser_classes)),
        ("renderer", _named(*view.renderer_classes)),
        ("negotiation", _named(view.content_negotiation_class)),
        ("versioning", _named(type(view.versioning_class) if view.versioning_class is None
                              else view.versioning_class)),
    ))


#: the policy the short path accounts for; any other sends every act to the view (:func:`fits`)
KNOWN_POLICY = (KNOWN_MIDDLEWARE, (), KNOWN_VIEW_POLICY)

Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


def handles(scope: dict) -> tuple[int, int, int | None] | None:
    """The live game's id, the body's length and the answer's first act (``actions_from``, or
    ``None``: every act) if ``scope`` is a request this path may take: a POST of an act with no
    query string but ``actions_from`` (``?format`` asks for another renderer), JSON in and
    out, a token, and the body's length given."""
    if scope["type"] != "http" or scope["method"] != "POST" or not fits():
        return None
    acts_from = None
    if query := scope.get("query_string"):
        asked = QUERY.match(query)
        try:
            acts_from = streams.acts_from_asked(asked.group(1).decode()) if asked else None
        except streams.BadActsFrom:
            acts_from = None
        if acts_from is None:
            return None  # (the view answers, or refuses what it does not understand)
    match = PATH.match(scope["path"])
    if match is None:
        return None
    headers = {}
    for key, value in scope["headers"]:
        if key in headers and key in _CHECKED:
            return None  # (Django joins repeated headers: the view decides)
        headers[key] = value
    if headers.get(b"accept", b"").strip().lower() not in _JSON_ACCEPTS or \
            headers.get(b"content-type", b"").strip().lower() not in _JSON_TYPES or \
            not headers.get(b"authorization", b"")[:6].lower() == b"token " or \
            not headers.get(b"content-length", b"").isdigit():
        return None  # (without a Content-Length, DRF reads no body: a chunked one is refused)
    return int(match.group(1)), int(headers[b"content-length"]), acts_from


def fits() -> bool:
    """Whether the short path makes every check the view's stack would: its whole
    :func:`policy` is :data:`KNOWN_POLICY`. Otherwise every act goes to the view, so that a
    check added there is never bypassed (the server's start says so)."""
    return policy() == KNOWN_POLICY


async def serve(scope: dict, receive: Receive, send: Send,
                hand_over: Callable[[dict, Receive, Send], Awaitable[None]],
                live_id: int, length: int, acts_from: int | None = None) -> None:
    """Answer the act in ``scope`` (:func:`handles` gave its game, its body's length and the
    answer's first act) here, or call ``hand_over`` (Django's handler) with the request as it
    came."""
    chunks, size, more = [], 0, True
    while more and size <= MAX_BODY:
        message = await receive()
        if message["type"] == "http.disconnect":
            return  # the client left before its act arrived: nothing to do
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = message.get("more_body", False)
    body = b"".join(chunks)
    answer = None
    if not more and len(body) == length:
        try:
            answer = await _act_here(scope, body, live_id, acts_from)
        except RedisError as exc:  # (nothing stored yet: a line, not a traceback an act)
            log.warning("the act's throttles could not be counted in Redis (%s); handing the "
                        "act to the view", exc)
        except Exception:  # nothing stored twice (see _act): the view answers, or fails
            log.exception("the act's short path failed; handing the act to the view")
    if answer is None:
        await hand_over(scope, _replayed(body, more, receive), send)
        return
    content, headers = answer
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": content})


#: how long the server's start waits for the act's connections (:func:`warm`)
WARM_TIMEOUT = 10.0


async def warm() -> None:
    """As the server starts: open the event loop's database connections for the acts, their
    statement prepared (:meth:`live.aiodb.LoopDatabase.warm`). If the database cannot be
    reached, the server starts anyway and they open with the first acts, as before."""
    if settings.LIVE_ACT_SHORT_PATH and not fits():
        log.warning("the act's short path is off: the middleware, DISALLOWED_USER_AGENTS or the "
                    "act view's policy are not those it accounts for (api/fast_act.py "
                    "KNOWN_POLICY); every act goes to the view")
        return
    if not (settings.LIVE_ACT_SHORT_PATH and _on_loop()):
        return
    statement = _loop_context.run(_act_statement)
    try:
        await asyncio.wait_for(aiodb.database.warm([statement]), WARM_TIMEOUT)
    except Exception:  # (the first acts open them, or fail as they would have)
        log.warning("the act's database connections could not be opened at start-up; they "
                    "open with the first acts", exc_info=True)


def _on_loop() -> bool:
    """Whether the short path's acts are stored on the event loop (its own connections)."""
    return settings.LIVE_ACT_ON_LOOP and aiodb.LoopDatabase.usable()


def _act_statement() -> str:
    """The statement that stores a player's act on the loop: the conditional update with the
    token's condition (:func:`_token_holds`), as :func:`live.services.live_act_planned` makes
    it."""
    return queries.act_update_sql(True, token_holds_sql())


def cool() -> None:
    """As the server stops: its loop connections are closed."""
    aiodb.database.close_now()


def _replayed(body: bytes, more: bool, receive: Receive) -> Receive:
    """``receive`` with the body read so far given back first."""
    given = False

    async def again() -> dict:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": more}

    return again


async def _act_here(scope: dict, body: bytes, live_id: int, acts_from: int | None = None
                    ) -> tuple[bytes, list] | None:
    """The act stored and its answer, or ``None`` (the view answers). On PostgreSQL, when this
    process holds all the act needs (the token's user, the game at the version acted on, its
    facts and the user's seat), it is checked and made on the event loop, its throttles counted
    in the process's memory or in Redis on the loop's own connection (blocks of numbers:
    :class:`config.ratelimit.Leases`), and stored by one
    statement awaited there (:mod:`live.aiodb`); otherwise, or with ``LIVE_ACT_ON_LOOP`` off,
    all of it happens in a stream database thread (:func:`_act`), as it did before. The answer
    carries the acts from ``acts_from`` on (``None``: every act)."""
    if not _on_loop():
        return await in_db_thread(_act, scope, body, live_id, acts_from)
    checked = _loop_context.run(_checked_here, scope, body)
    if checked is None:
        return None
    if checked is _IN_THREAD:
        return await in_db_thread(_act, scope, body, live_id, acts_from)
    admitted, due = checked
    if due is not None:  # (in Redis: from this process's blocks, or a round trip for new ones)
        counted, where = due
        if not let_through(counted, await count_on_redis(*where)):
            return None  # (the view refuses it, counting it again: past the limit already)
        scope[COUNTED] = True
    planned = _loop_context.run(_plan_here, admitted, live_id)
    if planned is None:
        return None
    if planned is _IN_THREAD_COUNTED:
        return await in_db_thread(_act, scope, body, live_id, acts_from, counted=True)
    request, language, made = planned
    if await aiodb.database.rowcount(made.sql, made.params, order=live_id) != 1:
        return None  # moved on, finished, or reseated meanwhile: the game is dropped
    answer = _loop_context.run(_stored_here, request, language, made, acts_from)
    if answer is None:  # (the game not in memory after all: its view is read)
        answer = await in_db_thread(_answer, request, language, made.live, acts_from)
    return answer


#: the context the event loop's acts are checked and answered in: one for the process, so
#: that what Django keeps per context (its connection handler's wrappers) is made once,
#: not for every act (each request runs in a context of its own)
_loop_context = contextvars.Context()
_IN_THREAD = object()  # (the act goes to a stream database thread)
_IN_THREAD_COUNTED = object()  # (the same, its throttles counted already)


def _checked_here(scope: dict, body: bytes):
    """:func:`_act_here`'s checks on the event loop, from memory only, and its throttles
    counted if they count in this process: ``(the act as :func:`_admitted` gives it, None)``;
    ``(the same, (the throttles' counters, where they count in Redis))`` when that is still
    to do (:func:`config.ratelimit.count_on_redis`); ``None`` (the view answers); or
    :data:`_IN_THREAD` (a token not seen lately, or throttles that count elsewhere)."""
    request = ASGIRequest(scope, io.BytesIO(body))
    checked = _checks(request, body, authenticate=False)
    if checked is None or checked is _IN_THREAD:
        return checked
    admitted = (request, translation.get_language_from_request(request), *checked)
    if counts_in_process():
        return (admitted, None) if _count_throttles(request, scope) else None
    counted = counters_for_view(request, _view)
    where = None if counted is None else on_redis(
        [counter for _t, counter in counted], [throttle.num_requests for throttle, _c in counted])
    if where is None:
        return _IN_THREAD  # (counted in the thread, by the cache's own client)
    return admitted, (counted, where)


def _plan_here(admitted: tuple, live_id: int):
    """The act :func:`_checked_here` admitted (its throttles counted), made on the event loop
    from memory only: ``(request, language, planned act)``, ``None`` (the view answers), or
    :data:`_IN_THREAD_COUNTED` (a read is due: a stream database thread makes it)."""
    request, language, user, key, action, version, seat = admitted
    # (no language activated: nothing here is put in words — a refusal goes to the view, which
    # answers in the request's language; activating it for each act was 2 % of the server's
    # samples, with the answer's)
    made = live.live_act_planned(live_id=live_id, user=user, action=action, version=version,
                                 seat=seat, also=_token_holds(key, user), read=False)
    if made is live.NEEDS_READ:
        return _IN_THREAD_COUNTED
    return None if made is None else (request, language, made)


def _stored_here(request, language: str, made, acts_from: int | None
                 ) -> tuple[bytes, list] | None:
    """After :func:`_act_here`'s statement stored the act: the game cached at its new version,
    the version announced, and the seat's answer, from memory (``None``: not held)."""
    made.stored()
    content = streams.view_json_cached(made.live, made.live.user_seat, acts_from)
    if content is None:
        return None
    return content, _headers(request, content, language)  # (the frame is in no language)


def _answer(request, language: str, lg, acts_from: int | None) -> tuple[bytes, list]:
    """The seat's answer to its stored act (in a stream database thread: the view may read)."""
    with translation.override(language):
        content = _renderer.render(live.live_view(live=lg, seat=lg.user_seat,
                                                  acts_after=acts_from))
    return content, _headers(request, content, language)


def _act(scope: dict, body: bytes, live_id: int, acts_from: int | None = None,
         counted: bool = False) -> tuple[bytes, list] | None:
    """In a stream database thread: the act stored and its answer (the body and the headers),
    or ``None`` with nothing changed. An exception escapes only before the act is stored (from
    the checks, or the database refusing the update); once it is, only the answer is left to
    render, from memory — and were that to fail, the view would find the version moved on and
    answer 409, never store the act twice. ``counted``: the throttles have counted it."""
    admitted = _admitted(scope, body, counted=counted)
    if admitted is None:
        return None
    request, language, user, key, action, version, seat = admitted
    with translation.override(language):
        made = live.live_act_planned(live_id=live_id, user=user, action=action,
                                     version=version, seat=seat, also=_token_holds(key, user))
        lg = None if made is None else live.store_planned(made)
    return None if lg is None else _answer(request, language, lg, acts_from)


def _admitted(scope: dict, body: bytes, *, counted: bool = False):
    """The act in ``scope`` (its ``body``) checked as the view checks it (:func:`_checks`, its
    token authenticated if not seen lately) and counted by its throttles, unless ``counted``
    already: ``(request, language, user, token key, action, version, seat)``, or ``None`` (the
    view answers)."""
    request = ASGIRequest(scope, io.BytesIO(body))
    checked = _checks(request, body, authenticate=True)
    if checked is None:
        return None
    if not counted and not _count_throttles(request, scope):
        return None
    return request, translation.get_language_from_request(request), *checked


def _token_holds(key: str, user) -> tuple[str, list]:
    """The act's ``UPDATE`` stores it only while the token is still the active user's."""
    return token_holds_sql(), [key, user.pk]


def _checks(request, body: bytes, *, authenticate: bool):
    """The view's checks of the act in ``request`` (its ``body``) before its throttles: the
    host, HTTPS, the token's user (``request.user`` set), the body's JSON and the serializer.
    ``(user, token key, action, version, seat)``, or ``None`` (the view answers). A token not
    seen lately is authenticated as the view would (a read), or, not to ``authenticate``,
    gives :data:`_IN_THREAD`."""
    try:
        request.get_host()  # ALLOWED_HOSTS
    except DisallowedHost:
        return None
    if settings.SECURE_SSL_REDIRECT and not request.is_secure():
        return None
    key = _token(request)
    user = token_users.get(key) if key else None
    if user is None:  # (not seen lately: authenticated as the view would, and remembered)
        if not key:
            return None
        if not authenticate:
            return _IN_THREAD
        try:
            authenticated = TokenAuthentication().authenticate(request)
        except APIException:
            return None
        if authenticated is None:
            return None
        user = authenticated[0]  # (and remembered)
    request.user = user
    try:
        data = StrictJSONParser().parse(io.BytesIO(body), "application/json",
                                        {"encoding": request.encoding or settings.DEFAULT_CHARSET})
    except APIException:
        return None
    act = plain_act(data)
    if act is None:  # (not in its plainest form: the serializer decides)
        serializer = LiveActSerializer(data=data)
        if not serializer.is_valid():
            return None
        action = dict(serializer.validated_data)
        act = action, action.pop("version"), action.pop("seat", None)
    return user, key, *act


def _count_throttles(request, scope: dict) -> bool:
    """The view's throttles count the act, once: whether they let it through. From here on the
    view, if it answers, lets it through them uncounted (:data:`config.ratelimit.COUNTED`)."""
    if not allow_for_view(request, _view):
        return False  # the view refuses it (counted again: it is past the limit already)
    scope[COUNTED] = True
    return True


def _token(request) -> str | None:
    """The key of ``Authorization: Token <key>``, as DRF's authentication reads it."""
    words = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(words) != 2 or words[0].lower() != TokenAuthentication.keyword.lower():
        return None
    return words[1]


def _headers(request, content: bytes, language: str) -> list[tuple[bytes, bytes]]:
    """The headers :class:`LiveActApi`'s answer in ``language`` gets from DRF (``Allow``,
    ``Vary: Accept``) and from the middleware (the language, HTTPS and framing): made by their
    own code for each language and scheme once (:func:`_fixed_headers`), with the body's
    length."""
    return [(b"content-length", str(len(content)).encode()),
            *_fixed_headers(language, request.is_secure())]


@functools.cache
def _fixed_headers(language: str, secure: bool) -> tuple[tuple[bytes, bytes], ...]:
    request = HttpRequest()
    request.is_secure = lambda: secure
    request.method, request.path_info = "POST", "/api/v1/live/0/act/"
    request.META["HTTP_AUTHORIZATION"] = "Token -"  # (a token's: never a shared copy)
    with translation.override(language):
        response = HttpResponse(content_type=_renderer.media_type)
        for key, value in _view.default_response_headers.items():
            response[key] = value
        for middleware in (*_HEADER_MIDDLEWARE, import_string(_CACHE_RULES)):
            response = middleware(lambda request: None).process_response(request, response)
    return tuple((key.lower().encode("latin-1"), value.encode("latin-1"))
                 for key, value in response.items() if key.lower() != "content-length")


@receiver(setting_changed)
def _settings_changed(**kwargs) -> None:
    _fixed_headers.cache_clear()  # (tests change the middleware's settings)
