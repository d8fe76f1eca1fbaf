"""Live pre-play: the game asks one seat at a time for its pre-play choice (RULES.md §4.2),
pays the tributes it can decide by itself, and turns each answer into a pre-play event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import CARD_RANK, TWO, CardError, canon_card, sort_cards
from ..errors import IllegalAction
from .state import (
    ST_BUY3,
    ST_HUI3,
    ST_MINGDIAN,
    ST_PLAY,
    ST_REVOLT,
    ST_TRIBUTE,
    ST_WAIVE,
    ST_YUDIAN,
    TRIBUTE_KINDS,
    opp,
)

if TYPE_CHECKING:
    from . import Game

#: the acts a live pre-play stage asks for, as everyone may see them (a seat's own options,
#: e.g. whether it may revolt, show only in its own legal acts)
STAGE_ACTS = {ST_YUDIAN: ("declare", "decline"), ST_REVOLT: ("decline", "revolt"),
              ST_WAIVE: ("decline", "waive_gousiji"), ST_TRIBUTE: ("return",),
              ST_BUY3: ("buy3",), ST_MINGDIAN: ("declare", "decline"),
              ST_HUI3: ("decline", "hui3")}


class Prompts:
    """Asking the seats for their pre-play choices in live play (a record needs none)."""

    def _prompt_key(self):
        return (self.version, self.state, self.stage, len(self.pre_decided),
                len(self.pre_events))

    def pre_prompt(self):
        """``(seat, [acts])`` for the next live pre-play decision, paying automatic tributes and
        closing finished stages on the way; ``None`` once play can begin. Asking again before
        anything changed gives the same answer (kept, as whose turn it is, the seat's options
        and the act itself all ask)."""
        memo = self._prompt_memo
        if memo is not None and memo[0] == self._prompt_key():
            return memo[1]
        got = self._next_prompt()
        self._prompt_memo = (self._prompt_key(), got)
        return got

    def _next_prompt(self):
        while self.state == "pre":
            got = self._prompt_at_stage()
            if got is not None:
                return got
            if self.stage == ST_HUI3 or self.stage >= ST_PLAY:
                return None
            self._advance_stage(self.stage + 1)
            if self.stage == ST_TRIBUTE and not self.auto_tributes_paid:
                self._pay_auto_tributes()
        return None

    def _seats_from_opening(self):
        return [(self.opening_seat + k) % 6 for k in range(6)]

    def _prompt_at_stage(self):
        st = self.stage
        if st == ST_YUDIAN and self._dadian:
            for s in self._seats_from_opening():
                if (st, s) not in self.pre_decided:
                    return s, [{"act": "declare", "kind": "yudian"}, {"act": "decline"}]
        elif st == ST_REVOLT and self.rules["revolution"]:
            for s in self._seats_from_opening():
                # every seat is asked, so the question gives nobody's cards away
                if (st, s) not in self.pre_decided and self.active[s]:
                    return s, ([{"act": "revolt"}] if self.can_revolt(s) else []) + [
                        {"act": "decline"}]
        elif st == ST_WAIVE:
            for rv in self.revolutionaries:
                o = opp(rv)
                if (st, o) not in self.pre_decided and self.active[o]:
                    return o, [{"act": "waive_gousiji"}, {"act": "decline"}]
        elif st == ST_TRIBUTE:
            if not self.auto_tributes_paid:
                self._pay_auto_tributes()
            for frm, to, n, returned in self.luo_given:
                if not returned:
                    return to, self._return_options(to, frm, n)
        elif st == ST_BUY3:
            for s in self._seats_from_opening():
                if self._needs_buy(s):
                    pays = self._buy_pay_options(s)
                    if CARD_RANK[pays[0]] != TWO:
                        pays = pays[:1]  # with no 2, a joker: 小王 before 大王
                    return s, [{"act": "buy3", "give": g} for g in pays]
        elif st == ST_MINGDIAN and self._dadian:
            for s in self._seats_from_opening():
                if (st, s) not in self.pre_decided and self.active[s] and not self.declared[s] \
                        and not (s in self.revolutionaries or opp(s) in self.revolutionaries):
                    return s, [{"act": "declare", "kind": "mingdian"}, {"act": "decline"}]
        elif st == ST_HUI3 and self.rules["hui3"] and not self.hui3_done:
            lead = self.expected_leader()
            if lead is None:
                lead = self._default_leader()
            if (st, lead) not in self.pre_decided:
                return lead, [{"act": "hui3"}, {"act": "decline"}]
        return None

    def _return_options(self, seat, giver, n):
        """还贡 choices: ``n`` cards whose ranks the giver still holds (one representative per
        rank, up to what ``seat`` holds)."""
        ranks = {CARD_RANK[c] for c in self.hands[giver]}
        pool = [c for c in sort_cards(self.hands[seat]) for _ in range(self.hands[seat][c])
                if CARD_RANK[c] in ranks]
        if n == 1:
            return [{"act": "return", "cards": [c]} for c in dict.fromkeys(pool)]
        opts, seen = [], set()
        for i in range(len(pool)):
            for j in range(i + 1, len(pool)):
                key = (pool[i], pool[j])
                if key not in seen:
                    seen.add(key)
                    opts.append({"act": "return", "cards": [pool[i], pool[j]]})
        return opts

    def _pay_auto_tributes(self):
        """Live play: pay every owed tribute with the cards the rules force (biggest first)."""
        self.auto_tributes_paid = True
        if self.previous is None:
            return
        for kind in TRIBUTE_KINDS:
            for t in self._owed_live():
                if t["kind"] != kind:
                    continue
                left = self._owed_key_remaining(kind, t["from"], t["to"])
                cards = self.tribute_cards(t["from"], left)
                if left > 0:
                    ev = {"type": "tribute", "kind": kind, "from": t["from"], "to": t["to"],
                          "cards": cards}
                    self._pre_tribute(ev)
                    self.pre_events.append(ev)

    def _live_pre_act(self, seat, action):
        prompt = self.pre_prompt()
        if prompt is None:
            raise IllegalAction("bad_pre", "play has not begun", seat=seat)
        want, options = prompt
        if seat != want:
            raise IllegalAction("not_your_turn", f"seat {want} decides now, not seat {seat}",
                                seat=seat)
        kind = action.get("act")
        st = self.stage
        if kind == "decline" and {"act": "decline"} in options:
            self.pre_decided.add((st, seat))
        elif kind == "declare" and any(o.get("act") == "declare" for o in options):
            self.pre_decided.add((st, seat))
            self.apply_pre_event({"type": "declare", "seat": seat, "kind": options[0]["kind"]})
        elif kind == "revolt" and {"act": "revolt"} in options:
            self.pre_decided.add((st, seat))
            self.apply_pre_event({"type": "revolution", "seat": seat})
        elif kind == "waive_gousiji" and {"act": "waive_gousiji"} in options:
            self.pre_decided.add((st, seat))
            self.apply_pre_event({"type": "waive_gousiji", "seat": seat})
        elif kind == "return" and any(o["act"] == "return" for o in options):
            giver = next(f for f, t, n, r in self.luo_given if t == seat and not r)
            try:
                cards = [canon_card(c) for c in action.get("cards") or []]
            except CardError as exc:
                raise IllegalAction("bad_card", str(exc), seat=seat) from None
            self.apply_pre_event({"type": "return", "from": seat, "to": giver, "cards": cards})
        elif kind == "buy3" and any(o["act"] == "buy3" for o in options):
            # the seat chooses what it pays; which 3 it gets is the seller's, taken in suit
            # order, so the buyer learns nothing of the seller's other cards
            seller = self._buy_seller(seat)
            take = next(c for c in ("3S", "3H", "3D", "3C") if self.hands[seller].get(c))
            self.apply_pre_event({"type": "buy3", "seat": seat, "from": seller,
                                  "give": action.get("give"), "take": take})
        elif kind == "hui3" and {"act": "hui3"} in options:
            self.pre_decided.add((st, seat))
            self.apply_pre_event({"type": "hui3"})
        else:
            raise IllegalAction("bad_pre", f"seat {seat} cannot {kind!r} now; it may: "
                                + ", ".join(sorted({o['act'] for o in options})), seat=seat)
        self.version += 1
        if self.state == "pre" and self.pre_prompt() is None:
            self.begin_play(None)

    def start(self) -> Game:
        """Live play: run pre-play until a seat must decide (or play begins)."""
        if self.state == "pre" and self.pre_prompt() is None:
            self.begin_play(None)
        return self
