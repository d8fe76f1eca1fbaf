"""Write an event's archive: one JSON file (tournaments/archive.py)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.archive import event_export_json
from tournaments.models import Event


class Command(BaseCommand):
    help = ("Write one JSON file with an event: its entries, players, teams, rounds, seating "
            "with the draw record, results with every version, penalties and prizes. "
            "`event_import` reads it into another database (docs/DEPLOY.md, \"Backups\").")

    def add_arguments(self, parser):
        parser.add_argument("event", help="event slug")
        parser.add_argument("path", help="the archive file to write ('-': standard output)")

    def handle(self, *args, event, path, **opts):
        found = Event.objects.filter(slug=event).first()
        if found is None:
            raise CommandError(f"no event with the slug {event!r}")
        text = event_export_json(event=found)
        if path == "-":
            self.stdout.write(text)
            return
        Path(path).write_text(text + "\n", encoding="utf-8")
        self.stderr.write(f"{found.slug}: written to {path} ({len(text.encode())} bytes)")
