"""Re-run a round's draw from its public data and check it matches the stored seating."""

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Round
from tournaments.services import round_verify


class Command(BaseCommand):
    help = ("Re-run a drawn round from its revealed seed, entry list, draw input and earlier "
            "seating; exit 1 if the commitment or the seating does not match.")

    def add_arguments(self, parser):
        parser.add_argument("event", help="event slug")
        parser.add_argument("round", type=int, nargs="?", help="round number (default: all)")

    def handle(self, *args, event, round=None, **opts):
        rounds = Round.objects.filter(event__slug=event).order_by("number")
        if round is not None:
            rounds = rounds.filter(number=round)
        if not rounds.exists():
            raise CommandError(f"no such event or round: {event} {round or ''}")
        bad = 0
        for rnd in rounds:
            problems = round_verify(round=rnd)
            if problems:
                bad += 1
                self.stdout.write(f"round {rnd.number}: NOT VERIFIED")
                for p in problems:
                    self.stdout.write(f"  - {p}")
            else:
                self.stdout.write(f"round {rnd.number}: verified (commitment {rnd.commitment[:16]}…,"
                                  f" seed {rnd.seed[:16]}…)")
        if bad:
            raise SystemExit(1)
