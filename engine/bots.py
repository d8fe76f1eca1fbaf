"""Bots for 托管 (auto-play), simulations and tests.

* :class:`RandomBot` picks uniformly among :meth:`Game.legal_actions` (slow, thorough).
* :class:`HeuristicBot` plays the cheapest winning combo, keeps its 够级 combos for duels with its
  对头, attaches jokers only when it must, never yields and burns only to go out.
* :class:`CarefulBot` (托管's bot, :func:`hosted_act`) plays like a careful player: it plans its
  last combo before the 3s under 憋3, keeps 2s and jokers for 够级 fights, leaves its 联邦's
  combos alone, yields (让牌) to a teammate nearer going out and burns only when it can finish
  the burn. ``python -m engine duel`` measures it against the heuristic bot.

Both answer ``choose(game, seat)`` (the seat's act now) and ``burn(game, seat)`` (a burn or
``None``); :func:`play_out` drives a live :class:`Game` to its end with six bots, and
:func:`play_match` plays a table's match of bot games (demos, simulations, benchmarks, tests).
"""

from __future__ import annotations

import random

from .cards import (
    BIG_ATTACHED,
    BJ,
    CARD_RANK,
    RJ,
    SMALL_ATTACHED,
    TWO,
    beats,
    combo_of,
    deal,
    gouji_of,
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


def _split(game: Game, seat: int, cache: list | None = None):
    """A hand as (natural cards by rank, 2s, 小王s, 大王s); under 憋3 the 3s are set aside.
    ``cache`` (a two-item list kept by the caller) skips the work while the hand is unchanged:
    :meth:`Game.cards_by_rank` gives a new dict whenever the hand changes."""
    ranks = game.cards_by_rank(seat)
    if cache is not None and cache[0] is ranks:
        return cache[1]
    nat = dict(ranks)
    twos, bjs, rjs = nat.pop(TWO, _NONE), nat.pop(BJ, _NONE), nat.pop(RJ, _NONE)
    if 3 in nat and game.bie3:
        del nat[3]
    out = nat, twos, bjs, rjs
    if cache is not None:
        cache[0], cache[1] = ranks, out
    return out


_NONE: list[str] = []


class HeuristicBot:
    """Cheapest winning combo; 够级 combos saved for duels; jokers used sparingly."""

    name = "heuristic"

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng or random.Random()
        self._split_cache: list = [None, None]

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
        if owner % 2 == seat % 2 and game.count[seat] > 0 and game.n_active > 4:
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
        """All of ``seat``'s cards as one combo, if they make one that may be played now."""
        ranks = game.cards_by_rank(seat)
        if not ranks or len(ranks) > 4:
            return None  # one combo holds at most one base rank, 2s, 小王s and 大王s
        natural = 0
        for r in ranks:
            if r < TWO:
                natural += 1
        if natural > 1:
            return None  # two base ranks: not one combo
        cards = [c for cs in ranks.values() for c in cs]
        combo = combo_of(cards)
        if top is not None and not beats(combo, top, game.rj_beats_any):
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
        ranks, twos, bjs, rjs = _split(game, seat, self._split_cache)
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
        """The cheapest candidate that beats ``top`` (cost: 大王 1000, 小王 300, 2 40, then the
        rank); candidates are judged on their counts and only the chosen one is built."""
        if top.kind == BIG_ATTACHED:
            return None
        size = top.size
        t_rank = top.rank
        ranks, twos, bjs, rjs = _split(game, seat, self._split_cache)
        n_tw, n_bj, n_rj = len(twos), len(bjs), len(rjs)
        duel = top.gouji or game.count[seat] <= 8 or game.n_active <= 4 \
            or (seat + 3) % 6 == game.owner  # the 对头's combo
        rj_any = game.rj_beats_any
        small_top = top.kind == SMALL_ATTACHED
        need_rj = top.n_bj if small_top else 0
        keep_gouji = not duel and not top.gouji  # save 够级 combos for duels
        best, best_cost = None, None
        low_ok = rj_any and (need_rj or duel)  # a 大王-attached combo of a rank <= the top's
        for r, nat in ranks.items():
            if r <= t_rank and not low_ok:
                continue
            n_nat = len(nat)
            if not need_rj:  # plain: the fewest 2s that make the size
                n2 = size - n_nat if size > n_nat else 0
                if n2 <= n_tw and n2 < size and r > t_rank \
                        and not (keep_gouji and r >= 10 and gouji_of(r, size, 0)):
                    cost = n2 * 40 + r
                    if best_cost is None or cost < best_cost:
                        best, best_cost = (r, size - n2, n2, 0, 0), cost
                    if n2 == 0:
                        # no 2s, the lowest such rank: every later candidate costs more
                        # (a higher rank, a 2 at 40 or a joker at 300)
                        break
            if need_rj or duel:
                j = need_rj or 1
                if n_rj >= j:  # 大王 attached
                    n2 = size - j - n_nat if size - j > n_nat else 0
                    if n2 <= n_tw and size - j - n2 > 0 and (
                            r > t_rank or (rj_any and (not small_top or j >= top.n_bj))) \
                            and not keep_gouji:
                        cost = j * 1000 + n2 * 40 + r
                        if best_cost is None or cost < best_cost:
                            best, best_cost = (r, size - j - n2, n2, 0, j), cost
                if not need_rj and n_bj:  # 小王 attached
                    n2 = size - 1 - n_nat if size - 1 > n_nat else 0
                    if n2 <= n_tw and size - 1 - n2 > 0 and r > t_rank and not keep_gouji:
                        cost = 300 + n2 * 40 + r
                        if best_cost is None or cost < best_cost:
                            best, best_cost = (r, size - 1 - n2, n2, 1, 0), cost
        if n_tw >= size and t_rank < TWO and not need_rj and not keep_gouji:
            cost = size * 40 + TWO
            if best_cost is None or cost < best_cost:
                best, best_cost = (TWO, 0, size, 0, 0), cost
        if duel and n_bj >= size and t_rank < BJ and not need_rj:
            cost = size * 300 + BJ
            if best_cost is None or cost < best_cost:
                best, best_cost = (BJ, 0, 0, size, 0), cost
        if duel and n_rj >= size and t_rank < RJ and not small_top:
            cost = size * 1000 + RJ
            if best_cost is None or cost < best_cost:
                best, best_cost = (RJ, 0, 0, 0, size), cost
        if best is None:
            return None
        r, k, n2, b, j = best
        return (ranks[r][:k] if k else []) + twos[:n2] + bjs[:b] + rjs[:j]


class CarefulBot(HeuristicBot):
    """A careful player (托管's bot): the heuristic bot's economy, and besides

    * under 憋3 it plans its last combo before the 3s: it keeps a 大王 for it (a 大王-attached
      combo cannot be beaten, so it cannot be smothered, 闷), leads its weakest groups first and
      its strongest last with every 2 and joker attached, and never answers with a combo that
      would leave it only its 3s unless that combo cannot be beaten;
    * it burns (烧牌) only when it can finish the burn (a joker left for every combo but the
      last, whatever ``strict_burn`` says), and never its own 联邦;
    * it does not beat its own 联邦's combos (except to go out) and spends 2s and jokers only
      in 够级 duels, on its 对头, or near its end;
    * as the 对头 of a combo it could answer it yields (让牌) to a teammate that holds fewer
      cards (or is out, so its answer comes back restricted), never where a yield is a pass;
    * with 打点 it leads a strong 够级 group early (开点 chance) while it has groups to spare.
    """

    name = "careful"

    def choose(self, game: Game, seat: int) -> dict:
        if game.state == "pre":
            return self._pre(game, seat)
        if game.leading:
            return {"act": "play", "cards": self._careful_lead(game, seat)}
        top = game.top
        if game.owner % 2 == seat % 2:
            # never over its own 联邦 (a teammate down to its 3s would be smothered), but to go out
            whole = self._whole_hand(game, seat, game.hands[seat], top)
            return {"act": "play", "cards": whole} if whole else {"act": "pass"}
        cards = self._careful_answer(game, seat, top)
        if cards and self._yields(game, seat, cards):
            return {"act": "yield"}
        return {"act": "play", "cards": cards} if cards else {"act": "pass"}

    @staticmethod
    def _yields(game: Game, seat: int, cards) -> bool:
        """让牌 instead of answering with ``cards``: as the 对头 of an opponent's combo, let the
        next two seats act first when its teammate among them (two seats on) holds fewer cards,
        so is nearer going out and needs the lead more, or is out already (then the answer
        comes back to it, restricted: only the 对头 may beat it). Never when ``cards`` would
        take it out, and never under ``closer_last``, where a yield is only a pass. The
        teammate's count is what a seat counting cards (记牌) knows from what it sees, 36 cards,
        the public pre-play events and the plays, even where ``show_counts`` says only 10+."""
        if len(cards) == game.count[seat] or game.closer_last or not game.can_yield(seat):
            return False
        mate = (seat + 2) % 6
        return not game.active[mate] or game.count[mate] < game.count[seat]

    def burn(self, game: Game, seat: int) -> dict | None:
        got = super().burn(game, seat)
        if got is None:
            return None
        cards = got["cards"]
        if len(cards) != game.count[seat] and (
                not game.can_keep_burning(seat, cards)
                or self._leaves_only_threes(game, seat, cards)
                and not self._unbeatable(combo_of(cards))):
            return None
        return got

    # -- planning under 憋3
    @staticmethod
    def _threes(game: Game, seat: int) -> int:
        if not game.rules["bie3"]:
            return 0
        return len(game.cards_by_rank(seat).get(3, _NONE))

    def _leaves_only_threes(self, game: Game, seat: int, cards) -> bool:
        n3 = self._threes(game, seat)
        return n3 > 0 and game.count[seat] - len(cards) == n3

    @staticmethod
    def _unbeatable(combo) -> bool:
        """Nothing can beat it: 大王 attached, or pure 大王s."""
        return combo.kind == BIG_ATTACHED or combo.rank == RJ

    @classmethod
    def _strong_final(cls, combo) -> bool:
        """Strong enough to be the combo before the 3s: unbeatable, or 够级 (only the 对头 may
        answer it) and beaten only by jokers (2s, or 小王 attached)."""
        return cls._unbeatable(combo) or combo.gouji and (
            combo.kind == SMALL_ATTACHED or combo.rank >= TWO)

    def _careful_lead(self, game: Game, seat: int) -> list[str]:
        hand = game.hands[seat]
        whole = self._whole_hand(game, seat, hand, None)
        if whole:
            return whole
        if game.burner == seat:
            return self._lead(game, seat, hand)  # the heuristic's joker-carrying leads
        ranks, twos, bjs, rjs = _split(game, seat, self._split_cache)
        n3 = self._threes(game, seat)
        if not ranks:
            # only 2s and jokers besides the 3s: all of them, so the 3s follow
            return list(twos) + list(bjs) + list(rjs) if n3 else self._lead(game, seat, hand)
        groups = sorted(ranks)
        if len(groups) == 1:
            r = groups[0]
            if n3 and rjs:
                # the last group before the 3s with a 大王: unbeatable, it cannot be smothered
                return list(ranks[r]) + list(twos) + list(bjs) + list(rjs)
            # the 2s and jokers, kept together, make the stronger last combo
            return list(ranks[r])
        if game.rules["dadian"] and game.kaidian[seat] is None and game.n_active > 4 \
                and len(groups) >= 3:
            # 开点 chance: a strong 够级 group of naturals alone (no 大王: it would not count)
            for r in reversed(groups):
                if r >= 13 and gouji_of(r, len(ranks[r]), 0):
                    if r != groups[-1] or not n3:
                        return list(ranks[r])
                    break
        return list(ranks[groups[0]])

    def _careful_answer(self, game: Game, seat: int, top) -> list[str] | None:
        if top.kind == BIG_ATTACHED:
            return None
        count = game.count[seat]
        n3 = self._threes(game, seat)
        ranks = game.cards_by_rank(seat)
        jokers_held = len(ranks.get(RJ, _NONE)) + len(ranks.get(BJ, _NONE))
        duel = top.gouji or count <= 8 or game.n_active <= 4 or opp(seat) == game.owner
        keep_gouji = not duel and not top.gouji
        best, best_cost = None, None
        for cards in legal_plays(game, seat):
            n = len(cards)
            if n == count:
                return cards  # going out
            combo = combo_of(cards)
            if keep_gouji and combo.gouji:
                continue  # save 够级 combos for duels
            if not duel and (combo.n_two or combo.n_bj or combo.n_rj):
                continue  # 2s and jokers are for 够级 fights
            if n3:
                left = count - n
                if left == n3 and not self._strong_final(combo):
                    continue  # it would leave only the 3s: 闷 if it is beaten
                if combo.n_rj + combo.n_bj and combo.n_rj + combo.n_bj >= jokers_held \
                        and left > n3:
                    continue  # the last joker is kept for the combo before the 3s
            nat = combo.size - combo.n_two - combo.n_bj - combo.n_rj
            broken = nat and nat < len(ranks.get(combo.rank, _NONE)) and combo.rank < TWO
            cost = (combo.n_rj * 1000 + combo.n_bj * 300 + combo.n_two * 40 + combo.rank
                    + (25 if broken else 0))
            if best_cost is None or cost < best_cost:
                best, best_cost = cards, cost
        return best


#: the bot that plays 托管 seats in live play and the bot seats of practice games
HOSTED_BOT = "careful"


def hosted_act(game: Game, seat: int | None = None) -> tuple[int, dict] | None:
    """托管: the act the hosted bot (:data:`HOSTED_BOT`) makes for the seat whose turn it is
    (or for ``seat``, which must be that seat), as ``(seat, act)``; ``None`` when nobody is to
    act. Live play and practice games call this one function, so the bot they use is chosen
    here. It reads only what the seat may know, and decides in well under a millisecond."""
    turn = game.whose_turn()
    if turn is None or (seat is not None and seat != turn):
        return None
    return turn, make_bot(HOSTED_BOT, random.Random(game.version)).choose(game, turn)


def next_act(game: Game, bots) -> tuple[int, dict]:
    """The next act of a game driven by ``bots`` (one per seat): while a burn window is open,
    the possible burners in priority order are asked first; else the seat whose turn it is."""
    if game.burn_window and game.state == "play" and game.n_active > 4:
        p = game.owner
        for k in (1, 2, 4, 5):
            s = (p + k) % 6
            if game.active[s] and not game.passed[s]:
                b = bots[s].burn(game, s)
                if b is not None:
                    return s, b
    seat = game.turn if game.state == "play" else game.whose_turn()
    return seat, bots[seat].choose(game, seat)


def play_out(game: Game, bots, rng: random.Random | None = None, max_steps: int = 5000) -> Game:
    """Drive a live game to its end, one :func:`next_act` at a time."""
    rng = rng or random.Random()
    for _ in range(max_steps):
        if game.state == "over":
            return game
        seat, act = next_act(game, bots)
        game.act(seat, act)
    if game.state != "over":
        raise RuntimeError("game did not end")  # a bug, not a rule
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


#: the bots by name; ``careful`` plays 托管 (:func:`hosted_act`)
BOT_NAMES = ("random", "heuristic", "careful")


def make_bot(name: str, rng: random.Random | None = None):
    if name == "random":
        return RandomBot(rng)
    if name == "heuristic":
        return HeuristicBot(rng)
    if name == "careful":
        return CarefulBot(rng)
    raise ValueError(f"unknown bot {name!r}: use {', '.join(BOT_NAMES)}")
