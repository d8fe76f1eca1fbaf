"""Verifiable deals: a deal derived from a secret seed and the game's identity, and the
commitment to it that the service publishes before the game starts.

The method (documented for anyone re-deriving a deal, RULES.md-style docs of the service):

1. The pack is :func:`engine.cards.full_set` — the 216 cards of four decks in their fixed order.
2. A byte stream is ``HMAC-SHA256(key=seed, message=label ‖ ":" ‖ counter)`` for counter
   0, 1, 2, … (the counter as decimal ASCII), the 32-byte blocks concatenated. The seed is 32
   random bytes, written as 64 lowercase hex digits; the label names the game
   (e.g. ``gouji/event/12/round/3/table/45/game/1``).
3. The pack is shuffled with Fisher–Yates from the last place down: for place ``i`` a
   uniform ``j`` in ``0 … i`` is drawn from the stream 4 bytes at a time (big-endian),
   rejecting values at or above the largest multiple of ``i + 1`` below 2³², so no card is
   more likely than another in any place.
4. Seat ``s`` (0–5) gets cards ``36·s … 36·s + 35`` of the shuffled pack, sorted.

The commitment is ``SHA-256("gouji-deal:" ‖ label ‖ ":" ‖ seed-hex)`` in hex: published before
the deal is played, it binds the service to a seed it cannot change afterwards, and reveals
nothing of the cards; once the seed is revealed anyone can check both the commitment and the
deal (``python -m engine deal --seed … --label …``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .cards import full_set, sort_cards

SEED_BYTES = 32


def new_seed() -> str:
    """A fresh secret seed: 32 bytes from the operating system's generator, as hex."""
    return secrets.token_hex(SEED_BYTES)


def _seed_bytes(seed: str) -> bytes:
    try:
        raw = bytes.fromhex(seed)
    except ValueError:
        raise ValueError("a deal's seed is 64 hexadecimal digits") from None
    if len(raw) != SEED_BYTES:
        raise ValueError("a deal's seed is 64 hexadecimal digits")
    return raw


def commitment(seed: str, label: str) -> str:
    """The published commitment to the deal of ``label`` from ``seed`` (hex SHA-256)."""
    _seed_bytes(seed)
    return hashlib.sha256(f"gouji-deal:{label}:{seed.lower()}".encode()).hexdigest()


class _Stream:
    """The HMAC-SHA256 counter-mode byte stream of step 2, read 4 bytes at a time."""

    def __init__(self, seed: str, label: str):
        self._key = _seed_bytes(seed)
        self._label = label.encode()
        self._counter = 0
        self._buffer = b""

    def uint32(self) -> int:
        while len(self._buffer) < 4:
            block = hmac.new(self._key, self._label + b":" + str(self._counter).encode(),
                             hashlib.sha256).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:4], self._buffer[4:]
        return int.from_bytes(out, "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``0 … n-1`` (rejection sampling, step 3)."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            x = self.uint32()
            if x < limit:
                return x % n


def derive_deal(seed: str, label: str) -> list[list[str]]:
    """The six hands (36 cards each, sorted) of the deal of ``label`` from ``seed``."""
    stream = _Stream(seed, label)
    cards = full_set()
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return [sort_cards(cards[s * 36:(s + 1) * 36]) for s in range(6)]


def twin_hands(hands: list[list[str]]) -> list[list[str]]:
    """A duplicate board's hands as its twin table holds them (复式): rotated by one seat,
    seat ``s`` holding hand ``s − 1``, so that the 联邦 (seats 0, 2, 4 and 1, 3, 5) swap cards."""
    return [list(hands[(s - 1) % 6]) for s in range(6)]


def verify(seed: str, label: str, published: str, hands: list[list[str]] | None = None,
           *, twin: bool = False) -> list[str]:
    """What does not hold of a revealed deal: an empty list when ``published`` is the
    commitment of ``seed`` and ``label`` and (if given) ``hands`` are the deal they derive
    (``twin``: as a duplicate board's twin table holds it, :func:`twin_hands`)."""
    problems = []
    try:
        if commitment(seed, label) != published.lower():
            problems.append("the seed and label do not give the published commitment")
        derived = derive_deal(seed, label) if hands is not None else None
        if twin and derived is not None:
            derived = twin_hands(derived)
        if hands is not None and [sort_cards(list(h)) for h in hands] != derived:
            problems.append("the hands are not the deal the seed and label derive")
    except ValueError as exc:
        problems.append(str(exc))
    return problems
