"""Celery tasks for live play."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from games import live


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True,
             max_retries=5)
def live_autoplay_task(self, live_id: int, version: int) -> dict:
    """托管: play the waiting seat if nobody acted since ``version``."""
    return {"live": live_id, "acted": live.live_autoplay(live_id=live_id, version=version)}
