"""Read an event's archive (``event_export``) into this database (tournaments/archive.py)."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.archive import ArchiveError, event_import_json
from tournaments.models import Standing


class Command(BaseCommand):
    help = ("Import an event archive written by `event_export`, keeping its ids (its draws "
            "verify only with them), into a database where none of them is taken; then "
            "recompute its standings. Refused, writing nothing, on any conflict.")

    def add_arguments(self, parser):
        parser.add_argument("path", help="the archive file ('-': standard input)")

    def handle(self, *args, path, **opts):
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        try:
            event = event_import_json(text=text)
        except ArchiveError as exc:
            raise CommandError(f"{path}: not imported: {exc}") from None
        self.stdout.write(
            f"{event.slug}: imported ({event.entries.count()} entries, {event.rounds.count()} "
            f"rounds, {Standing.objects.filter(event=event).count()} standings rows); check "
            f"its draws with: manage.py verify_draw {event.slug}")
