"""Model fields shared by the apps."""

from __future__ import annotations

import json

import orjson
from django.db import models


def _dumps(value) -> bytes:
    """``value`` as JSON with orjson, or with the standard library for what orjson refuses
    (integers beyond 64 bits, keys that are not strings): the same JSON either way."""
    try:
        return orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value).encode()


class FastJSONField(models.JSONField):
    """A ``JSONField`` whose values PostgreSQL gets encoded by orjson: a submission's 10 KB
    record and engine result were encoded by the standard library, a tenth of a submission's
    CPU (``bench_api``). Elsewhere, and for what is not a plain value (an expression, a
    field without its own encoder), as Django does."""

    def get_db_prep_value(self, value, connection, prepared=False):
        adapted = super().get_db_prep_value(value, connection, prepared)
        if self.encoder is None and connection.vendor == "postgresql" and \
                type(adapted).__name__ == "Jsonb":
            adapted.dumps = _dumps
        return adapted


class JSONTextField(FastJSONField):
    """A :class:`FastJSONField` stored in PostgreSQL as ``json`` — its text as written, checked
    to be JSON — not as ``jsonb``, which PostgreSQL parses into its binary form on every write:
    for a large value rewritten far more often than it is read, and never searched inside by
    the database: a live game's 5-9 KB state, rewritten at every act, costs the backend about
    a third less CPU an update as ``json`` than as ``jsonb``. Elsewhere (SQLite) it is a
    ``JSONField``.

    psycopg reads a ``json`` column into its value itself (Django has it leave only ``jsonb``
    as text), so on PostgreSQL a value read is the value."""

    def db_type(self, connection):
        return "json" if connection.vendor == "postgresql" else super().db_type(connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        adapted = super().get_db_prep_value(value, connection, prepared)
        if connection.vendor == "postgresql" and type(adapted).__name__ == "Jsonb":
            from psycopg.types.json import Json

            return Json(adapted.obj, dumps=adapted.dumps)
        return adapted

    def from_db_value(self, value, expression, connection):
        if connection.vendor == "postgresql":
            return value
        return super().from_db_value(value, expression, connection)
