"""Who may keep a copy of a page, and for how long (issue 54): ten thousand phones on the
public pages after a round.

:class:`CacheRulesMiddleware` (the outermost middleware, config/settings.py) decides every
response's ``Cache-Control`` once its view and the other middleware are done:

- an anonymous ``GET``/``HEAD`` (no session cookie, no ``Authorization``) of a public page
  (:data:`PUBLIC_PAGES`, the same allow-list as nginx's micro-cache in
  deploy/nginx/gouji-locations.conf; tests/test_deploy.py keeps them equal) answered ``200``
  without setting a cookie is ``public``: shared caches (nginx) may keep it
  :data:`SHARED_SECONDS`. Browsers revalidate it at once (``max-age=0``): a phone that switches
  the language or signs in sees the new page, not its own copy of the old one. Such a page
  does not depend on a cookie the request does not carry, so ``Vary: Cookie`` (which the
  session middleware adds once anything reads the empty session) is dropped; ``Vary:
  Accept-Language`` stays. The pages need no ``csrftoken`` either: the only form they all carry,
  the language switcher, posts without one (:func:`set_language`).
- anything personal (a session cookie or a token in the request, a private link ``/p/…``,
  ``/me/``, the console, the desk, the organizers' pages, the admin, practice games, sign-in)
  is ``private, no-store`` (or the view's own ``no-store``), never ``public``;
- everything else keeps the view's own ``Cache-Control`` (the API's polls: ``no-cache`` with an
  ETag), or gets ``private, no-cache``.

:func:`cached_page` keeps rendered public pages in Django's cache (Redis in production: one
copy for every worker), keyed by what the page shows, so that a poll or a reload after an
unrelated change is not a full render.
"""

from __future__ import annotations

import hashlib
import logging
import re

import orjson
from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.cache import cc_delim_re
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import get_language
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language as django_set_language

logger = logging.getLogger(__name__)

#: The public pages a shared cache may keep, as nginx's micro-cache location spells them (the
#: event list, the ratings, a player's rating page, an event's public pages, and a round's
#: find-my-table shards and tables' status, :mod:`web.seating_index`). Keep it equal to
#: the ``location ~`` of deploy/nginx/gouji-locations.conf that sets ``proxy_cache``.
PUBLIC_PAGES = re.compile(
    r"^/(ratings/|players/[0-9]+/|e/[^/]+/(leaderboard/|seating/|rounds/[0-9]+/(tables/[0-9]+/"
    r"|results/|find\.json|status\.json)?|table/[0-9]+/|players/[0-9]+/|teams/[0-9]+/"
    r"|projector/|bracket/|final/)?)?$")

#: Pages that are someone's own whoever asks: never stored anywhere.
PERSONAL_PAGES = re.compile(
    r"^/(p/|me/|console/|accounts/|admin/|practice/|slips/|qr/"
    r"|e/[^/]+/(console/|desk/|dashboard/|qr/|report/|rounds/[0-9]+/slips/))")

#: How long nginx (or another shared cache) may keep a public page; nginx keeps it at most 5 s
#: whatever this says (proxy_cache_valid), the page's own polls run every 5 s.
SHARED_SECONDS = 5
PUBLIC = f"public, max-age=0, s-maxage={SHARED_SECONDS}"
PERSONAL = "private, no-store"
DEFAULT = "private, no-cache"


def is_anonymous_request(request) -> bool:
    """No session cookie and no ``Authorization`` header: nothing in the request can make its
    answer someone's own."""
    return settings.SESSION_COOKIE_NAME not in request.COOKIES and \
        "HTTP_AUTHORIZATION" not in request.META


def _drop_vary_cookie(response) -> None:
    if not response.has_header("Vary"):
        return
    kept = [v for v in cc_delim_re.split(response["Vary"]) if v and v.lower() != "cookie"]
    if kept:
        response["Vary"] = ", ".join(kept)
    else:
        del response["Vary"]


def cache_rule(request, response) -> str:
    """The ``Cache-Control`` of ``response`` to ``request`` (see the module's docstring)."""
    path = request.path_info
    anonymous = is_anonymous_request(request)
    own = response.get("Cache-Control", "")
    if not anonymous or PERSONAL_PAGES.match(path):
        # (a view's own no-store stays as it is: never stored, by anyone)
        return own if "no-store" in own and "public" not in own else PERSONAL
    if request.method in ("GET", "HEAD") and response.status_code == 200 and \
            not response.cookies and PUBLIC_PAGES.match(path) and \
            "private" not in own and "no-store" not in own:
        return PUBLIC
    return own if own and "public" not in own else DEFAULT


class CacheRulesMiddleware(MiddlewareMixin):
    """Sets every response's ``Cache-Control`` by :func:`cache_rule`; on a public one, drops
    ``Vary: Cookie``. First in ``MIDDLEWARE``, so it sees what the session, CSRF and locale
    middleware added. Sync and async (the live processes' streams stay unwrapped)."""

    def process_response(self, request, response):
        rule = cache_rule(request, response)
        response["Cache-Control"] = rule
        if rule == PUBLIC:
            _drop_vary_cookie(response)
        return response


@csrf_exempt
def set_language(request):
    """Django's language switcher without a CSRF token, so that the pages that carry it need no
    ``csrftoken`` cookie (and stay cacheable). A forged post can only change the language of
    the pages someone sees; it signs nobody in or out and changes nothing stored."""
    return django_set_language(request)


# ----------------------------------------------------------------------------- page cache
#: how long a rendered page is kept at most when its key names what it shows (the rest: the
#: ratings beside the names, follows that much later)
PAGE_SECONDS = 60


def cached_page(request, *, name: str, shows: list, seconds: int, render) -> HttpResponse:
    """``render()``'s response, or the copy of it stored for the same ``name`` and ``shows``
    (what the page shows: versions, round, page number, search) in the language of the request,
    kept ``seconds``. Only anonymous GETs use the copy (a signed-in organizer's page may show
    more); only 200s are stored. A cache that fails only costs the render."""
    if request.method not in ("GET", "HEAD") or not is_anonymous_request(request):
        return render()
    digest = hashlib.sha256(orjson.dumps([name, get_language(), *shows], default=str)).hexdigest()
    key = f"page:{name}:{digest[:40]}"
    try:
        hit = cache.get(key)
    except Exception:  # noqa: BLE001 - the cache is a saving only
        hit = None
    if hit is not None:
        content, content_type = hit
        response = HttpResponse(content, content_type=content_type)
        response["X-Page-Cache"] = "hit"
        return response
    response = render()
    if response.status_code == 200 and not response.streaming and not response.cookies:
        try:
            cache.set(key, (response.content, response["Content-Type"]), seconds)
        except Exception:  # noqa: BLE001 - the cache is a saving only
            logger.debug("page %s not stored", name)
        response["X-Page-Cache"] = "miss"
    return response
