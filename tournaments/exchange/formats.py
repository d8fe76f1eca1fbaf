"""The formats an event's hand-over (赛事资料) is written in: each a name, a file name and
content type, and a writer from the event's sheets (:func:`tournaments.exchange.exports.
event_sheets`) to bytes. The organizer's console offers the registered ones; a federation's
own format (its ranking upload, say) is one more :func:`register` call with its writer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tournaments.exchange import exports
from tournaments.exchange.exports import Sheet


@dataclass(frozen=True)
class ExportFormat:
    """A way to write the whole hand-over as one file: ``key`` names it in addresses,
    ``suffix`` ends the file's name (after the event's slug), ``write`` makes the file from
    the sheets and the event's slug."""

    key: str
    suffix: str
    content_type: str
    write: Callable[[Sequence[Sheet], str], bytes]


FORMATS: dict[str, ExportFormat] = {}


def register(fmt: ExportFormat) -> ExportFormat:
    """Offer ``fmt`` (a key registered twice is a mistake: refused)."""
    if fmt.key in FORMATS:
        raise ValueError(f"export format {fmt.key!r} is registered already")
    FORMATS[fmt.key] = fmt
    return fmt


def export_format(key: str) -> ExportFormat | None:
    """The registered format ``key`` (``None``: no such format)."""
    return FORMATS.get(key)


XLSX = register(ExportFormat(
    key="xlsx", suffix=".xlsx",
    content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    write=lambda sheets, slug: exports.xlsx_bytes(sheets)))
CSV_ZIP = register(ExportFormat(
    key="csv-zip", suffix="-csv.zip", content_type="application/zip",
    write=lambda sheets, slug: exports.csv_zip(sheets, prefix=slug)))
