"""The API docs in a real browser (headless Chromium, as tests/pages/test_browser.py), offline
and under their Content-Security-Policy: Swagger UI and Redoc render the schema with no
request leaving the site. (Redoc's sidebar links Redocly's logo from their CDN: the policy
refuses it, and that is the one refusal allowed.)"""

from __future__ import annotations

import os

import pytest

from tests.pages.test_browser import CHROMIUM, browser  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.parametrize("path,shown", [("/api/v1/docs/", ".swagger-ui .info .title"),
                                        ("/api/v1/redoc/", "h1")])
def test_the_docs_render_offline_under_their_policy(browser, live_server, path,  # noqa: F811
                                                     shown):
    context = browser.new_context()
    tab = context.new_page()
    outside, refused = [], []
    tab.on("requestfinished", lambda r: None if r.url.startswith((
        live_server.url, "data:", "blob:")) else outside.append(r.url))
    tab.on("console", lambda m: refused.append(m.text)
           if "Content Security Policy" in m.text else None)
    try:
        response = tab.goto(live_server.url + path)
        assert "script-src 'self'" in response.headers["content-security-policy"]
        tab.wait_for_selector(shown, timeout=30_000)
        assert "够级 tournament service API" in tab.inner_text(shown)
    finally:
        context.close()
    assert outside == []
    assert [m for m in refused if "https://cdn.redoc.ly/redoc/logo-mini.svg" not in m] == []
