"""Celery tasks for live play. Each keeps the name it was registered under in ``games.tasks``
(``name=``), so that messages already queued and the beat schedule still find it."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from live import services


@shared_task(bind=True, name="games.tasks.live_autoplay_task", acks_late=True,
             autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def live_autoplay_task(self, live_id: int, version: int) -> dict:
    """托管: the game's timer, armed at ``version`` (:func:`live.services.live_timer`)."""
    return {"live": live_id, "acted": services.live_timer(live_id=live_id, version=version)}


@shared_task(name="games.tasks.live_sweep_task", acks_late=True,
             autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def live_sweep_task() -> int:
    """托管 sweep (Celery beat, every ``LIVE_SWEEP_SECONDS``): the bot plays every seat whose
    move time ran out, and a 托管 turn whose timer was lost."""
    return services.live_autoplay_overdue()
