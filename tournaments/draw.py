"""Seating draws (抽签组邦) for individual and team events — pure Python, standard library only.

Everything here is deterministic given its public inputs and a seed, so that anyone can re-run a
draw after the seed is revealed ("verifiable draws", PRODUCT.md) and get the same seating::

    python -m tournaments.draw draw --input draw.json      # re-run a published draw
    python -m tournaments.draw bench --players 10000 --rounds 7

``draw.json`` for the ``draw`` command (the service publishes it with the revealed seed)::

    {"seed": "...", "brackets": false,
     "players": [{"id": 17, "score": 3.0, "byes": 0, "seat_counts": [1, 0, 0, 1, 0, 0]}, ...],
     "history": [[id, id, id, id, id, id], ...],     # earlier tables, ids in seat order 0..5
     "ratings": {"17": 31.25, ...},                  # only when the draw balanced by rating
     "changes": [{"seats": [{"table": 1, "seat": 0}, {"table": 3, "seat": 4}]}, ...]}
                                                     # the organizers' seat swaps, if any

and, to check the commitment published before the draw, optionally ``"event"``, ``"round"`` and
``"commitment"`` (the command then prints whether ``commitment(...)`` matches).

Words (RULES.md §1): seats 0..5; the two 联邦 (teams) sit alternately, team 0 = seats 0, 2, 4 and
team 1 = seats 1, 3, 5; a seat's 对头 (opposite) is ``(s + 3) % 6``. Between two players at one
table the *relation* is ``opposite`` (对头), ``partner`` (same 联邦) or ``tablemate`` (other
联邦, not opposite). 轮空 = a bye (sitting out a round).

No ``random`` module anywhere: its algorithms are not a documented contract. The only source of
randomness is :class:`DrawRandom`, specified below byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import secrets
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "DrawRandom",
    "DrawPlayer",
    "DrawResult",
    "DrawTeam",
    "History",
    "TeamDrawResult",
    "apply_swaps",
    "commitment",
    "draw_individual",
    "draw_shuffle",
    "draw_teams",
    "new_seed",
    "rating_gap",
    "repeat_stats",
    "seat_relation",
    "seat_team_table",
    "simulate",
    "table_cost",
    "table_repeats",
]

SEATS = 6
OPPOSITE, PARTNER, TABLEMATE = 0, 1, 2
# Cost weights of a repeated relation (see draw_individual).
WEIGHTS = (100, 10, 1)

# Local search bounds (draw_individual): how many improvement passes over the tables with a
# positive cost, and how many other tables one conflicting player may be tried against.
MAX_PASSES = 8
MAX_CANDIDATE_TABLES = 128

# Team pairing bounds (draw_teams).
DFS_STEP_BUDGET = 200_000
LOOKAHEAD_MAX_TEAMS = 24
LOOKAHEAD_MAX_CHECKS = 200


# --------------------------------------------------------------------------- random source


class DrawRandom:
    """A seeded, documented random source (SHA-256 in counter mode).

    Byte stream: ``sha256(f"{seed}:0".encode("utf-8")).digest()`` followed by the digest for
    counter 1, 2, ... (counter written in decimal); bytes are consumed strictly in order and never
    reused.

    * ``randbelow(n)`` (``n >= 1``): if ``n == 1`` return 0 without consuming anything. Otherwise
      let ``k = (n - 1).bit_length()`` and ``m = ceil(k / 8)``; repeat: read ``m`` bytes as an
      unsigned big-endian integer ``x``, keep its top ``k`` bits (``x >> (8*m - k)``); return it if
      ``x < n``, else try again (rejection sampling: no modulo bias).
    * ``shuffle(items)``: Fisher–Yates in place: for ``i`` from ``len - 1`` down to 1,
      ``j = randbelow(i + 1)``, swap ``items[i]`` and ``items[j]``.
    * ``random()``: read 7 bytes big-endian, shift right by 3, divide by ``2**53``: a float in
      ``[0, 1)``.
    """

    __slots__ = ("seed", "_counter", "_buffer", "_pos")

    def __init__(self, seed: str) -> None:
        self.seed = str(seed)
        self._counter = 0
        self._buffer = b""
        self._pos = 0

    def _take(self, count: int) -> bytes:
        while len(self._buffer) - self._pos < count:
            block = hashlib.sha256(f"{self.seed}:{self._counter}".encode()).digest()
            self._counter += 1
            self._buffer = self._buffer[self._pos :] + block
            self._pos = 0
        out = self._buffer[self._pos : self._pos + count]
        self._pos += count
        return out

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError("randbelow(n) needs n >= 1")
        if n == 1:
            return 0
        k = (n - 1).bit_length()
        m = (k + 7) // 8
        shift = 8 * m - k
        while True:
            x = int.from_bytes(self._take(m), "big") >> shift
            if x < n:
                return x

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def random(self) -> float:
        return (int.from_bytes(self._take(7), "big") >> 3) / float(1 << 53)


def new_seed() -> str:
    """A fresh secret draw seed: 32 random bytes from the OS, as 64 hex digits."""
    return secrets.token_hex(32)


def commitment(seed: str, entry_ids: Iterable[int], round_number: int, event_id) -> str:
    """The hash published before a draw (it binds the secret seed and the players in the draw).

    ``sha256`` (hex) of the UTF-8 bytes of ``json.dumps({"event": event_id, "round":
    round_number, "seed": seed, "entries": sorted(entry_ids)}, sort_keys=True,
    separators=(",", ":"))`` (default ``ensure_ascii=True``). After the draw the seed is revealed
    and anyone can recompute this value.
    """
    payload = {
        "event": event_id,
        "round": round_number,
        "seed": seed,
        "entries": sorted(int(i) for i in entry_ids),
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class DrawPlayer:
    """A checked-in player in an individual draw (个人赛, 抽签组邦).

    ``byes``: 轮空 received so far; ``seat_counts[s]``: times seated at seat ``s`` so far.
    """

    id: int
    score: float = 0.0
    byes: int = 0
    seat_counts: tuple[int, ...] = (0,) * SEATS

    def __post_init__(self) -> None:
        if len(self.seat_counts) != SEATS:
            raise ValueError(f"player {self.id}: seat_counts needs {SEATS} entries")


def seat_relation(seat_a: int, seat_b: int) -> int:
    """How the players of two seats of a table relate: ``OPPOSITE`` (对头), ``PARTNER`` (the
    same 联邦) or ``TABLEMATE`` (the other 联邦, not opposite)."""
    d = (seat_a - seat_b) % SEATS
    if d == 3:
        return OPPOSITE
    if d % 2 == 0:
        return PARTNER
    return TABLEMATE


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True)
class History:
    """Who met whom in earlier rounds, per relation: ``(min_id, max_id) -> count``.

    ``opposite``: sat as 对头; ``partner``: same 联邦 at a table; ``tablemate``: same table,
    other 联邦, not opposite. Frozen means the three dicts are never replaced; :meth:`add_table`
    adds to them in place (copying them per table would not scale to 10,000 players).
    """

    opposite: dict[tuple[int, int], int] = field(default_factory=dict)
    partner: dict[tuple[int, int], int] = field(default_factory=dict)
    tablemate: dict[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def from_tables(cls, tables: Iterable[Sequence[int]]) -> History:
        history = cls()
        for table in tables:
            history.add_table(table)
        return history

    def add_table(self, table: Sequence[int]) -> None:
        """Count one table (six ids in seat order 0..5)."""
        if len(table) != SEATS:
            raise ValueError(f"a table has {SEATS} seats, got {len(table)}")
        by_relation = (self.opposite, self.partner, self.tablemate)
        for i in range(SEATS - 1):
            for j in range(i + 1, SEATS):
                counts = by_relation[seat_relation(i, j)]
                key = _pair(table[i], table[j])
                counts[key] = counts.get(key, 0) + 1

    def count(self, a: int, b: int) -> tuple[int, int, int]:
        """``(opposite, partner, tablemate)`` counts for one pair."""
        key = _pair(a, b)
        return (
            self.opposite.get(key, 0),
            self.partner.get(key, 0),
            self.tablemate.get(key, 0),
        )


@dataclass(frozen=True)
class DrawResult:
    """Tables (six ids in seat order 0..5; seats 0, 2, 4 are one 联邦) and the byes (轮空)."""

    tables: list[tuple[int, ...]]
    byes: list[int]


@dataclass(frozen=True)
class DrawTeam:
    """A registered 联邦 team (团体赛) in a Swiss pairing."""

    id: int
    score: float = 0.0
    byes: int = 0


@dataclass(frozen=True)
class TeamDrawResult:
    """Pairs ``(higher-ranked team, lower-ranked team)`` from the top table down, and the bye."""

    pairs: list[tuple[int, int]]
    bye: int | None


# --------------------------------------------------------------------------- table geometry

# The 15 pairs of local positions 0..5 at one table, and their index.
PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(SEATS), 2))
PAIR_INDEX: tuple[tuple[int, ...], ...] = tuple(
    tuple(PAIRS.index(_pair(i, j)) if i != j else -1 for j in range(SEATS)) for i in range(SEATS)
)
# A seating: seating[seat] = local position seated there. Its relation codes: for every local
# pair k, the relation (OPPOSITE / PARTNER / TABLEMATE) the seating gives that pair.
SEATINGS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(SEATS)))


def _codes(seating: tuple[int, ...]) -> tuple[int, ...]:
    seat_of = [0] * SEATS
    for seat, local in enumerate(seating):
        seat_of[local] = seat
    return tuple(seat_relation(seat_of[i], seat_of[j]) for i, j in PAIRS)


SEAT_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(seating.index(local) for local in range(SEATS)) for seating in SEATINGS
)
SEATING_CODES = tuple(_codes(s) for s in SEATINGS)
# The 60 arrangements = 10 team splits x 6 对头 pairings; the 12 seatings of each differ only
# by rotation / reflection, which change no relation.
ARRANGEMENTS: tuple[tuple[int, ...], ...] = tuple(dict.fromkeys(SEATING_CODES))
ARRANGEMENT_SEATINGS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, c in enumerate(SEATING_CODES) if c == codes) for codes in ARRANGEMENTS
)
assert len(ARRANGEMENTS) == 60 and all(len(s) == 12 for s in ARRANGEMENT_SEATINGS)

_Conflict = tuple[int, tuple[int, int, int]]  # (local pair index, weighted costs per relation)


class _Costs:
    """Cost look-ups against one History (direct dict reads; nothing is precomputed)."""

    __slots__ = ("_opposite", "_partner", "_tablemate")

    def __init__(self, history: History) -> None:
        self._opposite = history.opposite.get
        self._partner = history.partner.get
        self._tablemate = history.tablemate.get

    def weights(self, a: int, b: int) -> tuple[int, int, int] | None:
        key = (a, b) if a < b else (b, a)
        o = self._opposite(key, 0)
        p = self._partner(key, 0)
        t = self._tablemate(key, 0)
        if o or p or t:
            return (WEIGHTS[0] * o, WEIGHTS[1] * p, WEIGHTS[2] * t)
        return None

    def conflicts(self, table: Sequence[int], skip: int = -1) -> list[_Conflict]:
        """Pairs with any history, as ``(pair index, weights)``; pairs with ``skip`` left out."""
        out = []
        weights = self.weights
        for k, (i, j) in enumerate(PAIRS):
            if i == skip or j == skip:
                continue
            w = weights(table[i], table[j])
            if w is not None:
                out.append((k, w))
        return out

    def conflicts_of(self, table: Sequence[int], position: int, player: int) -> list[_Conflict]:
        """Conflicts of ``player`` if seated at local ``position`` of ``table``."""
        out = []
        row = PAIR_INDEX[position]
        for j in range(SEATS):
            if j != position:
                w = self.weights(player, table[j])
                if w is not None:
                    out.append((row[j], w))
        return out


def _best_cost(conflicts: list[_Conflict]) -> int:
    if not conflicts:
        return 0
    best = -1
    for codes in ARRANGEMENTS:
        s = 0
        for k, w in conflicts:
            s += w[codes[k]]
        if best < 0 or s < best:
            best = s
            if s == 0:
                break
    return best


def table_cost(table: Sequence[int], history: History) -> int:
    """Cost of six players at one table under their best arrangement (see draw_individual)."""
    return _best_cost(_Costs(history).conflicts(table))


# --------------------------------------------------------------------------- individual draw


def _order_and_byes(
    players: list[DrawPlayer], seed: str, brackets: bool
) -> tuple[list[DrawPlayer], list[int]]:
    """Players to seat, in initial order, and the bye ids (sorted)."""
    players = sorted(players, key=lambda p: p.id)
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate player ids in a draw")
    order = list(range(len(players)))
    DrawRandom(f"{seed}/order").shuffle(order)
    rank = [0] * len(players)
    for position, index in enumerate(order):
        rank[index] = position
    n_byes = len(players) % SEATS
    by_bye = sorted(
        range(len(players)),
        key=lambda i: (players[i].byes, players[i].score if brackets else 0.0, rank[i]),
    )
    bye_set = set(by_bye[:n_byes])
    seated = [i for i in order if i not in bye_set]
    if brackets:
        seated.sort(key=lambda i: (-players[i].score, rank[i]))
    return [players[i] for i in seated], sorted(players[i].id for i in bye_set)


# For every mask of taken seats except the full one, most seats taken first: (mask, the local
# position seated next = number of seats taken, [(free seat, mask with it taken), ...]).
_SEAT_STEPS = tuple(
    (
        mask,
        bin(mask).count("1"),
        tuple((s, mask | 1 << s) for s in range(SEATS) if not mask >> s & 1),
    )
    for mask in sorted(range((1 << SEATS) - 1), key=lambda mask: -bin(mask).count("1"))
)


def _best_seat_assignment(rows: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Seat per local position minimising Σ rows[i][seat]; lexicographically first on ties."""
    rest = [0] * (1 << SEATS)  # rest[mask]: best cost of seating the remaining positions
    for mask, i, steps in _SEAT_STEPS:
        row = rows[i]
        rest[mask] = min([row[seat] + rest[after] for seat, after in steps])
    seats = []
    mask = 0
    for row in rows:
        for seat in range(SEATS):
            if not mask >> seat & 1 and row[seat] + rest[mask | (1 << seat)] == rest[mask]:
                seats.append(seat)
                mask |= 1 << seat
                break
    return tuple(seats)


def rating_gap(table: Sequence[int], ratings: dict[int, float]) -> float:
    """``|Σ ratings of seats 0, 2, 4 − Σ ratings of seats 1, 3, 5|``: how far apart in rating
    the two 联邦 of a seated table are (a missing rating counts 0)."""
    side_a = sum(ratings.get(table[s], 0.0) for s in (0, 2, 4))
    side_b = sum(ratings.get(table[s], 0.0) for s in (1, 3, 5))
    return abs(side_a - side_b)


def _balanced_seating(local: list[int], arrangement_costs: list[int],
                      rows: list[tuple[int, ...]], ratings: dict[int, float]) -> tuple[int, ...]:
    """Seat per local position: among the arrangements of least cost, those whose two 联邦 are
    closest in summed rating, then the least Σ seat counts, then the smallest tuple."""
    keyed = []
    for a, cost in enumerate(arrangement_costs):
        seat_of = SEAT_OF[ARRANGEMENT_SEATINGS[a][0]]
        sides = [0.0, 0.0]
        for i, seat in enumerate(seat_of):  # in local order: the same sum on every machine
            sides[seat % 2] += ratings.get(local[i], 0.0)
        keyed.append((cost, abs(sides[0] - sides[1]), a))
    best = min(keyed)[:2]
    return min(
        (sum(rows[i][seat] for i, seat in enumerate(SEAT_OF[s])), SEAT_OF[s])
        for cost, gap, a in keyed if (cost, gap) == best
        for s in ARRANGEMENT_SEATINGS[a]
    )[1]


def _seat_table(
    members: list[int], costs: _Costs, seat_counts: dict[int, tuple[int, ...]], rng: DrawRandom,
    ratings: dict[int, float] | None = None,
) -> tuple[int, ...]:
    local = list(members)
    rng.shuffle(local)
    rows = [seat_counts[p] for p in local]
    conflicts = costs.conflicts(local)
    if ratings is not None:
        arrangement_costs = [sum(w[codes[k]] for k, w in conflicts) for codes in ARRANGEMENTS]
        seat_of = _balanced_seating(local, arrangement_costs, rows, ratings)
    elif not conflicts:
        if not any(any(r) for r in rows):
            return tuple(local)
        seat_of = _best_seat_assignment(rows)
    else:
        arrangement_costs = [sum(w[codes[k]] for k, w in conflicts) for codes in ARRANGEMENTS]
        best = min(arrangement_costs)
        seat_of = min(
            (sum(rows[i][seat] for i, seat in enumerate(SEAT_OF[s])), SEAT_OF[s])
            for a, cost in enumerate(arrangement_costs)
            if cost == best
            for s in ARRANGEMENT_SEATINGS[a]
        )[1]
    seating = [0] * SEATS
    for i, seat in enumerate(seat_of):
        seating[seat] = local[i]
    return tuple(seating)


def _local_search(
    tables: list[list[int]],
    costs: _Costs,
    score: dict[int, float],
    brackets: bool,
    deadline: float | None,
) -> None:
    """Swap players between tables while a swap strictly lowers the total cost."""
    n_tables = len(tables)
    table_costs = [_best_cost(costs.conflicts(t)) for t in tables]
    if n_tables < 2 or not any(table_costs):
        return

    def candidates(t: int) -> list[int]:
        if brackets:
            return [u for u in (t - 1, t + 1) if 0 <= u < n_tables]
        return [(t + d) % n_tables for d in range(1, min(n_tables, MAX_CANDIDATE_TABLES + 1))]

    def try_move(t: int, i: int) -> bool:
        table_t = tables[t]
        x = table_t[i]
        base_t = costs.conflicts(table_t, skip=i)
        for u in candidates(t):
            table_u = tables[u]
            old = table_costs[t] + table_costs[u]
            positions = range(SEATS)
            if brackets:
                positions = sorted(positions, key=lambda j: abs(score[table_u[j]] - score[x]))
            for j in positions:
                y = table_u[j]
                new_t = _best_cost(base_t + costs.conflicts_of(table_t, i, y))
                if new_t >= old:
                    continue
                table_u[j] = x
                new_u = _best_cost(costs.conflicts(table_u))
                if new_t + new_u < old:
                    table_t[i] = y
                    table_costs[t], table_costs[u] = new_t, new_u
                    return True
                table_u[j] = y
        return False

    for _ in range(MAX_PASSES):
        improved = False
        for t in range(n_tables):
            progress = True
            while table_costs[t] > 0 and progress:
                if deadline is not None and time.perf_counter() > deadline:
                    return
                progress = False
                involved = sorted({i for k, _w in costs.conflicts(tables[t]) for i in PAIRS[k]})
                for i in involved:
                    if try_move(t, i):
                        progress = improved = True
                        break
        if not improved:
            return


def draw_individual(
    players: list[DrawPlayer],
    history: History,
    seed: str,
    *,
    brackets: bool = False,
    time_budget: float | None = None,
    ratings: dict[int, float] | None = None,
) -> DrawResult:
    """Draw one round of an individual event (个人赛, 抽签组邦): tables of six, two 联邦 each.

    The algorithm (the contract a re-implementation must follow):

    1. Sort players by id (so input order does not matter). ``order`` = the indices
       ``0..n-1`` shuffled by ``DrawRandom(f"{seed}/order")``; a player's *rank* is its position.
    2. Byes (轮空): ``n % 6`` players sit out, the first ones by the key ``(byes so far, score if
       brackets else 0, rank)`` — so nobody gets a second bye before everyone has had one.
    3. Initial tables: the other players in rank order (with ``brackets``: by score descending,
       then rank — Swiss-style brackets), cut into consecutive sixes.
    4. Cost of a table = the minimum over its 60 arrangements (10 team splits x 6 对头
       pairings) of ``100 x Σ earlier opposite counts of its 3 对头 pairs + 10 x Σ earlier partner
       counts of its 6 same-联邦 pairs + 1 x Σ earlier tablemate counts of its 6 other pairs``.
       Meeting someone again in a *different* relation costs nothing.
    5. Local search (deterministic, first improvement): up to ``MAX_PASSES`` passes over the tables
       in order; for a table with positive cost, for each of its players in a pair that met
       before (by position), try swapping them with each player of the next ``MAX_CANDIDATE_TABLES`` tables
       (cyclically; with ``brackets`` only the two adjacent tables, closest score first) and make
       the first swap that strictly lowers the two tables' total cost; repeat on that table until
       no swap helps. Stop after a pass without a swap.
    6. Seating, table by table in final order, with ``DrawRandom(f"{seed}/seat")``: shuffle the six
       ids; among seatings whose arrangement has the minimum cost, take the one minimising
       Σ ``seat_counts[player][seat]`` (seat rotation; all 12 rotations and reflections of each
       arrangement are considered); ties go to the lexicographically smallest tuple (seat of the
       1st shuffled id, seat of the 2nd, ...).

    7. With ``ratings`` (player id -> rating; the event's "balance 联邦 by rating" option, the
       ratings published with the round), step 6 first keeps, among the arrangements of
       minimum cost, those whose two 联邦 are closest in summed rating (``|Σ seats 0, 2, 4 −
       Σ seats 1, 3, 5|``, a missing rating counting 0, each side summed in shuffled order),
       then applies the seat-count rule and the lexicographic tie-break over them. The repeat
       rules come first: balance never buys a repeated 对头 or partner.

    ``time_budget`` (seconds) stops the local search early: a safety valve for huge draws that
    makes the result depend on machine speed — leave it ``None`` for a verifiable draw.
    """
    deadline = None if time_budget is None else time.perf_counter() + time_budget
    seated, byes = _order_and_byes(list(players), seed, brackets)
    tables = [[p.id for p in seated[k : k + SEATS]] for k in range(0, len(seated), SEATS)]
    costs = _Costs(history)
    score = {p.id: p.score for p in seated}
    _local_search(tables, costs, score, brackets, deadline)
    seat_counts = {p.id: tuple(p.seat_counts) for p in seated}
    rng = DrawRandom(f"{seed}/seat")
    seated_tables = [_seat_table(t, costs, seat_counts, rng, ratings) for t in tables]
    return DrawResult(tables=seated_tables, byes=byes)


def draw_shuffle(players: list[DrawPlayer], seed: str, *, brackets: bool = False) -> DrawResult:
    """Baseline without optimisation: steps 1–3 of draw_individual, seated in that order."""
    seated, byes = _order_and_byes(list(players), seed, brackets)
    ids = [p.id for p in seated]
    tables = [tuple(ids[k : k + SEATS]) for k in range(0, len(ids), SEATS)]
    return DrawResult(tables=tables, byes=byes)


# --------------------------------------------------------------------------- team draw


class _Matcher:
    """Maximum matching (Edmonds' blossom algorithm) on ``0..n-1`` minus banned pairs."""

    def __init__(self, n: int, banned: list[set[int]], match: list[int]) -> None:
        self.n = n
        self.banned = banned
        self.match = match
        self._adjacent: dict[int, list[int]] = {}

    def adjacent(self, v: int) -> list[int]:
        adj = self._adjacent.get(v)
        if adj is None:
            banned = self.banned[v]
            adj = [w for w in range(self.n) if w != v and w not in banned]
            self._adjacent[v] = adj
        return adj

    def maximise(self) -> list[int]:
        for v in range(self.n):
            if self.match[v] == -1:
                end = self._find_path(v)
                if end != -1:
                    self._augment(end)
        return self.match

    def has_perfect_matching(self) -> bool:
        return all(m != -1 for m in self.maximise())

    def _augment(self, v: int) -> None:
        match, parent = self.match, self._parent
        while v != -1:
            pv = parent[v]
            nxt = match[pv]
            match[v] = pv
            match[pv] = v
            v = nxt

    def _lca(self, a: int, b: int) -> int:
        match, parent, base = self.match, self._parent, self._base
        seen = [False] * self.n
        while True:
            a = base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[match[b]]

    def _mark_path(self, v: int, b: int, child: int, blossom: list[bool]) -> None:
        match, parent, base = self.match, self._parent, self._base
        while base[v] != b:
            blossom[base[v]] = blossom[base[match[v]]] = True
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    def _find_path(self, root: int) -> int:
        n, match = self.n, self.match
        used = [False] * n
        self._parent = parent = [-1] * n
        self._base = base = list(range(n))
        used[root] = True
        queue = [root]
        head = 0
        while head < len(queue):
            v = queue[head]
            head += 1
            for to in self.adjacent(v):
                if base[v] == base[to] or match[v] == to:
                    continue
                if to == root or (match[to] != -1 and parent[match[to]] != -1):
                    current = self._lca(v, to)
                    blossom = [False] * n
                    self._mark_path(v, current, to, blossom)
                    self._mark_path(to, current, v, blossom)
                    for i in range(n):
                        if blossom[base[i]]:
                            base[i] = current
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == -1:
                    parent[to] = v
                    if match[to] == -1:
                        return to
                    used[match[to]] = True
                    queue.append(match[to])
        return -1


def _pairing_dfs(
    m: int, banned: list[set[int]], lookahead: Callable[[list[int]], bool] | None
) -> list[int] | None:
    """First rematch-free pairing in Swiss order (DFS: top unpaired team, partners top-down).

    With ``lookahead``, prefer the first full pairing it accepts (at most LOOKAHEAD_MAX_CHECKS
    are checked), else the first one found. Bounded by DFS_STEP_BUDGET candidate partners
    examined. Returns ``match`` (partner per position) or None.
    """
    match = [-1] * m
    first_found: list[int] | None = None
    checks = 0
    steps = 0
    stack: list[tuple[int, int]] = []  # (team, its partner)
    i, j_from = 0, 1  # the team to pair, the first partner to try
    while True:
        while i < m and match[i] != -1:
            i += 1
            j_from = i + 1
        if i >= m:  # a full pairing
            if first_found is None:
                first_found = list(match)
            if lookahead is None:
                return first_found
            checks += 1
            if lookahead(match):
                return list(match)
            if checks >= LOOKAHEAD_MAX_CHECKS:
                return first_found
        else:
            banned_i = banned[i]
            partner = -1
            for j in range(j_from, m):
                steps += 1
                if match[j] == -1 and j not in banned_i:
                    partner = j
                    break
            if steps > DFS_STEP_BUDGET:
                return first_found
            if partner != -1:
                match[i], match[partner] = partner, i
                stack.append((i, partner))
                i += 1
                j_from = i + 1
                continue
        if not stack:  # backtrack
            return first_found
        i, last = stack.pop()
        match[i] = match[last] = -1
        j_from = last + 1


def _next_round_check(
    everyone: list[DrawTeam], m: int, bye: int | None, banned: list[set[int]]
) -> Callable[[list[int]], bool]:
    """A test that a pairing of this round leaves a rematch-free pairing for the next round.

    Next round's graph: ``everyone`` (the paired teams at positions 0..m-1, then this round's
    bye team if any) and, for an odd count, a phantom "bye" vertex adjacent to the teams that will
    then have the fewest byes. Edges: pairs not met, minus this round's pairs.
    """
    size = len(everyone)
    base = [set(b) for b in banned]
    if size % 2:
        byes_after = [t.byes + (1 if t.id == bye else 0) for t in everyone]
        fewest = min(byes_after)
        phantom = size
        base.append({i for i in range(size) if byes_after[i] != fewest})
        for i in base[phantom]:
            base[i].add(phantom)
        size += 1

    def check(match: list[int]) -> bool:
        banned_next = [set(b) for b in base]
        for i in range(m):
            banned_next[i].add(match[i])
        return _Matcher(size, banned_next, [-1] * size).has_perfect_matching()

    return check


def draw_teams(teams: list[DrawTeam], met: set[tuple[int, int]], seed: str) -> TeamDrawResult:
    """Swiss pairing of 联邦 teams (团体赛): no rematches while avoidable.

    1. Sort teams by id, shuffle with ``DrawRandom(f"{seed}/order")``, then stable-sort by score
       descending: the Swiss order.
    2. Odd count: the bye goes to the team with the fewest byes, then the lowest score, then the
       lowest in the Swiss order.
    3. Depth-first search in Swiss order (the top unpaired team takes the highest unpaired team it
       has not met; backtrack on a dead end) for the first rematch-free pairing; for up to
       LOOKAHEAD_MAX_TEAMS teams without a bye, prefer the first one after which a rematch-free
       pairing still exists next round. The search is bounded (DFS_STEP_BUDGET).
    4. If it finds none (or runs out of budget): greedy top-down pairing, then augmenting paths
       (Edmonds' blossom algorithm) to a maximum rematch-free matching; the teams left over are
       paired top-down with each other. That is the minimum number of rematches.

    ``met`` holds pairs of team ids in either order. Pairs come from the top table down.
    """
    teams = sorted(teams, key=lambda t: t.id)
    if len({t.id for t in teams}) != len(teams):
        raise ValueError("duplicate team ids in a draw")
    order = list(teams)
    DrawRandom(f"{seed}/order").shuffle(order)
    order.sort(key=lambda t: -t.score)
    bye: int | None = None
    if len(order) % 2:
        k = min(range(len(order)), key=lambda i: (order[i].byes, order[i].score, -i))
        bye = order.pop(k).id
    m = len(order)
    everyone = order + [t for t in teams if t.id == bye]  # positions; the bye team last
    position = {t.id: i for i, t in enumerate(everyone)}
    banned: list[set[int]] = [set() for _ in everyone]
    for a, b in met:
        pa, pb = position.get(a), position.get(b)
        if pa is not None and pb is not None and pa != pb:
            banned[pa].add(pb)
            banned[pb].add(pa)
    lookahead = None
    if len(teams) <= LOOKAHEAD_MAX_TEAMS:
        lookahead = _next_round_check(everyone, m, bye, banned)
    banned = banned[:m]
    match = _pairing_dfs(m, banned, lookahead)
    if match is None:
        match = [-1] * m
        for i in range(m):  # greedy top-down
            if match[i] == -1:
                for j in range(i + 1, m):
                    if match[j] == -1 and j not in banned[i]:
                        match[i], match[j] = j, i
                        break
        match = _Matcher(m, banned, match).maximise()
        left = [i for i in range(m) if match[i] == -1]
        for a, b in zip(left[::2], left[1::2], strict=True):
            match[a], match[b] = b, a
    pairs = [(order[i].id, order[match[i]].id) for i in range(m) if i < match[i]]
    return TeamDrawResult(pairs=pairs, bye=bye)


def seat_team_table(
    team_a_players: list[int],
    team_b_players: list[int],
    history: History,
    seat_counts: dict[int, tuple[int, ...]],
    seed: str,
) -> tuple[int, ...]:
    """Seat a team match: team A (a 联邦 of 3) in seats 0, 2, 4, team B in seats 1, 3, 5.

    Of the 36 member orders, take the one with the fewest earlier 对头 meetings of its three
    opposite pairs, then the smallest Σ ``seat_counts[player][seat]``; ties go to the first of the
    36 orders (A's permutations x B's permutations of the id-sorted members, in
    ``itertools.product`` order) after shuffling them with ``DrawRandom(f"{seed}/seat")``.
    """
    team_a, team_b = sorted(team_a_players), sorted(team_b_players)
    if len(team_a) != 3 or len(team_b) != 3:
        raise ValueError("a team match needs two teams of three")
    candidates = list(
        itertools.product(itertools.permutations(team_a), itertools.permutations(team_b))
    )
    DrawRandom(f"{seed}/seat").shuffle(candidates)
    zero = (0,) * SEATS
    best: tuple[int, ...] | None = None
    best_key: tuple[int, int] | None = None
    for a, b in candidates:
        seating = (a[0], b[0], a[1], b[1], a[2], b[2])
        opposite = sum(history.opposite.get(_pair(seating[s], seating[s + 3]), 0) for s in range(3))
        seats = sum(seat_counts.get(p, zero)[s] for s, p in enumerate(seating))
        key = (opposite, seats)
        if best_key is None or key < best_key:
            best, best_key = seating, key
    assert best is not None
    return best


# --------------------------------------------------------------------------- manual changes


def apply_swaps(
    tables: Sequence[Sequence[int]], swaps: Iterable[tuple[tuple[int, int], tuple[int, int]]]
) -> list[list[int]]:
    """The seating after the organizers' seat swaps, applied in order to a re-run draw.

    Each swap names two places ``(table, seat)``: the table's number as the tables are numbered
    (1 for the first of ``tables``), the seat 0..5. The two players there change places (at one
    table or two). The published record of a round lists its swaps, so that a re-run of its
    draw from the revealed seed ends at the seating it published.
    """
    out = [list(t) for t in tables]
    for (table_a, seat_a), (table_b, seat_b) in swaps:
        row_a, row_b = out[table_a - 1], out[table_b - 1]
        row_a[seat_a], row_b[seat_b] = row_b[seat_b], row_a[seat_a]
    return out


def table_repeats(table: Sequence[int], history: History) -> list[tuple[int, int, int, int]]:
    """The pairs of one seated table (six ids in seat order) who meet again as they met before:
    ``(seat, other seat, relation, earlier meetings in that relation)``, seats in order. These
    are the repeats a draw's cost counts (:data:`WEIGHTS`): what it could not avoid."""
    out = []
    by_relation = (history.opposite, history.partner, history.tablemate)
    for i, j in PAIRS:
        relation = seat_relation(i, j)
        times = by_relation[relation].get(_pair(table[i], table[j]), 0)
        if times:
            out.append((i, j, relation, times))
    return out


# --------------------------------------------------------------------------- statistics


def repeat_stats(tables_by_round: list[list[Sequence[int]]]) -> dict[str, int]:
    """Count repeated pair meetings over rounds, per relation.

    A repeat is a pair meeting in a relation (对头 / partner / tablemate) in which it already met
    in an earlier round; a pair meeting k times in one relation counts k - 1 repeats.
    """
    history = History()
    totals = [0, 0, 0]
    by_relation = (history.opposite, history.partner, history.tablemate)
    for tables in tables_by_round:
        for table in tables:
            for i, j in PAIRS:
                rel = seat_relation(i, j)
                if by_relation[rel].get(_pair(table[i], table[j]), 0):
                    totals[rel] += 1
        for table in tables:
            history.add_table(table)
    return {
        "opposite_repeats": totals[OPPOSITE],
        "partner_repeats": totals[PARTNER],
        "tablemate_repeats": totals[TABLEMATE],
    }


def simulate(
    n_players: int,
    rounds: int,
    seed: str,
    method: str = "optimised",
    brackets: bool = False,
) -> dict:
    """Run ``rounds`` draws of ``n_players`` (ids 1..n) and report repeats and draw times.

    ``method``: ``"optimised"`` (draw_individual) or ``"shuffle"`` (draw_shuffle). Between rounds
    the history, byes and seat counts are accumulated; each table's winning 联邦 (drawn with
    ``DrawRandom(f"{seed}/results")``) scores 1 per member, a bye scores 1.
    """
    if method not in ("optimised", "shuffle"):
        raise ValueError("method is 'optimised' or 'shuffle'")
    history = History()
    score = dict.fromkeys(range(1, n_players + 1), 0.0)
    byes = dict.fromkeys(score, 0)
    seats = {p: [0] * SEATS for p in score}
    results = DrawRandom(f"{seed}/results")
    all_tables = []
    times = []
    for r in range(rounds):
        players = [DrawPlayer(p, score[p], byes[p], tuple(seats[p])) for p in score]
        round_seed = f"{seed}/round/{r + 1}"
        start = time.perf_counter()
        if method == "optimised":
            result = draw_individual(players, history, round_seed, brackets=brackets)
        else:
            result = draw_shuffle(players, round_seed, brackets=brackets)
        times.append(time.perf_counter() - start)
        all_tables.append(result.tables)
        for table in result.tables:
            history.add_table(table)
            winner = results.randbelow(2)
            for seat, p in enumerate(table):
                seats[p][seat] += 1
                if seat % 2 == winner:
                    score[p] += 1.0
        for p in result.byes:
            byes[p] += 1
            score[p] += 1.0
    stats = repeat_stats(all_tables)
    stats["seconds_per_draw"] = sum(times) / len(times) if times else 0.0
    stats["draw_seconds"] = times
    return stats


# --------------------------------------------------------------------------- command line


def _cmd_bench(args: argparse.Namespace) -> int:
    print(
        f"{args.players} players, {args.rounds} rounds, seed {args.seed!r}, brackets={args.brackets}"
    )
    out = {}
    for method in ("optimised", "shuffle"):
        stats = simulate(args.players, args.rounds, args.seed, method, brackets=args.brackets)
        out[method] = stats
        times = " ".join(f"{t:.2f}" for t in stats["draw_seconds"])
        print(
            f"{method:>9}: draw seconds per round: {times} (mean {stats['seconds_per_draw']:.2f})"
        )
    print(f"{'repeats':>9}  {'opposite':>9} {'partner':>9} {'tablemate':>9}")
    for method, stats in out.items():
        print(
            f"{method:>9}  {stats['opposite_repeats']:>9} {stats['partner_repeats']:>9}"
            f" {stats['tablemate_repeats']:>9}"
        )
    return 0


def _cmd_draw(args: argparse.Namespace) -> int:
    if args.input == "-":
        data = json.load(sys.stdin)
    else:
        with open(args.input, encoding="utf-8") as handle:
            data = json.load(handle)
    players = [
        DrawPlayer(
            int(p["id"]),
            float(p.get("score", 0.0)),
            int(p.get("byes", 0)),
            tuple(int(c) for c in p.get("seat_counts", (0,) * SEATS)),
        )
        for p in data["players"]
    ]
    history = History.from_tables(data.get("history", []))
    ratings = data.get("ratings")
    if ratings is not None:
        ratings = {int(k): float(v) for k, v in ratings.items()}
    result = draw_individual(players, history, data["seed"], brackets=bool(data.get("brackets")),
                             ratings=ratings)
    out: dict = {"tables": [list(t) for t in result.tables], "byes": result.byes}
    changes = data.get("changes", [])
    if changes:  # the organizers' seat swaps after the draw, as the round publishes them
        out["tables"] = apply_swaps(out["tables"], [
            tuple((int(s["table"]), int(s["seat"])) for s in change["seats"])
            for change in changes])
        out["changes_applied"] = len(changes)
    if "commitment" in data:
        expected = commitment(
            data["seed"], [p.id for p in players], data.get("round"), data.get("event")
        )
        out["commitment_ok"] = expected == data["commitment"]
    print(json.dumps(out, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tournaments.draw", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    bench = sub.add_parser("bench", help="time draws and compare repeats: optimised vs shuffle")
    bench.add_argument("--players", type=int, default=10_000)
    bench.add_argument("--rounds", type=int, default=7)
    bench.add_argument("--seed", default="bench")
    bench.add_argument("--brackets", action="store_true")
    bench.set_defaults(func=_cmd_bench)
    draw = sub.add_parser("draw", help="re-run an individual draw from its public JSON data")
    draw.add_argument("--input", default="-", help="JSON file ('-' = stdin)")
    draw.set_defaults(func=_cmd_draw)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
