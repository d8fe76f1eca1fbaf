"""Reads of games shared by the API and the pages (STYLE.md: ``selectors.py``)."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from games.models import GameResult
from tournaments.models import Round, Table
from tournaments.selectors import round_tables


def round_tables_with_results(rnd: Round) -> QuerySet[Table]:
    """:func:`tournaments.selectors.round_tables`, each table with its results by game number."""
    return round_tables(rnd).prefetch_related(
        Prefetch("results", GameResult.objects.order_by("number")))
