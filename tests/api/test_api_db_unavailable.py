"""A database outage is a clean, retryable answer: 503 in the one error shape, code
``database_unavailable``, a ``Retry-After`` header, no SQL or connection details in the message,
and nothing half-written. The retry with the same ``Idempotency-Key`` then stores the result
once. (The real thing — PostgreSQL restarted under load — is tests/faults/test_db_restart.py.)
"""

from __future__ import annotations

import psycopg
import pytest
from django.db import IntegrityError, InterfaceError, OperationalError, ProgrammingError, connection
from django.test import RequestFactory

from api import errors
from api.authentication import TokenAuthentication
from config import urls
from games import services as game_services
from games.models import GameResult, GameResultVersion
from tests.api.helpers import client_for, error_of, seats_of, sheet

pytestmark = pytest.mark.django_db

FIRST = sheet([0, 1, 2, 3, 4, 5])
#: what a driver's message may hold and a client must never see
SECRET = ('connection to server at "db.internal" (10.0.0.5), port 5432 failed: FATAL: password '
          'authentication failed for user "gouji" while running INSERT INTO "games_gameresult"')
LEAKED = ("db.internal", "10.0.0.5", "5432", "INSERT", "games_gameresult", "gouji", "FATAL")


def results_url(table):
    return f"/api/v1/tables/{table.pk}/results/"


def submit(user, table, key="key-1", **body):
    return client_for(user).post(results_url(table), {"number": 1, "sheet": FIRST, **body},
                                 format="json", HTTP_IDEMPOTENCY_KEY=key)


def stored():
    return GameResult.objects.count(), GameResultVersion.objects.count()


def assert_database_unavailable(response) -> dict:
    err = error_of(response, 503)
    assert err["code"] == "database_unavailable"
    assert "retry" in err["message"].lower() or "again" in err["message"].lower()
    assert not any(s.lower() in err["message"].lower() for s in LEAKED), err["message"]
    assert "detail" not in err or err["detail"] == {"retry_after": errors.RETRY_AFTER_SECONDS}
    assert response["Retry-After"] == str(errors.RETRY_AFTER_SECONDS)
    assert 1 <= int(response["Retry-After"]) <= 5
    return err


@pytest.fixture
def player(table):
    return seats_of(table)[0].player.user


def _raise(exc):
    def broken(*args, **kwargs):
        raise exc

    return broken


# ----------------------------------------------------------------------------- in a DRF view
@pytest.mark.parametrize("exc", [
    OperationalError(SECRET),
    InterfaceError("connection already closed"),
    psycopg.OperationalError(SECRET),  # the driver's own, should one escape Django's wrapper
    psycopg.InterfaceError("the connection is closed"),
], ids=["django-operational", "django-interface", "psycopg-operational", "psycopg-interface"])
def test_an_outage_while_submitting_is_a_retryable_503(player, table, monkeypatch, exc):
    monkeypatch.setattr(game_services, "result_submit", _raise(exc))
    assert_database_unavailable(submit(player, table))
    assert stored() == (0, 0)


def test_an_outage_in_the_middle_of_the_transaction_writes_nothing(player, table):
    """The connection fails as the version is written (on SQLite after the result's row, on
    PostgreSQL in the statement writing both): the transaction is rolled back, the client is
    told to retry; the retry with the same key stores the result once, and a second retry is
    answered with it (200)."""
    version_table = GameResultVersion._meta.db_table

    def fail_at_the_version(execute, sql, params, many, context):
        if sql.lstrip().startswith(("INSERT", "WITH")) and version_table in sql:
            raise OperationalError("server closed the connection unexpectedly")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(fail_at_the_version):
        assert_database_unavailable(submit(player, table))
    assert stored() == (0, 0)

    first = submit(player, table)
    assert first.status_code == 201, first.content
    again = submit(player, table)
    assert again.status_code == 200, again.content
    assert again.json()["id"] == first.json()["id"]
    assert stored() == (1, 1)
    assert GameResultVersion.objects.get().idempotency_key == "key-1"


def test_an_outage_while_authenticating_is_a_503(player, table, monkeypatch):
    """The token lookup is the first query of an authenticated request."""
    monkeypatch.setattr(TokenAuthentication, "authenticate_credentials",
                        _raise(OperationalError(SECRET)))
    assert_database_unavailable(submit(player, table))
    assert_database_unavailable(client_for(player).get(results_url(table)))
    assert stored() == (0, 0)


def test_an_outage_while_reading_is_a_503(anon, monkeypatch):
    from api.views.events import EventListCreateApi

    monkeypatch.setattr(EventListCreateApi, "get_queryset", _raise(OperationalError(SECRET)))
    assert_database_unavailable(anon.get("/api/v1/events/"))


@pytest.mark.parametrize("exc", [IntegrityError("duplicate key"), ProgrammingError("bad SQL")],
                         ids=["integrity", "programming"])
def test_other_database_errors_stay_a_500(player, table, monkeypatch, exc):
    """Only "the database is not there" is retryable; a bug is not hidden as a 503."""
    monkeypatch.setattr(game_services, "result_submit", _raise(exc))
    r = submit(player, table)
    err = error_of(r, 500)
    assert err["code"] == "server_error" and not r.has_header("Retry-After")


# ----------------------------------------------------------------------------- outside DRF
def test_an_outage_outside_a_drf_view_is_a_json_503(anon, monkeypatch):
    """Middleware (sessions, auth) runs before DRF: Django's 500 handler answers for /api/."""
    from django.contrib.sessions.middleware import SessionMiddleware

    monkeypatch.setattr(SessionMiddleware, "process_request", _raise(OperationalError(SECRET)))
    assert_database_unavailable(anon.get("/api/v1/events/"))


def test_the_500_handler_tells_an_outage_from_a_bug():
    request = RequestFactory().get("/api/v1/events/")
    try:
        raise InterfaceError("connection already closed")
    except InterfaceError:
        response = urls.handler500(request)
    assert response.status_code == 503 and response["Retry-After"] == "1"
    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        response = urls.handler500(request)
    assert response.status_code == 500 and not response.has_header("Retry-After")
