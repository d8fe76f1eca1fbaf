"""The API's JSON parser: it refuses bodies nested too deeply (before parsing them: Python's
parser recurses once per level and fails with RecursionError, a 500, at about a thousand) and
NUL characters (PostgreSQL jsonb cannot store them)."""

from __future__ import annotations

import io
import re
from itertools import accumulate

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

#: Arrays and objects inside one another; a game or match record needs fewer than ten.
MAX_DEPTH = 64
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: not a step per character
_BRACKET = re.compile(rb"[\[\]{}]")
_NUL_ESCAPE = b"\\u0000"
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read()
        if json_depth(raw) > MAX_DEPTH:
            raise ParseError(f"the body is nested more than {MAX_DEPTH} levels deep")
        data = super().parse(io.BytesIO(raw), media_type, parser_context)
        # a NUL can only be spelt \u0000 in JSON text (the parser refuses a raw control
        # character in a string): the parsed body is walked only when the text holds that
        if _NUL_ESCAPE in raw and _has_nul(data):
            raise ParseError("the body holds a NUL character (\\u0000), which is not allowed")
        return data


def json_depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text (brackets inside strings do not
    count), found without parsing it. Malformed text gets some number; the parser refuses it."""
    brackets = _BRACKET.findall(_STRING.sub(b"", raw))
    return max(accumulate(_STEP[b[0]] for b in brackets), default=0)


def _has_nul(data) -> bool:
    if isinstance(data, str):
        return "\x00" in data
    if isinstance(data, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in data.items())
    if isinstance(data, list):
        return any(_has_nul(v) for v in data)
    return False
