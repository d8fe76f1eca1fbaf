"""What every request went through that an API request does not need, made lazy or skipped
where the request does not need it; nothing changes for a page.

- django-csp builds the policy of every answer (twice: enforced and report-only) before it
  looks whether the path is one of ``EXCLUDE_URL_PREFIXES`` (the API): for those it now builds
  none. A page's ``Content-Security-Policy`` is as before.
- The messages' storage (cookie and session) was built for every request at its start:
  :class:`LazyFallbackStorage` builds it at the first message added or read.

Together about a tenth of a millisecond of CPU a token-authenticated API request
(``bench_api --baseline``: docs/BENCHMARKS.md).
"""

from __future__ import annotations

from functools import cached_property

from csp.middleware import CheckableLazyObject, CSPMiddleware
from django.conf import settings
from django.contrib.messages.storage.base import BaseStorage
from django.contrib.messages.storage.fallback import FallbackStorage


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, which builds no policy for an answer its settings exclude."""

    def process_response(self, request, response):
        if _excluded(request.path_info):
            if getattr(request, "_csp_nonce", None) is None:  # (django-csp's guard, kept)
                request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
            return response
        return super().process_response(request, response)


def _excluded(path: str) -> bool:
    """Whether neither policy (enforced nor report-only) would be set on ``path``'s answer."""
    for name in ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY"):
        policy = getattr(settings, name, None)
        if policy and not path.startswith(tuple(policy.get("EXCLUDE_URL_PREFIXES") or ())):
            return False
    return True


class LazyFallbackStorage(FallbackStorage):
    """Django's cookie-then-session message storage, its two stores built when first used."""

    def __init__(self, request, *args, **kwargs):
        BaseStorage.__init__(self, request, *args, **kwargs)
        self._used_storages = set()

    @cached_property
    def storages(self):
        return [storage_class(self.request) for storage_class in self.storage_classes]
