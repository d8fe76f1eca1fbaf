"""Play (RULES.md §6–§8, §10): acts, turns and answering (管牌), 让牌 and the closer, 无头 and
四户乱缠, finishing and elimination, the end of a round and of the game.

Burns (烧牌) are in :mod:`engine.game.burns`, the legal plays in :mod:`engine.game.moves`.
"""

from __future__ import annotations

from ..cards import (
    CARD_RANK,
    COMBOS,
    CardError,
    ComboError,
    beat_hint,
    beats,
    canon_card,
    card_word,
    cards_words,
    combo_of,
)
from ..errors import IllegalAction
from .state import CANONICAL_CARDS as _CANON
from .state import opp

_ACT_KEYS = {"play": {"act", "cards", "seat", "auto"}, "burn": {"act", "cards", "seat", "auto"},
             "pass": {"act", "seat", "auto"}, "yield": {"act", "seat", "auto"}}


class Play:
    """The acts of play and what follows each: whose turn, who may answer, who is out."""

    def act(self, seat: int, action: dict) -> None:
        """Apply one act by ``seat``; raise :class:`IllegalAction` (changing nothing) if illegal.

        Play acts: ``{"act": "play"|"burn", "cards": [...]}``, ``{"act": "pass"}``,
        ``{"act": "yield"}``. In live pre-play, the acts listed by :meth:`legal_actions`.
        """
        state = self.state
        if type(seat) is not int or not 0 <= seat <= 5:
            if state == "over":
                raise IllegalAction("game_over", "the game is over", seat=seat)
            raise IllegalAction("bad_format", f"not a seat: {seat!r}")
        if state != "play":
            if state == "over":
                raise IllegalAction("game_over", "the game is over", seat=seat)
            if not isinstance(action, dict):
                raise IllegalAction("bad_format", "an act must be an object", seat=seat)
            if not self.live:
                raise IllegalAction("bad_pre", "play has not begun", seat=seat)
            self._live_pre_act(seat, action)
            return
        if type(action) is not dict and not isinstance(action, dict):
            raise IllegalAction("bad_format", "an act must be an object", seat=seat)
        kind = action.get("act")
        allowed = _ACT_KEYS.get(kind) if type(kind) is str else None
        if allowed is None:
            raise IllegalAction("bad_format", f"unknown act {kind!r}: use play, pass, yield or burn",
                                seat=seat)
        if not allowed.issuperset(action):
            extra = [k for k in action if k not in allowed]
            raise IllegalAction("bad_format", f"unknown key {sorted(extra)[0]!r} in a {kind} act",
                                seat=seat)
        if action.get("seat", seat) != seat:
            raise IllegalAction("bad_format", "the act names another seat", seat=seat)
        auto = action.get("auto", False)
        if auto is not False and auto is not True:
            raise IllegalAction("bad_format", "auto must be true or false", seat=seat)
        if kind == "play":
            if seat != self.turn:
                raise self._turn_error(seat, kind)
            combo, cards = self._combo_from(seat, action)
            if self.leading or combo.rank == 3 or not beats(combo, self.top, self.rj_beats_any):
                self._check_play(seat, combo, cards)  # raises if the play is illegal
            if self.pending_end:
                self._end_round()
            self._do_play(seat, combo, cards)
            rec = {"seat": seat, "act": kind, "cards": list(combo.cards)}  # in card order
        elif kind == "pass":
            if seat != self.turn:
                raise self._turn_error(seat, kind)
            if self.leading:
                raise IllegalAction("not_entitled", f"seat {seat} leads this round and must "
                                    f"play a combo; it cannot pass", seat=seat)
            self._do_pass(seat, yielded=False)
            rec = {"seat": seat, "act": kind}
        elif kind == "burn":
            combo, cards = self._combo_from(seat, action)
            self._check_burn(seat, combo, cards)
            self._finalize_pending_if_needed(burn=True)
            self._do_burn(seat, combo, cards)
            rec = {"seat": seat, "act": kind, "cards": list(combo.cards)}
        else:
            if seat != self.turn:
                raise self._turn_error(seat, kind)
            self._check_yield(seat)
            if self.closer_last:
                self._do_pass(seat, yielded=True)
            else:
                self._do_yield(seat)
            rec = {"seat": seat, "act": kind}
        if auto:
            rec["auto"] = True  # played by the bot for an absent seat (托管)
            self.auto_seats.add(seat)
        self.actions.append(rec)
        self.version += 1

    def _turn_error(self, seat, kind) -> IllegalAction:
        if self.turn is None:
            return IllegalAction("game_over", "the game is over", seat=seat)
        if (kind != "yield" and self.top is not None and not self.leading
                and self.active[seat] and seat != self.owner and not self._entitled(seat)):
            return IllegalAction("not_entitled", self._why_not_entitled(seat), seat=seat)
        if not self.active[seat]:
            return IllegalAction("not_your_turn", f"seat {seat} is no longer playing in this game",
                                 seat=seat)
        return IllegalAction("not_your_turn", f"it is seat {self.turn}'s turn, not seat {seat}'s",
                             seat=seat)

    def _why_not_entitled(self, s) -> str:
        p = self.owner
        top = cards_words(self.top.cards)
        if self.top_unbeatable:
            return f"nobody may answer seat {p}'s {top}: it is 够死级 (only a burn, 烧牌, can)"
        if self.top_burning:
            return (f"seat {s} may not answer burning seat {p}'s {top}; only seat {opp(p)} "
                    f"(its 对头) may, or another seat may counter-burn (反烧) at once")
        if self.passed[s]:
            return f"seat {s} passed in this round and may not play again"
        if self.top_restricted:
            return (f"seat {s} may not answer {top}, played by seat {p} after yielding (让牌); "
                    f"only seat {opp(p)} may")
        return f"seat {s} may not answer a 够级 combo of seat {p} ({top}); only seat {opp(p)} may"

    def _combo_from(self, seat, action):
        cards_in = action.get("cards")
        if type(cards_in) is list:
            # canonical cards in card order (records, bots): a combo made before, found by lookup
            try:
                combo = COMBOS.get(tuple(cards_in))
            except TypeError:  # an unhashable item: not a card, said below
                combo = None
            if combo is not None:
                hand = self.hands[seat]
                for c, n in combo.counts:
                    have = hand.get(c, 0)
                    if have < n:
                        raise self._not_held(seat, c, have, n)
                return combo, combo.cards
        else:
            if isinstance(cards_in, str):
                cards_in = cards_in.replace(",", " ").split()
            if not isinstance(cards_in, list):
                raise IllegalAction("bad_format", f"a {action.get('act')} act needs a list of "
                                    f"cards", seat=seat)
        try:
            cards = [_CANON[c] for c in cards_in]  # canonical cards as they come in records
        except (KeyError, TypeError):
            try:
                cards = [canon_card(c) for c in cards_in]
            except CardError as exc:
                raise IllegalAction("bad_card", f"seat {seat}: {exc}", seat=seat) from None
        hand = self.hands[seat]
        for c in cards:
            have = hand.get(c, 0)
            if have < 4 or len(cards) > 4:
                n = cards.count(c)
                if n > have:
                    raise self._not_held(seat, c, have, n)
        combo = COMBOS.get(tuple(cards))
        if combo is None:
            try:
                combo = combo_of(cards)
            except ComboError as exc:
                raise IllegalAction("bad_combo", f"seat {seat} played {exc}",
                                    seat=seat) from None
        return combo, cards

    @staticmethod
    def _not_held(seat, card, have, n) -> IllegalAction:
        if have == 0:
            return IllegalAction("not_in_hand", f"seat {seat} does not hold {card_word(card)}",
                                 seat=seat)
        return IllegalAction("not_in_hand", f"seat {seat} holds {have} {card_word(card)}, "
                             f"not {n}", seat=seat)

    def check_three_rule(self, seat: int, combo) -> None:
        """憋3: a seat's 3s go out together, pure, as its very last combo; raise
        :class:`IllegalAction` (``three_rule``) if ``combo`` breaks that."""
        if not self.bie3:
            return
        if combo.rank == 3:
            n3 = self._rank_count(seat, 3)
            if combo.size != n3 or combo.n_two or combo.n_bj or combo.n_rj:
                raise IllegalAction("three_rule", f"seat {seat} must play its 3s together, pure "
                                    f"(no 2s or jokers), as its very last combo (憋3)", seat=seat)
            if self.count[seat] != n3:
                raise IllegalAction("three_rule", f"seat {seat} may play its 3s only as its last "
                                    f"combo (憋3)", seat=seat)

    def _check_play(self, seat, combo, cards):
        if combo.rank == 3:
            self.check_three_rule(seat, combo)
        if self.leading:
            if self.burner == seat and self.rules["strict_burn"] \
                    and len(cards) != self.count[seat]:
                if not combo.has_joker:
                    raise IllegalAction("illegal_burn", f"seat {seat} is burning (烧牌): every "
                                        f"combo it leads must carry a joker until its last",
                                        seat=seat)
                if not self.can_keep_burning(seat, cards):
                    raise IllegalAction("illegal_burn", f"seat {seat} is burning (烧牌): after "
                                        f"{cards_words(cards)} it would not hold a joker for "
                                        f"every combo it must still lead", seat=seat)
            return
        if not beats(combo, self.top, self.rj_beats_any):
            raise IllegalAction("does_not_beat", f"seat {seat}'s {cards_words(cards)} does not beat "
                                f"seat {self.owner}'s {cards_words(self.top.cards)}"
                                + beat_hint(combo, self.top), seat=seat)

    def _check_yield(self, seat):
        refusal = self._yield_refusal(seat)
        if refusal is not None:
            raise IllegalAction("illegal_yield", refusal, seat=seat)

    def _yield_refusal(self, seat) -> str | None:
        """Why ``seat`` may not yield (让牌) now, or ``None`` if it may."""
        if self.leading or self.top is None:
            return f"seat {seat} leads and cannot yield (让牌)"
        p = self.owner
        if self.n_active <= 4:
            return f"seat {seat} cannot yield (让牌): nobody yields once four play 四户乱缠"
        if seat != opp(p):
            return (f"seat {seat} cannot yield (让牌) on seat {p}'s combo: only seat {opp(p)}, "
                    f"its 对头, may")
        if self.top.gouji or self.top_restricted or self.top_burning or self.top_unbeatable:
            return f"seat {seat} cannot yield on a 够级 or yielded combo"
        if self.yielder is not None:
            return f"seat {seat} has already yielded on this combo"
        return None

    def _finalize_pending_if_needed(self, burn=False):
        if self.pending_end and not burn:
            self._end_round()

    def _do_play(self, seat, combo, cards):
        if self.leading:
            if self.burner == seat and not combo.has_joker and len(cards) != self.count[seat]:
                self._failed_burn(seat, cards)
                return
            self._set_top(seat, combo, restricted=False)
        else:
            beaten_owner = self.owner
            if self.top_burning and seat == (beaten_owner + 3) % 6:
                self.burner = None  # 解烧: the 对头 breaks the burn
            self._set_top(seat, combo, restricted=self.yielder == seat)
            if self.bie3 and beaten_owner is not None and self.count[beaten_owner] <= 16:
                self._after_beat(seat, beaten_owner)  # it may hold only 3s (16 in the set)
        # as _after_play
        if self.state == "over":
            return
        if self.count[seat] == 0:
            self._finish(seat)
            if self.state == "over":
                return
        self._advance(seat)

    def _set_top(self, seat, combo, restricted):
        prev_dipai = self.dipai_right
        phase1 = self.n_active > 4
        # the top is a finished seat's 底牌: its answer never 开点s (RULES.md §6)
        self.top_answers_dipai = self.owner is not None and not self.active[self.owner]
        self._remove_played(seat, combo)
        self.top = combo
        self.owner = seat
        self.leading = False
        self.top_restricted = restricted
        self.top_burning = self.burner == seat
        self.top_unbeatable = False
        self.top_gousiji_right = False
        self.yielder = None
        self.yield_returned = False
        self.closer_asked = False
        self.closer_passed = False
        self.closer_waited = False
        gouji = combo.gouji
        self.top_gouji = gouji and phase1
        if gouji and prev_dipai == seat:
            self.top_unbeatable = True  # 够死级 on a 头科/二科's 底牌
            self.top_gouji = True
        elif gouji and phase1 and self.gousiji_rights[seat] > 0:
            self.gousiji_rights[seat] -= 1
            self.top_unbeatable = True
            self.top_gousiji_right = True
        self.dipai_right = None
        self.burn_window = gouji and phase1

    def _after_beat(self, seat, beaten):
        """Smother (闷) check on the seat whose combo was just beaten."""
        if not self.bie3 or beaten is None or not self.active[beaten] or beaten == seat:
            return
        hand = self.hands[beaten]
        if not hand or beaten in self.smothers:
            return
        for c in hand:
            if CARD_RANK[c] != 3:
                return
        self.smothers.append(beaten)
        if self.rules["men"] == "last_place":
            self._eliminate(beaten, "smothered")
        else:
            self.men_owed.append((beaten, seat))

    def _after_play(self, seat):
        if self.state == "over":
            return
        if self.count[seat] == 0:
            self._finish(seat)
            if self.state == "over":
                return
        self._advance(seat)

    def _finish(self, seat):
        self.deactivate(seat)
        self.finish_order.append(seat)
        self.last_out = seat
        if self.burner == seat or self.phase2():
            self.burner = None  # burning ends with the burner, and in 四户乱缠
        if len(self.finish_order) <= 2:
            self._judge_kaidian(seat)
            o = opp(seat)
            if self.active[o]:
                self.dipai_right = o
        self._check_end()

    def _eliminate(self, seat, reason):
        self.deactivate(seat)
        self.eliminated.append((seat, reason))
        self.last_out = seat
        for c, n in self.hands[seat].items():
            self.out[c] += n
        self.hands[seat] = {}
        self.count[seat] = 0
        if self.burner == seat or self.phase2():
            self.burner = None
        if self.yielder == seat:
            self.yielder = None
        self._check_end()

    def _do_pass(self, seat, yielded):
        self.passed[seat] = True
        self.burn_window = False
        p = self.owner
        if seat == self.dipai_right:
            self.dipai_right = None
        if seat == (p + 3) % 6 and self.n_active > 4:
            if self.yield_returned or self.closer_asked:
                self._round_over()  # 扣牌
                return
            self.closer_passed = True
        elif self.closer_passed:
            self.closer_waited = True
        self._advance(seat)

    def _do_yield(self, seat):
        self.passed[seat] = True
        self.burn_window = False
        self.yielder = seat
        self._advance(seat)

    # ------------------------------------------------------------------ turns
    def _no_head(self, s: int) -> bool:
        """无头: the seat's 对头 is out of play and it holds no 够死级 right."""
        o = opp(s)
        if self.active[o]:
            return False
        if self.gousiji_rights[s] > 0 or self.dipai_right == s:
            return False
        return True

    def no_head(self, s: int) -> bool:
        """无头 (public): the seat's 对头 is out of play and it holds no 够死级 right."""
        return self._no_head(s)

    def may_answer(self, s: int) -> bool:
        """Whether seat ``s`` may answer the combo on top now (对头, 无头, 四户乱缠, 烧牌 …): the
        rule the engine itself applies, for viewers that explain a position."""
        return self._entitled(s)

    def _entitled(self, s: int) -> bool:
        p = self.owner
        if self.top_unbeatable:
            return False
        if not self.active[s] or s == p:
            return False
        if self.n_active <= 4:  # 四户乱缠
            return True
        if self.top_burning:
            return s == (p + 3) % 6
        if s == (p + 3) % 6:
            return True
        if self.passed[s]:
            return False
        if self.top_restricted:
            return False
        if not self.top.gouji:
            return True
        return self._no_head(s) or self._no_head(p)

    def _advance(self, s):
        o = self.owner
        active = self.active
        x = (s + 1) % 6
        if not self.top_unbeatable:
            if self.n_active <= 4:  # 四户乱缠: every playing seat is entitled
                while x != o:
                    if active[x]:
                        self.turn = x
                        return
                    x = (x + 1) % 6
            else:
                c = (o + 3) % 6
                burning = self.top_burning
                # a seat that has not passed may answer an open top; the 对头 always may
                open_top = not burning and not self.top_restricted and not self.top.gouji
                passed = self.passed
                while x != o:
                    if active[x] and (x == c or (
                            not burning and not passed[x]
                            and (open_top or not self.top_restricted and (
                                self._no_head(x) or self._no_head(o))))):
                        self.turn = x
                        return
                    x = (x + 1) % 6
        if self.yielder is not None and not self.yield_returned and self.active[self.yielder] \
                and self.n_active > 4:
            self.yield_returned = True
            self.turn = self.yielder
            return
        c = (o + 3) % 6
        if (self.closer_last and not self.closer_asked and self.closer_passed
                and self.closer_waited and self.active[c] and self.n_active > 4
                and not self.top.gouji and self._entitled(c)):  # never on a 够级 duel
            self.closer_asked = True
            self.turn = c
            return
        self._round_over()

    def _round_over(self):
        if self.burn_window:
            self.pending_end = True
            self.turn = self.owner if self.active[self.owner] else self._next_active(self.owner)
            self.leading = True
            return
        self._end_round()

    def _end_round(self):
        """The round's top won: credit 开点, judge finishes, hand the lead on (接风)."""
        self.pending_end = False
        w = self.owner
        if w is not None:
            self._credit_win(w)
        nxt = w if self.active[w] else self._next_active(w)
        self.start_round(nxt)

    def _check_end(self):
        act = [s for s in range(6) if self.active[s]]
        if len(act) <= 1:
            self._end_game(act)
        elif self.rules["end_when_one_team_left"] and len({s % 2 for s in act}) == 1:
            self.ended_with_team_left = True
            self._end_game(act)

    def _end_game(self, remaining):
        if self.top is not None and self.owner is not None:
            self._credit_win(self.owner)
        if remaining:
            if self.agreed is not None and len(remaining) > 1:
                if sorted(self.agreed) != sorted(remaining):
                    raise IllegalAction("bad_format", "agreed must list exactly the seats left "
                                        f"holding cards: {sorted(remaining)}", where="actions")
                order = list(self.agreed)
            else:
                start = self.last_out if self.last_out is not None else 0
                pos = {(start + k) % 6: k for k in range(1, 7)}
                order = sorted(remaining, key=lambda s: (self.count[s], pos[s]))
            for s in order:
                self.deactivate(s)
                self.finish_order.append(s)
        self._settle_kaidian()
        self.state = "over"
        self.turn = None
        self.burn_window = False
        self.pending_end = False

