"""CSV downloads (entries, seating, standings), safe to open in a spreadsheet.

Players choose their own names, and a spreadsheet runs a cell that starts with ``=``, ``+``,
``-`` or ``@`` as a formula (``=HYPERLINK(…)``, ``=cmd|' /C calc'!A0``), as do cells starting
with a tab or a carriage return in some programs. Every text cell that starts with one of them
goes out with a leading ``'`` (OWASP's advice), which the spreadsheet shows as text. Numbers
(points of −3, say) are written as numbers: a number cell is not a formula.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from django.http import HttpResponse

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A cell as written: text that a spreadsheet would run as a formula gets a leading ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_response(filename: str, header: Sequence[str], rows: Iterable[Sequence]) -> HttpResponse:
    """The one CSV writer of the service: UTF-8 with a BOM (spreadsheets then read Chinese
    names right), every cell through :func:`csv_cell`."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    writer.writerows([csv_cell(value) for value in row] for row in rows)
    resp = HttpResponse(buf.getvalue().encode("utf-8-sig"), content_type="text/csv; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{filename}"'
    return resp
