"""What every web server process does once, on loading the app: WSGI (config/wsgi.py, gunicorn)
and ASGI (config/asgi.py, uvicorn) alike."""

import gc
from importlib import import_module

from django.core.exceptions import ImproperlyConfigured


def refuse_the_development_key() -> None:
    """The development key is public (it is in this repository): a server that signed sessions
    and CSRF tokens with it would let anyone forge them. Without DJANGO_DEBUG, the server does
    not start on it."""
    import os

    from django.conf import settings

    key = os.environ.get("DJANGO_SECRET_KEY") or settings.DEVELOPMENT_SECRET_KEY
    if not settings.DEBUG and key == settings.DEVELOPMENT_SECRET_KEY:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set: the server will not start on the public development "
            "key. Set DJANGO_SECRET_KEY to a long random secret (python -c \"import secrets; "
            "print(secrets.token_urlsafe(50))\"), or DJANGO_DEBUG=1 while developing.")


def freeze_what_loading_made(*urlconfs: str) -> None:
    """What loading the app made (Django, DRF, every view module and its URL patterns) lives as
    long as the process: keep it out of the cyclic garbage collector's full sweeps. Those walked
    it all three or four times a minute in each worker, up to 120 ms each, while the requests at
    hand waited (``bench_live --tables 50``)."""
    from django.conf import settings

    for urlconf in (settings.ROOT_URLCONF, *urlconfs):
        import_module(urlconf)  # the views now, rather than on the first request
    gc.collect()
    gc.freeze()
