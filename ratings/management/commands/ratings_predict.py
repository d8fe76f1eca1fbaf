"""How well do the ratings predict? Replay games in order and let the rating before each game
name its winning 联邦, against a coin flip and "the 联邦 with more points so far" — on an
event's own history (``--event``), or on a bot-played event whose bots' strengths are known
(``--bots``), where it also shows that the rating ranks the stronger bots above and what the
rating-balanced draw does to the gap between the two 联邦 of a table."""

import json

from django.core.management.base import BaseCommand, CommandError

from ratings.botevent import (
    available_bots,
    bot_event,
    bot_strength_summary,
    draw_gap_comparison,
)
from ratings.model import prediction_figures, rate_all
from ratings.services import rated_games, states_before
from tournaments.models import Event, Round


def _table(figures) -> list[str]:
    lines = [f"{'predictor':<22} {'games':>6} {'accuracy':>9} {'log loss':>9}"]
    for f in figures:
        lines.append(f"{f.name:<22} {f.games:>6} {f.accuracy:>9.3f} {f.log_loss:>9.3f}")
    return lines


class Command(BaseCommand):
    help = __doc__.split("\n")[0]

    def add_arguments(self, parser):
        parser.add_argument("--event", help="event slug: its confirmed games, in order")
        parser.add_argument("--bots", help="a bot-played event instead, e.g. random=16,"
                            "heuristic=16 (default: 48 of every bot the engine has)")
        parser.add_argument("--rounds", type=int, default=10)
        parser.add_argument("--games", type=int, default=4, help="games per match")
        parser.add_argument("--seed", default="ratings")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, event=None, bots=None, rounds, games, seed, json: bool, **opts):
        if event:
            return self._event(event, as_json=json)
        if bots:
            try:
                counts = {k: int(v) for k, v in (part.split("=") for part in bots.split(","))}
            except ValueError as exc:
                raise CommandError("--bots takes name=count pairs, e.g. random=16") from exc
        else:
            counts = dict.fromkeys(available_bots(), 48)
        known = set(available_bots())
        unknown = sorted(set(counts) - known)
        if unknown:
            raise CommandError(f"unknown bot {unknown[0]!r}: the engine has {sorted(known)}")
        played = bot_event(bots=counts, rounds=rounds, games_per_match=games, seed=seed)
        figures = prediction_figures(played.games)
        states = rate_all(played.games)
        summary = bot_strength_summary(played, states)
        gaps = draw_gap_comparison(played, states)
        if json:
            self.stdout.write(_dumps({"figures": [f.as_dict() for f in figures],
                                      "bots": summary, "draw_gap": gaps}))
            return
        self.stdout.write(f"bot-played event: {sum(counts.values())} players "
                          f"({', '.join(f'{n} {k}' for k, n in counts.items())}), {rounds} "
                          f"rounds of {games} games, seed {seed!r}: {len(played.games)} games")
        for line in _table(figures):
            self.stdout.write(line)
        self.stdout.write(f"{'bot':<10} {'players':>7} {'rating':>7} {'mu':>7} {'points':>7}"
                          f" {'mean rank':>9}")
        for row in summary:
            self.stdout.write(f"{row['bot']:<10} {row['players']:>7} {row['mean_rating']:>7.2f}"
                              f" {row['mean_mu']:>7.2f} {row['mean_points']:>7.1f}"
                              f" {row['mean_rank']:>9.1f}")
        self.stdout.write("next round's draw, mean rating gap between the two 联邦 of a table:")
        for name, row in gaps.items():
            self.stdout.write(f"  balance {name:<3}: mean {row['mean_gap']:.2f}, max "
                              f"{row['max_gap']:.2f} over {row['tables']} tables")

    def _event(self, slug: str, *, as_json: bool):
        event = Event.objects.filter(slug=slug).first()
        if event is None:
            raise CommandError(f"no event {slug!r}")
        rounds = Round.objects.filter(event=event, drawn_at__isnull=False)
        first = rounds.order_by("drawn_at", "pk").values_list("drawn_at", "pk").first()
        if first is None:
            raise CommandError(f"event {slug!r} has no drawn round")
        games, _meta = rated_games(rounds)
        figures = prediction_figures(games, states=states_before(first))
        if as_json:
            self.stdout.write(_dumps([f.as_dict() for f in figures]))
            return
        self.stdout.write(f"{event.name}: {len(games)} confirmed games, ratings before each")
        for line in _table(figures):
            self.stdout.write(line)


def _dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)
