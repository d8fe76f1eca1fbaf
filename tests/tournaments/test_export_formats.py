"""The registry of the hand-over's formats (tournaments/exchange/formats.py)."""

from __future__ import annotations

import pytest

from tournaments.exchange import formats
from tournaments.exchange.exports import Sheet


def test_the_workbook_and_the_zip_of_csv_files_are_registered():
    assert formats.export_format("xlsx") is formats.XLSX
    assert formats.export_format("csv-zip") is formats.CSV_ZIP
    assert formats.export_format("no-such-format") is None


def test_a_registered_format_writes_the_sheets_it_is_given(monkeypatch):
    # given: a federation's format that writes each sheet's title a line
    monkeypatch.setattr(formats, "FORMATS", dict(formats.FORMATS))
    fmt = formats.register(formats.ExportFormat(
        key="federation", suffix="-federation.txt", content_type="text/plain",
        write=lambda sheets, slug: "\n".join(f"{slug}:{s.key}" for s in sheets).encode()))
    sheets = [Sheet(key="entries", title="Entries", header=["name"], rows=[["张伟"]])]

    # when / then
    assert formats.export_format("federation").write(sheets, "cup") == b"cup:entries"
    with pytest.raises(ValueError, match="registered already"):
        formats.register(fmt)
