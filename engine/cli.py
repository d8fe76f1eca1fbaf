"""Command line: ``python -m engine replay|simulate|bench|duel|luck|deal``.

* ``replay FILE|-`` prints the result JSON of a game or match record; exit 0 legal, 1 illegal
  record, 2 unreadable input (with a one-line reason on stderr).
* ``simulate --games N --seed S --rules PRESET [--out DIR]`` plays bot games at tables of
  ``--per-table`` games (tributes carry over), prints outcome statistics, writes match records.
* ``bench`` prints replay and simulation throughput, and replay against a JSON round-trip.
* ``duel --games N --seed S --rules P --a NEW --b OLD`` plays a duplicate tournament of two
  bots (:mod:`engine.duel`) and prints points per deal with a 95 % confidence interval;
  ``--no-duplicate`` plays each deal once instead, to show what the twin buys.
* ``luck --deals N --seed S`` measures the share of a 联邦's score the cards decide, without and
  with duplicate scoring (:mod:`engine.luck`).
* ``deal --seed HEX --label LABEL [--commitment HEX] [--record FILE]`` re-derives a verifiable
  deal (:mod:`engine.deals`), prints its six hands and checks the published commitment and a
  game record's dealt hands (``--twin``: a duplicate board's twin table, rotated one seat);
  exit 1 naming what does not hold.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter

from .bots import BOT_NAMES, play_match
from .deals import commitment, derive_deal, twin_hands, verify
from .duel import duel
from .game import Game
from .record import replay, replay_match
from .rules import PRESETS, Rules, RulesError


def _read_json(path: str):
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise SystemExit(_fail(f"cannot read {path}: {exc.strerror or exc}")) from None
    except UnicodeDecodeError:
        raise SystemExit(_fail(f"cannot read {path}: not UTF-8 text")) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SystemExit(_fail(f"{path} is not JSON: {exc.msg} at line {exc.lineno} column "
                               f"{exc.colno}")) from None


def _fail(reason: str) -> int:
    print(f"error: {reason}", file=sys.stderr)
    return 2


def cmd_replay(args) -> int:
    data = _read_json(args.file)
    if isinstance(data, dict) and data.get("format") == "gouji-match/1":
        result = replay_match(data)
    else:
        result = replay(data)
    json.dump(result, sys.stdout, ensure_ascii=False, indent=None if args.compact else 2)
    sys.stdout.write("\n")
    return 0 if result.get("ok") else 1


def match_record(games: list[Game]) -> dict:
    first = games[0]
    recs = []
    for g in games:
        rec = g.record()
        rec.pop("rules")
        rec.pop("opening_seat")
        rec.pop("previous")
        recs.append(rec)
    return {"format": "gouji-match/1", "rules": first.rules.spec(),
            "opening_seat": first.opening_seat, "games": recs}


def cmd_simulate(args) -> int:
    try:
        rules = Rules.from_spec(args.rules)
    except RulesError as exc:
        return _fail(str(exc))
    if args.games < 1 or args.per_table < 1:
        return _fail("--games and --per-table must be at least 1")
    rng = random.Random(args.seed)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    stats = Counter()
    place_points = Counter()
    actions = []
    t0 = time.perf_counter()
    played = 0
    table = 0
    while played < args.games:
        n = min(args.per_table, args.games - played)
        games = play_match(rules, n, rng, bot=args.bot)
        for g in games:
            res = g.result()
            actions.append(len(g.actions))
            stats["void"] += res["void"]
            stats["sweep"] += res["sweep"]
            stats["revolutions"] += len(res["revolutions"])
            stats["burns"] += len(res["burns"])
            stats["counter_burns"] += sum(b["counter"] for b in res["burns"])
            stats["eliminated_failed_burn"] += sum(e["reason"] == "failed_burn"
                                                   for e in res["eliminated"])
            stats["eliminated_smothered"] += sum(e["reason"] == "smothered"
                                                 for e in res["eliminated"])
            stats["smothers"] += len(res["smothers"])
            if res["kaidian"][0] is not None:
                stats["kaidian_seats"] += sum(bool(k) for k in res["kaidian"])
            for t in (0, 1):
                place_points[t] += res["team_points"][t]
            stats["team0_wins"] += res["team_points"][0] > 0
            stats["team1_wins"] += res["team_points"][1] > 0
        if args.out:
            path = os.path.join(args.out, f"table-{table:04d}.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(match_record(games), fh, ensure_ascii=False)
        if args.check:
            res = replay_match(match_record(games))
            if not res["ok"]:
                print(f"table {table}: record does not replay: {res['error']}", file=sys.stderr)
                return 1
        played += n
        table += 1
    elapsed = time.perf_counter() - t0
    print(f"rules: {json.dumps(rules.spec(), ensure_ascii=False)}  bot: {args.bot}  "
          f"seed: {args.seed}")
    print(f"games: {played} at {table} table(s), {elapsed:.2f} s ({played / elapsed:.0f} games/s)")
    print(f"actions per game: median {statistics.median(actions):.0f}, max {max(actions)}")
    print(f"void (流局): {stats['void']}  串三户 sweeps: {stats['sweep']}  "
          f"revolutions: {stats['revolutions']}")
    print(f"burns (烧牌): {stats['burns']} (counter-burns {stats['counter_burns']}), "
          f"failed burns (诈烧): {stats['eliminated_failed_burn']}")
    print(f"smothers (闷): {stats['smothers']} (eliminated {stats['eliminated_smothered']})")
    if rules["dadian"]:
        print(f"开点 per game: {stats['kaidian_seats'] / played:.2f} seats")
    print(f"team points: team 0 {place_points[0]}, team 1 {place_points[1]}; games won: "
          f"team 0 {stats['team0_wins']}, team 1 {stats['team1_wins']}")
    if args.out:
        print(f"records: {table} match file(s) in {args.out}")
    return 0


def cmd_bench(args) -> int:
    """Simulation and replay throughput, and a full replay against a JSON round-trip
    (``json.loads(json.dumps(record))``) of the same records, measured side by side. Rates are
    per CPU second of this process (``time.process_time``), so other work on a shared machine
    slows them less than wall-clock rates; each replay figure is the best of ``--repeat``
    passes over the same records."""
    rng = random.Random(args.seed)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load average {_load()}; {time.strftime('%Y-%m-%d')}")
    for preset in args.rules:
        records = []
        n_sim = 0
        w0, c0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - w0 < args.seconds or n_sim < 20:
            g = play_match(preset, 1, rng, bot=args.bot)[0]
            n_sim += 1
            if len(records) < args.games:
                records.append(g.record())
        sim_wall, sim_cpu = time.perf_counter() - w0, time.process_time() - c0
        n_actions = sum(len(rec["actions"]) for rec in records)
        replay_best = json_best = None
        for _ in range(args.repeat):
            t = time.process_time()
            for rec in records:
                json.loads(json.dumps(rec))
            t1 = time.process_time()
            for rec in records:
                res = replay(rec)
                if not res["ok"]:
                    print(f"[{preset}] a recorded game does not replay: {res['error']}",
                          file=sys.stderr)
                    return 1
            t2 = time.process_time()
            json_best = t1 - t if json_best is None else min(json_best, t1 - t)
            replay_best = t2 - t1 if replay_best is None else min(replay_best, t2 - t1)
        n = len(records)
        print(f"[{preset}] replay: {n} recorded games, {replay_best / n * 1000:.2f} ms/game, "
              f"{n / replay_best:.0f} games/s, {replay_best / n_actions * 1e6:.1f} µs/action; "
              f"JSON round-trip of the same records {json_best / n * 1000:.2f} ms/game: "
              f"replay = {replay_best / json_best:.2f}x JSON")
        print(f"[{preset}] simulate: {n_sim} {args.bot}-bot games, {n_sim / sim_cpu:.0f} games "
              f"per CPU second ({n_sim / sim_wall:.0f}/s wall clock)")
    return 0


def cmd_duel(args) -> int:
    try:
        rules = Rules.from_spec(args.rules)
    except RulesError as exc:
        return _fail(str(exc))
    if args.games < 2:
        return _fail("--games must be at least 2 deals")
    t0 = time.perf_counter()
    stats = duel(rules, args.a, args.b, deals=args.games, seed=args.seed, jobs=args.jobs,
                 duplicate=not args.no_duplicate)
    elapsed = time.perf_counter() - t0
    s = stats.summary()
    if args.json:
        json.dump({"rules": rules.spec(), "a": args.a, "b": args.b, "seed": args.seed,
                   "duplicate": not args.no_duplicate, **s},
                  sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    lo, hi = s["ci95"]
    print(f"rules: {json.dumps(rules.spec(), ensure_ascii=False)}  seed: {args.seed}  "
          f"a: {args.a}  b: {args.b}")
    if args.no_duplicate:
        print(f"{s['deals']} deals, each played once, {args.a} on seats 0, 2, 4 in every other "
              f"deal ({s['games']} games, {elapsed:.0f} s)")
    else:
        print(f"{s['deals']} deals, each played twice with the 联邦s' seats swapped "
              f"({s['games']} games, {elapsed:.0f} s)")
    print(f"points per deal, {args.a} minus {args.b}: {s['points_per_deal']:+.3f} "
          f"(95% CI {lo:+.3f} to {hi:+.3f})")
    print(f"games won: {args.a} {s['wins'][0]}, {args.b} {s['wins'][1]}")
    print(f"闷 per game (three seats of a side): {args.a} {s['smothers_per_game'][0]:.3f}, "
          f"{args.b} {s['smothers_per_game'][1]:.3f}")
    print(f"开点 per game: {args.a} {s['kaidian_per_game'][0]:.2f}, "
          f"{args.b} {s['kaidian_per_game'][1]:.2f}; burns per game: "
          f"{args.a} {s['burns_per_game'][0]:.2f}, {args.b} {s['burns_per_game'][1]:.2f}; "
          f"诈烧: {args.a} {s['failed_burns'][0]}, {args.b} {s['failed_burns'][1]}")
    d = s["decision_ms"]
    print(f"{args.a}'s time per move: p50 {d['p50']:.3f} ms, p99 {d['p99']:.3f} ms, "
          f"max {d['max']:.1f} ms")
    return 0


def cmd_luck(args) -> int:
    from .luck import luck

    try:
        rules = Rules.from_spec(args.rules)
    except RulesError as exc:
        return _fail(str(exc))
    if args.deals < 3 or args.twins < 1 or not 0 <= args.noise <= 1:
        return _fail("--deals must be at least 3, --twins at least 1, --noise within 0 … 1")
    t0 = time.perf_counter()
    out = luck(rules, deals=args.deals, seed=args.seed, twins=args.twins, noise=args.noise,
               resamples=args.resamples, jobs=args.jobs)
    elapsed = time.perf_counter() - t0
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    print(f"rules: {json.dumps(out['rules'], ensure_ascii=False)}  seed: {args.seed}  "
          f"six careful bots trembling {args.noise:g}")
    print(f"{out['deals']} deals, each at {args.twins} pair(s) of twin tables "
          f"({out['games']} games, {elapsed:.0f} s, load {_load()})")
    for key, what in (("plain", "net points (no duplicate)"),
                      ("duplicate", "duplicate: net points less the twin's"),
                      ("duplicate_imp", "duplicate: the same in IMPs")):
        f = out[key]
        lo, hi = f["ci95"]
        print(f"the cards' share of a 联邦's score, {what}: {f['share']:.3f} "
              f"(95% CI {lo:.3f} to {hi:.3f}; variance {f['variance']:.2f})")
    return 0


def _hands_of_record(path: str):
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("format") != "gouji-record/1":
        raise SystemExit(_fail(f"{path} is not a game record (gouji-record/1; give one game "
                               "of a match)"))
    hands = data.get("deal")
    if (not isinstance(hands, list) or len(hands) != 6
            or not all(isinstance(h, list) and all(isinstance(c, str) for c in h)
                       for h in hands)):
        raise SystemExit(_fail(f"{path}: its deal is not six lists of cards"))
    return hands


def cmd_deal(args) -> int:
    try:
        hands = derive_deal(args.seed, args.label)
    except ValueError as exc:
        return _fail(str(exc))
    if args.twin:  # a duplicate board as its twin table was dealt it: rotated one seat
        hands = twin_hands(hands)
    for seat, hand in enumerate(hands):
        print(f"seat {seat}: {' '.join(hand)}")
    print(f"label: {args.label}")
    print(f"commitment: {commitment(args.seed, args.label)}")
    problems = []
    if args.commitment is not None:
        problems += verify(args.seed, args.label, args.commitment)
    if args.record is not None:
        problems += [p.replace("the hands", f"the hands of {args.record}")
                     for p in verify(args.seed, args.label, commitment(args.seed, args.label),
                                     _hands_of_record(args.record), twin=args.twin)]
    for problem in problems:
        print(f"does not hold: {problem}", file=sys.stderr)
    if problems:
        return 1
    checked = [what for what, given in (("the published commitment", args.commitment),
                                        (f"the deal of {args.record}", args.record)) if given]
    if checked:
        print(f"ok: {' and '.join(checked)} match the seed and label")
    return 0


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:  # not on every platform
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine", description="够级 rules engine")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("replay", help="replay a game or match record and print its result")
    p.add_argument("file", help="a JSON file, or - for standard input")
    p.add_argument("--compact", action="store_true", help="print the result on one line")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("simulate", help="play bot games and print outcome statistics")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="dagang", help=f"preset: {', '.join(PRESETS)} "
                   "(or a JSON rules object)")
    p.add_argument("--per-table", type=int, default=4, help="games per table (a match)")
    p.add_argument("--bot", choices=BOT_NAMES, default="heuristic")
    p.add_argument("--out", help="directory for the match records")
    p.add_argument("--check", action="store_true", help="replay every match record too")
    p.set_defaults(func=cmd_simulate)
    p = sub.add_parser("bench", help="replay and simulation throughput")
    p.add_argument("--games", type=int, default=300, help="recorded games to replay")
    p.add_argument("--seconds", type=float, default=3.0, help="time spent simulating")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rules", nargs="+", default=list(PRESETS))
    p.add_argument("--bot", choices=BOT_NAMES, default="heuristic",
                   help="the bot that plays the simulated games")
    p.add_argument("--repeat", type=int, default=3, help="replay passes (the best counts)")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("duel", help="duplicate tournament of two bots (each deal played twice, "
                       "seats swapped)")
    p.add_argument("--games", type=int, default=2000, help="deals (each is played twice)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="dagang", help=f"preset: {', '.join(PRESETS)} "
                   "(or a JSON rules object)")
    p.add_argument("--a", default="careful", choices=BOT_NAMES, help="the bot measured")
    p.add_argument("--b", default="heuristic", choices=BOT_NAMES, help="the baseline")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.add_argument("--no-duplicate", action="store_true", help="play each deal once (no twin): "
                   "the plain match duplicate play is measured against")
    p.set_defaults(func=cmd_duel)
    p = sub.add_parser("luck", help="the share of a 联邦's score the cards decide, without and "
                       "with duplicate scoring")
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="dagang", help=f"preset: {', '.join(PRESETS)} "
                   "(or a JSON rules object)")
    p.add_argument("--twins", type=int, default=2, help="pairs of twin tables per deal")
    p.add_argument("--noise", type=float, default=0.01,
                   help="the share of the bots' turns played at random (their trembling)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=cmd_luck)
    p = sub.add_parser("deal", help="re-derive a verifiable deal from its revealed seed and "
                       "check its commitment and a record")
    p.add_argument("--seed", required=True, help="the revealed seed (64 hex digits)")
    p.add_argument("--label", required=True, help="the game's label, as published")
    p.add_argument("--commitment", help="the commitment published before the game")
    p.add_argument("--record", help="a game record (gouji-record/1) whose deal to check")
    p.add_argument("--twin", action="store_true", help="a duplicate (复式) board as its twin "
                   "table holds it: seat s gets hand s-1")
    p.set_defaults(func=cmd_deal)
    args = ap.parse_args(argv)
    if getattr(args, "rules", None) and isinstance(args.rules, str) and args.rules.startswith("{"):
        try:
            args.rules = json.loads(args.rules)
        except json.JSONDecodeError:
            return _fail("--rules is neither a preset name nor a JSON object")
    return args.func(args)
