"""Pre-play (RULES.md §4–§5, §9): the events before the first lead, in their order — 预点,
革命 (and the 对头's 够死级 waiver), 进贡/还贡, 买3, 明点, 会3 — and the first leader.

A record's ``pre`` events go through :meth:`PrePlay.apply_pre_event`; live play asks the seats in
turn (:mod:`engine.game.prompts`) and turns their answers into the same events.
"""

from __future__ import annotations

from collections import Counter

from ..cards import (
    CARD_RANK,
    RANK_WORD,
    TWO,
    CardError,
    canon_card,
    card_word,
    cards_words,
    sort_cards,
)
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
    TRIBUTE_WORD,
    is_seat,
    opp,
)

_EVENT_STAGE = {
    "revolution": ST_REVOLT,
    "waive_gousiji": ST_WAIVE,
    "tribute": ST_TRIBUTE,
    "return": ST_TRIBUTE,
    "buy3": ST_BUY3,
    "hui3": ST_HUI3,
}
_EVENT_KEYS = {
    "revolution": {"type", "seat"},
    "waive_gousiji": {"type", "seat"},
    "tribute": {"type", "kind", "from", "to", "cards"},
    "return": {"type", "from", "to", "cards"},
    "buy3": {"type", "seat", "from", "give", "take"},
    "declare": {"type", "seat", "kind"},
    "hui3": {"type"},
}



_STAGE_WORD = {ST_YUDIAN: "预点", ST_REVOLT: "革命", ST_WAIVE: "够死级 waiver",
               ST_TRIBUTE: "进贡/还贡", ST_BUY3: "买3", ST_MINGDIAN: "明点", ST_HUI3: "会3",
               ST_PLAY: "play"}


class PrePlay:
    """Pre-play events and stages, tributes paid before play, the first lead."""

    def _pre_error(self, msg: str, seat=None) -> IllegalAction:
        return IllegalAction("bad_pre", msg, seat=seat, where="pre")

    def apply_pre_event(self, ev: dict) -> None:
        """Apply one pre-play event of a record (RECORD.md ``pre``), or refuse it."""
        if self.state != "pre":
            raise IllegalAction("game_over" if self.state == "over" else "bad_pre",
                                "the game is over" if self.state == "over"
                                else "pre-play events come before the first lead", where="pre")
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str) \
                or ev["type"] not in _EVENT_KEYS:
            raise IllegalAction("bad_format", f"unknown pre-play event {ev!r:.80}", where="pre")
        typ = ev["type"]
        extra = set(ev) - _EVENT_KEYS[typ]
        missing = _EVENT_KEYS[typ] - set(ev)
        if extra or missing:
            what = (f"unknown key {sorted(extra)[0]!r}" if extra
                    else f"missing key {sorted(missing)[0]!r}")
            raise IllegalAction("bad_format", f"{typ} event: {what}", where="pre")
        for key in ("seat", "from", "to"):
            if key in ev and not is_seat(ev[key]):
                raise IllegalAction("bad_format", f"{typ} event: {key!r} must be a seat 0 to 5",
                                    where="pre")
        if typ == "declare":
            if ev["kind"] == "yudian":
                stage = ST_YUDIAN
            elif ev["kind"] == "mingdian":
                stage = ST_MINGDIAN
            else:
                raise IllegalAction("bad_format", "declare kind must be yudian or mingdian",
                                    where="pre")
        else:
            stage = _EVENT_STAGE[typ]
        if stage < self.stage:
            raise self._pre_error(f"a {typ} event cannot come after the {_STAGE_WORD[self.stage]}"
                                  f" stage (order: 预点, 革命, 进贡/还贡, 买3, 明点, 会3)")
        self._advance_stage(stage)
        getattr(self, "_pre_" + typ)(ev)
        self.pre_events.append(ev)
        self.version += 1

    def _advance_stage(self, stage: int) -> None:
        """Close every stage before ``stage``, checking what each one required."""
        while self.stage < stage:
            if self.stage == ST_REVOLT and len(self.revolutionaries) >= 2:
                raise self._pre_error("two or more revolutions void the game (流局): nothing "
                                      "may follow them")
            if self.stage == ST_WAIVE:
                self.settle_revolutions()
            if self.stage == ST_TRIBUTE:
                self._check_tributes_done()
            if self.stage == ST_BUY3:
                self._check_buys_done()
            self.stage += 1

    def settle_revolutions(self) -> None:
        """What each revolution gives its 对头 (RULES.md §6, §8): 够死级 rights unless it waived
        them; with ``revolution_kaidian = auto`` (``003``: 革命算自動認點…對門"開點"), 开点 at
        once, rights used or waived."""
        if self.rules["revolution"]:
            auto = self._dadian and self.rules["revolution_kaidian"] == "auto"
            for rv in self.revolutionaries:
                o = opp(rv)
                if o in self.revolutionaries:
                    continue
                if not self.waived[o]:
                    self.gousiji_rights[o] = self.rules["revolution_gousiji"]
                if auto:
                    self.kaidian[o] = True

    def _pre_declare(self, ev):
        s = ev["seat"]
        if not self._dadian:
            raise self._pre_error("declarations (明点/预点) need the 打点 rule (dadian)", s)
        if self.declared[s]:
            raise self._pre_error(f"seat {s} has already declared", s)
        if s in self.revolutionaries or opp(s) in self.revolutionaries:
            raise self._pre_error(f"seat {s} cannot declare: a revolutionary sits in its pair", s)
        self.declared[s] = ev["kind"]

    def _pre_revolution(self, ev):
        s = ev["seat"]
        if not self.rules["revolution"]:
            raise self._pre_error("revolution (革命) is off in these rules", s)
        if s in self.revolutionaries:
            raise self._pre_error(f"seat {s} has already declared revolution", s)
        if not self.can_revolt(s):
            what = "no 3, no 2 and no joker" if self.bie3 else "no 2 and no joker"
            raise self._pre_error(f"seat {s} cannot revolt: only a seat dealt {what} may", s)
        self.revolutionaries.append(s)
        self.deactivate(s)
        for c, n in self.hands[s].items():
            self.out[c] += n
        self.hands[s] = {}
        self.count[s] = 0
        if len(self.revolutionaries) >= 2:
            self.void = True
            self.state = "over"
            self.stage = ST_PLAY

    def can_revolt(self, s: int) -> bool:
        """May seat ``s`` declare 革命 (judged on the cards as dealt)?"""
        for c in self.deal[s]:
            r = CARD_RANK[c]
            if r >= TWO or (self.bie3 and r == 3):
                return False
        return True

    def _pre_waive_gousiji(self, ev):
        s = ev["seat"]
        if opp(s) not in self.revolutionaries or s in self.revolutionaries:
            raise self._pre_error(f"seat {s} has no 够死级 rights to waive: its 对头 did not "
                                  f"revolt", s)
        if self.waived[s]:
            raise self._pre_error(f"seat {s} has already waived its 够死级 rights", s)
        self.waived[s] = True

    def _owed_key_remaining(self, kind, frm, to) -> int:
        owed = sum(t["count"] for t in self._owed_live() if
                   (t["kind"], t["from"], t["to"]) == (kind, frm, to))
        return owed - self.paid_pre[(kind, frm, to)]

    def _owed_live(self) -> list[dict]:
        """Owed tributes that this game pays: none to or from a revolutionary, and only when
        the rules have tributes."""
        if not self.rules["tribute"]:
            return []
        rv = self.revolutionaries
        return [t for t in self.owed_pre if t["from"] not in rv and t["to"] not in rv]

    def tribute_cards(self, s: int, n: int) -> list[str]:
        """The ``n`` cards seat ``s`` must give as tribute now: its 大王s, then 小王s, then 2s,
        never a card it received as tribute in this game (吃了不吐)."""
        eligible = self._tribute_eligible(s)
        out: list[str] = []
        for c in eligible:
            if len(out) >= n:
                break
            out.append(c)
        return out

    def _tribute_eligible(self, s: int) -> list[str]:
        hand = self.hands[s]
        rec = self.received_tribute[s]
        cards = []
        for c in ("RJ", "BJ", "2S", "2H", "2D", "2C"):
            k = hand.get(c, 0) - rec.get(c, 0)
            cards.extend([c] * max(0, k))
        return cards

    def _parse_event_cards(self, ev, key="cards") -> list[str]:
        value = ev[key]
        if not isinstance(value, list):
            raise IllegalAction("bad_format", f"{ev['type']} event: {key!r} must be a list of cards",
                                where="pre")
        try:
            return [canon_card(c) for c in value]
        except CardError as exc:
            raise IllegalAction("bad_card", f"{ev['type']} event: {exc}", where="pre") from None

    def _pre_tribute(self, ev):
        kind, frm, to = ev["kind"], ev["from"], ev["to"]
        if kind not in TRIBUTE_KINDS:
            raise IllegalAction("bad_format", "tribute kind must be dian, men, shao or luo",
                                where="pre")
        word = TRIBUTE_WORD[kind]
        if not self.rules["tribute"]:
            raise self._pre_error("tributes (进贡) are off in these rules", frm)
        if frm == to:
            raise self._pre_error(f"seat {frm} cannot pay {word} to itself", frm)
        if frm in self.revolutionaries or to in self.revolutionaries:
            raise self._pre_error(f"a revolutionary neither pays nor receives tribute "
                                  f"(seat {frm} to seat {to})", frm)
        k = TRIBUTE_KINDS.index(kind)
        if k < self.tribute_kind_seen:
            raise self._pre_error(f"{word} comes before {TRIBUTE_WORD[TRIBUTE_KINDS[self.tribute_kind_seen]]}"
                                  f" (order: 点贡, 闷贡, 烧贡, 落贡)", frm)
        if k > self.tribute_kind_seen and self.previous is not None:
            for earlier in TRIBUTE_KINDS[max(self.tribute_kind_seen, 0):k]:
                self._check_kind_done(earlier)
        self.tribute_kind_seen = k
        cards = self._parse_event_cards(ev)
        if self.previous is not None:
            remaining = self._owed_key_remaining(kind, frm, to)
            if remaining <= 0:
                raise self._pre_error(f"seat {frm} owes seat {to} no {word}"
                                      + (" (already paid)" if self.paid_pre[(kind, frm, to)] else
                                         " from the previous game"), frm)
            if len(cards) > remaining:
                raise self._pre_error(f"seat {frm} owes seat {to} {remaining} {word} card(s), "
                                      f"not {len(cards)}", frm)
        expected = self.tribute_cards(frm, len(cards))
        eligible = Counter(self._tribute_eligible(frm))
        if len(expected) < len(cards) or sorted(CARD_RANK[c] for c in cards) != sorted(
                CARD_RANK[c] for c in expected) or Counter(cards) - eligible:
            held = self._tribute_eligible(frm)
            raise self._pre_error(
                f"seat {frm} must give its biggest tribute cards ({word}: 大王, then 小王, then 2s"
                f"; never a card received as tribute): it holds "
                f"{cards_words(held) if held else 'none'}, and gave {cards_words(cards) or 'none'}",
                frm)
        self._take_cards(frm, cards, word)
        self._give_cards(to, cards)
        self.received_tribute[to].update(cards)
        self.paid_pre[(kind, frm, to)] += len(cards)
        if not self._tribute_eligible(frm):
            self.tribute_exhausted.add(frm)  # gave what it had: nothing more is owed
        if kind == "luo" and cards:
            self.luo_given.append([frm, to, len(cards), False])

    def _check_kind_done(self, kind):
        for t in self._owed_live():
            if t["kind"] != kind:
                continue
            key = (t["kind"], t["from"], t["to"])
            left = self._owed_key_remaining(*key)
            if left > 0 and t["from"] not in self.tribute_exhausted \
                    and self._tribute_eligible(t["from"]):
                raise self._pre_error(
                    f"seat {t['from']} still owes seat {t['to']} {left} {TRIBUTE_WORD[kind]} "
                    f"card(s)", t["from"])

    def _check_tributes_done(self):
        if self.previous is not None:
            for kind in TRIBUTE_KINDS:
                self._check_kind_done(kind)
        for frm, to, n, returned in self.luo_given:
            if not returned:
                raise self._pre_error(f"seat {to} has not returned (还贡) the {n} 落贡 card(s) of "
                                      f"seat {frm}", to)

    def _pre_return(self, ev):
        frm, to = ev["from"], ev["to"]  # the receiver of 落贡 returns to its giver
        cards = self._parse_event_cards(ev)
        for item in self.luo_given:
            if item[1] == frm and item[0] == to and not item[3]:
                break
        else:
            raise self._pre_error(f"seat {frm} has no 落贡 from seat {to} to return (还贡)", frm)
        if len(cards) != item[2]:
            raise self._pre_error(f"seat {frm} must return {item[2]} card(s) to seat {to}, "
                                  f"not {len(cards)}", frm)
        giver_ranks = {CARD_RANK[c] for c in self.hands[to]}
        for c in cards:
            if CARD_RANK[c] not in giver_ranks:
                raise self._pre_error(
                    f"seat {frm} cannot return {card_word(c)}: seat {to} holds no "
                    f"{RANK_WORD[CARD_RANK[c]]} (a returned card must match a rank it holds)", frm)
        self._take_cards(frm, cards, "还贡")
        self._give_cards(to, cards)
        item[3] = True

    def _needs_buy(self, s: int) -> bool:
        return (self.bie3 and self.active[s] and not self.bought[s]
                and self._rank_count(s, 3) == 0 and self._buy_pay_options(s)
                and self._buy_seller(s) is not None)

    def _buy_pay_options(self, s: int) -> list[str]:
        twos = [c for c in self.hands[s] if CARD_RANK[c] == TWO]
        if twos:
            return sort_cards(twos)
        return [c for c in ("BJ", "RJ") if c in self.hands[s]]

    def _buy_seller(self, s: int) -> int | None:
        """买3: the 对头 sells when it holds two or more 3s; else its teammate with the most 3s
        (ties in turn order from the buyer)."""
        o = opp(s)
        if self.active[o] and self._rank_count(o, 3) >= 2:
            return o
        best, best_n = None, 0
        for k in range(1, 6):
            t = (s + k) % 6
            if t % 2 != o % 2 or t == o or not self.active[t]:
                continue
            n = self._rank_count(t, 3)
            if n > best_n:
                best, best_n = t, n
        return best

    def _pre_buy3(self, ev):
        s, frm = ev["seat"], ev["from"]
        if not self.bie3:
            raise self._pre_error("买3 is only played with 憋3 (bie3)", s)
        try:
            give, take = canon_card(ev["give"]), canon_card(ev["take"])
        except CardError as exc:
            raise IllegalAction("bad_card", f"buy3 event: {exc}", where="pre") from None
        if not self.active[s] or self.bought[s]:
            raise self._pre_error(f"seat {s} cannot buy a 3 now", s)
        if self._rank_count(s, 3):
            raise self._pre_error(f"seat {s} holds a 3 and may not buy one (买3)", s)
        pay = self._buy_pay_options(s)
        if give not in pay:
            raise self._pre_error(
                f"seat {s} must pay for its 3 with a 2 (or, having none, a joker); "
                f"it cannot pay with {card_word(give)}", s)
        seller = self._buy_seller(s)
        if frm != seller:
            raise self._pre_error(
                f"seat {s} must buy its 3 from seat {seller}, not seat {frm}" if seller is not None
                else f"seat {s} has nobody to buy a 3 from", s)
        if CARD_RANK[take] != 3:
            raise self._pre_error(f"seat {s} buys a 3, not {card_word(take)}", s)
        self._take_cards(frm, [take], "买3")
        self._take_cards(s, [give], "买3")
        self._give_cards(s, [take])
        self._give_cards(frm, [give])
        self.bought[s] = True

    def _check_buys_done(self):
        for s in range(6):
            if self._needs_buy(s):
                raise self._pre_error(f"seat {s} holds no 3 and must buy one (买3) from seat "
                                      f"{self._buy_seller(s)}", s)

    def _pre_hui3(self, ev):
        if not self.rules["hui3"]:
            raise self._pre_error("会3 is off in these rules (and never played with 憋3)")
        if self.hui3_done:
            raise self._pre_error("会3 was already chosen")
        for s in range(6):
            threes = [c for c in self.hands[s] for _ in range(self.hands[s][c])
                      if CARD_RANK[c] == 3]
            if threes:
                self._take_cards(s, threes, "会3")
                self.out.update(threes)
        self.hui3_done = True

    # ------------------------------------------------------------------ leader
    def expected_leader(self) -> int | None:
        """The seat that must lead the first round, or ``None`` when the rules leave it to the
        table (a ``rotate`` table's first game)."""
        prev = self.previous
        first_lead = self.rules["first_lead"]
        if prev is not None and not prev.get("void") and prev.get("next_leader") is not None:
            seat = prev["next_leader"]
        elif prev is not None and prev.get("void"):
            seat = prev.get("next_leader")
        elif first_lead == "loser" and (self.first_game or prev is not None):
            seat = self.liang3_leader()
        else:
            seat = None
        if seat is not None and not self.active[seat]:
            seat = self._next_active(seat)
        return seat

    def liang3_leader(self) -> int:
        """亮3/顶班: the seat dealt the most 3s of one suit leads; ties go to the first tied seat
        from the opening seat in turn order (大纲 第七条)."""
        best, best_n = None, -1
        for k in range(6):
            s = (self.opening_seat + k) % 6
            if not self.active[s]:
                continue
            n = max((self.deal[s].count("3" + suit) for suit in "SHDC"), default=0)
            if n > best_n:
                best, best_n = s, n
        return best

    def begin_play(self, leader: int | None) -> None:
        """End the pre-play stage and give the first lead to ``leader`` (checked)."""
        if self.state == "over":
            raise IllegalAction("game_over", "the game is void (流局): two or more revolutions",
                                where="leader")
        if self.state != "pre":
            raise IllegalAction("bad_format", "play has already begun", where="leader")
        self._advance_stage(ST_PLAY)
        expected = self.expected_leader()
        if leader is None:
            leader = expected if expected is not None else self._default_leader()
        if not is_seat(leader):
            raise IllegalAction("bad_format", "leader must be a seat 0 to 5", where="leader")
        if not self.active[leader]:
            raise IllegalAction("wrong_leader", f"seat {leader} revolted and cannot lead",
                                seat=leader, where="leader")
        if expected is not None and leader != expected:
            why = {"loser": "the previous game's 大落 (or 亮3 in a table's first game)",
                   "rotate": "the seat after the previous game's first leader"}[
                self.rules["first_lead"]]
            raise IllegalAction("wrong_leader", f"seat {expected} must lead, not seat {leader}: "
                                f"the first lead goes to {why}", seat=leader, where="leader")
        self.leader = leader
        self.state = "play"
        self.start_round(leader)
        self.version += 1

    def _default_leader(self) -> int:
        seat = self.requested_leader if self.requested_leader is not None else self.opening_seat
        if self.rules["first_lead"] == "loser":
            seat = self.liang3_leader()
        return seat if self.active[seat] else self._next_active(seat)
