"""Seating draws (抽签组邦): tables of six, two 联邦 sitting alternately, fair byes (轮空),
few repeated 对头 / partners / tablemates, Swiss pairing of teams, verifiable from the seed."""

import ast
import hashlib
import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.draw import (
    DrawPlayer,
    DrawRandom,
    DrawTeam,
    History,
    commitment,
    draw_individual,
    draw_shuffle,
    draw_teams,
    main,
    new_seed,
    repeat_stats,
    seat_team_table,
    simulate,
    table_cost,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
DRAW_SOURCE = REPO_ROOT / "tournaments" / "draw.py"


def players_of(n, **kwargs):
    return [DrawPlayer(i, **kwargs) for i in range(1, n + 1)]


def relation(seat_a, seat_b):
    """0 = 对头 (opposite), 1 = partner (same 联邦), 2 = tablemate — from RULES.md §1."""
    if (seat_a + 3) % 6 == seat_b:
        return 0
    if seat_a % 2 == seat_b % 2:
        return 1
    return 2


def seating_cost(seating, history):
    """The documented cost of one seating, computed independently of the module."""
    dicts = (history.opposite, history.partner, history.tablemate)
    weights = (100, 10, 1)
    total = 0
    for a, b in itertools.combinations(range(6), 2):
        rel = relation(a, b)
        key = tuple(sorted((seating[a], seating[b])))
        total += weights[rel] * dicts[rel].get(key, 0)
    return total


def assert_valid_draw(result, players):
    ids = [p.id for p in players]
    seated = [p for table in result.tables for p in table]
    assert all(len(table) == 6 for table in result.tables)
    assert len(seated) == len(set(seated)), "a player drawn twice"
    assert sorted(seated + result.byes) == sorted(ids)
    assert len(result.byes) == len(ids) % 6


def run_rounds(n, rounds, seed, *, brackets=False):
    """Draw rounds with history, byes and seat counts carried over; returns (draws, byes)."""
    history = History()
    byes = dict.fromkeys(range(1, n + 1), 0)
    seats = {p: [0] * 6 for p in byes}
    draws = []
    for r in range(rounds):
        players = [DrawPlayer(p, byes=byes[p], seat_counts=tuple(seats[p])) for p in byes]
        result = draw_individual(players, history, f"{seed}/{r}", brackets=brackets)
        draws.append(result)
        for table in result.tables:
            history.add_table(table)
            for seat, p in enumerate(table):
                seats[p][seat] += 1
        for p in result.byes:
            byes[p] += 1
    return draws, byes


# --------------------------------------------------------------------------- DrawRandom


def reference_stream(seed, n, count):
    """The DrawRandom algorithm re-implemented from its docstring alone."""
    data = b"".join(hashlib.sha256(f"{seed}:{c}".encode()).digest() for c in range(64))
    pos = 0
    out = []
    k = (n - 1).bit_length()
    m = (k + 7) // 8
    while len(out) < count:
        x = int.from_bytes(data[pos : pos + m], "big") >> (8 * m - k)
        pos += m
        if x < n:
            out.append(x)
    return out


@pytest.mark.parametrize("n", [2, 6, 7, 100, 1000, 70_000])
def test_draw_random_follows_its_documented_algorithm(n):
    """Anyone can re-implement the draw's random source from its docstring."""
    rng = DrawRandom("public seed")
    assert [rng.randbelow(n) for _ in range(200)] == reference_stream("public seed", n, 200)


def test_draw_random_is_reproducible_and_seed_dependent():
    a, b, c = DrawRandom("s"), DrawRandom("s"), DrawRandom("t")
    seq_a = [a.randbelow(1000) for _ in range(50)]
    assert seq_a == [b.randbelow(1000) for _ in range(50)]
    assert seq_a != [c.randbelow(1000) for _ in range(50)]
    assert DrawRandom("x").randbelow(1) == 0
    with pytest.raises(ValueError):
        DrawRandom("x").randbelow(0)


def test_draw_random_randbelow_is_unbiased_enough():
    """Each of 6 values appears 10,000 ± 600 times in 60,000 draws (rejection sampling)."""
    rng = DrawRandom("fair dice")
    counts = Counter(rng.randbelow(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(9_400 <= c <= 10_600 for c in counts.values()), counts


def test_draw_random_shuffle_is_fisher_yates_and_random_is_a_unit_float():
    items = list(range(10))
    DrawRandom("fy").shuffle(items)
    expected = list(range(10))
    rng = DrawRandom("fy")
    for i in range(9, 0, -1):
        j = rng.randbelow(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected and sorted(items) == list(range(10))
    rng = DrawRandom("u")
    values = [rng.random() for _ in range(1000)]
    assert all(0.0 <= v < 1.0 for v in values)
    assert 0.4 < sum(values) / len(values) < 0.6


# --------------------------------------------------------------------------- commitment


def test_commitment_is_sha256_of_canonical_json():
    """Verifiable draws: the commitment is published before the draw, the seed after it."""
    text = '{"entries":[1,2,3],"event":7,"round":2,"seed":"abc"}'
    assert commitment("abc", [3, 1, 2], 2, 7) == hashlib.sha256(text.encode()).hexdigest()


def test_commitment_changes_with_seed_entries_and_round():
    base = commitment("seed", [1, 2, 3], 1, "cup")
    assert commitment("seed", [3, 2, 1], 1, "cup") == base  # order of entries does not matter
    assert commitment("seed2", [1, 2, 3], 1, "cup") != base
    assert commitment("seed", [1, 2, 4], 1, "cup") != base
    assert commitment("seed", [1, 2], 1, "cup") != base
    assert commitment("seed", [1, 2, 3], 2, "cup") != base
    assert commitment("seed", [1, 2, 3], 1, "other") != base


def test_new_seed_is_256_bits_of_hex():
    a, b = new_seed(), new_seed()
    assert len(a) == 64 and int(a, 16) >= 0 and a != b


# --------------------------------------------------------------------------- history


def test_history_counts_opposite_partner_and_tablemate():
    """对头 = seat s and s+3; same 联邦 = seats of equal parity; the rest are tablemates."""
    history = History.from_tables([(1, 2, 3, 4, 5, 6)])
    assert history.opposite == {(1, 4): 1, (2, 5): 1, (3, 6): 1}
    assert set(history.partner) == {(1, 3), (1, 5), (3, 5), (2, 4), (2, 6), (4, 6)}
    assert set(history.tablemate) == {(1, 2), (1, 6), (2, 3), (3, 4), (4, 5), (5, 6)}
    history.add_table((4, 2, 6, 1, 3, 5))
    assert history.opposite[(1, 4)] == 2
    assert history.count(4, 1) == (2, 0, 0)
    with pytest.raises(ValueError):
        history.add_table((1, 2, 3))


def test_repeat_stats_counts_meetings_already_had_in_that_relation():
    rounds = [
        [(1, 2, 3, 4, 5, 6)],
        [(1, 2, 3, 4, 5, 6)],  # every pair again in the same relation: 3 + 6 + 6 repeats
        # 对头 now (1,2), (3,4), (5,6): tablemates before, so no 对头 repeat; partners again:
        # (1,5) and (2,6); tablemates again: (1,6)
        [(1, 3, 5, 2, 4, 6)],
    ]
    assert repeat_stats(rounds) == {
        "opposite_repeats": 3,
        "partner_repeats": 6 + 2,
        "tablemate_repeats": 6 + 1,
    }


# --------------------------------------------------------------------------- individual draw


@pytest.mark.parametrize("n", [0, 1, 5, 6, 7, 12, 13, 20, 61])
def test_draw_seats_everyone_once_six_per_table_and_n_mod_6_byes(n):
    """抽签组邦: each checked-in player sits at one table of six or has a bye (轮空)."""
    players = players_of(n)
    result = draw_individual(players, History(), "s")
    assert_valid_draw(result, players)
    assert_valid_draw(draw_individual(players, History(), "s", time_budget=0.0), players)


def test_each_table_is_two_alternating_teams_in_the_best_arrangement():
    """The two 联邦 sit alternately (seats 0,2,4 vs 1,3,5); the drawn seating has the lowest cost
    of all 720 seatings of its six players (对头 repeats first, then partners, then tablemates)."""
    draws, _ = run_rounds(24, 6, "arrangement")
    history = History()
    for draw in draws:
        for table in draw.tables:
            best = min(seating_cost(p, history) for p in itertools.permutations(table))
            assert seating_cost(table, history) == best == table_cost(table, history)
        for table in draw.tables:
            history.add_table(table)


def test_former_opposites_are_not_seated_as_opposites_again():
    """对头 repeats cost the most: six players who met as 对头 are re-seated differently."""
    history = History.from_tables([(1, 2, 3, 4, 5, 6)] * 3)
    table = draw_individual(players_of(6), history, "again").tables[0]
    new_opposites = {tuple(sorted((table[s], table[s + 3]))) for s in range(3)}
    assert not new_opposites & set(history.opposite)


def test_seat_rotation_uses_seats_a_player_sat_in_least():
    players = [
        DrawPlayer(i, seat_counts=tuple(5 if s == i - 1 else 0 for s in range(6)))
        for i in range(1, 7)
    ]
    table = draw_individual(players, History(), "rotate").tables[0]
    assert all(table[seat] != seat + 1 for seat in range(6))


@pytest.mark.parametrize("n", [7, 13, 20])
def test_byes_rotate_fairly(n):
    """轮空: nobody gets a second bye before everyone has had one."""
    history = History()
    byes = dict.fromkeys(range(1, n + 1), 0)
    for r in range(2 * -(-n // (n % 6)) + 1):  # two full bye cycles and one more round
        players = [DrawPlayer(p, score=float(p % 3), byes=byes[p]) for p in byes]
        result = draw_individual(players, history, f"byes/{r}")
        assert_valid_draw(result, players)
        for p in result.byes:
            assert byes[p] == min(byes.values()), f"round {r}: {p} gets an extra bye"
            byes[p] += 1
        assert max(byes.values()) - min(byes.values()) <= 1
        for table in result.tables:
            history.add_table(table)


def test_with_brackets_byes_go_to_the_lowest_score_among_fewest_byes():
    players = [DrawPlayer(i, score=float(i), byes=1 if i <= 2 else 0) for i in range(1, 9)]
    result = draw_individual(players, History(), "b", brackets=True)
    assert result.byes == [3, 4]


def test_draw_is_deterministic_given_players_history_and_seed():
    """Verifiable draws: the same public data and seed give the same seating."""
    draws, _ = run_rounds(50, 3, "hist")
    history = History.from_tables(t for d in draws for t in d.tables)
    players = [DrawPlayer(i, score=float(i % 4), byes=i % 2) for i in range(1, 51)]
    first = draw_individual(players, history, "seed-1")
    assert draw_individual(players, history, "seed-1") == first
    assert draw_individual(list(reversed(players)), history, "seed-1") == first
    assert draw_individual(players, history, "seed-2") != first
    assert draw_individual(players, history, "seed-1", brackets=True) == draw_individual(
        players[::-1], history, "seed-1", brackets=True
    )


def test_duplicate_player_ids_are_refused():
    with pytest.raises(ValueError):
        draw_individual([DrawPlayer(1), DrawPlayer(1)], History(), "s")


def test_optimised_draws_repeat_far_less_than_a_plain_shuffle():
    """Across 7 rounds of 600 players: fewer repeated 对头 (at most half), partners, tablemates."""
    optimised = simulate(600, 7, "repeats", "optimised")
    shuffle = simulate(600, 7, "repeats", "shuffle")
    assert shuffle["opposite_repeats"] > 0
    assert optimised["opposite_repeats"] <= shuffle["opposite_repeats"] // 2
    assert optimised["partner_repeats"] < shuffle["partner_repeats"]
    assert optimised["tablemate_repeats"] < shuffle["tablemate_repeats"]
    assert len(optimised["draw_seconds"]) == 7 and optimised["seconds_per_draw"] < 2.0


def test_brackets_keep_equal_scores_together():
    """Swiss-style brackets: tables are cut from players sorted by score; the 2 byes come from
    the lowest score group, leaving groups of six that sit together, top group first."""
    scores = [3.0] * 6 + [2.0] * 6 + [1.0] * 8
    players = [DrawPlayer(i + 1, score=s) for i, s in enumerate(scores)]
    result = draw_individual(players, History(), "brackets", brackets=True)
    by_id = {p.id: p.score for p in players}
    assert [sorted({by_id[p] for p in t}) for t in result.tables] == [[3.0], [2.0], [1.0]]
    assert all(by_id[p] == 1.0 for p in result.byes)


def test_brackets_avoid_repeats_within_large_score_groups():
    draws, _ = run_rounds(120, 6, "brackets-rounds", brackets=True)
    stats = repeat_stats([d.tables for d in draws])
    assert stats["opposite_repeats"] == 0


def test_shuffle_baseline_seats_in_drawn_order():
    result = draw_shuffle(players_of(13), "s")
    assert_valid_draw(result, players_of(13))


# --------------------------------------------------------------------------- team draw


def swiss_rounds(n_teams, rounds, seed):
    score = dict.fromkeys(range(1, n_teams + 1), 0.0)
    byes = dict.fromkeys(score, 0)
    met = set()
    rematches = 0
    results = DrawRandom(f"{seed}/results")
    history = []
    for r in range(rounds):
        result = draw_teams([DrawTeam(t, score[t], byes[t]) for t in score], met, f"{seed}/{r}")
        history.append(result)
        for a, b in result.pairs:
            rematches += (a, b) in met or (b, a) in met
            met.add((a, b))
            outcome = results.randbelow(3)
            score[a] += (2, 1, 0)[outcome]
            score[b] += (0, 1, 2)[outcome]
        if result.bye is not None:
            byes[result.bye] += 1
            score[result.bye] += 2
    return history, rematches, byes


@pytest.mark.parametrize("seed", [f"rr{i}" for i in range(10)])
def test_team_pairing_of_8_teams_over_7_rounds_is_a_round_robin(seed):
    """团体赛: no rematches while avoidable — 8 teams in 7 rounds meet every other team once."""
    history, rematches, _ = swiss_rounds(8, 7, seed)
    assert rematches == 0
    met = Counter(frozenset(p) for result in history for p in result.pairs)
    assert len(met) == 28 and set(met.values()) == {1}


def test_team_bye_rotates():
    """With an odd number of teams each team sits out once before any sits out twice."""
    history, rematches, byes = swiss_rounds(7, 7, "odd")
    assert sorted(r.bye for r in history) == list(range(1, 8))
    assert rematches == 0 and set(byes.values()) == {1}


def test_team_bye_goes_to_lowest_score_with_fewest_byes():
    teams = [
        DrawTeam(1, 5.0),
        DrawTeam(2, 1.0, byes=1),
        DrawTeam(3, 2.0),
        DrawTeam(4, 3.0),
        DrawTeam(5, 9.0),
    ]
    assert draw_teams(teams, set(), "b").bye == 3


def test_team_pairs_are_swiss_top_down():
    teams = [DrawTeam(i, float(10 - i)) for i in range(1, 9)]
    assert draw_teams(teams, set(), "s").pairs == [(1, 2), (3, 4), (5, 6), (7, 8)]
    assert draw_teams(teams, {(2, 1)}, "s").pairs == [(1, 3), (2, 4), (5, 6), (7, 8)]


def min_rematches(ids, met):
    if not ids:
        return 0
    first, rest = ids[0], ids[1:]
    return min(
        ((first, o) in met or (o, first) in met) + min_rematches([x for x in rest if x != o], met)
        for o in rest
    )


@given(
    n=st.integers(min_value=0, max_value=10),
    edges=st.sets(st.tuples(st.integers(1, 10), st.integers(1, 10)), max_size=40),
    seed=st.text(max_size=5),
)
def test_team_pairing_minimises_rematches(n, edges, seed):
    """When no rematch-free pairing exists, the fewest possible rematches are played."""
    met = {(a, b) for a, b in edges if a != b and a <= n and b <= n}
    teams = [DrawTeam(i, float(i % 3)) for i in range(1, n + 1)]
    result = draw_teams(teams, met, seed)
    paired = [t for pair in result.pairs for t in pair]
    assert sorted(paired + ([result.bye] if result.bye is not None else [])) == list(
        range(1, n + 1)
    )
    assert (result.bye is None) == (n % 2 == 0)
    rematches = sum((a, b) in met or (b, a) in met for a, b in result.pairs)
    assert rematches == min_rematches(sorted(paired), met)


def test_team_pairing_scales_to_2000_teams():
    history, rematches, _ = swiss_rounds(2001, 4, "big")
    assert rematches == 0 and all(len(r.pairs) == 1000 for r in history)


def test_team_pairing_is_deterministic():
    teams = [DrawTeam(i, float(i % 3)) for i in range(1, 21)]
    met = {(1, 2), (3, 4)}
    result = draw_teams(teams, met, "x")
    assert draw_teams(teams[::-1], met, "x") == result
    assert draw_teams(teams, met, "y") != result


def test_seat_team_table_puts_teams_alternately_and_avoids_repeat_opposites():
    """Team A (a 联邦) in seats 0, 2, 4 and team B in 1, 3, 5; former 对头 are not opposite."""
    history = History()
    history.opposite.update({(1, 11): 2, (2, 12): 2, (3, 13): 2})
    seat_counts = {1: (9, 0, 0, 0, 0, 0)}
    seating = seat_team_table([3, 2, 1], [13, 12, 11], history, seat_counts, "t")
    assert set(seating[0::2]) == {1, 2, 3} and set(seating[1::2]) == {11, 12, 13}
    assert all(
        tuple(sorted((seating[s], seating[s + 3]))) not in history.opposite for s in range(3)
    )
    assert seating[0] != 1
    assert seat_team_table([1, 2, 3], [11, 12, 13], history, seat_counts, "t") == seating


# --------------------------------------------------------------------------- properties


@st.composite
def draw_inputs(draw):
    """Players 1..n whose scores, byes and seat counts come from a drawn attribute seed (cheaper
    to generate than 200 x 8 separate Hypothesis draws), a small history, a shuffled copy."""
    n = draw(st.integers(min_value=0, max_value=200))
    attributes = DrawRandom(str(draw(st.integers(0, 2**32))))
    players = [
        DrawPlayer(
            i,
            score=float(attributes.randbelow(4)),
            byes=attributes.randbelow(3),
            seat_counts=tuple(attributes.randbelow(4) for _ in range(6)),
        )
        for i in range(1, n + 1)
    ]
    past = draw(st.lists(st.permutations(range(1, 7)), max_size=3)) if n >= 6 else []
    shift = draw(st.integers(0, max(0, n - 6)))
    history = History.from_tables([tuple(p + shift for p in t) for t in past])
    order = list(players)
    DrawRandom(str(draw(st.integers(0, 2**32)))).shuffle(order)
    return players, order, history, draw(st.booleans()), draw(st.text(max_size=8))


@given(draw_inputs())
def test_draw_invariants_hold_for_any_player_count(data):
    """For 0..200 players: everyone seated once or 轮空, six per table, n % 6 byes, byes only to
    players with the fewest byes (and lowest score with brackets), input order irrelevant."""
    players, order, history, brackets, seed = data
    result = draw_individual(players, history, seed, brackets=brackets)
    assert_valid_draw(result, players)
    assert draw_individual(order, history, seed, brackets=brackets) == result
    if result.byes:
        by_id = {p.id: p for p in players}
        seated = [by_id[p] for t in result.tables for p in t]
        worst_bye = max((by_id[p].byes, by_id[p].score if brackets else 0) for p in result.byes)
        assert all(worst_bye <= (p.byes, p.score if brackets else 0) for p in seated)


@given(st.integers(min_value=1, max_value=10**9), st.text(max_size=10))
def test_randbelow_stays_in_range(n, seed):
    rng = DrawRandom(seed)
    assert all(0 <= rng.randbelow(n) < n for _ in range(5))


# --------------------------------------------------------------------------- tooling


def test_draw_module_imports_no_django():
    """draw.py is pure: a Django app calls it, it never calls Django."""
    tree = ast.parse(DRAW_SOURCE.read_text(encoding="utf-8"))
    modules = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    modules += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    assert not [m for m in modules if m.split(".")[0] in ("django", "random")]
    code = "import sys, tournaments.draw; print([m for m in sys.modules if m.startswith('django')])"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_draw_command_re_runs_a_published_draw(tmp_path, capsys):
    """Verifiable draws: `python -m tournaments.draw draw --input draw.json` gives the seating."""
    players = [
        DrawPlayer(i, score=float(i % 2), byes=0, seat_counts=(0, 1, 0, 0, 1, 0))
        for i in range(1, 16)
    ]
    past = [(1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12)]
    seed = "revealed seed"
    data = {
        "seed": seed,
        "brackets": True,
        "event": 5,
        "round": 2,
        "commitment": commitment(seed, [p.id for p in players], 2, 5),
        "players": [
            {"id": p.id, "score": p.score, "byes": p.byes, "seat_counts": list(p.seat_counts)}
            for p in players
        ],
        "history": [list(t) for t in past],
    }
    path = tmp_path / "draw.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["draw", "--input", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = draw_individual(players, History.from_tables(past), seed, brackets=True)
    assert out["tables"] == [list(t) for t in expected.tables]
    assert out["byes"] == expected.byes
    assert out["commitment_ok"] is True


def test_bench_command_prints_times_and_repeats(capsys):
    assert main(["bench", "--players", "60", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "optimised" in out and "shuffle" in out and "opposite" in out


def test_apply_swaps_changes_two_places_in_order():
    from tournaments.draw import apply_swaps

    tables = [(1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12)]

    out = apply_swaps(tables, [((1, 0), (2, 3)), ((2, 3), (2, 4))])

    assert out == [[10, 2, 3, 4, 5, 6], [7, 8, 9, 11, 1, 12]]
    assert tables[0][0] == 1  # the draw itself is left as it was


def test_table_repeats_are_pairs_meeting_in_the_relation_they_met_in():
    from tournaments.draw import OPPOSITE, PAIRS, seat_relation, table_repeats

    before = (1, 2, 3, 4, 5, 6)
    history = History.from_tables([before])
    moved = (1, 3, 2, 4, 6, 5)

    repeats = table_repeats(moved, history)

    seat_before = {p: s for s, p in enumerate(before)}
    assert repeats == [(i, j, seat_relation(i, j), 1) for i, j in PAIRS
                       if seat_relation(i, j) == seat_relation(seat_before[moved[i]],
                                                               seat_before[moved[j]])]
    assert (0, 3, OPPOSITE, 1) in repeats  # 1 and 4: 对头 again
    assert (0, 2, 1, 1) not in repeats  # 1 and 2: partners now, opponents then
    assert len(table_repeats(before, history)) == 15
    assert table_repeats((7, 8, 9, 10, 11, 12), history) == []
