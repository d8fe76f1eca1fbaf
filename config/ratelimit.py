"""Counting requests in fixed windows, and the client's address: what every HTTP room (the API's
throttles, the pages' limits) shares, so it is written once, here beside the settings it reads.

Requests are counted with the cache's atomic ``add`` and ``incr``: each request takes its number
first and is refused past the limit, however many arrive at once (DRF's own throttles read the
history and write it back, so requests arriving together all passed: 8 clients got 517 of 900
requests through a limit of 300 a minute). The windows are on the shared cache (``CACHE_URL``)
when there is one.

The client's address is REMOTE_ADDR unless ``TRUSTED_PROXY_COUNT`` proxies stand in front of
the server: a client can write any X-Forwarded-For, so only the addresses our proxies added
count (:func:`client_address`).
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache


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
