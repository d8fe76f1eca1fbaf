"""``manage.py standings_rebuild [slug …]``: recompute the standings of the named events (every
event without names) from scratch and rewrite every stored row. The everyday recompute after a
change writes only the rows that changed; this is its check and its repair. Safe at any time:
runs of one event take turns, and the result is the same as the everyday run's."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Event
from tournaments.standings import standings_rebuild


class Command(BaseCommand):
    help = "Recompute the standings of events from scratch and rewrite every stored row."

    def add_arguments(self, parser):
        parser.add_argument("slugs", nargs="*", help="events' slugs (default: every event)")

    def handle(self, *args, slugs=(), **options):
        events = Event.objects.order_by("pk")
        if slugs:
            events = events.filter(slug__in=slugs)
            missing = set(slugs) - set(events.values_list("slug", flat=True))
            if missing:
                raise CommandError("no such event: " + ", ".join(sorted(missing)))
        for event_id, slug in events.values_list("pk", "slug"):
            started = time.perf_counter()
            standings_rebuild(event_id=event_id)
            self.stdout.write(f"{slug}: standings rebuilt in {time.perf_counter() - started:.2f} s")
