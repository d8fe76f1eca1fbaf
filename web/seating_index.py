"""The published seating of a round as a compact index (找座位 "find my table", issue 54): who
sits where, by name and by player number, built once per version of the seating and kept in
Django's cache (Redis in production: one copy for every worker).

Ten thousand phones search their own names within a minute of a round's publication: each
search a distinct query, so no page cache helps, and a query over the round's seats per search
is what the server cannot afford. The index answers them instead:

- the page's script hashes what the phone typed (:func:`find_key`, :func:`bucket`; the same
  arithmetic in web/static/web/js/seating.js) and asks for one of a round's few dozen
  **shards** (``…/rounds/<n>/find.json?k=<bucket>&of=<buckets>``): every phone asks for one of
  the same few URLs, which nginx micro-caches like any public page;
- the page without the script (``?q=``) looks its hits up in the index rather than in the
  database (:meth:`SeatingIndex.table_numbers`).

The key of a version (:func:`seating_version`) names what the seating shows: the round, its
status and publication, its draw's commitment, its seat swaps and re-draws (every change of
seats saves one of them), so a re-published or changed seating is a new index on the next
request. A player's renamed entry shows within :data:`INDEX_SECONDS`. The index holds only what
the published seating page shows (names, player numbers, tables, seats, teams).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

import orjson
from django.core.cache import cache

from tournaments.models import Round, Seat, Table

logger = logging.getLogger(__name__)

#: How long an index is kept at most (a renamed player shows in the index that much later).
INDEX_SECONDS = 60
#: A shard holds about this many of the round's seats (their names and numbers).
SEATS_A_SHARD = 48
MAX_BUCKETS = 1024


def find_key(text: str) -> str:
    """What a search is looked up by: a player number without leading zeros, else the text in
    lower case with its spaces collapsed (seating.js ``findKey`` does the same)."""
    text = " ".join(text.split())
    if text.isascii() and text.isdigit() and len(text) <= 9:
        return str(int(text))
    return text.lower()


def bucket(key: str, buckets: int) -> int:
    """The shard of ``key``: a 32-bit multiplicative hash of its code points (seating.js
    ``bucket`` does the same arithmetic), modulo ``buckets``."""
    h = 0
    for ch in key:
        h = (h * 31 + ord(ch)) & 0xFFFFFFFF
    return h % max(1, buckets)


def buckets_for(seats: int) -> int:
    """How many shards a round of ``seats`` seats is cut into."""
    return max(1, min(MAX_BUCKETS, -(-seats // SEATS_A_SHARD)))


def seating_version(rnd: Round) -> str:
    """A digest of what ``rnd``'s seating shows (see the module's docstring)."""
    shown = [rnd.pk, rnd.status, rnd.commitment, rnd.published_at, rnd.draw_changes,
             len(rnd.draw_history)]
    return hashlib.sha256(orjson.dumps(shown, default=str)).hexdigest()[:24]


@dataclass(frozen=True)
class SeatingIndex:
    """A round's seats: ``tables`` maps a table's number to ``(team_a, team_b, seats)``, each
    seat ``(seat 0–5, name, player number or None, entry id)``."""

    version: str
    tables: dict[int, tuple]

    @property
    def buckets(self) -> int:
        return buckets_for(sum(len(t[2]) for t in self.tables.values()))

    def keys(self):
        """``(key, table number)`` for every name, player number and table number."""
        for number, (_a, _b, seats) in self.tables.items():
            yield str(number), number
            for _seat, name, player_number, _entry in seats:
                yield find_key(name), number
                if player_number is not None:
                    yield str(player_number), number

    def shard(self, k: int, of: int) -> dict:
        """Shard ``k`` of ``of``: ``{"keys": {key: [table numbers]}, "tables": {number:
        [team_a, team_b, [[seat, name, number, entry], …]]}}``."""
        keys: dict[str, list[int]] = {}
        for key, number in self.keys():
            if bucket(key, of) == k:
                hits = keys.setdefault(key, [])
                if number not in hits:
                    hits.append(number)
        numbers = sorted({n for hits in keys.values() for n in hits})
        return {"keys": keys, "tables": {
            str(n): [self.tables[n][0], self.tables[n][1], [list(s) for s in self.tables[n][2]]]
            for n in numbers}}

    def table_numbers(self, query: str) -> list[int]:
        """The tables a search finds, as the seating page's search always did: the player
        with that number or the table of that number, or every name that holds the text."""
        key = find_key(query)
        if not key:
            return []
        found = []
        for number, (_a, _b, seats) in self.tables.items():
            if key.isdigit() and (number == int(key) or any(
                    s[2] is not None and s[2] == int(key) for s in seats)):
                found.append(number)
            elif any(key in find_key(s[1]) for s in seats):
                found.append(number)
        return found


def _build(rnd: Round, version: str) -> SeatingIndex:
    tables: dict[int, tuple] = {
        number: (a, b, []) for number, a, b in Table.objects.filter(round=rnd).order_by(
            "number").values_list("number", "team_a__name", "team_b__name")}
    for number, seat, name, player_number, entry in (
            Seat.objects.filter(round=rnd).order_by("table__number", "seat").values_list(
                "table__number", "seat", "player__name", "player__number", "entry_id")):
        tables[number][2].append((seat, name, player_number, entry))
    return SeatingIndex(version=version, tables=tables)


def seating_index(rnd: Round) -> SeatingIndex:
    """``rnd``'s index, from the cache or built (and kept) now. A cache that fails costs only
    the build."""
    version = seating_version(rnd)
    key = f"seating-index:{rnd.pk}:{version}"
    try:
        hit = cache.get(key)
    except Exception:  # noqa: BLE001 - the cache is a saving only
        hit = None
    if hit is not None:
        return hit
    index = _build(rnd, version)
    try:
        cache.set(key, index, INDEX_SECONDS)
    except Exception:  # noqa: BLE001 - the cache is a saving only
        logger.debug("seating index of round %s not stored", rnd.pk)
    return index
