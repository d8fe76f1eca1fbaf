"""The Chinese catalogue: every string of the public pages is translated, and the committed
``.mo`` is compiled from the committed ``.po`` (so the pages work without GNU gettext)."""

from __future__ import annotations

import ast
import gettext
from pathlib import Path

CATALOGUE = Path(__file__).resolve().parents[2] / "config" / "locale" / "zh_Hans" / "LC_MESSAGES"
PAGES = ("web/templates/", "web/views/")


def _unquote(line: str) -> str:
    return ast.literal_eval(line)


def read_po(path: Path) -> list[dict]:
    """A small .po reader: msgctxt, msgid, msgid_plural, msgstr / msgstr[n], references, flags."""
    entries, entry, field = [], None, None
    for raw in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = raw.strip()
        if not line:
            if entry is not None and "msgid" in entry:
                entries.append(entry)
            entry, field = None, None
            continue
        entry = entry if entry is not None else {"refs": [], "flags": [], "msgstr": {}}
        if line.startswith("#:"):
            entry["refs"] += line[2:].split()
        elif line.startswith("#,"):
            entry["flags"] += [f.strip() for f in line[2:].split(",")]
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            if field[0] == "msgstr":
                entry["msgstr"][field[1]] += _unquote(line)
            else:
                entry[field[0]] += _unquote(line)
        else:
            keyword, value = line.split(" ", 1)
            if keyword.startswith("msgstr"):
                index = int(keyword[7:-1]) if "[" in keyword else 0
                field = ("msgstr", index)
                entry["msgstr"][index] = _unquote(value)
            else:
                field = (keyword, None)
                entry[keyword] = _unquote(value)
    return entries


def test_every_string_of_the_pages_is_translated():
    entries = [e for e in read_po(CATALOGUE / "django.po") if e["msgid"]]
    pages = [e for e in entries if any(ref.startswith(PAGES) for ref in e["refs"])]
    assert len(pages) > 100
    untranslated = [e["msgid"] for e in pages
                    if "fuzzy" in e["flags"] or not all(e["msgstr"].values())]
    assert untranslated == []


def test_the_compiled_catalogue_matches_the_po_file():
    with open(CATALOGUE / "django.mo", "rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = []
    for e in read_po(CATALOGUE / "django.po"):
        if not e["msgid"] or "fuzzy" in e["flags"] or not all(e["msgstr"].values()):
            continue
        if "msgid_plural" in e:
            got = compiled.ngettext(e["msgid"], e["msgid_plural"], 1)
        elif "msgctxt" in e:
            got = compiled.pgettext(e["msgctxt"], e["msgid"])
        else:
            got = compiled.gettext(e["msgid"])
        if got != e["msgstr"][0]:
            stale.append(e["msgid"])
    assert stale == [], "run manage.py compilemessages: the .mo is older than the .po"
