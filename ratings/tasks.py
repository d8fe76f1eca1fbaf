"""Celery tasks of the ratings: thin, keyed on ids, idempotent (STYLE.md §3)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from ratings import services


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def ratings_update_task(self, event_id: int) -> dict:
    """Re-rate from the event's first changed round; a repeated task finds nothing changed."""
    services.ratings_update_started(event_id)
    return {"event": event_id, "games": services.ratings_update(event_id=event_id)}


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def ratings_recompute_task(self) -> dict:
    """Recompute every rating from scratch (``manage.py ratings_recompute --worker``)."""
    return {"games": services.ratings_recompute()}
