"""Verifiable deals (engine/deals.py): the documented derivation, re-implemented here from its
docstring alone, gives the engine's deal; commitments bind seed and label."""

import hashlib
import hmac
import json
from collections import Counter

import pytest

from engine.cards import full_set, sort_cards
from engine.deals import commitment, derive_deal, new_seed, verify

SEED = "00" * 31 + "2a"
LABEL = "gouji/event/1/round/1/table/1/game/1"
KNOWN_DIGEST = "f00eceab9869e4e469929d03c62487371163ce6829940c39b87ec21706f1b9b8"


def _by_the_docstring(seed: str, label: str) -> list[list[str]]:
    key, stream, counter = bytes.fromhex(seed), b"", 0

    def uint32():
        nonlocal stream, counter
        if len(stream) < 4:
            stream += hmac.new(key, f"{label}:{counter}".encode(), hashlib.sha256).digest()
            counter += 1
        out, stream = stream[:4], stream[4:]
        return int.from_bytes(out, "big")

    cards = full_set()
    for i in range(215, 0, -1):
        n = i + 1
        while (x := uint32()) >= 2**32 - 2**32 % n:
            pass
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    return [sort_cards(cards[36 * s:36 * s + 36]) for s in range(6)]


def test_the_deal_is_the_documented_method():
    for seed in (SEED, "ff" * 32, new_seed()):
        assert derive_deal(seed, LABEL) == _by_the_docstring(seed, LABEL)


def test_a_deal_is_a_whole_pack_in_six_hands_of_36():
    hands = derive_deal(new_seed(), LABEL)
    assert [len(h) for h in hands] == [36] * 6
    assert Counter(c for h in hands for c in h) == Counter(full_set())


def test_the_same_seed_and_label_give_the_same_deal_and_nothing_else_does():
    assert derive_deal(SEED, LABEL) == derive_deal(SEED.upper(), LABEL)
    assert derive_deal(SEED, LABEL) != derive_deal(SEED, LABEL + "x")
    assert derive_deal(SEED, LABEL) != derive_deal("00" * 31 + "2b", LABEL)


def test_the_known_answer_is_pinned():
    # changing the method changes every published deal's verification: it must not drift
    digest = hashlib.sha256(repr(derive_deal(SEED, LABEL)).encode()).hexdigest()
    assert digest == KNOWN_DIGEST
    assert commitment(SEED, LABEL) == hashlib.sha256(
        f"gouji-deal:{LABEL}:{SEED}".encode()).hexdigest()


def test_commitments_bind_seed_and_label():
    seed = new_seed()
    c = commitment(seed, LABEL)
    assert len(c) == 64 and c != commitment(seed, LABEL + "x")
    assert verify(seed, LABEL, c, derive_deal(seed, LABEL)) == []
    assert verify(seed, LABEL, c.upper()) == []
    assert verify(new_seed(), LABEL, c) == [
        "the seed and label do not give the published commitment"]
    other = derive_deal(new_seed(), LABEL)
    assert verify(seed, LABEL, c, other) == [
        "the hands are not the deal the seed and label derive"]


@pytest.mark.parametrize("bad", ["", "xyz", "00" * 31, "00" * 33, "g" * 64])
def test_a_malformed_seed_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        derive_deal(bad, LABEL)
    assert verify(bad, LABEL, "0" * 64) == ["a deal's seed is 64 hexadecimal digits"]


def test_no_place_favours_a_card():
    # seat 0's share of the 8 jokers over 600 deals: mean 8 × 36/216 = 1.33 (sd of the mean 0.04)
    jokers = [sum(c in ("RJ", "BJ") for c in derive_deal(f"{i:064x}", LABEL)[0])
              for i in range(600)]
    assert 1.15 < sum(jokers) / len(jokers) < 1.52


def _record_of(hands):
    return {"format": "gouji-record/1", "rules": "dagang", "deal": hands, "pre": [],
            "leader": 0, "actions": []}


def test_the_deal_command_re_derives_and_checks(tmp_path, capsys):
    from engine.cli import main

    hands = derive_deal(SEED, LABEL)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_record_of(hands)))
    assert main(["deal", "--seed", SEED, "--label", LABEL, "--commitment",
                 commitment(SEED, LABEL), "--record", str(good)]) == 0
    out = capsys.readouterr().out
    assert f"seat 0: {' '.join(hands[0])}" in out and f"seat 5: {' '.join(hands[5])}" in out
    assert "ok: the published commitment and the deal of" in out

    swapped = tmp_path / "swapped.json"
    swapped.write_text(json.dumps(_record_of([hands[1], hands[0], *hands[2:]])))
    assert main(["deal", "--seed", SEED, "--label", LABEL, "--record", str(swapped)]) == 1
    assert f"the hands of {swapped} are not the deal" in capsys.readouterr().err
    assert main(["deal", "--seed", SEED, "--label", LABEL + "/x", "--commitment",
                 commitment(SEED, LABEL)]) == 1
    assert "do not give the published commitment" in capsys.readouterr().err
    assert main(["deal", "--seed", "12", "--label", LABEL]) == 2
    assert "64 hexadecimal digits" in capsys.readouterr().err
