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
