"""The API's content negotiation: DRF's, except that a ``?format=`` no renderer of the view
has is not a 404. DRF reads ``?format=`` as the renderer to answer with (``json``, ``api``);
``GET /events/`` once took it for the event's format too, and an older client's
``?format=team`` is that filter's (api/filters.py: ``?event_format=``), answered as if the
parameter named no renderer: by the ``Accept`` header."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation


class ContentNegotiation(DefaultContentNegotiation):
    def filter_renderers(self, renderers, format):
        return [r for r in renderers if r.format == format] or renderers
