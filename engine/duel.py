"""Duplicate tournament between two bots (the bridge method): every deal is played twice with
the 联邦s' seats swapped, so the cards cancel out and what is left is the bots' play.

In the first play bot ``a`` holds seats 0, 2, 4 (team 0) and bot ``b`` seats 1, 3, 5; in the
second the same deal is played with ``b`` on 0, 2, 4 and ``a`` on 1, 3, 5. A deal's score is
``a``'s team points minus ``b``'s, averaged over its two plays. Each deal is a table's first
game (no tributes owed), dealt from its own seed, so any range of deals can be played alone or
in parallel and gives the same figures.

``duplicate=False`` plays each deal once, ``a`` on seats 0, 2, 4 in even deals and on 1, 3, 5
in odd ones, its score ``a``'s points less ``b``'s: the plain match that duplicate play is
measured against (the cards' luck stays in every score, and the interval is wider).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from .bots import make_bot, play_out
from .cards import deal
from .game import Game
from .rules import Rules


@dataclass
class DuelStats:
    """Totals of a duel; :meth:`summary` turns them into the reported figures."""

    deals: int = 0
    scores: list[float] = field(default_factory=list)  # per deal, a's points minus b's
    games: int = 0
    smothers: list[int] = field(default_factory=lambda: [0, 0])  # 闷, seats of a / of b
    kaidian: list[int] = field(default_factory=lambda: [0, 0])  # seats that 开点ed
    burns: list[int] = field(default_factory=lambda: [0, 0])
    failed_burns: list[int] = field(default_factory=lambda: [0, 0])  # 诈烧
    wins: list[int] = field(default_factory=lambda: [0, 0])  # games whose points went to a / b
    decisions: list[float] = field(default_factory=list)  # seconds per move of bot a

    def add(self, other: DuelStats) -> None:
        self.deals += other.deals
        self.scores += other.scores
        self.games += other.games
        self.decisions += other.decisions
        for name in ("smothers", "kaidian", "burns", "failed_burns", "wins"):
            mine, theirs = getattr(self, name), getattr(other, name)
            mine[0] += theirs[0]
            mine[1] += theirs[1]

    def summary(self) -> dict:
        n = len(self.scores)
        mean = sum(self.scores) / n if n else 0.0
        var = sum((x - mean) ** 2 for x in self.scores) / (n - 1) if n > 1 else 0.0
        half = 1.96 * math.sqrt(var / n) if n > 1 else float("inf")
        dec = sorted(self.decisions)
        pick = (lambda q: dec[min(len(dec) - 1, int(len(dec) * q))] * 1000) if dec else (
            lambda q: 0.0)
        per_game = max(1, self.games)
        return {
            "deals": self.deals, "games": self.games,
            "points_per_deal": mean, "ci95": [mean - half, mean + half],
            "smothers_per_game": [self.smothers[0] / per_game, self.smothers[1] / per_game],
            "kaidian_per_game": [self.kaidian[0] / per_game, self.kaidian[1] / per_game],
            "burns_per_game": [self.burns[0] / per_game, self.burns[1] / per_game],
            "failed_burns": list(self.failed_burns), "wins": list(self.wins),
            "decision_ms": {"p50": pick(0.5), "p99": pick(0.99), "max": pick(1.0)},
        }


class _Timed:
    """A bot whose moves (``choose``, what 托管 asks) are timed: bot ``a`` in a duel."""

    def __init__(self, bot, times: list[float]):
        self.bot, self.times = bot, times

    def choose(self, game, seat):
        t = time.perf_counter()
        out = self.bot.choose(game, seat)
        self.times.append(time.perf_counter() - t)
        return out

    def burn(self, game, seat):
        return self.bot.burn(game, seat)  # a question while a burn window is open, not a move


def play_deals(rules, a: str, b: str, seed: int, start: int, stop: int,
               duplicate: bool = True) -> DuelStats:
    """Play deals ``start … stop-1`` of the duel with seed ``seed``, each twice (once unless
    ``duplicate``)."""
    rules = Rules.from_spec(rules)
    stats = DuelStats()
    for d in range(start, stop):
        rng = random.Random(f"duel-{seed}-{d}")
        hands = deal(rng)
        bot_seed = rng.random()
        score = 0.0
        swaps = (False, True) if duplicate else (d % 2 == 1,)
        for swap in swaps:
            a_team = 1 if swap else 0
            bots = []
            for s in range(6):
                name = a if s % 2 == a_team else b
                bot = make_bot(name, random.Random(bot_seed + s))
                bots.append(_Timed(bot, stats.decisions) if s % 2 == a_team else bot)
            game = play_out(Game(rules, [list(h) for h in hands]), bots)
            res = game.result()
            tp = res["team_points"]
            score += tp[a_team] - tp[1 - a_team]
            stats.games += 1
            if tp[a_team] != tp[1 - a_team]:
                stats.wins[0 if tp[a_team] > tp[1 - a_team] else 1] += 1
            for s in res["smothers"]:
                stats.smothers[0 if s % 2 == a_team else 1] += 1
            for s, k in enumerate(res["kaidian"]):
                if k:
                    stats.kaidian[0 if s % 2 == a_team else 1] += 1
            for burn in res["burns"]:
                stats.burns[0 if burn["burner"] % 2 == a_team else 1] += 1
            for s, reason in ((e["seat"], e["reason"]) for e in res["eliminated"]):
                if reason == "failed_burn":
                    stats.failed_burns[0 if s % 2 == a_team else 1] += 1
        stats.scores.append(score / len(swaps))
        stats.deals += 1
    return stats


def _job(args):
    return play_deals(*args)


def duel(rules, a: str, b: str, *, deals: int, seed: int = 0, jobs: int = 1,
         duplicate: bool = True) -> DuelStats:
    """The duel of bot ``a`` against bot ``b`` over ``deals`` deals (each played twice; once
    unless ``duplicate``)."""
    if jobs <= 1:
        return play_deals(rules, a, b, seed, 0, deals, duplicate)
    import multiprocessing

    step = max(1, deals // (jobs * 4))
    chunks = [(Rules.from_spec(rules).spec(), a, b, seed, i, min(deals, i + step), duplicate)
              for i in range(0, deals, step)]
    total = DuelStats()
    with multiprocessing.Pool(jobs) as pool:
        for part in pool.map(_job, chunks):
            total.add(part)
    return total
