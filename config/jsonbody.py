"""The one reader of JSON a client sends, for every HTTP room: the API's parser
(:class:`api.parsers.StrictJSONParser`, and so the act's short path, api/fast_act.py) and the
pages that take JSON (a record uploaded on the phone page, web/views/table.py; an act posted by
the live table, web/views/live_table.py).

It refuses, with :class:`JSONRefused` naming why, what would otherwise reach Python's parser or
the database and fail there:

- text nested more than :data:`MAX_DEPTH` levels deep, measured before parsing (3,000 levels of
  ``[`` made Python's parser raise RecursionError: a 500);
- NUL characters (PostgreSQL jsonb and text columns cannot store them);
- text that is not JSON (NaN and Infinity, lone surrogates, trailing commas…).

UTF-8 text is parsed with orjson (live/fastjson.py's library), as strict as DRF's parser and
stricter than the standard library's (it refuses lone surrogates, which the standard library let
through to the database; an integer beyond 64 bits, which no field of ours holds, is read as a
float). Text in another charset is first written in UTF-8, then read the same way.

A result submission's body is a whole game record (about 8 KB): measuring its nesting took
240 µs and the standard library's parse 95 µs (a tenth of a submission: ``bench_api``, py-spy);
now 32 µs (:func:`json_depth` on the quotes and brackets alone) and orjson's 43 µs."""

from __future__ import annotations

import re
from itertools import accumulate

import orjson

#: Arrays and objects inside one another; a game or match record needs fewer than ten.
MAX_DEPTH = 64
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: not a step per character
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NUL_ESCAPE = b"\\u0000"
_NOT_QUOTES_OR_BRACKETS = bytes(b for b in range(256) if b not in b'[]{}"')
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes


class JSONRefused(ValueError):
    """A client's JSON text that is not read: ``reason`` is ``"depth"`` (nested too deeply),
    ``"nul"`` (holds a NUL character) or ``"syntax"`` (not JSON, or not in its charset); the
    message says what is wrong, in English, for the API's error (pages say it in the reader's
    language from ``reason``)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


def read_json(raw: bytes, *, charset: str = "utf-8"):
    """The value of the JSON text ``raw`` (in ``charset``), or :class:`JSONRefused`."""
    if charset.lower().replace("-", "").replace("_", "") != "utf8":
        try:  # measured and parsed as UTF-8, like every other body
            raw = raw.decode(charset).encode("utf-8", "surrogatepass")
        except (LookupError, UnicodeError) as exc:
            raise JSONRefused("syntax", f"JSON parse error - {exc}") from None
    if json_depth(raw) > MAX_DEPTH:
        raise JSONRefused("depth", f"the body is nested more than {MAX_DEPTH} levels deep")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise JSONRefused("syntax", f"JSON parse error - {exc}") from None
    # a NUL can only be spelt \u0000 in JSON text (the parser refuses a raw control character
    # in a string): the parsed value is walked only when the text holds that
    if _NUL_ESCAPE in raw and _has_nul(data):
        raise JSONRefused("nul", "the body holds a NUL character (\\u0000), which is not allowed")
    return data


def json_depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text (brackets inside strings do not
    count), found without parsing it. Malformed text gets some number; the parser refuses it.

    Quickly, when it can: with no backslash (no escaped quote), keep only the quotes and the
    brackets and drop every pair of adjacent quotes. A bracket inside a string sits after an odd
    number of quotes, so some run of quotes between two brackets is odd and leaves a quote
    behind; when none is left, no string held a bracket and what remains are the brackets.
    Otherwise the strings are cut out with a regular expression."""
    brackets = None
    if b"\\" not in raw:
        brackets = raw.translate(None, _NOT_QUOTES_OR_BRACKETS).replace(b'""', b"")
        if b'"' in brackets:
            brackets = None
    if brackets is None:
        brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(memoryview(brackets.translate(_STEPS)).cast("b")), default=0)


def _has_nul(data) -> bool:
    if isinstance(data, str):
        return "\x00" in data
    if isinstance(data, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in data.items())
    if isinstance(data, list):
        return any(_has_nul(v) for v in data)
    return False
