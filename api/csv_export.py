"""The API's CSV downloads (entries, seating, standings, ratings), safe to open in a
spreadsheet: the files are written by the service's one CSV writer,
:func:`tournaments.exchange.exports.csv_bytes`, whose cells go through its formula guard
(:func:`tournaments.exchange.exports.csv_cell`).

A download's views are :class:`CsvApi`: content negotiation knows ``text/csv`` (an
``Accept: text/csv`` was a 406, though the schema documents that type), and a refusal (404,
429…) is still the API's JSON error."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.http import HttpResponse
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.exchange.exports import csv_bytes


def csv_response(filename: str, header: Sequence[str], rows: Iterable[Sequence]) -> HttpResponse:
    """A CSV download: UTF-8 with a BOM, every cell through the formula guard."""
    resp = HttpResponse(csv_bytes(header, rows), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp


class CsvRenderer(BaseRenderer):
    """``text/csv``, for content negotiation: a download's view answers its file already
    written (:func:`csv_response`); what this renders is CSV text or bytes as they are."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, str):
            return data.encode(self.charset)
        if isinstance(data, bytes):
            return data
        raise TypeError(f"CSV is written by csv_response, not rendered from {type(data)}")


class CsvApi(APIView):
    """A CSV download: answers ``Accept: text/csv`` (and ``*/*``, or no Accept); a refusal is
    the API's JSON error shape, whatever was accepted."""

    renderer_classes = [CsvRenderer, JSONRenderer]

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, Response):  # an error: the one JSON shape
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)
