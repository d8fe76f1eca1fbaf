"""Recompute every rating from scratch (on a worker or by hand: after an event is switched to
count for ratings or not)."""

import time

from django.core.management.base import BaseCommand

from ratings.services import ratings_recompute


class Command(BaseCommand):
    help = "Recompute every player's rating from the confirmed games of the events that count."

    def handle(self, *args, **opts):
        start = time.perf_counter()
        games = ratings_recompute()
        self.stdout.write(f"{games} games rated in {time.perf_counter() - start:.1f} s")
