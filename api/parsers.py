"""The API's JSON parser: it refuses bodies nested too deeply (measured before parsing, with
a message that says so) and NUL characters (PostgreSQL jsonb cannot store them), and parses
with orjson (live/fastjson.py's library) — UTF-8 bodies, the only kind the API's clients send;
another charset goes to DRF's parser.

A result submission's body is a whole game record (about 8 KB): measuring its nesting took
240 µs and the standard library's parse 95 µs (a tenth of a submission: ``bench_api``, py-spy);
now 32 µs (:func:`json_depth` on the quotes and brackets alone) and orjson's 43 µs."""

from __future__ import annotations

import io
import re
from itertools import accumulate

import orjson
from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

#: Arrays and objects inside one another; a game or match record needs fewer than ten.
MAX_DEPTH = 64
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: not a step per character
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NUL_ESCAPE = b"\\u0000"
_NOT_QUOTES_OR_BRACKETS = bytes(b for b in range(256) if b not in b'[]{}"')
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # +1 and -1 as signed bytes


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read()
        if json_depth(raw) > MAX_DEPTH:
            raise ParseError(f"the body is nested more than {MAX_DEPTH} levels deep")
        charset = ((parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET).lower()
        if charset.replace("-", "") != "utf8":
            data = super().parse(io.BytesIO(raw), media_type, parser_context)
        else:
            try:
                # as strict as DRF's (no NaN or Infinity), and it refuses lone surrogates, which
                # the standard library let through to the database (an integer beyond 64 bits,
                # which no field of ours holds, is read as a float)
                data = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise ParseError(f"JSON parse error - {exc}") from None
        # a NUL can only be spelt \u0000 in JSON text (the parser refuses a raw control
        # character in a string): the parsed body is walked only when the text holds that
        if _NUL_ESCAPE in raw and _has_nul(data):
            raise ParseError("the body holds a NUL character (\\u0000), which is not allowed")
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
