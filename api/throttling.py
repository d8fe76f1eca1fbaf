"""Request throttles that hold under parallel requests and forged headers.

DRF's own throttles read the request history from the cache and write it back: requests that
arrive together all read the same history and all pass (8 clients got 517 of 900 requests
through a limit of 300 a minute). These count fixed windows with the cache's atomic ``add`` and
``incr`` instead: each request takes its number first and is refused past the limit, however
many arrive at once. The windows are on the shared cache (``CACHE_URL``) when there is one.

The counting and the client's address are shared with the pages: :mod:`config.ratelimit`.
"""

from __future__ import annotations

import hashlib

from rest_framework import throttling

from config.ratelimit import AtomicWindowMixin, count_requests


class AnonRateThrottle(AtomicWindowMixin, throttling.AnonRateThrottle):
    """Anonymous requests, per client address."""


class UserRateThrottle(AtomicWindowMixin, throttling.UserRateThrottle):
    """Requests per user (per client address when anonymous)."""


class ScopedRateThrottle(AtomicWindowMixin, throttling.ScopedRateThrottle):
    """A view's ``throttle_scope`` (writes, results, engine, live), per user or address."""

    def counter_for(self, request, view):
        # (DRF's class finds the view's scope and its rate in allow_request, before counting)
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return None
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().counter_for(request, view)


def allow_for_view(request, view) -> bool:
    """DRF's ``check_throttles`` of ``view`` for ``request``, a Django request whose ``user``
    is set, outside DRF's dispatch (api/fast_act.py): every throttle of the view counts it, as
    DRF counts it, all in one round trip to a Redis cache; whether all let it through."""
    counted = counters_for_view(request, view)
    if counted is None:
        return all([throttle.allow_request(request, view) for throttle in view.get_throttles()])
    return let_through(counted, count_requests([counter for _throttle, counter in counted]))


def counters_for_view(request, view) -> list[tuple[AtomicWindowMixin, tuple[str, int]]] | None:
    """The counters :func:`allow_for_view` counts ``request`` on, each with its throttle
    (``None``: a throttle of the view counts in its own way)."""
    throttles = view.get_throttles()
    if not all(isinstance(throttle, AtomicWindowMixin) for throttle in throttles):
        return None
    return [(throttle, counter) for throttle in throttles
            if (counter := throttle.counter_for(request, view)) is not None]


def let_through(counted: list, counts: list[int]) -> bool:
    """Whether every throttle of ``counted`` (:func:`counters_for_view`) lets the request
    through, its counter now at ``counts``."""
    return all(n <= throttle.num_requests
               for (throttle, _c), n in zip(counted, counts, strict=True))


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
