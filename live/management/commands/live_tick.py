"""Play overdue live seats with the bot (托管) where no Celery worker and beat run the sweep."""

import threading

from django.core.management.base import BaseCommand

from live import sweeps
from live.services import live_autoplay_overdue


class Command(BaseCommand):
    help = ("Let the bot play every live seat whose move time ran out; --loop to keep doing it "
            "(and sweep stale standings as beat would). `manage.py runserver` does this itself "
            "when no broker is configured.")

    def add_arguments(self, parser):
        parser.add_argument("--loop", action="store_true")
        parser.add_argument("--interval", type=float, default=1.0)

    def handle(self, *args, loop=False, interval=1.0, **opts):
        if loop:
            sweeps.run(stop=threading.Event(), live_every=interval, on_played=self._played)
        else:
            self._played(live_autoplay_overdue())

    def _played(self, n: int) -> None:
        if n:
            self.stdout.write(f"bot played {n} overdue seat(s)")
