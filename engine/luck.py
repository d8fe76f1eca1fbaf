"""How much of a 联邦's score the cards decide (运气): bots of equal strength play the same
deals several times, and a one-way analysis of variance over the deals splits the scores'
variance into the cards' part and the play's.

Every deal is played ``2 × twins`` times by six careful bots of one kind, in pairs of twin
tables: the same hands on the same seats, 联邦 A on seats 0, 2, 4 at the first table and on
seats 1, 3, 5 at its twin, so that A's cards at one table are B's at the other. Six bots of
one kind do not care which 联邦 is called A: what differs between two plays of a deal is the
bots' own choices, and a careful bot alone chooses the same way every time. So the bots
*tremble*: at each of its turns in the play a bot makes, with probability ``noise``, a
uniformly random legal act instead of its careful one (every seat alike, so the strengths stay
equal); each play has its own bot seeds.

* **Without duplicate scoring** a 联邦's score is its net game points on the board
  (:func:`engine.duplicate.net_points`); measured for the 联邦 holding seats 0, 2, 4's hands.
* **With duplicate scoring** it is compared with the twin's on the same cards: the net points
  less the net points of the 联邦 that held the same hands at the twin table (and, ``imp``,
  that difference on :data:`engine.duplicate.IMP_SCALE`).

The cards' share is the intraclass correlation ICC(1) of the scores grouped by deal: the
between-deal variance component (MSB − MSW) / n over the total, (MSB − MSW) / (MSB + (n − 1)
MSW) — the plain variance of the per-deal means over the total variance would count the play's
noise in the means (MSW / n) as the cards'. It can fall below zero where the cards explain
nothing. Confidence intervals are percentile bootstraps over the deals.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .bots import CarefulBot, play_out
from .cards import deal
from .duplicate import imps, net_points
from .game import Game
from .rules import Rules


class TremblingBot(CarefulBot):
    """The careful bot (托管's) that now and then (``noise``) plays a random legal act: one of
    six players of equal strength whose choices vary from one table to the next."""

    name = "trembling"

    def __init__(self, rng: random.Random, noise: float):
        super().__init__(rng)
        self.noise = noise

    def choose(self, game: Game, seat: int) -> dict:
        if game.state == "play" and self.rng.random() < self.noise:
            acts = [a for a in game.legal_actions(seat) if a["act"] != "burn"]
            if acts:
                return self.rng.choice(acts)
        return super().choose(game, seat)


def play_deal(rules, seed: int, d: int, twins: int, noise: float) -> list[int]:
    """The net points of the 联邦 holding seats 0, 2, 4's hands in each of the ``2 × twins``
    plays of deal ``d`` (table, twin, table, twin, …)."""
    rules = Rules.from_spec(rules)
    hands = deal(random.Random(f"luck-{seed}-{d}"))
    out = []
    for k in range(2 * twins):
        bots = [TremblingBot(random.Random(f"luck-{seed}-{d}-{k}-{s}"), noise) for s in range(6)]
        game = play_out(Game(rules, [list(h) for h in hands]), bots)
        out.append(net_points(game.result()["team_points"], 0))
    return out


def icc(groups: list[list[float]]) -> float:
    """ICC(1) of equal-sized ``groups``: the between-group share of the variance (see the
    module's docstring); ``nan`` where the scores do not vary."""
    g, n = len(groups), len(groups[0])
    means = [sum(x) / n for x in groups]
    grand = sum(means) / g
    msb = n * sum((m - grand) ** 2 for m in means) / (g - 1)
    msw = sum((v - m) ** 2 for x, m in zip(groups, means, strict=True)
              for v in x) / (g * (n - 1))
    denominator = msb + (n - 1) * msw
    return (msb - msw) / denominator if denominator else float("nan")


def duplicate_groups(plays: list[list[int]], scale: str = "points") -> list[list[float]]:
    """Per deal, 联邦 A's duplicate scores: each table's net points less its twin's
    (``scale="imp"``: as IMPs)."""
    out = []
    for p in plays:
        diffs = [p[2 * t] - p[2 * t + 1] for t in range(len(p) // 2)]
        out.append([float(imps(x)) for x in diffs] if scale == "imp" else [float(x) for x in diffs])
    return out


@dataclass
class Share:
    """One cards' share: the estimate, its 95 % bootstrap interval, and the scores' variance."""

    share: float
    ci95: tuple[float, float]
    variance: float

    def as_dict(self) -> dict:
        return {"share": self.share, "ci95": list(self.ci95), "variance": self.variance}


def share(groups: list[list[float]], resamples: int, rng: random.Random) -> Share:
    """The cards' share of ``groups`` (one list of scores per deal) with a bootstrap over the
    deals."""
    boot = sorted(icc([groups[rng.randrange(len(groups))] for _ in groups])
                  for _ in range(resamples))
    values = [v for x in groups for v in x]
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return Share(icc(groups), (boot[int(0.025 * resamples)], boot[int(0.975 * resamples) - 1]),
                 variance)


def _job(args):
    rules, seed, start, stop, twins, noise = args
    return [play_deal(rules, seed, d, twins, noise) for d in range(start, stop)]


def luck(rules, *, deals: int, seed: int = 0, twins: int = 2, noise: float = 0.01,
         resamples: int = 1000, jobs: int = 1) -> dict:
    """The cards' share of a 联邦's score over ``deals`` deals, without and with duplicate
    scoring (net points and IMPs): ``{"plain", "duplicate", "duplicate_imp"}`` of
    :class:`Share` dicts, and the settings."""
    if deals < 3 or twins < 1:
        raise ValueError("luck needs at least 3 deals and 1 pair of twin tables")
    spec = Rules.from_spec(rules).spec()
    step = max(1, deals // (max(1, jobs) * 4))
    chunks = [(spec, seed, i, min(deals, i + step), twins, noise) for i in range(0, deals, step)]
    if jobs <= 1:
        parts = [_job(c) for c in chunks]
    else:
        import multiprocessing

        with multiprocessing.Pool(jobs) as pool:
            parts = pool.map(_job, chunks)
    plays = [p for part in parts for p in part]
    rng = random.Random(f"luck-bootstrap-{seed}")
    return {
        "rules": spec, "deals": deals, "seed": seed, "twins": twins, "noise": noise,
        "games": deals * 2 * twins,
        "plain": share([[float(v) for v in p] for p in plays], resamples, rng).as_dict(),
        "duplicate": share(duplicate_groups(plays), resamples, rng).as_dict(),
        "duplicate_imp": share(duplicate_groups(plays, "imp"), resamples, rng).as_dict(),
    }
