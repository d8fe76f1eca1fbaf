"""Reading a bulk registration (报名) file — CSV in the encodings Chinese spreadsheets write,
XLSX, or a pasted list of names — into the rows :func:`tournaments.services.entries_import`
takes. One reader for the admin's import and the API's."""

from __future__ import annotations

import csv
import io
import zipfile

from django.utils.translation import gettext as _

from tournaments.errors import ServiceError

#: the most an import file may hold
MAX_BYTES = 2_000_000
#: the most lines one import registers
MAX_ROWS = 5000

#: tried in this order: a UTF-8 byte-order mark, UTF-8, then what Excel writes on Chinese
#: systems (GBK, and GB18030, its superset)
ENCODINGS = (("utf-8-sig", "UTF-8 with BOM"), ("utf-8", "UTF-8"), ("gbk", "GBK"),
             ("gb18030", "GB18030"))

#: column headings in Chinese (and variants) and the column each means
HEADINGS = {
    "姓名": "name", "名字": "name", "选手": "name", "俱乐部": "club", "单位": "club",
    "代表队": "club", "编号": "number", "号码": "number", "选手编号": "number",
    "报到": "checked_in", "已报到": "checked_in", "队名": "team", "联邦": "team", "队伍": "team",
    "队员1": "player_1", "队员2": "player_2", "队员3": "player_3",
    "编号1": "number_1", "编号2": "number_2", "编号3": "number_3",
}


def decode(raw: bytes) -> tuple[str, str]:
    """The text of an import file and the encoding it was read in (see :data:`ENCODINGS`)."""
    for codec, label in ENCODINGS:
        if codec == "utf-8-sig" and not raw.startswith(b"\xef\xbb\xbf"):
            continue
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            raise ServiceError("bad_csv", _("the file holds a NUL character"))
        return text, label
    raise ServiceError("bad_csv", _("the file is not text in UTF-8, GBK or GB18030; save it "
                                    "as CSV (UTF-8) or XLSX"))


def _heading(name) -> str:
    key = str(name or "").strip()
    return HEADINGS.get(key, key.lower().replace(" ", "_"))


def _rows_of(table: list[list], *, team: bool) -> list[dict]:
    """Rows as dicts from a table whose first row is the headings; the headings a team or an
    individual event needs are checked."""
    if not table:
        raise ServiceError("bad_csv", _("the file is empty"))
    headings = [_heading(h) for h in table[0]]
    needed = ("team", "player_1", "player_2", "player_3") if team else ("name",)
    missing = [h for h in needed if h not in headings]
    if missing:
        raise ServiceError("bad_csv", _("the file needs a heading line with %(h)s") % {
            "h": ", ".join(needed)}, detail={"field": missing[0]})
    rows = [dict(zip(headings, ("" if v is None else str(v).strip() for v in row),
                     strict=False))
            for row in table[1:] if any(str(v or "").strip() for v in row)]
    if len(rows) > MAX_ROWS:
        raise ServiceError("too_large", _("an import holds at most %(n)s lines") % {
            "n": MAX_ROWS}, status=413)
    return rows


def read_file(raw: bytes, *, team: bool) -> tuple[list[dict], str]:
    """The rows of an uploaded CSV or XLSX file and what it was read as ("XLSX", "UTF-8",
    "GBK", …)."""
    if len(raw) > MAX_BYTES:
        raise ServiceError("too_large", _("an import file holds at most 2 MB"), status=413)
    if raw.startswith(b"PK\x03\x04"):
        return _rows_of(_xlsx_table(raw), team=team), "XLSX"
    text, encoding = decode(raw)
    return _rows_of(list(csv.reader(io.StringIO(text))), team=team), encoding


def _xlsx_table(raw: bytes) -> list[list]:
    from openpyxl import load_workbook

    try:
        book = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        raise ServiceError("bad_csv", _("the file is not a readable XLSX workbook")) from None
    try:
        sheet = book.worksheets[0]
        return [[_cell(v) for v in row] for row in sheet.iter_rows(
            values_only=True, max_row=MAX_ROWS + 1)]
    finally:
        book.close()


def _cell(value):
    """A cell as text: spreadsheets store player numbers as floats (12.0)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value


def read_pasted(text: str, *, team: bool) -> list[dict]:
    """Rows from a pasted list: a name a line (individual events), or a team and its three
    players a line, separated by commas, tabs, 、 or ，(team events)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if len(lines) > MAX_ROWS:
        raise ServiceError("too_large", _("an import holds at most %(n)s lines") % {
            "n": MAX_ROWS}, status=413)
    if not team:
        return [{"name": line} for line in lines]
    rows = []
    for line in lines:
        for sep in ("\t", "，", "、"):
            line = line.replace(sep, ",")
        parts = [p.strip() for p in line.split(",")]
        rows.append({"team": parts[0], **{f"player_{k}": parts[k] if k < len(parts) else ""
                                          for k in (1, 2, 3)}})
    return rows
