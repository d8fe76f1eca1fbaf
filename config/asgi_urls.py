"""The URLs an ASGI server (config/asgi.py) resolves: the async views of live play's waiting
requests first — the event stream and the long-poll, ``GET /api/v1/live/<id>/events/`` and
``GET /api/v1/live/<id>/`` — then every URL of config/urls.py (the same names reverse to the
same paths). Under WSGI these two paths are served by the sync views in config/urls.py."""

from django.urls import path

from api.live_views import live_events_async, live_game_async
from config.urls import handler400, handler404, handler500  # noqa: F401 (this urlconf's too)
from config.urls import urlpatterns as wsgi_urlpatterns

urlpatterns = [
    path("api/v1/live/<int:pk>/", live_game_async),
    path("api/v1/live/<int:pk>/events/", live_events_async),
    *wsgi_urlpatterns,
]
