"""A JSON parser that refuses NUL characters (PostgreSQL jsonb cannot store them)."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if _has_nul(data):
            raise ParseError("the body holds a NUL character (\\u0000), which is not allowed")
        return data


def _has_nul(data, depth=0) -> bool:
    if depth > 64:
        raise ParseError("the body is nested too deeply")
    if isinstance(data, str):
        return "\x00" in data
    if isinstance(data, dict):
        return any(_has_nul(k, depth + 1) or _has_nul(v, depth + 1) for k, v in data.items())
    if isinstance(data, list):
        return any(_has_nul(v, depth + 1) for v in data)
    return False
