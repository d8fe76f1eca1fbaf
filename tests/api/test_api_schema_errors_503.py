"""The schema documents a database outage on every operation: a 503 in the one error shape
(code ``database_unavailable``) with a ``Retry-After`` header, as api/errors.py answers it. And a
500 does not claim that nothing was changed (a failure may come after a commit)."""

from __future__ import annotations

import json

import pytest
import yaml
from django.db import OperationalError
from django.test import RequestFactory

from config import urls

pytestmark = pytest.mark.django_db

METHODS = ("get", "put", "post", "patch", "delete")


@pytest.fixture
def schema(anon):
    return yaml.safe_load(anon.get("/api/v1/schema/").content)


def test_every_operation_documents_a_503_with_retry_after(schema):
    operations = [(path, method, op) for path, item in schema["paths"].items()
                  for method, op in item.items() if method in METHODS]
    assert operations
    for path, method, op in operations:
        unavailable = op["responses"].get("503")
        assert unavailable, (method, path)
        assert "database_unavailable" in unavailable["description"], (method, path)
        assert unavailable["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"}, (method, path)
        assert unavailable["headers"]["Retry-After"]["schema"] == {"type": "integer"}


def test_the_documented_503_is_what_an_outage_answers(schema, anon, monkeypatch):
    from api.views.events import EventListCreateApi

    def down(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(EventListCreateApi, "get_queryset", down)
    r = anon.get("/api/v1/events/")
    documented = schema["paths"]["/api/v1/events/"]["get"]["responses"]["503"]
    assert r.status_code == 503 and int(r["Retry-After"]) >= 0
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == "database_unavailable"
    assert set(documented["headers"]) == {"Retry-After"}


def test_a_500_does_not_claim_that_nothing_was_changed():
    request = RequestFactory().get("/api/v1/events/")
    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        response = urls.handler500(request)
    assert response.status_code == 500
    message = json.loads(response.content)["error"]["message"]
    assert "nothing was changed" not in message
    assert "same request again" in message and "Idempotency-Key" in message
