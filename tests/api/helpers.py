"""Helpers for the REST API tests: a token client per role, the error shape, sheets."""

from __future__ import annotations

from django.test import TestCase
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tournaments.models import Seat, Table

KAIDIAN = [True] * 6  # dagang plays 打点: every seat 开点 on these sheets


class Client(APIClient):
    """An API client that runs the on-commit side effects of each request after it."""

    def request(self, **kwargs):
        with TestCase.captureOnCommitCallbacks(execute=True):
            return super().request(**kwargs)


def client_for(user=None) -> Client:
    """A client logged in with ``user``'s API token (anonymous when ``user`` is None).

    A server error comes back as the response (a JSON 500, its traceback in the captured
    log) rather than raised, so a test shows which status it expected instead."""
    client = Client(raise_request_exception=False)
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def error_of(response, status: int) -> dict:
    """Assert ``response`` is an API error of ``status`` in the one error shape; return it."""
    assert response.status_code == status, (response.status_code, getattr(
        response, "content", b"")[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"]["code"], str) and body["error"]["code"], body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"], body
    return body["error"]


def seat_user(seat: Seat):
    """The login of the player in ``seat``."""
    return seat.player.user


def seats_of(table: Table) -> list[Seat]:
    """The six seats of ``table`` in seat order (side = seat % 2)."""
    return list(Seat.objects.filter(table=table).select_related("player__user").order_by("seat"))


def sheet(order, **extra) -> dict:
    """A result sheet (gouji-sheet/1) under the event's rules (dagang)."""
    return {"order": list(order), "kaidian": list(KAIDIAN), **extra}
