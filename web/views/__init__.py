"""Page views, one module per audience: ``public`` (anyone, published events only)."""

from __future__ import annotations

from django.shortcuts import render

from config.outage import RETRY_SECONDS


def unavailable(request, message: str | None = None, back: str | None = None):
    """The page that answers a request which cannot be served while a service it needs (the
    task queue, config/outage.py) is down: a 503 with ``Retry-After``, saying so in words;
    nothing was changed."""
    response = render(request, "503.html", {"message": message, "back": back,
                                            "seconds": RETRY_SECONDS}, status=503)
    response["Retry-After"] = str(RETRY_SECONDS)
    return response
