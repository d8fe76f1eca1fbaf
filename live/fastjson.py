"""JSON for live play's hot paths, with orjson: the act's stored state, the streams' ``view``
frames and the stream server's read of a game's state.

The standard library's encoder took about a third of a stream frame's CPU. The output is the same JSON as
DRF's encoder gives (datetimes in ISO 8601 with ``Z`` for UTC); what orjson does not know
(lazy translations, decimals…) goes to DRF's encoder.
"""

from __future__ import annotations

import orjson
from django.db import connection
from rest_framework.utils.encoders import JSONEncoder

_fallback = JSONEncoder().default
_OPTIONS = orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS


def encode(value) -> bytes:
    """``value`` as compact JSON, in UTF-8."""
    return orjson.dumps(value, default=_fallback, option=_OPTIONS)


def fragment(encoded: bytes) -> orjson.Fragment:
    """JSON encoded already, as a value that :func:`encode` (and so :func:`dumps` and
    :func:`db_param`) writes as it is."""
    return orjson.Fragment(encoded)


def dumps(value) -> str:
    """``value`` as compact JSON text."""
    return encode(value).decode()


def dumps_bytes(value) -> bytes:
    """:func:`dumps` in UTF-8, with U+2028 and U+2029 escaped as DRF's renderer does."""
    return encode(value).replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")


def loads(text: str | bytes):
    return orjson.loads(text)


def db_param(value):
    """``value`` as the parameter of a live game's state in raw SQL (what the ORM passes for
    its :class:`tournaments.fields.JSONTextField`), encoded by :func:`dumps`: ``Json`` on
    PostgreSQL, the text elsewhere."""
    if connection.vendor == "postgresql":
        from psycopg.types.json import Json

        return Json(value, dumps=dumps)
    return dumps(value)
