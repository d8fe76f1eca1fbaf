"""``manage.py standings_sweep [--run]``: recompute the standings of every event whose standings
are stale (``standings_results_version < results_version``), which happens when the recompute a
change queued was lost: the broker down when the change committed, or a worker dying between a
commit and its publish. Fresh events are left alone, so it is safe to run at any time and as often
as wanted: from cron (``* * * * * manage.py standings_sweep``) or Celery beat
(``tournaments.tasks.standings_sweep_task``, the same sweep as a task).

By default each stale event gets a ``standings_recompute_task`` on the queue; ``--run`` recomputes
here instead, one event after the other (no broker or worker needed).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tournaments.standings import standings_sweep


class Command(BaseCommand):
    help = "Queue (or, with --run, run) a standings recompute for every event with stale standings."

    def add_arguments(self, parser):
        parser.add_argument("--run", action="store_true",
                            help="recompute here instead of queueing a task per event")

    def handle(self, *args, run: bool = False, **options):
        outcome = standings_sweep(run=run)
        done, failed = outcome["done"], outcome["failed"]
        if not done and not failed:
            self.stdout.write("no event has stale standings")
            return
        verb = "recomputed" if run else "queued a recompute of"
        self.stdout.write(f"{verb} the standings of {len(done)} event(s)"
                          + (": " + ", ".join(map(str, done)) if done else ""))
        if failed:  # logged: the next sweep tries again
            self.stderr.write("not queued (broker unavailable): " + ", ".join(map(str, failed)))
