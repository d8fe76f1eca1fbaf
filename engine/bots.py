"""Bots for 托管 (auto-play), simulations and tests.

* :class:`RandomBot` picks uniformly among :meth:`Game.legal_actions` (slow, thorough).
* :class:`HeuristicBot` plays the cheapest winning combo, keeps its 够级 combos for duels with its
  对头, attaches jokers only when it must, never yields and burns only to go out.

Both answer ``choose(game, seat)`` (the seat's act now) and ``burn(game, seat)`` (a burn or
``None``); :func:`play_out` drives a live :class:`Game` to its end with six bots, and
:func:`play_match` plays a table's match of bot games (demos, simulations, benchmarks, tests).
"""

from __future__ import annotations

import random

from .cards import (
    BIG_ATTACHED,
    BJ,
    CARD_ORDER,
    CARD_RANK,
    RJ,
    SMALL_ATTACHED,
    TWO,
    beats,
    combo_of,
    deal,
)
from .errors import IllegalAction
from .game import Game, legal_plays, opp


class RandomBot:
    """Uniform over the legal acts, burning now and then."""

    name = "random"

    def __init__(self, rng: random.Random | None = None, burn_rate: float = 0.2):
        self.rng = rng or random.Random()
        self.burn_rate = burn_rate

    def choose(self, game: Game, seat: int) -> dict:
        acts = [a for a in game.legal_actions(seat) if a["act"] != "burn"]
        return self.rng.choice(acts)

    def burn(self, game: Game, seat: int) -> dict | None:
        if self.rng.random() >= self.burn_rate:
            return None
        burns = [a for a in game.legal_actions(seat) if a["act"] == "burn"]
        return self.rng.choice(burns) if burns else None


def _by_rank(hand: dict[str, int]):
    ranks: dict[int, list[str]] = {}
    for c in sorted(hand, key=CARD_ORDER.__getitem__):
        ranks.setdefault(CARD_RANK[c], []).extend([c] * hand[c])
    return ranks


def _split(hand: dict[str, int], bie3: bool):
    """A hand as (natural cards by rank, 2s, 小王s, 大王s); under 憋3 the 3s are set aside."""
    ranks = _by_rank(hand)
    twos, bjs, rjs = ranks.pop(TWO, []), ranks.pop(BJ, []), ranks.pop(RJ, [])
    if bie3:
        ranks.pop(3, None)
    return ranks, twos, bjs, rjs


class HeuristicBot:
    """Cheapest winning combo; 够级 combos saved for duels; jokers used sparingly."""

    name = "heuristic"

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng or random.Random()

    # -- pre-play
    def _pre(self, game: Game, seat: int) -> dict:
        opts = game.legal_actions(seat)
        kinds = {o["act"] for o in opts}
        if "revolt" in kinds:
            return {"act": "revolt"}
        if "return" in kinds:
            return min(opts, key=lambda o: sum(CARD_RANK[c] for c in o["cards"]))
        if "buy3" in kinds:
            return opts[0]
        if "decline" in kinds:
            return {"act": "decline"}
        return opts[0]

    def choose(self, game: Game, seat: int) -> dict:
        if game.state == "pre":
            return self._pre(game, seat)
        hand = game.hands[seat]
        if game.leading:
            return {"act": "play", "cards": self._lead(game, seat, hand)}
        top = game.top
        owner = game.owner
        if owner % 2 == seat % 2 and game.count[seat] > 0 and not game.phase2():
            whole = self._whole_hand(game, seat, hand, top)
            return {"act": "play", "cards": whole} if whole else {"act": "pass"}
        cards = self._answer(game, seat, hand, top)
        return {"act": "play", "cards": cards} if cards else {"act": "pass"}

    def burn(self, game: Game, seat: int) -> dict | None:
        """Burn (烧牌) an opponent's 够级 combo late in the game, when every combo left after
        the burn can carry a joker (never risking 诈烧); go out with a burn whenever possible."""
        hand = game.hands[seat]
        whole = self._whole_hand(game, seat, hand, game.top)
        if whole:
            return {"act": "burn", "cards": whole}
        if game.owner % 2 == seat % 2 or game.count[seat] > 10:
            return None
        best, best_cost = None, None
        for cards in legal_plays(game, seat, burn=True):
            if not game.can_keep_burning(seat, cards):
                continue
            combo = combo_of(cards)
            cost = combo.n_rj * 1000 + combo.n_bj * 300 + combo.n_two * 40 + combo.rank
            if best_cost is None or cost < best_cost:
                best, best_cost = cards, cost
        return {"act": "burn", "cards": best} if best else None

    # -- helpers
    def _whole_hand(self, game, seat, hand, top):
        if not hand or len({CARD_RANK[c] for c in hand if CARD_RANK[c] < TWO}) > 1:
            return None  # two base ranks: not one combo
        cards = [c for c, n in hand.items() for _ in range(n)]
        combo = combo_of(cards)
        if top is not None and not beats(combo, top, game.rules["rj_beats_any"]):
            return None
        try:
            game.check_three_rule(seat, combo)
        except IllegalAction:
            return None
        return cards

    def _lead(self, game, seat, hand):
        whole = self._whole_hand(game, seat, hand, None)
        if whole:
            return whole
        ranks, twos, bjs, rjs = _split(hand, game.rules["bie3"])
        burning = game.burner == seat
        if ranks:
            r = min(ranks)
            cards = list(ranks[r])
            if burning and (bjs or rjs):
                # a burner's lead carries a joker; its 2s go along so none is left loose
                cards += twos + [bjs[0] if bjs else rjs[0]]
            return cards
        # only 2s and jokers (and maybe 3s under 憋3)
        if twos:
            cards = list(twos)
            if burning and (bjs or rjs):
                cards.append(bjs[0] if bjs else rjs[0])
            return cards
        if bjs and rjs:
            return bjs + rjs
        return list(bjs or rjs)

    def _answer(self, game, seat, hand, top):
        if top.kind == BIG_ATTACHED:
            return None
        size = top.size
        ranks, twos, bjs, rjs = _split(hand, game.rules["bie3"])
        total = game.count[seat]
        low = total <= 8
        duel = top.gouji or low or game.phase2() or opp(seat) == game.owner
        rj_any = game.rules["rj_beats_any"]
        need_rj = top.n_bj if top.kind == SMALL_ATTACHED else 0
        cands = []
        for r in sorted(ranks):
            if r <= top.rank and not rj_any:
                continue
            nat = ranks[r]
            for n2 in range(0, min(len(twos), size) + 1):
                k = size - n2
                if k <= 0 or k > len(nat):
                    continue
                if need_rj:
                    continue
                cands.append(nat[:k] + twos[:n2])
                break
            if need_rj or duel:
                j = max(need_rj, 1) if need_rj else 1
                if len(rjs) >= j:
                    for n2 in range(0, len(twos) + 1):
                        k = size - j - n2
                        if 0 < k <= len(nat):
                            cands.append(nat[:k] + twos[:n2] + rjs[:j])
                            break
                if not need_rj and bjs:
                    for n2 in range(0, len(twos) + 1):
                        k = size - 1 - n2
                        if 0 < k <= len(nat):
                            cands.append(nat[:k] + twos[:n2] + bjs[:1])
                            break
        if len(twos) >= size and (top.rank < TWO) and not need_rj:
            cands.append(twos[:size])
        if duel and len(bjs) >= size and top.rank < BJ and not need_rj:
            cands.append(bjs[:size])
        if duel and len(rjs) >= size:
            cands.append(rjs[:size])
        best, best_cost = None, None
        for cards in cands:
            combo = combo_of(cards)
            if not beats(combo, top, rj_any):
                continue
            if combo.gouji and not duel and not top.gouji:
                continue  # save 够级 combos for duels
            cost = (combo.n_rj * 1000 + combo.n_bj * 300 + combo.n_two * 40 + combo.rank)
            if best_cost is None or cost < best_cost:
                best, best_cost = cards, cost
        return best


def next_act(game: Game, bots) -> tuple[int, dict]:
    """The next act of a game driven by ``bots`` (one per seat): while a burn window is open,
    the possible burners in priority order are asked first; else the seat whose turn it is."""
    if game.state == "play" and game.burn_window and not game.phase2():
        p = game.owner
        for k in (1, 2, 4, 5):
            s = (p + k) % 6
            if game.active[s] and not game.passed[s]:
                b = bots[s].burn(game, s)
                if b is not None:
                    return s, b
    seat = game.to_act()["seat"]
    return seat, bots[seat].choose(game, seat)


def play_out(game: Game, bots, rng: random.Random | None = None, max_steps: int = 5000) -> Game:
    """Drive a live game to its end, one :func:`next_act` at a time."""
    rng = rng or random.Random()
    steps = 0
    while game.state != "over":
        steps += 1
        if steps > max_steps:
            raise RuntimeError("game did not end")  # a bug, not a rule
        game.act(*next_act(game, bots))
    return game


def play_match(rules, games: int, rng: random.Random, *, bot: str = "heuristic",
               opening_seat: int = 0) -> list[Game]:
    """Bot-play ``games`` consecutive games at one table, a match (tributes and leaders carry
    over); the deals and the bots' choices come from ``rng``."""
    out: list[Game] = []
    previous = None
    bots = [make_bot(bot, random.Random(rng.random())) for _ in range(6)]
    for k in range(games):
        game = Game(rules, deal(rng), previous, opening_seat, first_game=(k == 0))
        play_out(game, bots, rng)
        out.append(game)
        previous = game.result()
    return out


def bot_game(rules="dagang", seed: int = 0, bot: str = "heuristic", previous=None,
             opening_seat: int = 0, leader: int | None = None) -> Game:
    """Deal from ``random.Random(seed)`` and play one game with six bots of one kind."""
    rng = random.Random(seed)
    hands = deal(rng)
    bots = [make_bot(bot, random.Random(rng.random())) for _ in range(6)]
    game = Game(rules, hands, previous, opening_seat, leader,
                first_game=previous is None)
    return play_out(game, bots, rng)


def make_bot(name: str, rng: random.Random | None = None):
    if name == "random":
        return RandomBot(rng)
    if name == "heuristic":
        return HeuristicBot(rng)
    raise ValueError(f"unknown bot {name!r}: use random or heuristic")
