"""Celery tasks: thin, keyed on ids, idempotent (STYLE.md §3)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from tournaments import standings
from tournaments.services.draws import round_draw
from tournaments.services.rounds import round_draw_sweep


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def round_draw_task(self, round_id: int) -> dict:
    """Draw a committed round; a redelivered or repeated task finds it drawn and does nothing."""
    rnd = round_draw(round_id=round_id)
    return {"round": rnd.pk, "status": rnd.status}


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def round_draw_sweep_task(self) -> dict:
    """Queue the draw again of every round left committed past ``CELERY_DRAW_REQUEUE_SECONDS``
    (a worker died with its draw). Meant for Celery beat."""
    return round_draw_sweep()


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def standings_recompute_task(self, event_id: int, force: bool = False) -> dict:
    """Recompute an event's standings from confirmed results (skipped when they already cover
    every change, unless ``force``)."""
    standings.standings_run_started(event_id)
    changed = standings.standings_recompute(event_id=event_id, force=force)
    return {"event": event_id, "changed": changed}


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def standings_sweep_task(self) -> dict:
    """Queue a recompute for every event whose standings are stale (a lost or failed publish);
    fresh events are left alone. Meant for Celery beat (e.g. every minute); the same as
    ``manage.py standings_sweep``."""
    return standings.standings_sweep()
