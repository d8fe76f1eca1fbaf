"""The API's content negotiation: DRF's, except on a view that names a filter's values in
``format_filter_values``. DRF reads ``?format=`` as the renderer to answer with (``json``,
``api``), and a value no renderer has is a 404. ``GET /events/`` once took ``?format=`` for the
event's format too (now ``?event_format=``, api/filters.py); an older client's ``?format=team``
is left to that filter there, answered as the ``Accept`` header asks."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        view = (getattr(request, "parser_context", None) or {}).get("view")
        self.filter_values = getattr(view, "format_filter_values", ())
        return super().select_renderer(request, renderers, format_suffix)

    def filter_renderers(self, renderers, format):
        if format in getattr(self, "filter_values", ()) and not any(
                renderer.format == format for renderer in renderers):
            return renderers
        return super().filter_renderers(renderers, format)
