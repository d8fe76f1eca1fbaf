"""A bot-played individual event, for honest figures: players are bots of known strength
(``engine.bots``: "random" < "heuristic" < a stronger one when the engine has it), drawn by the
service's own draw (``tournaments.draw``), playing real games with the engine. Nothing is
stored: it yields the games as :class:`ratings.model.RatedGame` in order, and who is which bot.

Deterministic for a seed (the deals and bots use ``random.Random`` seeded from it; the draw uses
its documented ``DrawRandom``)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine import Game, Rules
from engine.bots import deal, make_bot, play_out
from ratings.model import RatedGame
from tournaments import draw as draw_module

#: bots by strength, weakest first (engine/bots.py); names the engine does not know are left out
BOT_STRENGTH_ORDER = ("random", "heuristic", "careful")


def available_bots() -> list[str]:
    """The bots of :data:`BOT_STRENGTH_ORDER` that ``engine.bots.make_bot`` knows."""
    found = []
    for name in BOT_STRENGTH_ORDER:
        try:
            make_bot(name, random.Random(0))
        except ValueError:
            continue
        found.append(name)
    return found


@dataclass
class BotEvent:
    games: list[RatedGame] = field(default_factory=list)
    bot_of: dict[int, str] = field(default_factory=dict)
    points: dict[int, int] = field(default_factory=dict)
    tables: list[list[tuple[int, ...]]] = field(default_factory=list)


def bot_event(*, bots: dict[str, int], rounds: int = 10, games_per_match: int = 4,
              seed: str = "bots", rules: str = "dagang") -> BotEvent:
    """Play an individual event of ``sum(bots.values())`` players (``bots``: how many of each
    bot; player ids 1..n, assigned to bots in a seeded shuffle) over ``rounds`` rounds of
    ``games_per_match`` games per table; the draw seats by the usual repeat rules."""
    rng = random.Random(f"{seed}/players")
    kinds = [name for name, count in bots.items() for _ in range(count)]
    rng.shuffle(kinds)
    out = BotEvent(bot_of={i + 1: kind for i, kind in enumerate(kinds)})
    out.points = dict.fromkeys(out.bot_of, 0)
    byes = dict.fromkeys(out.bot_of, 0)
    seat_counts = {p: [0] * 6 for p in out.bot_of}
    history = draw_module.History()
    spec = Rules(rules)
    for number in range(1, rounds + 1):
        players = [draw_module.DrawPlayer(id=p, score=float(out.points[p]), byes=byes[p],
                                          seat_counts=tuple(seat_counts[p]))
                   for p in out.bot_of]
        result = draw_module.draw_individual(players, history, f"{seed}/round/{number}")
        out.tables.append(result.tables)
        for p in result.byes:
            byes[p] += 1
        for t, table in enumerate(result.tables, start=1):
            history.add_table(table)
            for seat, p in enumerate(table):
                seat_counts[p][seat] += 1
            table_rng = random.Random(f"{seed}/{number}/{t}")
            seat_bots = [make_bot(out.bot_of[p], random.Random(table_rng.random()))
                         for p in table]
            previous = None
            for g in range(1, games_per_match + 1):
                game = Game(spec, deal(table_rng), previous, 0, first_game=(g == 1))
                play_out(game, seat_bots, table_rng)
                res = game.result()
                previous = res
                team_points = res["team_points"]
                out.games.append(RatedGame(
                    key=(number, t, g), players=tuple(table), points_a=team_points[0],
                    points_b=team_points[1], places=tuple(res["places"]),
                    void=bool(res["void"])))
                for seat, p in enumerate(table):
                    out.points[p] += team_points[seat % 2]
    return out


def bot_strength_summary(event: BotEvent, states) -> list[dict]:
    """Per bot kind, weakest first: players, mean rating (ordinal), mean mu, mean points, and
    the mean rank of its players in the rating list (1 = best)."""
    ranked = sorted(event.bot_of, key=lambda p: (-states[p].ordinal(), p))
    rank_of = {p: i + 1 for i, p in enumerate(ranked)}
    out = []
    kinds = [k for k in BOT_STRENGTH_ORDER if k in set(event.bot_of.values())]
    for kind in kinds:
        players = [p for p, k in event.bot_of.items() if k == kind]
        n = len(players)
        out.append({"bot": kind, "players": n,
                    "mean_rating": sum(states[p].ordinal() for p in players) / n,
                    "mean_mu": sum(states[p].mu for p in players) / n,
                    "mean_points": sum(event.points[p] for p in players) / n,
                    "mean_rank": sum(rank_of[p] for p in players) / n})
    return out


def draw_gap_comparison(event: BotEvent, states, *, seed: str = "next") -> dict:
    """The next round drawn twice from the same seed and history — balance off and on, with the
    ratings (mu, rounded as the service publishes them) — and the mean rating gap between the
    two 联邦 of a table, each way."""
    history = draw_module.History()
    for tables in event.tables:
        for table in tables:
            history.add_table(table)
    players = [draw_module.DrawPlayer(id=p, score=float(event.points[p])) for p in event.bot_of]
    ratings = {p: round(states[p].mu, 2) for p in event.bot_of}
    out = {}
    for name, used in (("off", None), ("on", ratings)):
        result = draw_module.draw_individual(players, history, seed, ratings=used)
        gaps = [draw_module.rating_gap(t, ratings) for t in result.tables]
        out[name] = {"tables": len(gaps), "mean_gap": sum(gaps) / len(gaps),
                     "max_gap": max(gaps)}
    return out
