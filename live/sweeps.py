"""The sweeps Celery beat sends (``CELERY_BEAT_SCHEDULE`` in config/settings.py), run by this
process itself where no broker is configured: 托管 (every seat whose move time ran out, and a
hosted turn, is played by the bot: :func:`live.services.live_autoplay_overdue`) every
``LIVE_SWEEP_SECONDS``, and the standings of any event left stale
(:func:`tournaments.standings.standings_sweep`) at the beat's interval. Without a broker tasks
run in-process and countdowns are ignored, so nothing else would play a silent seat: the
development server (``manage.py runserver``, ``make serve``: live/management/commands/
runserver.py) starts :func:`start_in_background` once it serves, and ``manage.py live_tick
--loop`` runs :func:`run` in the foreground."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import close_old_connections

from live.services import live_autoplay_overdue
from tournaments.standings import standings_sweep

log = logging.getLogger(__name__)

_started: threading.Thread | None = None
_starting = threading.Lock()


def _beat_seconds(name: str) -> float:
    return float(settings.CELERY_BEAT_SCHEDULE[name]["schedule"])


def run(*, stop: threading.Event, live_every: float | None = None,
        standings_every: float | None = None,
        on_played: Callable[[int], None] | None = None) -> None:
    """Sweep until ``stop`` is set: 托管 every ``live_every`` seconds (default: the beat's
    ``live-sweep``), the standings every ``standings_every`` (the beat's ``standings-sweep``),
    starting with both at once. ``on_played(n)`` is told when the bot played ``n`` seats. A
    sweep that fails is logged and the next one runs as planned (a database locked or
    restarting a moment must not end the timers); the thread's database connections are
    checked after each pass, as a request's are."""
    live_every = _beat_seconds("live-sweep") if live_every is None else live_every
    standings_every = (_beat_seconds("standings-sweep") if standings_every is None
                       else standings_every)
    standings_due = time.monotonic()
    while True:
        try:
            played = live_autoplay_overdue()
            if played and on_played is not None:
                on_played(played)
            if time.monotonic() >= standings_due:
                standings_due = time.monotonic() + standings_every
                standings_sweep(run=True)
        except Exception:  # noqa: BLE001 - logged; the next pass is the retry
            log.exception("in-process sweep failed; the next runs in %s s", live_every)
        finally:
            close_old_connections()
        if stop.wait(live_every):
            return


def start_in_background() -> threading.Thread | None:
    """Start :func:`run` in a daemon thread of this process (it ends with the process), once:
    a second call returns ``None`` and starts nothing."""
    global _started
    with _starting:
        if _started is not None:
            return None
        _started = threading.Thread(target=run, kwargs={"stop": threading.Event()},
                                    name="gouji-sweeps", daemon=True)
        _started.start()
        return _started
