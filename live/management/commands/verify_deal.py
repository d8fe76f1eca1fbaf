"""Re-derive a live game's deal from its stored seed and check its commitment and records."""

from django.core.management.base import BaseCommand, CommandError

from live.deals import VERIFY_COMMAND, deal_verification, is_twin
from live.models import LiveGame


class Command(BaseCommand):
    help = ("Re-derive a live game's deal from its stored seed and label (docs/DEALS.md): "
            "check the published commitment, that the label names the game, and that its "
            "stored state and every record of its result hold the derived hands. Exit 1 "
            "naming what does not hold. Prints the seed: an operator's command.")

    def add_arguments(self, parser):
        parser.add_argument("live_game", type=int, help="the live game's id")

    def handle(self, *args, live_game, **opts):
        live = LiveGame.objects.select_related("table__round").filter(pk=live_game).first()
        if live is None:
            raise CommandError(f"no live game {live_game}")
        problems = deal_verification(live)
        if problems:
            self.stdout.write(f"live game {live.pk}: NOT VERIFIED")
            for problem in problems:
                self.stdout.write(f"  - {problem}")
            raise SystemExit(1)
        self.stdout.write(f"live game {live.pk} ({live.deal_label}): verified (commitment "
                          f"{live.deal_commitment[:16]}…)")
        command = VERIFY_COMMAND.format(seed=live.deal_seed, label=live.deal_label,
                                        commitment=live.deal_commitment)
        if is_twin(live):  # a duplicate board's twin table: dealt rotated one seat
            command += " --twin"
        self.stdout.write(f"  anyone checks it, once the seed is revealed, with: {command}")
