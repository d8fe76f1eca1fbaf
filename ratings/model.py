"""The rating model: openskill's Weng-Lin Plackett-Luce model applied to 够级 games — pure
Python (openskill and the standard library), no Django, so that a command, a test and a bot
simulation rate games exactly as the service does.

How a game maps to the model (ARCHITECTURE.md, "Ratings"):

* The two 联邦 (seats 0, 2, 4 and 1, 3, 5) are the model's two teams of three.
* The outcome is the 联邦's result: the side that scored the game's points ranks first
  (``ranks=[0, 1]`` or ``[1, 0]``); a game where neither side scores is a tie (``[0, 0]``); a
  void game (流局) is not rated.
* Each seat's place (名次, 1 = 头科 … 6 = 大落) is the finer signal, given as the player's
  *weight*, which openskill reads as their contribution to the 联邦's result: a higher weight
  gains more from a win and loses less from a loss. A seat's weight is ``0.5 + c`` with
  ``c = (6 - place) / 5`` (1.5 for 头科, 0.5 for 大落): the winners' 头科 gains most, the
  losers' 大落 loses most. A seat without a place, and every seat of a tie, weighs 1.

Order is part of the result: games are rated in the order of their *key* (the round's draw
time and id, then table and game number), never in the order they were confirmed, so the same
results always give the same ratings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

#: the model and its defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300)
MODEL = PlackettLuce()
MU, SIGMA = MODEL.mu, MODEL.sigma
SEATS = 6


@dataclass
class State:
    """One player's rating: ``mu`` (estimated strength), ``sigma`` (its uncertainty), and the
    games rated and won so far. Shown as :meth:`ordinal` (``mu - 3 sigma``): a new player
    starts at 0 and climbs as the model grows sure of them."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0
    #: the openskill rating object of (mu, sigma), kept so that the next game need not make one
    model_rating: object = field(default=None, repr=False, compare=False)

    def as_model_rating(self):
        rating = self.model_rating
        if rating is None or rating.mu != self.mu or rating.sigma != self.sigma:
            rating = self.model_rating = MODEL.rating(mu=self.mu, sigma=self.sigma)
        return rating

    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class RatedGame:
    """One confirmed game to rate: the six players in seat order (联邦 0 = seats 0, 2, 4),
    the points of each 联邦, the places by seat (1–6, 0 = none), and its ordering key."""

    key: tuple
    players: tuple[int, ...]
    points_a: int
    points_b: int
    places: tuple[int, ...] = (0,) * SEATS
    void: bool = False

    @property
    def winner(self) -> int | None:
        """The winning 联邦 (0 or 1), None for a tie."""
        if self.points_a == self.points_b:
            return None
        return 0 if self.points_a > self.points_b else 1


def place_weights(places: Sequence[int], winner: int | None) -> list[float]:
    """The weight of each seat's update (see the module docstring)."""
    out = []
    for seat in range(SEATS):
        place = places[seat] if seat < len(places) else 0
        if winner is None or not 1 <= place <= SEATS:
            out.append(1.0)
            continue
        out.append(0.5 + (SEATS - place) / (SEATS - 1))
    return out


def _sides(players: Sequence[int]) -> tuple[list[int], list[int]]:
    return [players[0], players[2], players[4]], [players[1], players[3], players[5]]


def rate_game(states: dict[int, State], game: RatedGame, *, places: bool = True) -> bool:
    """Update ``states`` (new players are added at the defaults) with one game; returns whether
    it was rated (void games are not). ``places=False`` rates the 联邦's result alone (every
    weight 1): the figures compare the two."""
    if game.void:
        return False
    if len(game.players) != SEATS or len(set(game.players)) != SEATS:
        raise ValueError(f"game {game.key}: six different players are needed")
    for p in game.players:
        if p not in states:
            states[p] = State()
    side_a, side_b = _sides(game.players)
    winner = game.winner
    ranks = [0, 0] if winner is None else ([0, 1] if winner == 0 else [1, 0])
    weights = place_weights(game.places if places else (0,) * SEATS, winner)
    teams = [[states[p].as_model_rating() for p in side] for side in (side_a, side_b)]
    new = MODEL.rate(teams, ranks=ranks,
                     weights=[[weights[0], weights[2], weights[4]],
                              [weights[1], weights[3], weights[5]]])
    for side_index, side in enumerate((side_a, side_b)):
        for p, rating in zip(side, new[side_index], strict=True):
            state = states[p]
            state.mu, state.sigma, state.model_rating = rating.mu, rating.sigma, rating
            state.games += 1
            if winner == side_index:
                state.wins += 1
    return True


def win_probability(states: dict[int, State], players: Sequence[int]) -> float:
    """The model's probability that 联邦 0 (seats 0, 2, 4) wins, from the ratings before the
    game (unknown players at the defaults)."""
    side_a, side_b = _sides(players)
    teams = [[states[p].as_model_rating() if p in states else MODEL.rating() for p in side]
             for side in (side_a, side_b)]
    return MODEL.predict_win(teams)[0]


def rate_all(games: Iterable[RatedGame], states: dict[int, State] | None = None
             ) -> dict[int, State]:
    """Rate ``games`` (sorted here by key) from ``states`` (fresh players when None)."""
    states = {} if states is None else states
    for game in sorted(games, key=lambda g: g.key):
        rate_game(states, game)
    return states


# ----------------------------------------------------------------------------- honest figures
@dataclass
class Figures:
    """How well a predictor named the winning 联邦 of games it had not seen."""

    name: str
    games: int = 0
    correct: float = 0.0
    log_loss_sum: float = 0.0

    def add(self, p_a: float, winner: int) -> None:
        """One game: the predicted probability that 联邦 0 wins, and the winner."""
        p = min(max(p_a if winner == 0 else 1.0 - p_a, 1e-6), 1 - 1e-6)
        self.games += 1
        self.correct += 0.5 if p_a == 0.5 else float((p_a > 0.5) == (winner == 0))
        self.log_loss_sum -= math.log(p)

    @property
    def accuracy(self) -> float:
        return self.correct / self.games if self.games else 0.0

    @property
    def log_loss(self) -> float:
        return self.log_loss_sum / self.games if self.games else 0.0

    def as_dict(self) -> dict:
        return {"predictor": self.name, "games": self.games,
                "accuracy": round(self.accuracy, 4), "log_loss": round(self.log_loss, 4)}


def prediction_figures(games: Iterable[RatedGame], *, event_of=None,
                       states: dict[int, State] | None = None) -> list[Figures]:
    """Replay ``games`` in key order; before each decided game, let three predictors name the
    winner: the rating (``win_probability``), a coin flip (0.5), and "the 联邦 with more points
    so far" (event points summed over its three players; its probability is that rule's own
    success rate on the games before, Laplace-smoothed, so it is calibrated online; a tie of
    points is 0.5); and, to show what the places add, the rating of the 联邦's results alone.
    Then rate the game. ``event_of(game)`` names the game's event, for the points
    so far (default: one event). Returns the figures of the four predictors."""
    states = {} if states is None else states
    plain_states = {p: State(s.mu, s.sigma, s.games, s.wins) for p, s in states.items()}
    rating, coin, points = Figures("rating"), Figures("coin flip"), Figures("higher points so far")
    plain = Figures("rating without places")
    event_points: dict[tuple, int] = {}
    higher_won, higher_games = 0, 0
    for game in sorted(games, key=lambda g: g.key):
        if game.void:
            continue
        winner = game.winner
        event = event_of(game) if event_of else None
        if winner is not None:
            rating.add(win_probability(states, game.players), winner)
            plain.add(win_probability(plain_states, game.players), winner)
            coin.add(0.5, winner)
            side_a, side_b = _sides(game.players)
            pa = sum(event_points.get((event, p), 0) for p in side_a)
            pb = sum(event_points.get((event, p), 0) for p in side_b)
            if pa == pb:
                points.add(0.5, winner)
            else:
                rate = (higher_won + 1) / (higher_games + 2)
                points.add(rate if pa > pb else 1.0 - rate, winner)
                higher_games += 1
                higher_won += int((pa > pb) == (winner == 0))
        rate_game(states, game)
        rate_game(plain_states, game, places=False)
        for seat, p in enumerate(game.players):
            gained = game.points_a if seat % 2 == 0 else game.points_b
            event_points[(event, p)] = event_points.get((event, p), 0) + gained
    return [rating, coin, points, plain]
