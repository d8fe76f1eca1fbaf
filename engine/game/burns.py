"""Burns (烧牌, RULES.md §10): who may burn a 够级 combo and when, the burner's duty to lead
with a joker (strict burning), 诈烧 (a failed burn), 解烧 and 反烧.
"""

from __future__ import annotations

from collections import Counter

from ..cards import CARD_RANK, TWO, beat_hint, beats, cards_words
from ..errors import IllegalAction
from .moves import legal_plays
from .state import opp


class Burns:
    """Burning: the checks of a burn, its effects, and the burner's later leads."""

    def _failed_burn(self, seat, cards):
        """诈烧: a burning seat led a combo without a joker while holding other cards."""
        victim = self.burn_victim
        if self.burn_index is not None:
            self.burns[self.burn_index]["failed"] = True
        self.burner = None
        self._eliminate(seat, "failed_burn")
        if self.state == "over":
            return
        nxt = victim if victim is not None and self.active[victim] else self._next_active(seat)
        self.start_round(nxt)

    def _check_burn(self, seat, combo, cards):
        top = self.top
        if self.phase2() or top is None or not self.burn_window:
            raise IllegalAction("illegal_burn", f"seat {seat} may burn (烧牌) only a 够级 combo, at "
                                f"once, before anyone else acts on it, and not once four play "
                                f"四户乱缠", seat=seat)
        p = self.owner
        if seat == p or seat == opp(p):
            raise IllegalAction("illegal_burn", f"seat {seat} cannot burn seat {p}'s combo: "
                                + ("it is its own" if seat == p else
                                   "the 对头 answers it in turn, it does not burn"), seat=seat)
        if not self.active[seat]:
            raise IllegalAction("illegal_burn", f"seat {seat} is no longer playing", seat=seat)
        if self.passed[seat]:
            raise IllegalAction("illegal_burn", f"seat {seat} passed in this round and may not "
                                f"burn (过牌不烧)", seat=seat)
        self.check_three_rule(seat, combo)
        if not beats(combo, top, self.rj_beats_any):
            raise IllegalAction("illegal_burn", f"seat {seat}'s {cards_words(cards)} does not beat "
                                f"seat {p}'s {cards_words(top.cards)}, so it cannot burn it"
                                + beat_hint(combo, top), seat=seat)
        if self.rules["strict_burn"]:
            if not self.can_keep_burning(seat, cards):
                raise IllegalAction("illegal_burn", f"seat {seat} cannot burn: after "
                                    f"{cards_words(cards)} it would not hold a joker for every "
                                    f"combo it must still lead (烧牌 conditions)", seat=seat)

    def can_keep_burning(self, seat: int, cards) -> bool:
        """After playing ``cards``, could ``seat`` still lead every combo but its last with a
        joker (烧牌 条件)?"""
        rest = Counter(self.hands[seat])
        rest.subtract(cards)
        return self.burn_feasible(+rest)

    def burn_feasible(self, rest: Counter) -> bool:
        """Could a burner holding ``rest`` lead every combo with a joker but the last (烧牌 条件)?"""
        if not rest:
            return True
        jokers = rest.get("BJ", 0) + rest.get("RJ", 0)
        ranks = {CARD_RANK[c] for c in rest if CARD_RANK[c] < TWO}
        has_two = any(CARD_RANK[c] == TWO for c in rest)
        if self.bie3 and 3 in ranks:
            groups = len(ranks) - 1
            if groups == 0 and has_two:
                groups = 1
            return jokers >= groups
        groups = len(ranks)
        if groups == 0:
            return True  # 2s and jokers make one combo
        return jokers >= groups - 1

    def _do_burn(self, seat, combo, cards):
        p = self.owner
        counter = self.burner == p and self.top_burning
        self.burns.append({"burner": seat, "burned": p, "counter": counter})
        self.burn_index = len(self.burns) - 1
        self.burner = seat
        self.burn_victim = p
        self.pending_end = False
        self._set_top(seat, combo, restricted=False)
        self.top_burning = True
        self._after_beat(seat, p)
        self._after_play(seat)

    def burners(self) -> list[int]:
        """Seats that may burn (烧牌) the top now, in priority order (大纲 第十条): the owner's
        own team first, then the others, each in turn order from the owner."""
        if not self.burn_window or self.top is None or self.phase2():
            return []
        p = self.owner
        order = [(p + k) % 6 for k in range(1, 6)]
        order.sort(key=lambda s: (s % 2 != p % 2, (s - p) % 6))
        out = []
        for s in order:
            if s == opp(p) or not self.active[s] or self.passed[s]:
                continue
            if any(True for _ in legal_plays(self, s, burn=True)):
                out.append(s)
        return out

