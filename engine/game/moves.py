"""Move generation: the legal plays of a seat (:func:`legal_plays`), its legal acts, and whose
turn it is (RULES.md §6–§8, §10).

Bots, 托管 and tests ask here; the checks of an act itself are in :mod:`engine.game.play` and
:mod:`engine.game.burns`, and a play generated here passes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..cards import BIG_ATTACHED, BJ, PLAIN, RJ, SMALL_ATTACHED, TWO
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
    """Generate legal combos for ``seat`` (leads when ``top`` is None) from its cards by rank:
    each candidate is judged on its counts (naturals, 2s, 小王s, 大王s) and only the accepted
    ones are built as card lists, in a fixed order (ranks ascending, then fewer attachments)."""
    ranks = game.cards_by_rank(seat)
    if not ranks:
        return
    if top is not None and top.kind == BIG_ATTACHED:
        return  # nothing beats a 大王-attached combo
    twos = ranks.get(TWO, _NONE)
    bjs = ranks.get(BJ, _NONE)
    rjs = ranks.get(RJ, _NONE)
    n_tw, n_bj, n_rj = len(twos), len(bjs), len(rjs)
    total = game.count[seat]
    strict = game.rules["strict_burn"]
    rj_any = game.rules["rj_beats_any"]
    bie3 = game.rules["bie3"]
    burning_lead = top is None and game.burner == seat and strict
    keep_check = burning_lead or (burn and strict)
    if top is not None:
        size = top.size
        t_rank, t_kind, t_bj = top.rank, top.kind, top.n_bj
    else:
        size = None
    naturals = [r for r in ranks if r < TWO]
    if top is None and not keep_check:
        yield from _free_leads(ranks, naturals, twos, bjs, rjs, bie3, total)
        return
    n_nat = len(naturals)
    n_three = len(ranks.get(3, _NONE)) if bie3 else 0

    def ok(rank, k_nat, base_rank, t, b, j):
        """Is a combo of ``rank`` with ``k_nat`` natural cards of ``base_rank`` (0: none), ``t``
        2s, ``b`` 小王s and ``j`` 大王s acceptable?"""
        if top is not None:
            # the beating rule (cards.beats) on counts; the size is equal by construction
            if j and (k_nat or t or b):
                kind = BIG_ATTACHED
            elif b and (k_nat or t or j):
                kind = SMALL_ATTACHED
            else:
                kind = PLAIN
            if rj_any and kind == BIG_ATTACHED:
                if t_kind != PLAIN and j < t_bj:
                    return False
            elif rank <= t_rank:
                return False
            elif t_kind == SMALL_ATTACHED and (kind != BIG_ATTACHED or j < t_bj):
                return False
        if keep_check:
            n = k_nat + t + b + j
            if burning_lead and n != total and not (b or j):
                return False
            if burning_lead and n == total:
                return True
            # 烧牌 conditions on what is left (Burns.burn_feasible on counts)
            jokers = n_bj - b + n_rj - j
            groups = n_nat - (1 if k_nat and k_nat == len(ranks[base_rank]) else 0)
            if groups == 0 and jokers == 0 and n_tw == t:
                return True  # nothing left
            threes_left = n_three and not (base_rank == 3 and k_nat == n_three)
            if threes_left:
                groups -= 1
                if groups == 0 and n_tw > t:
                    groups = 1
                return jokers >= groups
            if groups == 0:
                return True
            return jokers >= groups - 1
        return True

    def extend(base, base_rank, rank, n_twos):
        nb = len(base)
        for k in range(1, nb + 1):
            if size is not None and k > size:
                break
            for t in range(n_twos + 1):
                if size is not None and k + t > size:
                    break
                for b in range(n_bj + 1):
                    if size is not None and k + t + b > size:
                        break
                    for j in range(n_rj + 1):
                        if size is not None and k + t + b + j != size:
                            continue
                        if base_rank:
                            good = ok(rank, k, base_rank, t, b, j)
                        else:
                            good = ok(rank, 0, 0, k, b, j)
                        if good:
                            yield base[:k] + twos[:t] + bjs[:b] + rjs[:j]

    for rank in naturals:
        cards = ranks[rank]
        if bie3 and rank == 3:
            if top is None and len(cards) == total:
                yield list(cards)
            continue
        if top is not None and rank <= t_rank and not rj_any:
            continue
        yield from extend(cards, rank, rank, n_tw)
    if n_tw:
        yield from extend(twos, 0, TWO, 0)
    for b in range(n_bj + 1):
        for j in range(n_rj + 1):
            if b + j == 0 or (size is not None and b + j != size):
                continue
            rank = BJ if b else RJ
            if ok(rank, 0, 0, 0, b, j):
                yield bjs[:b] + rjs[:j]


def _free_leads(ranks, naturals, twos, bjs, rjs, bie3, total):
    """:func:`_plays` for a lead that no 烧牌 condition binds (every combo the hand holds may
    lead): the same combos in the same order, each one head (some cards of a rank, or 2s)
    joined to one of the attachments made once for the hand — a full hand leads hundreds of
    combos, and building each from four slices was most of a first lead's view."""
    n_bj, n_rj = len(bjs), len(rjs)
    jokers = [bjs[:b] + rjs[:j] for b in range(n_bj + 1) for j in range(n_rj + 1)]
    attached = [twos[:t] + tail for t in range(len(twos) + 1) for tail in jokers]
    for rank in naturals:
        cards = ranks[rank]
        if bie3 and rank == 3:
            if len(cards) == total:
                yield list(cards)
            continue
        for k in range(1, len(cards) + 1):
            head = cards[:k]
            yield from [head + tail for tail in attached]
    for k in range(1, len(twos) + 1):
        head = twos[:k]
        yield from [head + tail for tail in jokers]
    yield from jokers[1:]  # (the jokers alone: every attachment but the empty one)


_NONE: list[str] = []


class Moves:
    """Whose turn it is and what a seat may do now."""

    def whose_turn(self) -> int | None:
        """The seat to act now, or ``None`` (game over, or a record's pre-play not settled): the
        cheap part of :meth:`to_act`. While a burn window is open, other seats may burn first
        (:meth:`burners`)."""
        if self.state == "play":
            return self.turn
        if self.state == "pre" and self.live:
            prompt = self.pre_prompt()
            return None if prompt is None else prompt[0]
        return None

    def can_yield(self, seat: int) -> bool:
        """May ``seat`` yield (让牌) now: its turn, as the 对头 of a top that is not 够级, in
        phase 1, not yielded on before (RULES.md §5)?"""
        return self.state == "play" and seat == self.turn and not self.leading \
            and self._yield_refusal(seat) is None

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
        if not self.leading and self._yield_refusal(self.turn) is None:
            acts.append("yield")
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
            return [dict(o) for o in prompt[1]]  # copies: the prompt is kept
        out = []
        if seat == self.turn:
            out.extend({"act": "play", "cards": c} for c in legal_plays(self, seat))
            if not self.leading:
                out.append({"act": "pass"})
                if self._yield_refusal(seat) is None:
                    out.append({"act": "yield"})
        if self.burn_window and not self.phase2() and self.top is not None:
            p = self.owner
            if seat not in (p, opp(p)) and self.active[seat] and not self.passed[seat]:
                out.extend({"act": "burn", "cards": c}
                           for c in legal_plays(self, seat, burn=True))
        return out

