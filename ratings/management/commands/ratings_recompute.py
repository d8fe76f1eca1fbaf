"""Recompute every rating from scratch — here, or queued on a worker (``--worker``): after a
change the on-commit hooks do not see (an event deleted), or to check the stored ratings."""

import time

from django.core.management.base import BaseCommand

from ratings.services import ratings_queue_recompute, ratings_recompute


class Command(BaseCommand):
    help = "Recompute every player's rating from the confirmed games of the events that count."

    def add_arguments(self, parser):
        parser.add_argument("--worker", action="store_true",
                            help="queue the recomputation on a Celery worker and return")

    def handle(self, *args, worker: bool, **opts):
        if worker:
            ratings_queue_recompute()
            self.stdout.write("ratings recomputation queued")
            return
        start = time.perf_counter()
        games = ratings_recompute()
        self.stdout.write(f"{games} games rated in {time.perf_counter() - start:.1f} s")
