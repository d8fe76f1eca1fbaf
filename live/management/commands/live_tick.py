"""Play overdue live seats with the bot (托管) where no Celery worker and beat run the sweep."""

import time

from django.core.management.base import BaseCommand

from live.services import live_autoplay_overdue


class Command(BaseCommand):
    help = "Let the bot play every live seat whose move time ran out; --loop to keep doing it."

    def add_arguments(self, parser):
        parser.add_argument("--loop", action="store_true")
        parser.add_argument("--interval", type=float, default=1.0)

    def handle(self, *args, loop=False, interval=1.0, **opts):
        while True:
            n = live_autoplay_overdue()
            if n:
                self.stdout.write(f"bot played {n} overdue seat(s)")
            if not loop:
                return
            time.sleep(interval)
