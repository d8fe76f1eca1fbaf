"""Request throttles that hold under parallel requests and forged headers.

DRF's own throttles read the request history from the cache and write it back: requests that
arrive together all read the same history and all pass (8 clients got 517 of 900 requests
through a limit of 300 a minute). These count fixed windows with the cache's atomic ``add`` and
``incr`` instead: each request takes its number first and is refused past the limit, however
many arrive at once. The windows are on the shared cache (``CACHE_URL``) when there is one.

The client's address is REMOTE_ADDR unless ``TRUSTED_PROXY_COUNT`` proxies stand in front of
the server: a client can write any X-Forwarded-For, so only the addresses our proxies added
count (:func:`client_address`).
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from rest_framework import throttling


def client_address(request) -> str:
    """The client's address as our ``TRUSTED_PROXY_COUNT`` proxies saw it: each of them
    appends the address it was reached from to X-Forwarded-For, so the client is that many
    entries from the right; whatever the client wrote further left is ignored. With no proxy,
    the connection's own address."""
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies and forwarded:
        addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
        if addresses:
            return addresses[-min(proxies, len(addresses))]
    return request.META.get("REMOTE_ADDR", "")


class AtomicWindowMixin:
    """``allow_request`` on fixed windows of the rate's duration, counted atomically."""

    def get_ident(self, request):
        return client_address(request)

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        return self.take(key)

    def take(self, key: str) -> bool:
        """Count one request under ``key`` in the current window; False past the limit."""
        now = time.time()
        window = int(now // self.duration)
        self.wait_seconds = (window + 1) * self.duration - now
        counter = f"{key}:{window}"
        # add() creates the counter only if it is absent, incr() raises if it has gone (a
        # window that just expired): both are single atomic operations on Redis and locmem.
        if cache.add(counter, 1, timeout=self.duration + 1):
            return True
        try:
            count = cache.incr(counter)
        except ValueError:
            count = 1 if cache.add(counter, 1, timeout=self.duration + 1) else cache.incr(counter)
        return count <= self.num_requests

    def wait(self):
        return self.wait_seconds


class AnonRateThrottle(AtomicWindowMixin, throttling.AnonRateThrottle):
    """Anonymous requests, per client address."""


class UserRateThrottle(AtomicWindowMixin, throttling.UserRateThrottle):
    """Requests per user (per client address when anonymous)."""


class ScopedRateThrottle(AtomicWindowMixin, throttling.ScopedRateThrottle):
    """A view's ``throttle_scope`` (writes, results, engine, live), per user or address."""

    def allow_request(self, request, view):
        # (DRF's class finds the view's scope and its rate here, before counting)
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


class LoginAddressThrottle(AtomicWindowMixin, throttling.SimpleRateThrottle):
    """Token logins from one client address, whoever they name."""

    scope = "login"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": "login-address", "ident": self.get_ident(request)}


class LoginUsernameThrottle(AtomicWindowMixin, throttling.SimpleRateThrottle):
    """Token logins naming one username, from wherever they come (a guesser who changes
    addresses still meets this limit)."""

    scope = "login"

    def get_cache_key(self, request, view):
        username = request.data.get("username") if hasattr(request.data, "get") else None
        if not isinstance(username, str) or not username:
            return None
        ident = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
        return self.cache_format % {"scope": "login-username", "ident": ident}
