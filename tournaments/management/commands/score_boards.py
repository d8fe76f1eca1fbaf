"""Score the duplicate (复式) boards every table of whose group has finished them."""

from django.core.management.base import BaseCommand, CommandError

from games.duplicate import board_score, boards_unscored
from tournaments.models import Event


class Command(BaseCommand):
    help = ("Score every duplicate board (docs/DUPLICATE.md) whose group has finished it but "
            "that is not scored yet — a scoring lost after its results were stored — of one "
            "event or of all. Idempotent: a board scored already is left as it is.")

    def add_arguments(self, parser):
        parser.add_argument("event", nargs="?", help="the event's slug (default: every event)")

    def handle(self, *args, event=None, **opts):
        found = None
        if event is not None:
            found = Event.objects.filter(slug=event).first()
            if found is None:
                raise CommandError(f"no event with slug {event}")
        unscored = boards_unscored(found)
        scored = sum(board_score(pk) for pk in unscored)
        self.stdout.write(f"{scored} board(s) scored, {len(unscored) - scored} still being "
                          "played")
