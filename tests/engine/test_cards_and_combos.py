"""Cards (RULES.md §2) and combos, beating and 够级牌 (RULES.md §3).

Public API under test: ``parse_cards``, ``parse_combo``, ``can_beat``, ``is_gouji``, ``deal``
(engine/__init__.py) and the combo attributes ``size``, ``rank``, ``kind`` of engine/cards.py.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import CardError, ComboError, can_beat, deal, is_gouji, parse_cards, parse_combo
from engine.cards import BIG_ATTACHED, BJ, PLAIN, RANK_VALUE, RJ, SMALL_ATTACHED

#: Rank values as the engine exposes them (RULES.md §2 order).
R = dict(RANK_VALUE)
R["小王"] = BJ
R["大王"] = RJ

# The full order of RULES.md §2, lowest first.
ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王"]


def one_card_of(rank: str) -> str:
    return {"小王": "BJ", "大王": "RJ"}.get(rank, rank + "S")


# --------------------------------------------------------------------------- §2 notation


def test_card_notation_canonical_forms_are_kept():
    """牌的记法 (RULES.md §2): rank then suit S H D C, ten is ``10``, jokers ``BJ``/``RJ``."""
    cards = ["3S", "10H", "QD", "2C", "AS", "BJ", "RJ"]
    assert parse_cards(cards) == cards
    assert parse_cards("3S 10H QD 2C AS BJ RJ") == cards


def test_card_notation_accepts_T_for_ten():
    """牌的记法 (RULES.md §2): ``T`` is accepted on input for 10 and read as ``10``."""
    assert parse_cards(["TS", "TH", "TD", "TC"]) == ["10S", "10H", "10D", "10C"]
    assert parse_cards("TS") == parse_cards("10S")
    # a T-ten is a ten in a combo too
    assert parse_combo("TS 10H").rank == R["10"]
    assert parse_combo("TS 10H").size == 2


def test_card_notation_accepts_chinese_joker_names():
    """小王/大王 (RULES.md §2): input may name the jokers 小王 (=BJ) and 大王 (=RJ)."""
    assert parse_cards(["小王", "大王"]) == ["BJ", "RJ"]
    assert parse_cards("小王 大王 BJ") == ["BJ", "RJ", "BJ"]
    assert parse_combo(["小王", "大王"]).rank == R["小王"]


@pytest.mark.parametrize(
    "bad",
    ["1S", "11S", "XS", "10X", "10", "S", "", "ZZ", "BJS", "3", "2Z", "JJ", "RJ2", "小", "王"],
)
def test_bad_card_raises_card_error(bad):
    """牌的记法 (RULES.md §2): a string that is not a card raises CardError (a ValueError)."""
    with pytest.raises(CardError):
        parse_cards([bad])
    with pytest.raises(ValueError):
        parse_cards([bad])


def test_bad_card_in_a_combo_raises_value_error():
    """一套牌 (RULES.md §2/§3): parse_combo of a non-card raises a ValueError (ComboError)."""
    with pytest.raises(ValueError):
        parse_combo("9S 9X")
    with pytest.raises(ValueError):
        parse_combo(["9S", "1H"])


def test_card_error_is_a_value_error():
    """CardError/ComboError (RULES.md §2/§3) are ValueErrors, so callers can catch either."""
    assert issubclass(CardError, ValueError)
    assert issubclass(ComboError, ValueError)


# --------------------------------------------------------------------------- §3 parse_combo


@pytest.mark.parametrize(
    "cards, rank, size",
    [
        ("3S", "3", 1),
        ("9S 9H 9D", "9", 3),
        ("10S 10H", "10", 2),
        ("QD QD QD QD", "Q", 4),  # four decks: the same card may appear up to 4 times
        ("AS AH AD AC AS", "A", 5),
    ],
)
def test_parse_combo_base_rank_and_size(cards, rank, size):
    """一套牌 (RULES.md §3): N cards of one rank; size = number of cards, rank = base rank."""
    combo = parse_combo(cards)
    assert combo.rank == R[rank]
    assert combo.size == size
    assert combo.kind == PLAIN


def test_attached_twos_count_as_members_of_the_base_rank():
    """贴钱 (RULES.md §3): attached 2s are ordinary members: ``KS KH 2D`` is three Kings."""
    combo = parse_combo("KS KH 2D")
    assert combo.rank == R["K"]
    assert combo.size == 3
    assert combo.kind == PLAIN
    # and it behaves like three Kings: beats three Queens, loses to three Aces
    assert can_beat("KS KH 2D", "QS QH QD")
    assert can_beat("AS AH AD", "KS KH 2D")
    assert not can_beat("KS KH 2D", "KS KH KD")
    assert not can_beat("KS KH KD", "KS KH 2D")


def test_one_base_card_with_many_twos_keeps_the_base_rank():
    """贴钱 (RULES.md §3): ``5S 2H 2D 2C`` is four 5s, not 2s."""
    combo = parse_combo("5S 2H 2D 2C")
    assert combo.rank == R["5"]
    assert combo.size == 4
    assert combo.kind == PLAIN


@pytest.mark.parametrize(
    "cards, kind",
    [
        ("RJ 9S", BIG_ATTACHED),
        ("RJ BJ 9S 9H", BIG_ATTACHED),  # RJ and BJ together: 大王-attached
        ("RJ 2S 9S", BIG_ATTACHED),
        ("BJ 9S", SMALL_ATTACHED),
        ("BJ BJ 9S 2H", SMALL_ATTACHED),
        ("9S 2H", PLAIN),
    ],
)
def test_joker_attached_kinds(cards, kind):
    """挂花/挂王 (RULES.md §3): an attached RJ marks 大王-attached; BJ without RJ 小王-attached."""
    combo = parse_combo(cards)
    assert combo.kind == kind
    assert combo.rank == R["9"]
    assert combo.size == len(cards.split())


def test_pure_twos_are_rank_two_plain():
    """钱 (RULES.md §3): a combo of only 2s has base rank 2 and is plain."""
    combo = parse_combo("2S 2H 2D")
    assert combo.rank == R["2"]
    assert combo.size == 3
    assert combo.kind == PLAIN


@pytest.mark.parametrize(
    "cards, kind",
    [("2S BJ", SMALL_ATTACHED), ("2S 2H BJ BJ", SMALL_ATTACHED), ("2S RJ", BIG_ATTACHED),
     ("2S BJ RJ", BIG_ATTACHED)],
)
def test_twos_with_jokers_are_rank_two_joker_attached(cards, kind):
    """钱挂王 (RULES.md §3): 2s plus jokers: base rank 2, joker-attached as usual."""
    combo = parse_combo(cards)
    assert combo.rank == R["2"]
    assert combo.kind == kind


def test_pure_small_jokers_are_rank_small_joker_plain():
    """小王 (RULES.md §3): only BJs: base rank 小王, plain."""
    for n in (1, 2, 4):
        combo = parse_combo(["BJ"] * n)
        assert combo.rank == R["小王"]
        assert combo.size == n
        assert combo.kind == PLAIN


def test_pure_big_jokers_are_rank_big_joker_plain():
    """大王 (RULES.md §3): only RJs: base rank 大王, plain."""
    for n in (1, 3):
        combo = parse_combo(["RJ"] * n)
        assert combo.rank == R["大王"]
        assert combo.size == n
        assert combo.kind == PLAIN


def test_small_and_big_jokers_together_are_small_joker_rank_big_attached():
    """小王+大王 (RULES.md §3): BJ and RJ together: base rank 小王, 大王-attached."""
    for cards in ("BJ RJ", "BJ BJ RJ", "BJ RJ RJ RJ"):
        combo = parse_combo(cards)
        assert combo.rank == R["小王"], cards
        assert combo.kind == BIG_ATTACHED, cards
        assert combo.size == len(cards.split())


@pytest.mark.parametrize("cards", ["9S 10S", "3S 4S", "AS KS 2S", "9S 9H BJ 10D", "JS QS RJ"])
def test_two_different_ranks_is_not_a_combo(cards):
    """一套牌 (RULES.md §3): two different ranks from 3..A → not a combo (ComboError)."""
    with pytest.raises(ComboError):
        parse_combo(cards)
    with pytest.raises(ValueError):
        parse_combo(cards)


def test_empty_play_is_not_a_combo():
    """一套牌 (RULES.md §3): a combo has N ≥ 1 cards."""
    with pytest.raises(ComboError):
        parse_combo([])


def test_combo_order_of_cards_does_not_matter():
    """一套牌 (RULES.md §2–§3): a hand is a multiset; card order in a play is irrelevant."""
    a = parse_combo("2D KS BJ KH")
    b = parse_combo("KH BJ KS 2D")
    assert (a.rank, a.size, a.kind) == (b.rank, b.size, b.kind) == (R["K"], 4, SMALL_ATTACHED)


# --------------------------------------------------------------------------- §3 can_beat


@pytest.mark.parametrize("low, high", list(zip(ORDER, ORDER[1:], strict=False)))
def test_rank_order_single_cards(low, high):
    """步步高 (RULES.md §2/§3): 3 < 4 < … < A < 2 < 小王 < 大王, one card against one card."""
    lo, hi = one_card_of(low), one_card_of(high)
    assert can_beat(hi, lo)
    assert not can_beat(lo, hi)


def test_same_rank_does_not_beat_whatever_the_suit():
    """上牌 (RULES.md §2/§3): suits never matter; an equal rank does not beat."""
    assert not can_beat("9H", "9S")
    assert not can_beat("9S", "9H")
    assert not can_beat("BJ", "BJ")
    assert not can_beat("RJ", "RJ")
    assert not can_beat("2S 2H", "2D 2C")


def test_beating_needs_the_same_size():
    """张数相同 (RULES.md §3): B beats A only when size(B) == size(A)."""
    assert can_beat("10S 10H", "9S 9H")
    assert not can_beat("10S 10H", "9S")
    assert not can_beat("10S", "9S 9H")
    assert not can_beat("AS AH AD", "3S 3H")
    assert not can_beat("2S 2H 2D 2C", "3S 3H 3D")
    assert not can_beat("RJ RJ", "3S")


def test_can_beat_accepts_combo_objects():
    """上牌 (RULES.md §3): can_beat takes parsed combos as well as card strings."""
    assert can_beat(parse_combo("JS JH"), parse_combo("10S 10H"))
    assert not can_beat(parse_combo("10S 10H"), parse_combo("JS JH"))


def test_twos_and_jokers_beat_by_rank():
    """钱/王 (RULES.md §3): pure 2s, 小王s and 大王s beat by rank like any combo."""
    assert can_beat("2S 2H", "AS AH")
    assert can_beat("BJ BJ", "2S 2H")
    assert can_beat("RJ RJ", "BJ BJ")
    assert not can_beat("2S 2H", "BJ BJ")


def test_plain_top_may_be_beaten_by_plain_or_joker_attached():
    """上牌 (RULES.md §3): a plain top is beaten by a plain or joker-attached higher combo."""
    assert can_beat("10S 10H", "9S 9H")
    assert can_beat("BJ 10S", "9S 9H")
    assert can_beat("RJ 10S", "9S 9H")
    # but the rank must still be higher
    assert not can_beat("BJ 8S", "9S 9H")
    assert not can_beat("RJ 9D", "9S 9H")


def test_big_joker_attached_is_a_dead_card():
    """死牌 (RULES.md §3): nothing beats a 大王-attached combo (the 对头 just closes, 扣牌)."""
    top = "RJ 9S"
    for play in ("RJ AS", "RJ 2S", "RJ RJ", "BJ BJ", "2S 2H", "AS AH", "BJ AS", "BJ RJ"):
        assert not can_beat(play, top), play
    # also a 大王-attached combo of 2s, and BJ+RJ (rank 小王, 大王-attached)
    assert not can_beat("RJ RJ", "BJ RJ")
    assert not can_beat("RJ RJ RJ", "2S 2H RJ")
    assert not can_beat("RJ RJ AS", "RJ 3S 3H")


def test_big_joker_attached_is_dead_also_with_rj_beats_any():
    """死牌 (RULES.md §3): rj_beats_any does not make a 大王-attached top beatable."""
    rules = {"rj_beats_any": True}
    assert not can_beat("RJ AS", "RJ 9S", rules)
    assert not can_beat("RJ RJ AS", "RJ 3S 3H", rules)


def test_small_joker_attached_example_of_the_rules():
    """小王-attached (大纲 第八条三, RULES.md §3): ``BJ BJ 9 9 9`` is beaten by ``RJ RJ J J J`` and
    ``RJ RJ RJ J J``, not by ``RJ J J J J`` (大花不得少于小花数量)."""
    top = "BJ BJ 9S 9H 9D"
    assert can_beat("RJ RJ JS JH JD", top)
    assert can_beat("RJ RJ RJ JS JH", top)
    assert not can_beat("RJ JS JH JD JC", top)


def test_small_joker_attached_needs_big_joker_attached():
    """小王-attached (RULES.md §3): only a 大王-attached combo may beat it, never plain or 小王."""
    top = "BJ BJ 9S 9H 9D"
    assert not can_beat("JS JH JD JC JS", top)  # plain, higher
    assert not can_beat("JS JH JD 2C 2S", top)  # plain with 2s
    assert not can_beat("BJ BJ BJ JS JH", top)  # 小王-attached, more BJs
    assert not can_beat("BJ BJ JS JH JD", top)  # 小王-attached, same BJs
    # single BJ attached
    assert can_beat("RJ 10S", "BJ 9S")
    assert not can_beat("BJ 10S", "BJ 9S")
    assert not can_beat("10S 10H", "BJ 9S")


def test_small_joker_attached_still_needs_a_higher_rank():
    """小王-attached (RULES.md §3): the 大王-attached answer still needs a higher base rank."""
    top = "BJ BJ 9S 9H 9D"
    assert not can_beat("RJ RJ 9S 9H 9C", top)  # same rank
    assert not can_beat("RJ RJ 8S 8H 8D", top)  # lower rank


def test_pure_big_jokers_are_plain_so_do_not_beat_small_joker_attached():
    """小王-attached (RULES.md §3): ``RJ RJ`` is plain (only RJ), so it does not beat ``BJ 5S``;
    ``BJ RJ`` (rank 小王, 大王-attached, one RJ) does."""
    assert not can_beat("RJ RJ", "BJ 5S")
    assert can_beat("BJ RJ", "BJ 5S")
    assert not can_beat("BJ RJ", "BJ BJ")  # same rank 小王, plain top


def test_rj_beats_any_option_lets_big_attached_beat_lower_ranks():
    """挂大王的牌是最大的 (option rj_beats_any, RULES.md §3): a 大王-attached combo beats any
    plain or 小王-attached combo of the same size whatever its rank."""
    rules = {"rj_beats_any": True}
    assert can_beat("RJ 9S 9H", "AS AH AD", rules)
    assert can_beat("RJ 4S", "2S 2H", rules)
    assert can_beat("RJ 4S", "BJ BJ", rules)
    assert can_beat("RJ 4S", "RJ RJ", rules)  # pure 大王s are plain
    assert can_beat("RJ 9S 9H", "BJ AS AH", rules)
    # still the same size
    assert not can_beat("RJ 9S 9H", "AS AH", rules)
    # and a plain or 小王-attached play gains nothing
    assert not can_beat("BJ 9S 9H", "AS AH AD", rules)
    assert not can_beat("10S 10H 10D", "AS AH AD", rules)


def test_rj_beats_any_is_off_by_default():
    """rj_beats_any (RULES.md §3): default off — rank still decides."""
    assert not can_beat("RJ 9S 9H", "AS AH AD")
    assert not can_beat("RJ 9S 9H", "AS AH AD", {"rj_beats_any": False})
    assert not can_beat("RJ 4S", "2S 2H")


# --------------------------------------------------------------------------- §3 够级牌


@pytest.mark.parametrize(
    "cards, gouji",
    [
        # any joker
        ("BJ", True),
        ("RJ", True),
        ("BJ RJ", True),
        ("4S BJ", True),
        ("9S RJ", True),
        ("3S 3H BJ", True),
        # rank 2, any size
        ("2S", True),
        ("2S 2H 2D", True),
        # A and K: size >= 2
        ("AS", False),
        ("AS AH", True),
        ("AS 2H", True),
        ("KS", False),
        ("KS KH", True),
        ("KS 2H", True),
        # Q: size >= 3
        ("QS", False),
        ("QS QH", False),
        ("QS QH QD", True),
        ("QS QH 2D", True),
        # J: size >= 4
        ("JS JH JD", False),
        ("JS JH JD JC", True),
        ("JS JH JD 2C", True),  # four Jacks: attached 2s count
        # 10: size >= 5
        ("10S 10H 10D 10C", False),
        ("10S 10H 10D 10C 10S", True),
        ("10S 10H 10D 10C 2S", True),
    ],
)
def test_gouji_list_of_rules(cards, gouji):
    """够级牌 (大纲 第九条, RULES.md §3): joker → 够级; 2 any size; A/K ≥ 2; Q ≥ 3; J ≥ 4;
    10 ≥ 5; size counts attached 2s."""
    assert is_gouji(cards) is gouji
    assert is_gouji(parse_combo(cards)) is gouji


@pytest.mark.parametrize("rank", ["3", "4", "5", "6", "7", "8", "9"])
def test_ranks_three_to_nine_are_never_gouji_without_a_joker(rank):
    """够级牌 (RULES.md §3): ranks 3–9 without a joker are never 够级, whatever the size."""
    for size in (1, 4, 8):
        cards = [rank + s for s in "SHDC" * 2][:size]
        assert is_gouji(cards) is False, cards
    # with four 2s attached: twelve of a kind, still not 够级
    assert is_gouji([rank + s for s in "SHDC" * 2] + ["2S", "2H", "2D", "2C"]) is False
    # with a joker it is 够级
    assert is_gouji([rank + "S", "BJ"]) is True
    assert is_gouji([rank + "S", "RJ"]) is True


def test_beating_a_gouji_combo_is_gouji():
    """够级牌 (RULES.md §3): any combo that beats a 够级 combo is itself 够级 (a sample)."""
    tops = ["KS KH", "QS QH QD", "JS JH JD JC", "10S 10H 10D 10C 10S", "2S", "BJ 9S"]
    plays = ["AS AH", "KS KH KD", "QS QH QD QC", "JS JH JD JC JS", "BJ", "RJ 10S", "2S 2H",
             "RJ QS QH QD", "AS AH AD AC", "RJ 2S"]
    checked = 0
    for top in tops:
        for play in plays:
            if can_beat(play, top):
                checked += 1
                assert is_gouji(play), (play, top)
    assert checked >= 6


# --------------------------------------------------------------------------- §2 deal


def _four_decks() -> Counter:
    suited = [r + s for r in ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
              for s in "SHDC"]
    return Counter({c: 4 for c in suited + ["BJ", "RJ"]})


def test_deal_gives_six_hands_of_36_forming_four_decks():
    """发牌 (RULES.md §2, §4.1): 216 cards, 36 to each of six seats; every suited card 4 times,
    BJ 4 times, RJ 4 times."""
    hands = deal(random.Random(1))
    assert len(hands) == 6
    assert [len(h) for h in hands] == [36] * 6
    total = Counter(c for h in hands for c in h)
    assert sum(total.values()) == 216
    assert total == _four_decks()
    # every dealt card is in canonical notation
    for h in hands:
        assert parse_cards(h) == list(h)


def test_deal_is_deterministic_for_a_seeded_random():
    """发牌 (RULES.md §2): the same seeded random.Random gives the same deal."""
    a = deal(random.Random(2024))
    b = deal(random.Random(2024))
    assert a == b
    c = deal(random.Random(2025))
    assert c != a  # a different seed shuffles differently
    assert Counter(x for h in c for x in h) == _four_decks()
