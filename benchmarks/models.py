"""The one table of the benchmarks: what ``bench_api --baseline``'s minimal view inserts."""

from __future__ import annotations

from django.db import models


class BaselineRow(models.Model):
    """One parsed request body, inserted by :class:`benchmarks.baseline.BaselineInsertApi`: the
    ceiling a result submission is measured against (a bare DRF insert of the same body)."""

    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
