"""The minimal project's WSGI application, as gunicorn loads it
(``benchmarks.minimal_drf.wsgi:application``)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.minimal_drf.settings"

application = get_wsgi_application()
