"""The API docs work offline (issue 17): Swagger UI and Redoc load their code from the
project's static files (drf-spectacular-sidecar), with no external address and no inline
script."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_docs_pages_reference_no_external_address(client, url):
    response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", page), page
    assert "http://" not in page and "https://" not in page
    # every script is a file of ours, found by the static files finders
    scripts = re.findall(r"<script[^>]*>", page)
    assert scripts and all(' src="' in s for s in scripts)
    for src in re.findall(r'<(?:script|link)[^>]+(?:src|href)="/static/([^"]+)"', page):
        assert finders.find(src), src


def test_swagger_uis_start_up_script_is_served_as_a_file(client):
    page = client.get("/api/v1/docs/").content.decode()
    script_url, = [u for u in re.findall(r'<script src="([^"]+)"', page)
                   if not u.startswith("/static/")]
    response = client.get(script_url.replace("&amp;", "&"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "SwaggerUIBundle" in body and "//cdn" not in body
