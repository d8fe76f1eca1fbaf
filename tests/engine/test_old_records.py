"""Records made before the engine's speed work (issue 21) replay to the very same results.

``data/old-records.json.gz`` holds 50 match records (200 games: heuristic and random bots, the
three presets, non-strict burning, 大王 beats any, 开点 by rights under online rules) played and
replayed by the engine as it was before move generation and turn-taking were rewritten, each
with the result object that engine gave.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from engine import replay, replay_match

DATA = Path(__file__).with_name("data") / "old-records.json.gz"


def _load():
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def test_old_match_records_replay_to_the_same_results():
    entries = _load()
    assert sum(len(e["match"]["games"]) for e in entries) == 200
    for entry in entries:
        assert replay_match(entry["match"]) == entry["result"]


def test_old_game_records_replay_alone_to_the_same_results():
    """Each game with its ``previous`` spelled out replays alone as it did in its match."""
    for entry in _load()[:10]:
        match, results = entry["match"], entry["result"]["games"]
        previous = None
        for k, rec in enumerate(match["games"]):
            rec = dict(rec, rules=match["rules"], opening_seat=match["opening_seat"],
                       previous=previous)
            assert replay(rec, first_game=(k == 0)) == results[k]
            previous = results[k]
