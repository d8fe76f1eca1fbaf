"""The API's CSV downloads (entries, seating, standings), safe to open in a spreadsheet: the
files are written by the service's one CSV writer, :func:`tournaments.exports.csv_bytes`, whose
cells go through its formula guard (:func:`tournaments.exports.csv_cell`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.http import HttpResponse

from tournaments.exports import csv_bytes


def csv_response(filename: str, header: Sequence[str], rows: Iterable[Sequence]) -> HttpResponse:
    """A CSV download: UTF-8 with a BOM, every cell through the formula guard."""
    resp = HttpResponse(csv_bytes(header, rows), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp
