"""The state of one game: who holds what, who still plays, the round on the table; and the
checks of a game's inputs (the deal, the previous game's result).

Every attribute of a :class:`~engine.game.Game` is set here, in :meth:`GameState.__init__`; the
other modules of this package hold the rules that change them.

Seats are ``0..5``; team of seat ``s`` is ``s % 2``; its 对头 (opposite) is ``(s + 3) % 6``.
Short names in hot paths: ``opp`` = 对头, ``top`` = the last combo of the round.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

from ..cards import CARD_ORDER, CARD_RANK, CardError, canon_card, card_word, full_set
from ..cards import deal as deal_cards
from ..errors import IllegalAction
from ..rules import Rules

# pre-play stages, in the order of RULES.md §4.2
ST_YUDIAN, ST_REVOLT, ST_WAIVE, ST_TRIBUTE, ST_BUY3, ST_MINGDIAN, ST_HUI3, ST_PLAY = range(8)

TRIBUTE_KINDS = ("dian", "men", "shao", "luo")
TRIBUTE_WORD = {"dian": "点贡", "men": "闷贡", "shao": "烧贡", "luo": "落贡"}

#: the keys of a result object (RECORD.md), the shape of a game's ``previous``
RESULT_KEYS = {"ok", "complete", "void", "places", "order", "team_points", "sweep", "kaidian",
               "revolutions", "eliminated", "burns", "smothers", "owed_tributes", "next_leader",
               "to_act"}


def opp(s: int) -> int:
    """The 对头 (opposite seat) of ``s``."""
    return (s + 3) % 6


def is_seat(x) -> bool:
    return type(x) is int and 0 <= x <= 5


class GameState:
    """The data of a game from the deal to the last place, and the moves of cards between
    hands; the rules that drive it are in the mixins :class:`~engine.game.Game` combines."""

    def __init__(self, rules=None, deal=None, previous=None, opening_seat: int = 0,
                 leader: int | None = None, *, first_game: bool | None = None,
                 live: bool = True):
        self.rules = Rules.from_spec(rules)
        r = self.rules
        # options read in hot paths, as plain attributes (``rules[...]`` is a method call)
        self.bie3 = r["bie3"]
        self._dadian = r["dadian"]
        self.rj_beats_any = r["rj_beats_any"]
        self.closer_last = r["closer_last"]
        if deal is None:
            deal = deal_cards()
        self.deal = check_deal(deal)
        if not is_seat(opening_seat):
            raise IllegalAction("bad_format", "opening_seat must be a seat number 0 to 5",
                                where="deal")
        self.opening_seat = opening_seat
        self.previous = previous
        self.first_game = (previous is None) if first_game is None else first_game
        self.live = live
        self.requested_leader = leader

        self.hands: list[dict[str, int]] = []
        # per seat: (the hand dict it was made from, {rank: cards}); see cards_by_rank
        self._rank_view: list[tuple | None] = [None] * 6
        #: per seat: (its hand, its :attr:`_rank_view` entry, :meth:`sorted_hand`'s list of it)
        self._sorted: list[tuple | None] = [None] * 6
        for hand in self.deal:
            self.hands.append(dict(Counter(hand)))  # cards in the order first dealt
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
        self.owed_pre: list[dict] = [] if previous is None else read_previous(previous)
        self.paid_pre: Counter = Counter()
        self.tribute_exhausted: set[int] = set()  # givers left with no tribute card
        self.luo_given: list[list] = []  # [from, to, n cards, returned?]
        self.bought = [False] * 6
        self.hui3_done = False
        self.pre_decided: set[tuple[int, int]] = set()  # live prompts answered (stage, seat)
        self._prompt_memo: tuple | None = None  # (state key, the last live pre-play prompt)
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
        self.start_round(None)
        self.turn: int | None = None
        self.pending_end = False
        self.last_out: int | None = None
        if live:
            self.start()

    # ------------------------------------------------------------------ rounds, seats and hands
    def start_round(self, leader: int | None) -> None:
        """A new round (一圈): nothing on the table, ``leader`` (if any) to lead."""
        self.top = None
        self.owner = None
        self.top_restricted = False  # played by a yielder after yielding (让牌)
        self.top_unbeatable = False  # 够死级
        self.top_gousiji_right = False  # the unbeatable came from a revolution right
        self.top_gouji = False  # 够级 and played in phase 1 (or a 够死级 answer)
        self.top_burning = False
        self.top_answers_dipai = False  # played on a finished seat's last combo (底牌)
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

    def deactivate(self, s: int) -> None:
        """Seat ``s`` stops playing (finished, eliminated or revolted)."""
        if self.active[s]:
            self.active[s] = False
            self.n_active -= 1

    def _next_active(self, s: int) -> int:
        for k in range(1, 7):
            x = (s + k) % 6
            if self.active[x]:
                return x
        return s

    def cards_by_rank(self, s: int) -> dict[int, list[str]]:
        """Seat ``s``'s cards grouped by rank, ranks ascending (3 … A, then 2, 小王, 大王), each
        rank's cards in suit order with their copies. Shared and cached until the hand changes:
        callers must not modify it."""
        hand = self.hands[s]
        got = self._rank_view[s]
        if got is not None and got[0] is hand:
            return got[1]
        ranks: dict[int, list[str]] = {}
        for c in sorted(hand, key=CARD_ORDER.__getitem__):
            n = hand[c]
            r = CARD_RANK[c]
            cs = ranks.get(r)
            if cs is None:
                ranks[r] = [c] * n
            else:
                cs.extend([c] * n)
        self._rank_view[s] = (hand, ranks)
        return ranks

    def sorted_hand(self, s: int) -> list[str]:
        """Seat ``s``'s cards in card order (:func:`~engine.cards.sort_cards`), as a new list:
        :meth:`cards_by_rank`, kept until the hand changes, laid end to end, and that kept too.
        A seat's view shows it after every act of the game, and five seats of six hold the same
        cards as before (sorting each hand anew was 3 % of a live stream server's samples,
        laying the ranks end to end anew 2 %: py-spy of ``bench_live --streams 10000``)."""
        hand = self.hands[s]
        got = self._sorted[s]
        if got is None or got[0] is not hand or got[1] is not self._rank_view[s]:
            ranks = self.cards_by_rank(s)
            got = self._sorted[s] = (hand, self._rank_view[s],
                                     [c for cards in ranks.values() for c in cards])
        return got[2].copy()

    def _take_cards(self, s: int, cards: list[str], what: str, where="pre") -> None:
        self._rank_view[s] = None
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
        self._rank_view[s] = None
        hand = self.hands[s]
        for c in cards:
            hand[c] = hand.get(c, 0) + 1
        self.count[s] += len(cards)

    def _rank_count(self, s: int, rank: int) -> int:
        hand = self.hands[s]
        n = 0
        for c in RANK_CARDS[rank]:
            n += hand.get(c, 0)
        return n

    def _remove_played(self, seat, combo):
        """Take ``combo``'s cards out of the seat's hand (its cards by rank follow)."""
        hand = self.hands[seat]
        counts = combo.counts
        for c, n in counts:
            left = hand[c] - n
            if left:
                hand[c] = left
            else:
                del hand[c]
        self.count[seat] -= combo.size
        self.n_played += combo.size
        view = self._rank_view[seat]
        if view is not None and view[0] is hand:
            # a new view: the played ranks' lists are copied and the cards taken out (a card's
            # copies sit together in its rank's list)
            old = view[1]
            ranks = dict(old)
            for c, n in counts:
                r = CARD_RANK[c]
                cs = ranks[r]
                if len(cs) == n:
                    del ranks[r]
                    continue
                if cs is old[r]:
                    cs = ranks[r] = list(cs)
                k = cs.index(c)
                del cs[k:k + n]
            self._rank_view[seat] = (hand, ranks)

    def is_over(self) -> bool:
        return self.state == "over"

    def card_total(self) -> int:
        """Cards in hands + played + out of play: always 216 (conservation check)."""
        return sum(self.count) + self.n_played + sum(self.out.values())



def read_previous(previous) -> list[dict]:
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
    if nl is not None and not is_seat(nl):
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
                or t["kind"] not in TRIBUTE_KINDS or not is_seat(t["from"]) \
                or not is_seat(t["to"]) or type(t["count"]) is not int or not 0 < t["count"] < 100:
            raise IllegalAction("bad_format", "previous.owed_tributes holds a malformed entry: "
                                "each is {\"kind\", \"from\", \"to\", \"count\"}", where="deal")
        out.append({"kind": t["kind"], "from": t["from"], "to": t["to"], "count": t["count"]})
    return out


_FULL_SET = Counter(full_set())

#: rank -> its cards in suit order (小王 and 大王: one card each)
RANK_CARDS: dict[int, tuple[str, ...]] = {}
for _c in CARD_ORDER:
    RANK_CARDS[CARD_RANK[_c]] = RANK_CARDS.get(CARD_RANK[_c], ()) + (_c,)

#: canonical card -> itself: the fast path of reading cards that are already canonical
CANONICAL_CARDS: dict[str, str] = {c: c for c in CARD_ORDER}


def check_deal(deal) -> list[list[str]]:
    """The deal as six lists of canonical cards, or :class:`IllegalAction` (``bad_deal``)."""
    if not isinstance(deal, list | tuple) or len(deal) != 6:
        raise IllegalAction("bad_deal", "the deal must be six hands", where="deal")
    hands = []
    for s, hand in enumerate(deal):
        if isinstance(hand, str):
            hand = hand.replace(",", " ").split()
        if not isinstance(hand, list | tuple):
            raise IllegalAction("bad_deal", f"seat {s}'s hand must be a list of cards",
                                where="deal")
        try:
            # canonical cards (as records hold them) are taken as they are
            cards = list(hand) if CANONICAL_CARDS.keys() >= set(hand) else [
                CANONICAL_CARDS[c] for c in hand]
        except (KeyError, TypeError):
            try:
                cards = [canon_card(c) for c in hand]
            except CardError as exc:
                raise IllegalAction("bad_card", f"seat {s}'s hand: {exc}",
                                    where="deal") from None
        if len(cards) != 36:
            raise IllegalAction("bad_deal", f"seat {s} was dealt {len(cards)} cards, not 36",
                                where="deal")
        hands.append(cards)
    total = Counter(chain.from_iterable(hands))
    if len(total) != 54 or any(n != 4 for n in total.values()):
        wrong = sorted((c for c in set(total) | set(full_set()) if total[c] != 4),
                       key=CARD_ORDER.__getitem__)
        c = wrong[0]
        raise IllegalAction("bad_deal", f"the deal is not one four-deck set: {card_word(c)} "
                            f"appears {total[c]} times, not 4", where="deal")
    return hands
