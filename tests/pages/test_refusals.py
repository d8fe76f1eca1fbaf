"""The engine's refusals as the pages say them (web/refusals.py, issue 52): every error code the
engine raises has a sentence in both languages, each exact sentence is one the engine's real
messages lead to, and seats read 1–6号位."""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path

import pytest
from django.utils import translation

import engine
from engine.bots import play_match
from engine.cards import CARD_RANK, full_set, sort_cards
from web.refusals import CODE_MESSAGES, RECORD_REFUSALS, SHEET_REFUSALS, engine_refusal

ENGINE = Path(engine.__file__).parent
#: how the engine raises a code: IllegalAction("code", …) (also "a" if … else "b"), the
#: records' and sheets' _error("code", …), and the error objects it writes by hand
RAISED = re.compile(r'(?:IllegalAction\(|_error\(|"code":\s*)\s*"(\w+)"'
                    r'(?:\s+if\s[^"]*"[^"]*"\s+else\s+"(\w+)")?')


def engine_codes() -> set[str]:
    found = set()
    for path in ENGINE.rglob("*.py"):
        for m in RAISED.finditer(path.read_text(encoding="utf-8")):
            found.update(c for c in m.groups() if c)
    return found


def test_every_error_code_the_engine_raises_has_a_translated_sentence():
    codes = engine_codes()
    assert {"bad_format", "bad_pre", "not_in_hand", "game_over"} <= codes  # (the grep works)
    assert codes <= set(engine.CODES)  # (IllegalAction asserts it too)
    assert sorted(codes - set(CODE_MESSAGES)) == []
    for code in codes:
        english = str(CODE_MESSAGES[code])
        with translation.override("zh-hans"):
            chinese = str(CODE_MESSAGES[code])
        assert chinese != english and re.search(r"[\u4e00-\u9fff]", chinese), code


# ----------------------------------------------------------------------------- the engine's own
def _games():
    return play_match("dagang", 2, random.Random(3))


def _replay(record, first_game=False) -> dict:
    result = engine.replay(record, first_game=first_game)
    assert not result.get("ok"), "the engine took it"
    return result["error"]


def _crafted(revolting=(0,)) -> dict:
    """A record whose ``revolting`` seats were dealt no 2, no joker and no 3 (so they may
    revolt under 憋3), leader seat 1, no tributes (a standalone game)."""
    cards = full_set()
    plain = [c for c in cards if CARD_RANK[c] not in (2, 3) and c not in ("BJ", "RJ")]
    rest = [c for c in cards if c not in plain]
    hands, pool = [], list(plain)
    for s in range(6):
        if s in revolting:
            hands.append(pool[:36])
            pool = pool[36:]
        else:
            hands.append(None)
    pool += rest
    random.Random(1).shuffle(pool)
    for s in range(6):
        if hands[s] is None:
            hands[s], pool = pool[:36], pool[36:]
    return {"format": "gouji-record/1", "rules": "dagang",
            "deal": [sort_cards(h) for h in hands],
            "pre": [{"type": "revolution", "seat": s} for s in revolting], "leader": 1,
            "actions": []}


def _lower_pair(record, leader: int, answer: int) -> tuple[str, str]:
    """A small single of ``leader`` and a smaller one of ``answer`` (not 够级 combos)."""
    small = [str(n) for n in range(4, 10)]
    return next((a, b) for a in record["deal"][leader] for b in record["deal"][answer]
                if a[:-1] in small and b[:-1] in small and CARD_RANK[b] < CARD_RANK[a])


def record_errors() -> list[dict]:
    """Records the engine refuses, one (at least) for each exact sentence of a record."""
    g1, g2 = _games()
    r1, r2 = g1.record(), g2.record()
    out = []

    def changed(record, edit, first_game=False):
        record = copy.deepcopy(record)
        edit(record)
        out.append(_replay(record, first_game=first_game))

    changed(r1, lambda r: r.update(game=1), True)
    changed(r1, lambda r: r.update(format="gouji-record/2"), True)
    changed(r1, lambda r: r.pop("deal"), True)
    changed(r1, lambda r: r["deal"][1].append(r["deal"][0].pop()), True)
    changed(r1, lambda r: r["deal"][0].__setitem__(0, next(
        c for c in r["deal"][0] if c != r["deal"][0][0])), True)
    changed(r1, lambda r: r["actions"][0].update(seat=(r["actions"][0]["seat"] + 1) % 6), True)
    tribute = next(i for i, e in enumerate(r2["pre"]) if e["type"] == "tribute")
    changed(r2, lambda r: r.update(pre=[e for e in r["pre"] if e["type"] != "tribute"]))
    changed(r2, lambda r: r["pre"].insert(tribute + 1, copy.deepcopy(r["pre"][tribute])))
    changed(r2, lambda r: r["pre"][tribute].update({"from": next(
        s for s in range(6) if s not in (r["pre"][tribute]["from"], r["pre"][tribute]["to"]))}))
    changed(r2, lambda r: r["pre"][tribute]["cards"].append("2S"))
    changed(r2, lambda r: r["pre"][tribute].update(cards=["4S"]))
    changed(r2, lambda r: r.update(leader=(r["leader"] + 1) % 6))
    changed(_luo_game(), lambda r: r.update(pre=[e for e in r["pre"] if e["type"] != "return"]))

    crafted = _crafted()
    changed(crafted, lambda r: r.update(leader=0))
    changed(crafted, lambda r: r["actions"].append({"seat": 0, "act": "pass"}))
    changed(crafted, lambda r: r["actions"].append(
        {"seat": 1, "act": "play", "cards": [next(c for c in full_set()
                                                  if c not in r["deal"][1])]}))
    twice = next(c for c in crafted["deal"][1] if crafted["deal"][1].count(c) == 1
                 and c[:-1] not in ("2", "3") and c not in ("BJ", "RJ"))
    changed(crafted, lambda r: r["actions"].append({"seat": 1, "act": "play",
                                                    "cards": [twice, twice]}))
    high, low = _lower_pair(crafted, 1, 2)
    changed(crafted, lambda r: r["actions"].extend([
        {"seat": 1, "act": "play", "cards": [high]}, {"seat": 2, "act": "play", "cards": [low]}]))
    changed(_crafted(revolting=(0, 1)), lambda r: r["actions"].append(
        {"seat": 2, "act": "pass"}))
    return out


def _luo_game() -> dict:
    """A game 2 whose record pays and returns 落贡."""
    for seed in range(1, 40):
        games = play_match("dagang", 2, random.Random(seed))
        record = games[1].record()
        if any(e["type"] == "return" for e in record["pre"]):
            return record
    raise AssertionError("no bot match paid 落贡")


def _sheet(**fields) -> dict:
    sheet = {"format": "gouji-sheet/1", "rules": "dagang", "leader": 0,
             "order": [0, 2, 4, 1, 3, 5], "kaidian": [True] * 6}
    sheet.update(fields)
    return sheet


def sheet_errors() -> list[dict]:
    """Sheets the engine refuses, one for each exact sentence of a sheet."""
    sheets = [
        _sheet(revolutions=[0, 3], order=None),
        _sheet(void=True),
        _sheet(revolutions=[2], leader=2),
        _sheet(rules="online", eliminated=[{"seat": 5, "reason": "smothered"}]),
        _sheet(revolutions=[1], eliminated=[{"seat": 1, "reason": "failed_burn"}]),
        _sheet(revolutions=[1], order=[1, 0, 2, 4, 3, 5], kaidian=[True, False] + [True] * 4),
        _sheet(eliminated=[{"seat": 0, "reason": "failed_burn"}]),
        _sheet(revolutions=[1], order=[0, 2, 4, 1, 3, 5]),
        _sheet(rules="online", revolutions=[1], order=[0, 2, 4, 1, 3, 5],
               kaidian=[True, False, True, True, False, True]),
        _sheet(burns=[{"burner": 2, "burned": 5, "counter": False}]),
        _sheet(smothers=[{"seat": 5, "by": 5}]),
    ]
    out = []
    for sheet in sheets:
        result = engine.score_sheet(sheet)
        assert not result["ok"], sheet
        out.append(result["error"])
    return out


@pytest.mark.parametrize("patterns, errors", [(RECORD_REFUSALS, record_errors),
                                              (SHEET_REFUSALS, sheet_errors)],
                         ids=["record", "sheet"])
def test_each_exact_sentence_is_one_a_real_refusal_of_the_engine_leads_to(patterns, errors):
    messages = [e["message"] for e in errors()]
    unmatched = [p.pattern for p in patterns
                 if not any(re.search(p.pattern, m) for m in messages)]
    assert unmatched == []


def test_a_record_refusal_reads_in_chinese_with_seats_from_1_to_6():
    with translation.override("zh-hans"):
        said = [engine_refusal(e)[1] for e in record_errors()]
    assert "1号位还欠4号位 1 张点贡（进贡按本桌上一局的结果）" in said
    assert "文件中有牌谱没有的键“game”：这是牌谱文件（gouji-record/1）吗？" in said
    assert "第 1 手：轮到1号位出牌，不是2号位" in said
    for text in said:
        assert "seat" not in text and not re.search(r"[a-z]{4,} [a-z]{4,}", text), text


def test_a_refusal_with_no_exact_sentence_says_its_code_where_and_seat():
    error = {"where": "actions", "index": 11, "seat": 2, "code": "bad_combo",
             "message": "seat 2 played 4S 5S, which is no combo"}
    assert engine_refusal(error) == (
        "__all__", "act 12 (seat 3): a play is not a combination the rules allow")
    with translation.override("zh-hans"):
        assert engine_refusal(error)[1] == "第 12 手（3号位）：出的牌不是规则允许的牌型"
        sheet = {"where": "sheet", "index": None, "seat": None, "code": "bad_format",
                 "message": "declarations (明点/预点) need 打点 (dadian)"}
        assert engine_refusal(sheet) == ("__all__", "按本赛事规则，这张成绩单不可能成立")
