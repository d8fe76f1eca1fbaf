"""The API documents itself (STYLE.md §7): the OpenAPI schema loads, validates without
warnings and lists every endpoint; the Swagger UI and ReDoc pages load."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from django.urls import get_resolver

pytestmark = pytest.mark.django_db


def test_schema_loads_as_openapi_3(anon):
    r = anon.get("/api/v1/schema/")
    assert r.status_code == 200
    schema = yaml.safe_load(r.content)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"]
    as_json = anon.get("/api/v1/schema/", {"format": "json"})
    assert as_json.status_code == 200 and as_json.json()["openapi"] == schema["openapi"]


def test_schema_lists_every_api_endpoint(anon):
    paths = set(yaml.safe_load(anon.get("/api/v1/schema/").content)["paths"])
    api = get_resolver().url_patterns
    routes = next(p for p in api if str(p.pattern) == "api/v1/").url_patterns
    for route in routes:
        pattern = str(route.pattern)
        if pattern in ("schema/", "docs/", "redoc/"):
            continue
        # drf-spectacular names a primary key "id"
        pattern = pattern.replace("<int:pk>", "{id}")
        for kind in ("slug", "int"):
            pattern = pattern.replace(f"<{kind}:", "{").replace(">", "}")
        assert f"/api/v1/{pattern}" in paths, pattern


def test_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert yaml.safe_load(out.read_text())["openapi"].startswith("3.")


def test_error_responses_are_documented(anon):
    schema = yaml.safe_load(anon.get("/api/v1/schema/").content)
    submit = schema["paths"]["/api/v1/tables/{id}/results/"]["post"]
    assert {"201", "200", "409", "422"} <= set(submit["responses"])


@pytest.mark.parametrize("path", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_docs_pages_load(anon, path):
    r = anon.get(path)
    assert r.status_code == 200 and r["Content-Type"].startswith("text/html")
    # the schema's address is in the page (Redoc) or its start-up script (Swagger UI)
    startup = anon.get(path, {"script": ""}).content if path.endswith("docs/") else b""
    assert b"/api/v1/schema/" in r.content + startup
