"""Move generation: the legal plays of a seat (:func:`legal_plays`), its legal acts, and whose
turn it is (RULES.md §6–§8, §10).

Bots, 托管 and tests ask here; the checks of an act itself are in :mod:`engine.game.play` and
:mod:`engine.game.burns`, and a play generated here passes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..cards import BJ, CARD_ORDER, CARD_RANK, RJ, TWO, beats, combo_of
from ..errors import IllegalAction
from .prompts import STAGE_ACTS
from .state import opp

if TYPE_CHECKING:
    from . import Game


def legal_plays(game: Game, seat: int, *, burn: bool = False) -> Iterator[list[str]]:
    """The combos (as card lists) ``seat`` may play now, one choice of suits per distinct combo:
    a lead when the round is its to lead, else an answer to the top; with ``burn``, the burns
    (烧牌) of the top. Whose turn it is is not checked: see :meth:`Moves.legal_actions`."""
    top = game.top if burn or not game.leading else None
    return _plays(game, seat, top, burn)


def _plays(game, seat, top, burn):
    """Generate legal combos for ``seat``: leads when ``top`` is None."""
    hand = game.hands[seat]
    if not hand:
        return
    by_rank: dict[int, list[str]] = {}
    for c in sorted(hand, key=CARD_ORDER.__getitem__):
        by_rank.setdefault(CARD_RANK[c], []).extend([c] * hand[c])
    twos = by_rank.pop(TWO, [])
    bjs = by_rank.pop(BJ, [])
    rjs = by_rank.pop(RJ, [])
    total = game.count[seat]
    rules = game.rules
    strict = rules["strict_burn"]
    rj_any = rules["rj_beats_any"]
    burning_lead = top is None and game.burner == seat and strict
    size = top.size if top is not None else None

    def acceptable(cards):
        combo = combo_of(cards)
        if top is not None and not beats(combo, top, rj_any):
            return False
        if burning_lead and len(cards) != total and (
                not combo.has_joker or not game.can_keep_burning(seat, cards)):
            return False
        if burn and strict and not game.can_keep_burning(seat, cards):
            return False
        return True

    def extend(base, twos):
        nb = len(base)
        for k in range(1, nb + 1):
            if size is not None and k > size:
                break
            for t in range(len(twos) + 1):
                if size is not None and k + t > size:
                    break
                for b in range(len(bjs) + 1):
                    if size is not None and k + t + b > size:
                        break
                    for j in range(len(rjs) + 1):
                        n = k + t + b + j
                        if size is not None and n != size:
                            continue
                        cards = base[:k] + twos[:t] + bjs[:b] + rjs[:j]
                        if acceptable(cards):
                            yield cards

    bie3 = rules["bie3"]
    rank_floor = top.rank if top is not None else 0
    for rank, cards in by_rank.items():
        if bie3 and rank == 3:
            if top is None and len(cards) == total:
                yield list(cards)
            continue
        if top is not None and rank <= rank_floor and not rj_any:
            continue
        yield from extend(cards, twos)
    if twos:
        yield from extend(twos, [])
    for b in range(len(bjs) + 1):
        for j in range(len(rjs) + 1):
            if b + j == 0 or (size is not None and b + j != size):
                continue
            cards = bjs[:b] + rjs[:j]
            if acceptable(cards):
                yield cards


class Moves:
    """Whose turn it is and what a seat may do now."""

    def to_act(self) -> dict | None:
        """Who acts next and which kinds of act (``None`` once the game is over); while a burn
        window is open, ``burners`` lists the seats that may burn, in priority order."""
        if self.state == "over":
            return None
        if self.state == "pre":
            prompt = self.pre_prompt() if self.live else None
            if prompt is None:
                return None
            seat, _options = prompt
            return {"seat": seat, "acts": list(STAGE_ACTS[self.stage])}
        acts = ["play"] if self.leading else ["play", "pass"]
        if not self.leading:
            try:
                self._check_yield(self.turn)
                acts.append("yield")
            except IllegalAction:
                pass
        out = {"seat": self.turn, "acts": acts}
        burners = self.burners()
        if burners:
            out["burners"] = burners
        return out

    def legal_actions(self, seat: int) -> list[dict]:
        """Every act ``seat`` may make now (plays with one representative choice of suits per
        distinct combo)."""
        if self.state == "over":
            return []
        if self.state == "pre":
            prompt = self.pre_prompt()
            if prompt is None or prompt[0] != seat:
                return []
            return prompt[1]
        out = []
        if seat == self.turn:
            out.extend({"act": "play", "cards": c} for c in legal_plays(self, seat))
            if not self.leading:
                out.append({"act": "pass"})
                try:
                    self._check_yield(seat)
                    out.append({"act": "yield"})
                except IllegalAction:
                    pass
        if self.burn_window and not self.phase2() and self.top is not None:
            p = self.owner
            if seat not in (p, opp(p)) and self.active[seat] and not self.passed[seat]:
                out.extend({"act": "burn", "cards": c}
                           for c in legal_plays(self, seat, burn=True))
        return out

