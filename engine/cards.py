"""Cards, combos (一套牌) and the beating rule (上牌).

Cards are canonical strings: rank then suit (``3S``, ``10H``, ``QD``, ``2C``), and ``BJ`` (小王,
small joker) / ``RJ`` (大王, big joker). See RULES.md §2–§3.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

SUITS = ("S", "H", "D", "C")
RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
#: Rank values: 3..10 as themselves, J=11, Q=12, K=13, A=14, 2=15, 小王=16, 大王=17.
RANK_VALUE = {name: i + 3 for i, name in enumerate(RANK_NAMES)}
TWO = 15
BJ = 16
RJ = 17
RANK_WORD = {v: k for k, v in RANK_VALUE.items()}
RANK_WORD[BJ] = "小王"
RANK_WORD[RJ] = "大王"

ALL_CARDS = tuple(f"{r}{s}" for r in RANK_NAMES for s in SUITS) + ("BJ", "RJ")
#: card string -> rank value
CARD_RANK: dict[str, int] = {c: RANK_VALUE[c[:-1]] for c in ALL_CARDS[:-2]}
CARD_RANK["BJ"] = BJ
CARD_RANK["RJ"] = RJ
#: sort key: rank, then suit order S H D C
CARD_ORDER = {c: i for i, c in enumerate(ALL_CARDS)}

_SUIT_ALIASES = {"S": "S", "H": "H", "D": "D", "C": "C", "♠": "S", "♥": "H", "♦": "D", "♣": "C"}
_JOKER_ALIASES = {"BJ": "BJ", "RJ": "RJ", "小王": "BJ", "大王": "RJ"}
_CANON: dict[str, str] = {}


class CardError(ValueError):
    """A string that is not a card."""


class ComboError(ValueError):
    """Cards that do not form one combo (一套牌)."""


def canon_card(text: str) -> str:
    """Return the canonical form of one card, or raise :class:`CardError`."""
    try:
        return _CANON[text]
    except (KeyError, TypeError):
        pass
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r}")
    raw = text.strip()
    up = raw.upper()
    if up in _JOKER_ALIASES or raw in _JOKER_ALIASES:
        out = _JOKER_ALIASES.get(up) or _JOKER_ALIASES[raw]
    else:
        if len(up) < 2:
            raise CardError(f"not a card: {text!r}")
        suit = _SUIT_ALIASES.get(up[-1])
        rank = up[:-1]
        if rank == "T":
            rank = "10"
        if suit is None or rank not in RANK_VALUE:
            raise CardError(f"not a card: {text!r}")
        out = rank + suit
    if len(_CANON) < 10_000:
        _CANON[text] = out
    return out


for _c in ALL_CARDS:
    _CANON[_c] = _c


def parse_cards(cards: str | Iterable[str]) -> list[str]:
    """Parse ``"3S 10H BJ"`` (spaces or commas) or a list of card strings into canonical cards."""
    if isinstance(cards, str):
        items = cards.replace(",", " ").split()
    else:
        try:
            items = list(cards)
        except TypeError:
            raise CardError(f"not a list of cards: {cards!r}") from None
    return [canon_card(c) for c in items]


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=CARD_ORDER.__getitem__)


def card_word(card: str) -> str:
    """A card in a referee's words: ``10H`` -> ``10♥``, ``BJ`` -> ``小王``."""
    if card == "BJ":
        return "小王"
    if card == "RJ":
        return "大王"
    return card[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card[-1]]


def cards_words(cards: Iterable[str]) -> str:
    return " ".join(card_word(c) for c in sort_cards(cards))


PLAIN, SMALL_ATTACHED, BIG_ATTACHED = "plain", "bj", "rj"


class Combo:
    """One play: ``N`` cards of one base rank plus attached 2s (贴钱) and jokers (挂花).

    ``kind`` is ``plain``, ``bj`` (小王-attached) or ``rj`` (大王-attached) — RULES.md §3.
    """

    __slots__ = ("cards", "size", "rank", "kind", "n_bj", "n_rj", "n_two", "gouji", "counts")

    def __init__(self, cards, size, rank, kind, n_bj, n_rj, n_two):
        self.cards = cards
        self.size = size
        self.rank = rank
        self.kind = kind
        self.n_bj = n_bj
        self.n_rj = n_rj
        self.n_two = n_two
        self.gouji = gouji_of(rank, size, n_bj + n_rj)
        # each distinct card with its copies, in card order: what a hand must hold to play it
        counts: dict[str, int] = {}
        for c in cards:
            counts[c] = counts.get(c, 0) + 1
        self.counts = tuple(counts.items())

    @property
    def has_joker(self) -> bool:
        return self.n_bj + self.n_rj > 0

    def __repr__(self) -> str:
        return f"Combo({' '.join(self.cards)})"

    def __eq__(self, other):
        return isinstance(other, Combo) and self.cards == other.cards

    def __hash__(self):
        return hash(self.cards)

    def words(self) -> str:
        return describe(self)


def gouji_of(rank: int, size: int, jokers: int) -> bool:
    """Is a combo of base ``rank`` with ``size`` cards and ``jokers`` jokers 够级 (RULES.md §3)?"""
    if jokers or rank >= TWO:
        return True
    if rank == 14 or rank == 13:
        return size >= 2
    if rank == 12:
        return size >= 3
    if rank == 11:
        return size >= 4
    if rank == 10:
        return size >= 5
    return False


def describe(combo: Combo) -> str:
    """The combo's cards in a referee's words, e.g. ``K♠ K♥ 2♦``."""
    return cards_words(combo.cards)


#: combos made so far, by their cards in card order: a play already in that order (as records
#: and combos hold them) is looked up here before :func:`combo_of` sorts it
COMBOS: dict[tuple, Combo] = {}


def combo_of(cards: list[str]) -> Combo:
    """Build a combo from canonical cards, or raise :class:`ComboError`."""
    got = COMBOS.get(tuple(cards))  # cards in card order, as records and combos hold them
    if got is not None:
        return got
    key = tuple(sorted(cards, key=CARD_ORDER.__getitem__))
    got = COMBOS.get(key)
    if got is not None:
        return got
    if not key:
        raise ComboError("a play needs at least one card")
    base = 0
    n_bj = n_rj = n_two = 0
    for c in key:
        r = CARD_RANK[c]
        if r == BJ:
            n_bj += 1
        elif r == RJ:
            n_rj += 1
        elif r == TWO:
            n_two += 1
        elif base == 0:
            base = r
        elif r != base:
            raise ComboError(
                f"{cards_words(key)} is not one combo: it mixes {RANK_WORD[base]} and {RANK_WORD[r]}"
            )
    size = len(key)
    if base == 0:
        if n_two:
            base = TWO
        elif n_bj and n_rj:
            base = BJ
        elif n_bj:  # only 小王s: base rank 小王, plain
            combo = Combo(key, size, BJ, PLAIN, n_bj, 0, 0)
            _cache(key, combo)
            return combo
        else:  # only 大王s
            combo = Combo(key, size, RJ, PLAIN, 0, n_rj, 0)
            _cache(key, combo)
            return combo
    if n_rj and size > n_rj:
        kind = BIG_ATTACHED
    elif n_bj and size > n_bj:
        kind = SMALL_ATTACHED
    else:
        kind = PLAIN
    combo = Combo(key, size, base, kind, n_bj, n_rj, n_two)
    _cache(key, combo)
    return combo


def _cache(key, combo):
    if len(COMBOS) < 200_000:
        COMBOS[key] = combo


def parse_combo(cards: str | Iterable[str]) -> Combo:
    """Parse cards into a :class:`Combo`; raises :class:`ComboError` (a ``ValueError``)."""
    try:
        parsed = parse_cards(cards)
    except CardError as exc:
        raise ComboError(str(exc)) from None
    return combo_of(parsed)


def can_beat(play, top, rules=None) -> bool:
    """Does combo ``play`` beat combo ``top`` (RULES.md §3, 上牌)?

    ``rules`` may be a :class:`engine.rules.Rules` or a dict of options; only ``rj_beats_any``
    matters here.
    """
    if not isinstance(play, Combo):
        play = parse_combo(play)
    if not isinstance(top, Combo):
        top = parse_combo(top)
    rj_any = False
    if rules is not None:
        rj_any = bool(rules.get("rj_beats_any", False))
    return beats(play, top, rj_any)


def beats(play: Combo, top: Combo, rj_beats_any: bool = False) -> bool:
    if play.size != top.size or top.kind == BIG_ATTACHED:
        return False
    if rj_beats_any and play.kind == BIG_ATTACHED:
        return top.kind == PLAIN or play.n_rj >= top.n_bj
    if play.rank <= top.rank:
        return False
    if top.kind == SMALL_ATTACHED:
        return play.kind == BIG_ATTACHED and play.n_rj >= top.n_bj
    return True


def beat_hint(play: Combo, top: Combo) -> str:
    """Why ``play`` does not beat ``top``, as a clause for an error message ("" if no reason
    beyond the rule itself)."""
    if play.size != top.size:
        return f" (it must have {top.size} cards, not {play.size})"
    if top.kind == BIG_ATTACHED:
        return " (nothing beats a combo with a 大王 attached)"
    if play.rank <= top.rank:
        return " (its rank must be higher)"
    if top.kind == SMALL_ATTACHED:
        return (f" (a combo with 小王 attached is beaten only with 大王 attached, at least "
                f"{top.n_bj} of them)")
    return ""


def is_gouji(combo) -> bool:
    """Is the combo a 够级 combo (够级牌, RULES.md §3)?"""
    if not isinstance(combo, Combo):
        combo = parse_combo(combo)
    return combo.gouji


def full_set() -> list[str]:
    """The 216 cards of four decks with jokers (4 × 54)."""
    return [c for c in ALL_CARDS for _ in range(4)]


def deal(rng=None) -> list[list[str]]:
    """Deal a full four-deck set to six seats, 36 each, using ``rng`` (a ``random.Random``-like
    object with ``shuffle``; ``secrets.SystemRandom()`` for live games). Hands come sorted."""
    if rng is None:
        import secrets

        rng = secrets.SystemRandom()
    elif isinstance(rng, int):
        rng = random.Random(rng)
    cards = full_set()
    rng.shuffle(cards)
    return [sort_cards(cards[i * 36 : (i + 1) * 36]) for i in range(6)]

