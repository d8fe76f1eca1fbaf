"""The WSGI entry point gunicorn loads in every worker (``config.wsgi:application``): the API,
the pages and, in the simple layout, live play's streams (a thread each). The ASGI entry point
for live play's streams and long-polls at scale is config/asgi.py."""

import os

from django.core.wsgi import get_wsgi_application

from config.serving import freeze_what_loading_made, refuse_the_development_key

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

refuse_the_development_key()
application = get_wsgi_application()
freeze_what_loading_made()
