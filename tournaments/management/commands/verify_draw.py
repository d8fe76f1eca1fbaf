"""Re-run a round's draw from its public data and check it matches the stored seating."""

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Round
from tournaments.services.draws import draw_change_text, round_verification


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class Command(BaseCommand):
    help = ("Re-run a drawn round from its revealed seed, entry list, draw input and earlier "
            "seating, then apply the organizers' recorded seat swaps; check every earlier draw "
            "a re-draw replaced the same way. Exit 1 if a commitment or a seating does not "
            "match.")

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
            report = round_verification(round=rnd)
            extra = []
            if report.changes:
                extra.append(f"with {_plural(len(report.changes), 'manual change')}")
            if report.redraws:
                extra.append(f"re-drawn {_plural(len(report.redraws), 'time')}")
            said = "verified" + (", " + ", ".join(extra) if extra else "")
            if report.problems:
                bad += 1
                self.stdout.write(f"round {rnd.number}: NOT VERIFIED"
                                  + (f" ({', '.join(extra)})" if extra else ""))
                for p in report.problems:
                    self.stdout.write(f"  - {p}")
            else:
                self.stdout.write(f"round {rnd.number}: {said} (commitment "
                                  f"{rnd.commitment[:16]}…, seed {rnd.seed[:16]}…)")
            for k, earlier in enumerate(report.redraws, start=1):
                made = earlier["redraw"]
                self.stdout.write(
                    f"  - draw {k} re-drawn at {made['at']} by {made['by'] or '—'}: "
                    f"{made['reason']} (its commitment {earlier['commitment'][:16]}…, seed "
                    f"{earlier['seed'][:16]}…, {_plural(len(earlier['changes']), 'manual change')})")
            for change in report.changes:
                self.stdout.write(f"  - {change['at']} by {change['by'] or '—'}: "
                                  f"{draw_change_text(change)}: {change['reason']}")
        if bad:
            raise SystemExit(1)
