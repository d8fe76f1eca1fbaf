"""One JSON error shape for the whole API::

    {"error": {"code": "not_entitled", "message": "…", "detail": {…}, "fields": {…}}}

Engine refusals come back with the engine's code and its error object (``where``, ``index``,
``seat``, ``message``) in ``detail``.

A database outage (the server restarting, a dropped connection, a cancelled statement) is a 503
``database_unavailable`` with a ``Retry-After`` header: the client sends the same request again
(a result with the same ``Idempotency-Key``) and gets either the new result or the stored one.
The database's own message (SQL, host, port) never reaches the client; it goes to the log.

Redis down (config/outage.py) fails no request that can do without it; one that cannot — opening
a round, whose draw needs the task queue — is refused before it stores anything with a 503
``queue_unavailable`` and a ``Retry-After`` header. Should a Redis failure escape anywhere else,
it is a 503 ``service_unavailable`` with ``Retry-After`` too, never a 500.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_handler

from config import outage
from tournaments.errors import ServiceError

logger = logging.getLogger(__name__)

#: Errors that mean "the database is not reachable right now", not "the request is wrong":
#: Django's wrappers and, should one escape unwrapped, the driver's own classes.
DATABASE_DOWN: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)
try:  # PostgreSQL driver (absent on a SQLite-only install)
    import psycopg

    DATABASE_DOWN += (psycopg.OperationalError, psycopg.InterfaceError)
except ImportError:  # pragma: no cover
    pass

RETRY_AFTER_SECONDS = 1
DATABASE_DOWN_MESSAGE = ("the database is unavailable for a moment; send the same request again "
                         f"in {RETRY_AFTER_SECONDS} s (with the same Idempotency-Key)")


def error_body(code: str, message: str, detail=None, fields=None) -> dict:
    body = {"code": code, "message": str(message)}
    if detail:
        body["detail"] = detail
    if fields:
        body["fields"] = fields
    return {"error": body}


def _flatten(data):
    if isinstance(data, dict):
        return {k: _flatten(v) for k, v in data.items()}
    if isinstance(data, list):
        return [str(x) if not isinstance(x, dict | list) else _flatten(x) for x in data]
    return str(data)


_CODES = {
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ParseError: "bad_request_body",
}


def _log_database_down(exc: BaseException, where: str) -> None:
    first_line = (str(exc).strip().splitlines() or [""])[0][:200]
    logger.warning("database unavailable in %s: %s: %s", where, type(exc).__name__, first_line)


def database_unavailable_body() -> dict:
    return error_body("database_unavailable", DATABASE_DOWN_MESSAGE,
                      detail={"retry_after": RETRY_AFTER_SECONDS})


REDIS_DOWN_MESSAGE = ("a service this request needs is unavailable for a moment; send the same "
                      f"request again in {outage.RETRY_SECONDS} s (with the same "
                      "Idempotency-Key)")


def redis_down(exc: BaseException) -> bool:
    """Whether ``exc`` says Redis (the cache, the broker, pub/sub) is not there."""
    return isinstance(exc, outage.redis_errors())


def redis_failure_escaped(exc: BaseException, where: str) -> None:
    """Tell the breaker of the use that failed (the broker's for kombu's errors, else the
    cache's), which logs it once a minute: the client never sees Redis's message."""
    from kombu.exceptions import OperationalError as BrokerError

    breaker = outage.BROKER if isinstance(exc, BrokerError) else outage.CACHE
    breaker.failed(exc, f"in {where} (escaped)")


def redis_unavailable_response(exc: BaseException, where: str, response_class=Response):
    """The 503 ``service_unavailable`` of a Redis failure that escaped."""
    redis_failure_escaped(exc, where)
    response = response_class(error_body("service_unavailable", REDIS_DOWN_MESSAGE,
                                         detail={"retry_after": outage.RETRY_SECONDS}),
                              status=503)
    response["Retry-After"] = str(outage.RETRY_SECONDS)
    return response


def exception_handler(exc, context):
    if isinstance(exc, DATABASE_DOWN):
        view = context.get("view")
        _log_database_down(exc, type(view).__name__ if view is not None else "the API")
        return Response(database_unavailable_body(), status=status.HTTP_503_SERVICE_UNAVAILABLE,
                        headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    if redis_down(exc):
        view = context.get("view")
        return redis_unavailable_response(exc, type(view).__name__ if view is not None
                                          else "the API")
    if isinstance(exc, ServiceError):
        response = Response(error_body(exc.code, exc.message, exc.detail or None),
                            status=exc.status)
        if exc.status in (429, 503) and "retry_after" in exc.detail:
            response["Retry-After"] = str(exc.detail["retry_after"])
        return response
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        return Response(error_body("too_large", "the request body is too large"),
                        status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    response = drf_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        data = exc.detail
        if isinstance(data, dict):
            fields = _flatten(data)
            first = next(iter(fields.items()), ("", ""))
            msg = first[1][0] if isinstance(first[1], list) and first[1] else first[1]
            message = f"{first[0]}: {msg}" if first[0] not in ("non_field_errors", "") else msg
            response.data = error_body("invalid", message, fields=fields)
        else:
            items = _flatten(data if isinstance(data, list) else [data])
            response.data = error_body("invalid", items[0] if items else "invalid request")
        return response
    code = next((c for cls, c in _CODES.items() if isinstance(exc, cls)), "error")
    detail = getattr(exc, "detail", "")
    body = error_body(code, detail if isinstance(detail, str) else str(detail))
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["error"]["detail"] = {"retry_after": int(exc.wait)}
    response.data = body
    return response


def json_404(request, exception=None):
    return JsonResponse(error_body("not_found", "not found"), status=404)


def json_500(request):
    # Django calls the 500 handler while handling the exception: a database outage raised
    # outside a DRF view (middleware, a plain view under /api/) is a 503 too.
    exc = sys.exc_info()[1]
    if isinstance(exc, DATABASE_DOWN):
        _log_database_down(exc, request.path)
        response = JsonResponse(database_unavailable_body(), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if redis_down(exc):
        return redis_unavailable_response(exc, request.path, JsonResponse)
    return JsonResponse(error_body("server_error", "the server failed; a change you sent may or "
                                   "may not be stored: send the same request again (with the "
                                   "same Idempotency-Key)"), status=500)


def json_400(request, exception=None):
    return JsonResponse(error_body("bad_request", "bad request"), status=400)


def login_locked_out(request, response=None, credentials=None):
    """django-axes' answer once a login is locked out (config/lockout.py): the API's error
    shape under /api/, a short page elsewhere (the pages' sign-in, the admin's login)."""
    minutes = round(settings.AXES_COOLOFF_TIME * 60)
    message = _("Too many failed logins: try again in %(minutes)s minutes.") % {
        "minutes": minutes}
    if request.path.startswith("/api/"):
        response = JsonResponse(error_body("locked_out", message,
                                           detail={"retry_after": minutes * 60}), status=429)
    else:
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(minutes * 60)
    return response
