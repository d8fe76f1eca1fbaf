"""The minimal project's one table."""

from __future__ import annotations

from django.db import models


class Row(models.Model):
    """One parsed request body, as :class:`benchmarks.minimal_drf.views.InsertApi` stored it."""

    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
