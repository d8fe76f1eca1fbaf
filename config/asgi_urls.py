"""The URLs an ASGI server (config/asgi.py) resolves: the async views of live play's waiting
requests first — the event stream and the long-poll, ``GET /api/v1/live/<id>/events/`` and
``GET /api/v1/live/<id>/``, and the live table page's stream, ``GET /p/<token>/live/<id>/events/``
and ``GET /me/live/<id>/events/`` — then every URL of config/urls.py (the same names reverse to the
same paths). Under WSGI these paths are served by the sync views in config/urls.py."""

from django.urls import path

from api.live_views import live_events_async, live_game_async
from config.urls import handler400, handler404, handler500  # noqa: F401 (this urlconf's too)
from config.urls import urlpatterns as wsgi_urlpatterns
from web.views import live_stream

urlpatterns = [
    path("api/v1/live/<int:pk>/", live_game_async),
    path("api/v1/live/<int:pk>/events/", live_events_async),
    *live_stream.asgi_urls(),
    *wsgi_urlpatterns,
]
