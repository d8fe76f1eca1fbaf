"""One game (一局) of 够级 as a state machine: pre-play events, then rounds of play.

The :class:`Game` is used two ways:

* **replaying a record** (``engine.record``): pre-play events are fed with
  :meth:`Game.apply_pre_event`, the first lead is fixed with :meth:`Game.begin_play`, then every
  act goes through :meth:`Game.act`;
* **live play**: the game prompts seats for their pre-play choices (declarations, revolution,
  还贡 cards, 买3, 会3) through the same :meth:`Game.act`, pays the tributes it can decide by
  itself, and then plays.

Seats are ``0..5``; team of seat ``s`` is ``s % 2``; its 对头 (opposite) is ``(s + 3) % 6``.
Short names in hot paths: ``opp`` = 对头, ``top`` = the last combo of the round.
"""

from __future__ import annotations

import json
from collections import Counter

from .cards import (
    BIG_ATTACHED,
    BJ,
    CARD_ORDER,
    CARD_RANK,
    RANK_WORD,
    RJ,
    TWO,
    CardError,
    ComboError,
    beats,
    canon_card,
    card_word,
    cards_words,
    combo_of,
    full_set,
    sort_cards,
)
from .errors import IllegalAction
from .rules import Rules

PLACE_POINTS = {1: 4, 2: 2, 3: 0, 4: 0, 5: -2, 6: -4}
PLACE_WORD = {1: "头科", 2: "二科", 3: "三科", 4: "四科", 5: "二落", 6: "大落"}
TRIBUTE_KINDS = ("dian", "men", "shao", "luo")
TRIBUTE_WORD = {"dian": "点贡", "men": "闷贡", "shao": "烧贡", "luo": "落贡"}
TRIBUTE_RANKS = (RJ, BJ, TWO)

# pre-play stages, in the order of RULES.md §4.2
ST_YUDIAN, ST_REVOLT, ST_WAIVE, ST_TRIBUTE, ST_BUY3, ST_MINGDIAN, ST_HUI3, ST_PLAY = range(8)
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


def opp(s: int) -> int:
    """The 对头 (opposite seat) of ``s``."""
    return (s + 3) % 6


def seat_word(s: int) -> str:
    return f"seat {s}"


def _is_seat(x) -> bool:
    return type(x) is int and 0 <= x <= 5


class Game:
    """A game of 够级 from the deal to the last place (RULES.md §4–§11)."""

    def __init__(self, rules=None, deal=None, previous=None, opening_seat: int = 0,
                 leader: int | None = None, *, first_game: bool | None = None,
                 live: bool = True):
        self.rules = Rules.from_spec(rules)
        r = self.rules
        self._bie3 = r["bie3"]
        self._dadian = r["dadian"]
        self._rj_any = r["rj_beats_any"]
        if deal is None:
            from .cards import deal as _deal

            deal = _deal()
        self.deal = _check_deal(deal)
        if not _is_seat(opening_seat):
            raise IllegalAction("bad_format", "opening_seat must be a seat number 0 to 5",
                                where="deal")
        self.opening_seat = opening_seat
        self.previous = previous
        self.first_game = (previous is None) if first_game is None else first_game
        self.live = live
        self.requested_leader = leader

        self.hands: list[dict[str, int]] = []
        for hand in self.deal:
            h: dict[str, int] = {}
            for c in hand:
                h[c] = h.get(c, 0) + 1
            self.hands.append(h)
        self.count = [36] * 6
        self.out: Counter = Counter()  # cards out of play (革命, elimination, 会3)
        self.n_played = 0  # cards played to the table
        self.state = "pre"
        self.stage = ST_YUDIAN
        self.void = False
        self.pre_events: list[dict] = []
        self.actions: list[dict] = []
        self.version = 0
        self.auto_seats: set[int] = set()  # seats played by a bot (托管) at least once

        # pre-play bookkeeping
        self.revolutionaries: list[int] = []
        self.waived = [False] * 6
        self.declared: list[str | None] = [None] * 6
        self.received_tribute = [Counter() for _ in range(6)]  # 吃了不吐
        self.tribute_kind_seen = -1
        self.owed_pre: list[dict] = [] if previous is None else _owed_from(previous)
        self.paid_pre: Counter = Counter()
        self.tribute_exhausted: set[int] = set()  # givers left with no tribute card
        self.luo_given: list[list] = []  # [from, to, n cards, returned?]
        self.bought = [False] * 6
        self.hui3_done = False
        self.pre_decided: set[tuple[int, int]] = set()  # live prompts answered (stage, seat)
        self.auto_tributes_paid = False

        # play state
        self.leader: int | None = None
        self.active = [True] * 6
        self.n_active = 6
        self.finish_order: list[int] = []
        self.eliminated: list[tuple[int, str]] = []
        self.kaidian: list[bool | None] = [None] * 6
        self.kaidian_closed = False
        self.gousiji_rights = [0] * 6
        self.gousiji_lived = [0] * 6
        self.burns: list[dict] = []
        self.burner: int | None = None
        self.burn_victim: int | None = None
        self.burn_index: int | None = None
        self.smothers: list[int] = []
        self.men_owed: list[tuple[int, int]] = []
        self.agreed: list[int] | None = None
        self.ended_with_team_left = False
        self._reset_round(None)
        self.turn: int | None = None
        self.pending_end = False
        self.last_out: int | None = None
        if live:
            self.start()

    # ------------------------------------------------------------------ helpers
    def _reset_round(self, leader):
        self.top = None
        self.owner = None
        self.top_restricted = False  # played by a yielder after yielding (让牌)
        self.top_unbeatable = False  # 够死级
        self.top_gousiji_right = False  # the unbeatable came from a revolution right
        self.top_gouji = False  # 够级 and played in phase 1 (or a 够死级 answer)
        self.top_burning = False
        self.passed = [False] * 6
        self.yielder = None
        self.yield_returned = False
        self.closer_asked = False
        self.closer_passed = False
        self.closer_waited = False
        self.dipai_right: int | None = None
        self.burn_window = False
        self.turn = leader
        self.leading = True

    def phase2(self) -> bool:
        """四户乱缠: only four (or fewer) seats still play."""
        return self.n_active <= 4

    def _deactivate(self, s: int) -> None:
        if self.active[s]:
            self.active[s] = False
            self.n_active -= 1

    def _no_head(self, s: int) -> bool:
        """无头: the seat's 对头 is out of play and it holds no 够死级 right."""
        o = opp(s)
        if self.active[o]:
            return False
        if self.gousiji_rights[s] > 0 or self.dipai_right == s:
            return False
        return True

    def _entitled(self, s: int) -> bool:
        p = self.owner
        if self.top_unbeatable:
            return False
        if not self.active[s] or s == p:
            return False
        if self.phase2():
            return True
        if self.top_burning:
            return s == opp(p)
        if s == opp(p):
            return True
        if self.passed[s]:
            return False
        if self.top_restricted:
            return False
        if not self.top.gouji:
            return True
        return self._no_head(s) or self._no_head(p)

    def _next_active(self, s: int) -> int:
        for k in range(1, 7):
            x = (s + k) % 6
            if self.active[x]:
                return x
        return s

    # ------------------------------------------------------------------ pre-play
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
            if key in ev and not _is_seat(ev[key]):
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
                self._grant_rights()
            if self.stage == ST_TRIBUTE:
                self._check_tributes_done()
            if self.stage == ST_BUY3:
                self._check_buys_done()
            self.stage += 1

    def _grant_rights(self):
        if self.rules["revolution"]:
            for rv in self.revolutionaries:
                o = opp(rv)
                if o not in self.revolutionaries and not self.waived[o]:
                    self.gousiji_rights[o] = self.rules["revolution_gousiji"]

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
            what = "no 3, no 2 and no joker" if self._bie3 else "no 2 and no joker"
            raise self._pre_error(f"seat {s} cannot revolt: only a seat dealt {what} may", s)
        self.revolutionaries.append(s)
        self._deactivate(s)
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
            if r >= TWO or (self._bie3 and r == 3):
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

    def _take_cards(self, s: int, cards: list[str], what: str, where="pre") -> None:
        need = Counter(cards)
        hand = self.hands[s]
        for c, n in need.items():
            if hand.get(c, 0) < n:
                raise IllegalAction("not_in_hand" if where == "actions" else "bad_pre",
                                    f"seat {s} does not hold {card_word(c)}"
                                    + (f" ({n} needed)" if n > 1 else "") + f" for {what}",
                                    seat=s, where=where)
        for c, n in need.items():
            left = hand[c] - n
            if left:
                hand[c] = left
            else:
                del hand[c]
        self.count[s] -= len(cards)

    def _give_cards(self, s: int, cards: list[str]) -> None:
        hand = self.hands[s]
        for c in cards:
            hand[c] = hand.get(c, 0) + 1
        self.count[s] += len(cards)

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
        return (self._bie3 and self.active[s] and not self.bought[s]
                and self._rank_count(s, 3) == 0 and self._buy_pay_options(s)
                and self._buy_seller(s) is not None)

    def _rank_count(self, s: int, rank: int) -> int:
        return sum(n for c, n in self.hands[s].items() if CARD_RANK[c] == rank)

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
        if not self._bie3:
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
        if not _is_seat(leader):
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
        self._reset_round(leader)
        self.version += 1

    def _default_leader(self) -> int:
        seat = self.requested_leader if self.requested_leader is not None else self.opening_seat
        if self.rules["first_lead"] == "loser":
            seat = self.liang3_leader()
        return seat if self.active[seat] else self._next_active(seat)

    # ------------------------------------------------------------------ play
    def act(self, seat: int, action: dict) -> None:
        """Apply one act by ``seat``; raise :class:`IllegalAction` (changing nothing) if illegal.

        Play acts: ``{"act": "play"|"burn", "cards": [...]}``, ``{"act": "pass"}``,
        ``{"act": "yield"}``. In live pre-play, the acts listed by :meth:`legal_actions`.
        """
        if self.state == "over":
            raise IllegalAction("game_over", "the game is over", seat=seat)
        if not _is_seat(seat):
            raise IllegalAction("bad_format", f"not a seat: {seat!r}")
        if not isinstance(action, dict):
            raise IllegalAction("bad_format", "an act must be an object", seat=seat)
        if self.state == "pre":
            if not self.live:
                raise IllegalAction("bad_pre", "play has not begun", seat=seat)
            self._live_pre_act(seat, action)
            return
        kind = action.get("act")
        allowed = _ACT_KEYS.get(kind) if isinstance(kind, str) else None
        if allowed is None:
            raise IllegalAction("bad_format", f"unknown act {kind!r}: use play, pass, yield or burn",
                                seat=seat)
        extra = [k for k in action if k not in allowed]
        if extra:
            raise IllegalAction("bad_format", f"unknown key {sorted(extra)[0]!r} in a {kind} act",
                                seat=seat)
        if "seat" in action and action["seat"] != seat:
            raise IllegalAction("bad_format", "the act names another seat", seat=seat)
        auto = action.get("auto", False)
        if type(auto) is not bool:
            raise IllegalAction("bad_format", "auto must be true or false", seat=seat)
        if kind == "burn":
            combo, cards = self._combo_from(seat, action)
            self._check_burn(seat, combo, cards)
            self._finalize_pending_if_needed(burn=True)
            self._do_burn(seat, combo, cards)
        else:
            if seat != self.turn:
                raise self._turn_error(seat, kind)
            if kind == "play":
                combo, cards = self._combo_from(seat, action)
                self._check_play(seat, combo, cards)
                self._finalize_pending_if_needed()
                self._do_play(seat, combo, cards)
            elif kind == "pass":
                if self.leading:
                    raise IllegalAction("not_entitled", f"seat {seat} leads this round and must "
                                        f"play a combo; it cannot pass", seat=seat)
                self._do_pass(seat, yielded=False)
            else:
                self._check_yield(seat)
                if self.rules["closer_last"]:
                    self._do_pass(seat, yielded=True)
                else:
                    self._do_yield(seat)
        if kind == "play" or kind == "burn":
            rec = {"seat": seat, "act": kind, "cards": list(combo.cards)}
        else:
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
        if isinstance(cards_in, str):
            cards_in = cards_in.replace(",", " ").split()
        if not isinstance(cards_in, list):
            raise IllegalAction("bad_format", f"a {action.get('act')} act needs a list of cards",
                                seat=seat)
        try:
            cards = [canon_card(c) for c in cards_in]
        except CardError as exc:
            raise IllegalAction("bad_card", f"seat {seat}: {exc}", seat=seat) from None
        hand = self.hands[seat]
        if len(cards) == 1:
            if not hand.get(cards[0]):
                raise IllegalAction("not_in_hand", f"seat {seat} does not hold "
                                    f"{card_word(cards[0])}", seat=seat)
        else:
            need: dict[str, int] = {}
            for c in cards:
                need[c] = need.get(c, 0) + 1
            for c, n in need.items():
                if hand.get(c, 0) < n:
                    have = hand.get(c, 0)
                    raise IllegalAction(
                        "not_in_hand", f"seat {seat} does not hold {card_word(c)}" if not have else
                        f"seat {seat} holds {have} {card_word(c)}, not {n}", seat=seat)
        try:
            combo = combo_of(cards)
        except ComboError as exc:
            raise IllegalAction("bad_combo", f"seat {seat} played {exc}", seat=seat) from None
        return combo, cards

    def _check_three_rule(self, seat, combo, cards):
        if not self._bie3:
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
        self._check_three_rule(seat, combo, cards)
        if self.leading:
            if self.burner == seat and self.rules["strict_burn"] \
                    and len(cards) != self.count[seat]:
                if not combo.has_joker:
                    raise IllegalAction("illegal_burn", f"seat {seat} is burning (烧牌): every "
                                        f"combo it leads must carry a joker until its last",
                                        seat=seat)
                if not self._rest_feasible(seat, cards):
                    raise IllegalAction("illegal_burn", f"seat {seat} is burning (烧牌): after "
                                        f"{cards_words(cards)} it would not hold a joker for "
                                        f"every combo it must still lead", seat=seat)
            return
        if not beats(combo, self.top, self._rj_any):
            raise IllegalAction("does_not_beat", f"seat {seat}'s {cards_words(cards)} does not beat "
                                f"seat {self.owner}'s {cards_words(self.top.cards)}"
                                + _beat_hint(combo, self.top), seat=seat)

    def _check_yield(self, seat):
        if self.leading or self.top is None:
            raise IllegalAction("illegal_yield", f"seat {seat} leads and cannot yield (让牌)",
                                seat=seat)
        p = self.owner
        if self.phase2():
            raise IllegalAction("illegal_yield", f"seat {seat} cannot yield (让牌): nobody yields "
                                f"once four play 四户乱缠", seat=seat)
        if seat != opp(p):
            raise IllegalAction("illegal_yield", f"seat {seat} cannot yield (让牌) on seat {p}'s "
                                f"combo: only seat {opp(p)}, its 对头, may", seat=seat)
        if self.top.gouji or self.top_restricted or self.top_burning or self.top_unbeatable:
            raise IllegalAction("illegal_yield", f"seat {seat} cannot yield on a 够级 or yielded "
                                f"combo", seat=seat)
        if self.yielder is not None:
            raise IllegalAction("illegal_yield", f"seat {seat} has already yielded on this combo",
                                seat=seat)

    def _finalize_pending_if_needed(self, burn=False):
        if self.pending_end and not burn:
            self._end_round()

    def _remove_played(self, seat, cards):
        hand = self.hands[seat]
        for c in cards:
            n = hand[c] - 1
            if n:
                hand[c] = n
            else:
                del hand[c]
        self.count[seat] -= len(cards)
        self.n_played += len(cards)

    def _do_play(self, seat, combo, cards):
        if self.leading:
            if self.burner == seat and not combo.has_joker and len(cards) != self.count[seat]:
                self._failed_burn(seat, cards)
                return
            self._set_top(seat, combo, cards, restricted=False)
            self._after_play(seat)
            return
        restricted = self.yielder == seat
        beaten_owner = self.owner
        if self.top_burning and seat == opp(beaten_owner):
            self.burner = None  # 解烧: the 对头 breaks the burn
        self._set_top(seat, combo, cards, restricted=restricted)
        self._after_beat(seat, beaten_owner)
        self._after_play(seat)

    def _set_top(self, seat, combo, cards, restricted):
        prev_dipai = self.dipai_right
        phase1 = not self.phase2()
        self._remove_played(seat, cards)
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
        if not self._bie3 or beaten is None or not self.active[beaten] or beaten == seat:
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
        self._deactivate(seat)
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
        self._deactivate(seat)
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
        self._reset_round(nxt)

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
        self._check_three_rule(seat, combo, cards)
        if not beats(combo, top, self._rj_any):
            raise IllegalAction("illegal_burn", f"seat {seat}'s {cards_words(cards)} does not beat "
                                f"seat {p}'s {cards_words(top.cards)}, so it cannot burn it"
                                + _beat_hint(combo, top), seat=seat)
        if self.rules["strict_burn"]:
            if not self._rest_feasible(seat, cards):
                raise IllegalAction("illegal_burn", f"seat {seat} cannot burn: after "
                                    f"{cards_words(cards)} it would not hold a joker for every "
                                    f"combo it must still lead (烧牌 conditions)", seat=seat)

    def _rest_feasible(self, seat, cards) -> bool:
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
        if self._bie3 and 3 in ranks:
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
        self._set_top(seat, combo, cards, restricted=False)
        self.top_burning = True
        self._after_beat(seat, p)
        self._after_play(seat)

    def _do_pass(self, seat, yielded):
        self.passed[seat] = True
        self.burn_window = False
        p = self.owner
        if seat == self.dipai_right:
            self.dipai_right = None
        if seat == opp(p) and not self.phase2():
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

    def _advance(self, s):
        o = self.owner
        x = (s + 1) % 6
        while x != o:
            if self.active[x] and self._entitled(x):
                self.turn = x
                return
            x = (x + 1) % 6
        if self.yielder is not None and not self.yield_returned and self.active[self.yielder] \
                and not self.phase2():
            self.yield_returned = True
            self.turn = self.yielder
            return
        c = opp(o)
        if (self.rules["closer_last"] and not self.closer_asked and self.closer_passed
                and self.closer_waited and self.active[c] and not self.phase2()
                and self._entitled(c)):
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
        self._reset_round(nxt)

    def _credit_win(self, w):
        if not self._dadian or self.kaidian_closed or self.top is None \
                or self.kaidian[w] is False:
            return
        if self.top_gousiji_right:
            self.gousiji_lived[w] += 1
            if self.gousiji_lived[w] >= self.rules["revolution_gousiji"] > 0:
                self.kaidian[w] = True
            return
        if opp(w) in self.revolutionaries:
            return
        if self.top_gouji and self.top.n_rj == 0:
            self.kaidian[w] = True

    def _judge_kaidian(self, s):
        """开点 judgments when 头科 or 二科 is produced (大纲 第二十四条: 头科产生前 / 二科产生前)."""
        if not self._dadian:
            return
        if s == self.finish_order[0]:
            for t in (opp(s), s):
                if self.kaidian[t] is not True:
                    self.kaidian[t] = False
        else:
            head = self.finish_order[0]
            for t in range(6):
                if t != head and self.kaidian[t] is not True:
                    self.kaidian[t] = False
            self.kaidian_closed = True

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
                self._deactivate(s)
                self.finish_order.append(s)
        if self._dadian:
            for s in range(6):
                if self.kaidian[s] is None:
                    self.kaidian[s] = False
            for s in self.revolutionaries:
                self.kaidian[s] = False
        self.state = "over"
        self.turn = None
        self.burn_window = False
        self.pending_end = False

    # ------------------------------------------------------------------ results
    def places(self) -> list[int]:
        places = [0] * 6
        taken = set()
        fo = self.finish_order
        if len(self.revolutionaries) == 1:
            rv = self.revolutionaries[0]
            mates = {(rv + 2) % 6, (rv + 4) % 6}
            rp = None
            if fo and fo[0] not in mates:
                rp = 4
            elif len(fo) >= 2:
                rp = 3 if set(fo[:2]) == mates else 4
            elif self.state == "over":
                rp = 4
            if rp is not None:
                places[rv] = rp
                taken.add(rp)
        elim = sorted(range(len(self.eliminated)),
                      key=lambda i: (self.eliminated[i][1] != "failed_burn", i))
        bottom = 6
        for i in elim:
            while bottom in taken:
                bottom -= 1
            places[self.eliminated[i][0]] = bottom
            taken.add(bottom)
        top = 1
        for s in fo:
            while top in taken:
                top += 1
            places[s] = top
            taken.add(top)
        return places

    def is_over(self) -> bool:
        return self.state == "over"

    def result(self) -> dict:
        """The result object of RECORD.md for the game so far."""
        places = self.places()
        complete = self.state == "over"
        order = sorted((s for s in range(6) if places[s]), key=places.__getitem__) if \
            complete else [s for s in sorted(range(6), key=lambda s: places[s] or 9)
                           if places[s]]
        team_points = [0, 0]
        sweep = False
        if complete and not self.void:
            sums = [0, 0]
            for s in range(6):
                sums[s % 2] += PLACE_POINTS[places[s]]
            for t in (0, 1):
                if {places[t], places[t + 2], places[t + 4]} == {1, 2, 3}:
                    sweep = True
                    team_points[t] = 12
            if not sweep:
                team_points = [max(0, sums[0]), max(0, sums[1])]
        res = {
            "ok": True,
            "complete": complete,
            "void": self.void,
            "places": places,
            "order": order,
            "team_points": team_points,
            "sweep": sweep,
            "kaidian": (list(self.kaidian) if self._dadian else [None] * 6),
            "revolutions": list(self.revolutionaries),
            "eliminated": [{"seat": s, "reason": r} for s, r in self.eliminated],
            "burns": [{"burner": b["burner"], "burned": b["burned"], "counter": b["counter"]}
                      for b in self.burns],
            "smothers": list(self.smothers),
            "owed_tributes": self.owed_tributes() if complete else [],
            "next_leader": self.next_leader() if complete else None,
            "to_act": None if complete else self.to_act(),
        }
        return res

    def owed_tributes(self) -> list[dict]:
        """What the next game at this table must pay (RULES.md §9, §11)."""
        if self.void:
            return [dict(t) for t in self.owed_pre]
        if not self.rules["tribute"] or self.state != "over":
            return []
        owed: dict[tuple, int] = {}

        def add(kind, frm, to, n):
            if n > 0:
                owed[(kind, frm, to)] = owed.get((kind, frm, to), 0) + n

        if self._dadian:
            kd = self.kaidian
            mult = 2 if self.rules["fanche_double"] else 1
            for frm in range(6):
                to = opp(frm)
                n = 0
                if kd[frm] is False:
                    n = 1
                    if self.declared[to]:
                        n = 2 if self.declared[to] == "mingdian" else 4
                if self.declared[frm] and kd[to] is True:
                    n += (2 if self.declared[frm] == "mingdian" else 4) * mult
                add("dian", frm, to, n)
        for frm, to in self.men_owed:
            add("men", frm, to, 1)
        for b in self.burns:
            if not b.get("failed"):
                add("shao", b["burned"], b["burner"], 2 if b["counter"] else 1)
        places = self.places()
        sweep = any({places[t], places[t + 2], places[t + 4]} == {1, 2, 3} for t in (0, 1))
        if not sweep:
            at = {places[s]: s for s in range(6)}
            for giver, taker, n in ((6, 1, 2), (5, 2, 1)):
                g, t = at.get(giver), at.get(taker)
                if g is None or t is None:
                    continue
                if g % 2 == t % 2 and not self.rules["tribute_within_team"]:
                    continue
                add("luo", g, t, n)
        order = {k: i for i, k in enumerate(TRIBUTE_KINDS)}
        return [{"kind": k, "from": f, "to": t, "count": n}
                for (k, f, t), n in sorted(owed.items(), key=lambda kv: order[kv[0][0]])]

    def next_leader(self) -> int | None:
        if self.void:
            return self.leader if self.leader is not None else self.expected_leader()
        if self.rules["first_lead"] == "rotate":
            base = self.leader if self.leader is not None else self.opening_seat
            return (base + 1) % 6
        places = self.places()
        if any({places[t], places[t + 2], places[t + 4]} == {1, 2, 3} for t in (0, 1)):
            return None  # after 串三户 the next game is opened afresh (亮3)
        return places.index(6)

    # ------------------------------------------------------------------ live interface
    def to_act(self) -> dict | None:
        if self.state == "over":
            return None
        if self.state == "pre":
            prompt = self.pre_prompt() if self.live else None
            if prompt is None:
                return None
            seat, _options = prompt
            return {"seat": seat, "acts": list(_STAGE_ACTS[self.stage])}
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
            if any(True for _ in self._plays(s, self.top, burn=True)):
                out.append(s)
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
            if self.leading:
                out.extend({"act": "play", "cards": c} for c in self._plays(seat, None))
            else:
                out.extend({"act": "play", "cards": c} for c in self._plays(seat, self.top))
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
                           for c in self._plays(seat, self.top, burn=True))
        return out

    def _plays(self, seat, top, burn=False):
        """Generate legal combos (as card lists) for ``seat``: leads when ``top`` is None."""
        hand = self.hands[seat]
        if not hand:
            return
        by_rank: dict[int, list[str]] = {}
        for c in sorted(hand, key=CARD_ORDER.__getitem__):
            by_rank.setdefault(CARD_RANK[c], []).extend([c] * hand[c])
        twos = by_rank.pop(TWO, [])
        bjs = by_rank.pop(BJ, [])
        rjs = by_rank.pop(RJ, [])
        total = self.count[seat]
        strict = self.rules["strict_burn"]
        burning_lead = top is None and self.burner == seat and strict
        size = top.size if top is not None else None
        bie3 = self._bie3
        rank_floor = top.rank if top is not None else 0
        for rank, cards in by_rank.items():
            if bie3 and rank == 3:
                if top is None and len(cards) == total:
                    yield list(cards)
                continue
            if top is not None and rank <= rank_floor and not self._rj_any:
                continue
            yield from self._extend(cards, twos, bjs, rjs, size, top, burning_lead, total, burn,
                                    seat)
        if twos:
            yield from self._extend(twos, [], bjs, rjs, size, top, burning_lead, total, burn, seat)
        for b in range(len(bjs) + 1):
            for j in range(len(rjs) + 1):
                if b + j == 0 or (size is not None and b + j != size):
                    continue
                cards = bjs[:b] + rjs[:j]
                if self._acceptable(cards, top, burning_lead, total, burn, seat):
                    yield cards

    def _extend(self, base, twos, bjs, rjs, size, top, burning_lead, total, burn, seat):
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
                        if self._acceptable(cards, top, burning_lead, total, burn, seat):
                            yield cards

    def _acceptable(self, cards, top, burning_lead, total, burn, seat):
        combo = combo_of(cards)
        if top is not None and not beats(combo, top, self._rj_any):
            return False
        if burning_lead and len(cards) != total and (
                not combo.has_joker or not self._rest_feasible(seat, cards)):
            return False
        if burn and self.rules["strict_burn"] and not self._rest_feasible(seat, cards):
            return False
        return True

    # ------------------------------------------------------------------ live pre-play
    def pre_prompt(self):
        """``(seat, [acts])`` for the next live pre-play decision, paying automatic tributes and
        closing finished stages on the way; ``None`` once play can begin."""
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

    # ------------------------------------------------------------------ views & state
    def view(self, seat: int | None) -> dict:
        """What ``seat`` may see (``None``: a spectator): its own cards, others' counts per
        ``show_counts`` (报牌), the table, whose turn, its legal acts."""
        le10 = self.rules["show_counts"] == "le10"
        counts = []
        for s in range(6):
            n = self.count[s]
            counts.append("10+" if le10 and n > 10 and s != seat else n)
        v = {
            "seat": seat,
            "state": self.state,
            "version": self.version,
            "rules": self.rules.spec(),
            "counts": counts,
            "top": None if self.top is None else {"seat": self.owner, "cards": list(self.top.cards)},
            "to_act": self._public_to_act(),
            "burn_window": bool(self.state == "play" and self.burn_window and not self.phase2()),
            "leader": self.leader,
            "finished": list(self.finish_order) if self.state != "over" else None,
            "revolutions": list(self.revolutionaries),
            "declared": list(self.declared),
            "public_pre": [_public_event(e) for e in self.pre_events],
            "actions": list(self.actions),
        }
        if seat is not None:
            v["hand"] = sort_cards(c for c, n in self.hands[seat].items() for _ in range(n))
            v["legal"] = self.legal_actions(seat)
        if self.state == "over":
            v["result"] = self.result()
        return v

    def _public_to_act(self) -> dict | None:
        """Whose turn and which kinds of act, without ``burners`` (who could burn depends on
        hidden cards; a seat sees its own burns in its legal acts)."""
        to_act = self.to_act()
        if to_act is not None:
            to_act.pop("burners", None)
        return to_act

    def record(self) -> dict:
        """The game record so far (RECORD.md ``gouji-record/1``)."""
        rec = {
            "format": "gouji-record/1",
            "rules": self.rules.spec(),
            "opening_seat": self.opening_seat,
            "previous": self.previous,
            "deal": [list(h) for h in self.deal],
            "pre": [dict(e) for e in self.pre_events],
            "leader": self.leader,
            "actions": [dict(a) for a in self.actions],
        }
        if self.agreed is not None:
            rec["agreed"] = list(self.agreed)
        return rec

    def to_state(self) -> dict:
        """A JSON-serialisable state; :meth:`from_state` rebuilds the same game exactly."""
        return {
            "format": "gouji-state/1",
            "record": self.record(),
            "live": self.live,
            "first_game": self.first_game,
            "requested_leader": self.requested_leader,
            "pre_decided": sorted([list(x) for x in self.pre_decided]),
            "auto_seats": sorted(self.auto_seats),
            "auto_tributes_paid": self.auto_tributes_paid,
            "version": self.version,
        }

    @classmethod
    def from_state(cls, state: dict) -> Game:
        """Rebuild a game from :meth:`to_state` output by replaying its record."""
        if isinstance(state, str):
            state = json.loads(state)
        rec = state["record"]
        g = cls(rec["rules"], rec["deal"], rec.get("previous"), rec.get("opening_seat", 0),
                state.get("requested_leader"), first_game=state.get("first_game"), live=False)
        for ev in rec["pre"]:
            g.apply_pre_event(ev)
        g.auto_tributes_paid = state.get("auto_tributes_paid", False)
        g.pre_decided = {tuple(x) for x in state.get("pre_decided", [])}
        if rec.get("agreed") is not None:
            g.agreed = list(rec["agreed"])
        if rec.get("leader") is not None and g.state == "pre":
            g.begin_play(rec["leader"])
        for a in rec["actions"]:
            g.act(a["seat"], a)
        g.live = state.get("live", True)
        if g.live and g.state == "pre":
            g.pre_prompt()  # close the stages already answered, as the live game had
        g.auto_seats = set(state.get("auto_seats", []))
        g.version = state.get("version", g.version)
        return g

    def card_total(self) -> int:
        """Cards in hands + played + out of play: always 216 (conservation check)."""
        return sum(self.count) + self.n_played + sum(self.out.values())


def _public_event(ev: dict) -> dict:
    """Pre-play events as everyone sees them: tribute cards are shown at the table (003: 所有
    玩家吃的贡牌和还的牌都要显示出来), so they are public."""
    return dict(ev)


#: the acts a live pre-play stage asks for, as everyone may see them (a seat's own options,
#: e.g. whether it may revolt, show only in its own legal acts)
_STAGE_ACTS = {ST_YUDIAN: ("declare", "decline"), ST_REVOLT: ("decline", "revolt"),
               ST_WAIVE: ("decline", "waive_gousiji"), ST_TRIBUTE: ("return",),
               ST_BUY3: ("buy3",), ST_MINGDIAN: ("declare", "decline"),
               ST_HUI3: ("decline", "hui3")}

_ACT_KEYS = {"play": {"act", "cards", "seat", "auto"}, "burn": {"act", "cards", "seat", "auto"},
             "pass": {"act", "seat", "auto"}, "yield": {"act", "seat", "auto"}}

_STAGE_WORD = {ST_YUDIAN: "预点", ST_REVOLT: "革命", ST_WAIVE: "够死级 waiver",
               ST_TRIBUTE: "进贡/还贡", ST_BUY3: "买3", ST_MINGDIAN: "明点", ST_HUI3: "会3",
               ST_PLAY: "play"}


def _beat_hint(play, top) -> str:
    if play.size != top.size:
        return f" (it must have {top.size} cards, not {play.size})"
    if top.kind == BIG_ATTACHED:
        return " (nothing beats a combo with a 大王 attached)"
    if play.rank <= top.rank:
        return " (its rank must be higher)"
    if top.kind == "bj":
        return (f" (a combo with 小王 attached is beaten only with 大王 attached, at least "
                f"{top.n_bj} of them)")
    return ""


RESULT_KEYS = {"ok", "complete", "void", "places", "order", "team_points", "sweep", "kaidian",
               "revolutions", "eliminated", "burns", "smothers", "owed_tributes", "next_leader",
               "to_act"}


def _owed_from(previous) -> list[dict]:
    """Check ``previous`` (the result of the table's previous game) and read what it owes."""
    if not isinstance(previous, dict):
        raise IllegalAction("bad_format", "previous must be a result object", where="deal")
    extra = [k for k in previous if k not in RESULT_KEYS]
    if extra:
        raise IllegalAction("bad_format", f"unknown key in previous: {sorted(map(str, extra))[0]!r}",
                            where="deal")
    if previous.get("ok") is False or previous.get("complete") is False:
        raise IllegalAction("bad_format", "previous must be the result of a finished game",
                            where="deal")
    nl = previous.get("next_leader")
    if nl is not None and not _is_seat(nl):
        raise IllegalAction("bad_format", "previous.next_leader must be a seat 0 to 5 or null",
                            where="deal")
    if type(previous.get("void", False)) is not bool:
        raise IllegalAction("bad_format", "previous.void must be true or false", where="deal")
    owed = previous.get("owed_tributes")
    if owed is None:
        owed = []
    if not isinstance(owed, list):
        raise IllegalAction("bad_format", "previous.owed_tributes must be a list", where="deal")
    out = []
    for t in owed:
        if not isinstance(t, dict) or set(t) != {"kind", "from", "to", "count"} \
                or t["kind"] not in TRIBUTE_KINDS or not _is_seat(t["from"]) \
                or not _is_seat(t["to"]) or type(t["count"]) is not int or not 0 < t["count"] < 100:
            raise IllegalAction("bad_format", "previous.owed_tributes holds a malformed entry: "
                                "each is {\"kind\", \"from\", \"to\", \"count\"}", where="deal")
        out.append({"kind": t["kind"], "from": t["from"], "to": t["to"], "count": t["count"]})
    return out


_FULL_SET = Counter(full_set())


def _check_deal(deal) -> list[list[str]]:
    if not isinstance(deal, list | tuple) or len(deal) != 6:
        raise IllegalAction("bad_deal", "the deal must be six hands", where="deal")
    hands = []
    total: Counter = Counter()
    for s, hand in enumerate(deal):
        if isinstance(hand, str):
            hand = hand.replace(",", " ").split()
        if not isinstance(hand, list | tuple):
            raise IllegalAction("bad_deal", f"seat {s}'s hand must be a list of cards",
                                where="deal")
        try:
            cards = [canon_card(c) for c in hand]
        except CardError as exc:
            raise IllegalAction("bad_card", f"seat {s}'s hand: {exc}", where="deal") from None
        if len(cards) != 36:
            raise IllegalAction("bad_deal", f"seat {s} was dealt {len(cards)} cards, not 36",
                                where="deal")
        total.update(cards)
        hands.append(cards)
    if total != _FULL_SET:
        wrong = sorted((c for c in set(total) | set(full_set()) if total[c] != 4),
                       key=CARD_ORDER.__getitem__)
        c = wrong[0]
        raise IllegalAction("bad_deal", f"the deal is not one four-deck set: {card_word(c)} "
                            f"appears {total[c]} times, not 4", where="deal")
    return hands
