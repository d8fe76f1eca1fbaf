"""config/middleware.py: a page keeps its Content-Security-Policy and its messages; an API
answer builds no policy, and a request that uses no message builds no message store."""

from __future__ import annotations

import csp.middleware
import pytest
from csp.exceptions import CSPNonceError
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpResponse
from django.test import RequestFactory

from config.middleware import ContentSecurityPolicyMiddleware, LazyFallbackStorage


def _answer(path: str):
    request = RequestFactory().get(path)
    response = ContentSecurityPolicyMiddleware(lambda request: HttpResponse("ok"))(request)
    return request, response


def test_a_page_keeps_its_policy():
    _request, response = _answer("/e/some-event/")
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]


def test_an_api_answer_builds_no_policy(monkeypatch):
    # given: building a policy fails loudly
    def refuse(**kwargs):
        raise AssertionError("a policy was built for an excluded path")

    monkeypatch.setattr(csp.middleware, "build_policy", refuse)

    # when
    request, response = _answer("/api/v1/events/")

    # then: no header, and the nonce may not be asked for after the answer (django-csp's guard)
    assert "Content-Security-Policy" not in response
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)


def test_a_request_that_uses_no_message_builds_no_store(monkeypatch, settings):
    # given
    built = []
    monkeypatch.setattr(CookieStorage, "__init__",
                        lambda self, *a, **kw: built.append(1) or None)
    request = RequestFactory().get("/api/v1/events/")

    # when
    storage = LazyFallbackStorage(request)
    storage.update(HttpResponse())

    # then
    assert built == []


@pytest.mark.django_db
def test_a_message_still_reaches_the_next_page(client, settings):
    # given: a view that adds a message, and one that lists them, behind the whole stack
    from django.urls import path

    def add(request):
        messages.success(request, "saved")
        return HttpResponse("added")

    def show(request):
        return HttpResponse(" ".join(str(m) for m in messages.get_messages(request)))

    urls = type("urls", (), {"urlpatterns": [path("add/", add), path("show/", show)]})
    settings.ROOT_URLCONF = urls

    # when
    client.get("/add/")
    shown = client.get("/show/").content.decode()

    # then
    assert shown == "saved"
    assert client.get("/show/").content.decode() == ""
