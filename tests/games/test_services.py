"""Game results (局) at tables: submission as a result sheet or a full record, validated and
scored by the engine; duplicates; confirmation by the other 联邦 or a referee (two-person rule);
corrections as new versions that keep who, when and why."""

from __future__ import annotations

import copy
import random

import pytest
from django.forms.models import model_to_dict

import engine
from engine.bots import play_match
from engine.cards import full_set
from engine.game import RESULT_KEYS
from games.models import GameResult, GameResultVersion
from games.services import result_confirm, result_correct, result_submit
from tests.factories import UserFactory
from tournaments.errors import Conflict, Forbidden, ServiceError
from tournaments.models import Seat, Table
from tournaments.services.draws import round_draw
from tournaments.services.rounds import round_create

pytestmark = pytest.mark.django_db

KAIDIAN = [True] * 6  # dagang plays 打点: every seat 开点 on these sheets


# ----------------------------------------------------------------------------- helpers
def sheet(order, **extra):
    """A result sheet (gouji-sheet/1) as a referee copies it from the table."""
    return {"order": list(order), "kaidian": list(KAIDIAN), **extra}


def engine_sheet(payload):
    """What the engine itself says about a sheet under the event's rules (dagang)."""
    return engine.score_sheet({"format": "gouji-sheet/1", "rules": "dagang", **payload})


def stored_counts():
    return GameResult.objects.count(), GameResultVersion.objects.count()


def login_for(seat: Seat):
    """Give the player in ``seat`` a login (Player.user) and return it."""
    user = UserFactory()
    seat.player.user = user
    seat.player.save(update_fields=["user"])
    return user


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture
def drawn_round(checked_in_event):
    """Round 1 of the 14-player event, drawn: two tables of six and two byes (轮空)."""
    rnd = round_create(event=checked_in_event)
    return round_draw(round_id=rnd.pk)


@pytest.fixture
def table(drawn_round):
    return drawn_round.tables.get(number=1)


@pytest.fixture
def other_table(drawn_round):
    return drawn_round.tables.get(number=2)


@pytest.fixture
def seats(table):
    return list(Seat.objects.filter(table=table).select_related("player").order_by("seat"))


@pytest.fixture(scope="module")
def match():
    """A real two-game match of one table, bot-played: [(record, result), (record, result)];
    game 2 starts with the tributes (进贡) and returns that game 1 left owing."""
    games = [(g.record(), g.result()) for g in play_match("dagang", 2, random.Random(1))]
    (_, first), (second_record, _) = games
    assert first["owed_tributes"], "the seed must give game 2 tributes to check"
    assert any(e["type"] == "tribute" for e in second_record["pre"])
    return games


@pytest.fixture
def record_1(match):
    return copy.deepcopy(match[0][0])


@pytest.fixture
def result_1(match):
    return copy.deepcopy(match[0][1])


@pytest.fixture
def record_2(match):
    return copy.deepcopy(match[1][0])


@pytest.fixture
def result_2(match):
    return copy.deepcopy(match[1][1])


@pytest.fixture
def submitted(table, seats):
    """Game 1 of table 1 submitted from a sheet by the player in seat 0 (联邦 0)."""
    submitter = login_for(seats[0])
    result = result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=submitter)
    return result, submitter


def assert_refused_unchanged(call, *, code, status=None, detail=None):
    """``call`` raises ServiceError ``code`` and stores nothing."""
    before = stored_counts()
    with pytest.raises(ServiceError) as info:
        call()
    assert info.value.code == code
    if status is not None:
        assert info.value.status == status
    if detail is not None:
        assert info.value.detail == detail
    assert stored_counts() == before
    return info.value


# ----------------------------------------------------------------------------- result sheets
@pytest.mark.parametrize("order", [[0, 2, 4, 1, 3, 5], [1, 3, 0, 5, 2, 4], [0, 1, 3, 2, 5, 4]])
def test_sheet_result_is_stored_as_the_engine_scores_it(table, referee, order):
    """A result sheet (成绩单) is scored by the engine: stored points and places are its own."""
    expected = engine_sheet(sheet(order))
    assert expected["ok"]

    result = result_submit(table=table, number=1, sheet=sheet(order), by=referee)

    result.refresh_from_db()
    assert [result.points_a, result.points_b] == expected["team_points"]
    assert result.places == expected["places"]
    assert result.engine_result == expected
    assert result.status == GameResult.Status.SUBMITTED
    assert result.version == 1
    version = result.versions.get()
    assert version.kind == GameResultVersion.Kind.SHEET
    assert (version.version, version.submitted_by, version.reason) == (1, referee, "")
    assert [version.points_a, version.points_b] == expected["team_points"]


def test_sheet_with_a_revolution_scores_the_revolutionary_fourth(table, referee):
    """A 革命 seat is placed 四科 on a sheet that lists it there."""
    payload = sheet([1, 2, 3, 0, 4, 5], revolutions=[0], leader=1,
                    kaidian=[False, True, True, True, True, True])
    result = result_submit(table=table, number=1, sheet=payload, by=referee)
    assert result.places[0] == 4
    assert [result.points_a, result.points_b] == engine_sheet(payload)["team_points"]


@pytest.mark.parametrize("bad", [
    pytest.param(sheet([0, 1, 2, 3, 4, 5], revolutions=[0], leader=1,
                       kaidian=[False, True, True, True, True, True]),
                 id="revolutionary-placed-head"),
    pytest.param(sheet([0, 1, 2, 3, 4, 4]), id="order-not-a-permutation"),
    pytest.param(sheet([0, 1, 2, 3, 4]), id="order-too-short"),
    pytest.param(sheet([0, 1, 2, 3, 4, 5], revolutions=[1], leader=1,
                       kaidian=[True, False, True, True, True, True]),
                 id="revolutionary-led"),
    pytest.param(sheet([0, 1, 2, 3, 4, 5], kaidian=None), id="kaidian-missing-under-dadian"),
])
def test_bad_sheet_is_refused_with_the_engines_reason_and_nothing_stored(table, referee, bad):
    """Invalid input is refused with the engine's code and message (422); nothing is stored."""
    expected = engine_sheet(bad)
    assert not expected["ok"]

    exc = assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, sheet=bad, by=referee),
        code=expected["error"]["code"], status=422, detail=expected["error"])

    assert exc.message == expected["error"]["message"]


def test_sheet_with_other_rules_is_refused(table, referee):
    """A sheet scored under rules other than the event's preset is refused."""
    assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, sheet=sheet([0, 1, 2, 3, 4, 5],
                                                                  rules="basic"), by=referee),
        code="wrong_rules")


def test_sheet_naming_the_events_rules_in_another_spelling_is_accepted(table, referee):
    """``{"preset": "dagang", "options": {}}`` is the event's own rules, not other rules."""
    result = result_submit(table=table, number=1, by=referee, sheet=sheet(
        [0, 1, 2, 3, 4, 5], rules={"preset": "dagang", "options": {}}))
    assert [result.points_a, result.points_b] == [2, 0]


@pytest.mark.parametrize("number", [0, 3, 99])
def test_game_number_out_of_range_is_refused(table, referee, number):
    """Game numbers run 1 … games_per_match (2 in this event)."""
    assert table.round.event.games_per_match == 2
    assert_refused_unchanged(
        lambda: result_submit(table=table, number=number, sheet=sheet([0, 1, 2, 3, 4, 5]),
                              by=referee),
        code="bad_game_number")


def test_result_for_a_round_not_drawn_is_refused(checked_in_event, referee):
    """Before the draw the round only has its commitment; no result can be taken."""
    rnd = round_create(event=checked_in_event)
    table = Table.objects.create(round=rnd, number=1)

    assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, sheet=sheet([0, 1, 2, 3, 4, 5]),
                              by=referee),
        code="not_drawn")


def test_sheet_and_record_together_or_neither_are_refused(table, referee, record_1):
    assert_refused_unchanged(lambda: result_submit(table=table, number=1, by=referee),
                             code="bad_submission")
    assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, by=referee,
                              sheet=sheet([0, 1, 2, 3, 4, 5]), record=record_1),
        code="bad_submission")


# ----------------------------------------------------------------------------- full records
def test_full_record_of_game_one_is_stored_as_the_engine_scores_it(table, referee, record_1,
                                                                   result_1):
    """A full record (完整牌谱) of a table's first game: the engine's replay decides."""
    result = result_submit(table=table, number=1, record=record_1, by=referee)

    result.refresh_from_db()
    assert [result.points_a, result.points_b] == result_1["team_points"]
    assert result.places == result_1["places"]
    assert result.engine_result["order"] == result_1["order"]
    assert result.engine_result["owed_tributes"] == result_1["owed_tributes"]
    version = result.versions.get()
    assert version.kind == GameResultVersion.Kind.RECORD
    assert version.payload["deal"] == record_1["deal"]
    assert version.payload["actions"] == record_1["actions"]


def test_game_two_record_gets_previous_from_the_stored_game_one(table, referee, record_1,
                                                                record_2, result_2):
    """Game 2 carries tributes (进贡) from game 1: the service supplies ``previous`` from the
    stored game-1 result, so a record without it is checked against the table's game 1."""
    game_1 = result_submit(table=table, number=1, record=record_1, by=referee)
    del record_2["previous"]

    game_2 = result_submit(table=table, number=2, record=record_2, by=referee)

    assert [game_2.points_a, game_2.points_b] == result_2["team_points"]
    assert game_2.places == result_2["places"]
    stored_previous = {k: v for k, v in game_1.engine_result.items() if k in RESULT_KEYS}
    assert game_2.versions.get().payload["previous"] == stored_previous


def test_game_two_record_with_the_matching_previous_is_accepted(table, referee, record_1,
                                                                record_2, result_2):
    result_submit(table=table, number=1, record=record_1, by=referee)
    game_2 = result_submit(table=table, number=2, record=record_2, by=referee)
    assert [game_2.points_a, game_2.points_b] == result_2["team_points"]
    assert game_2.places == result_2["places"]


def test_game_two_record_whose_previous_disagrees_with_game_one_is_refused(
        table, referee, record_1, record_2):
    """A record may not bring its own idea of game 1: the stored result is what happened."""
    result_submit(table=table, number=1, record=record_1, by=referee)
    record_2["previous"]["team_points"] = list(reversed(record_2["previous"]["team_points"]))
    record_2["previous"]["places"] = [7 - p for p in record_2["previous"]["places"]]

    assert_refused_unchanged(
        lambda: result_submit(table=table, number=2, record=record_2, by=referee),
        code="wrong_previous")


def test_game_two_tributes_are_checked_against_the_stored_game_one(table, referee, record_1,
                                                                   record_2, result_1):
    """Game 1 stored from a sheet with other places owes other tributes: game 2's record (its
    tributes and leader written for the real game 1) is refused with the engine's reason."""
    reversed_order = list(reversed(result_1["order"]))
    game_1 = result_submit(table=table, number=1, by=referee, sheet=sheet(reversed_order))
    assert game_1.places != result_1["places"]
    del record_2["previous"]
    payload = {**record_2, "previous": {k: v for k, v in game_1.engine_result.items()
                                        if k in RESULT_KEYS}}
    expected = engine.replay(payload)
    assert not expected["ok"]

    assert_refused_unchanged(
        lambda: result_submit(table=table, number=2, record=record_2, by=referee),
        code=expected["error"]["code"], status=422, detail=expected["error"])


def _card_not_in_hand(hand):
    return next(c for c in sorted(set(full_set())) if c not in hand and c not in ("RJ", "BJ"))


def test_record_with_a_tampered_card_is_refused_with_the_engines_reason(table, referee,
                                                                       record_1):
    """A play of cards the seat never held (not_in_hand): refused, nothing stored."""
    first = next(i for i, a in enumerate(record_1["actions"]) if a["act"] == "play")
    seat = record_1["actions"][first]["seat"]
    card = _card_not_in_hand(record_1["deal"][seat])
    record_1["actions"][first]["cards"] = [card, card]
    expected = engine.replay(record_1, first_game=True)
    assert expected["error"]["code"] == "not_in_hand"

    exc = assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, record=record_1, by=referee),
        code="not_in_hand", status=422, detail=expected["error"])
    assert exc.message == expected["error"]["message"]


def test_record_with_a_tampered_deal_is_refused_with_the_engines_reason(table, referee,
                                                                       record_1):
    """A deal that is not one four-deck set (bad_deal)."""
    record_1["deal"][0][0] = "3S" if record_1["deal"][0][0] != "3S" else "4S"
    expected = engine.replay(record_1, first_game=True)
    assert expected["error"]["code"] == "bad_deal"

    assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, record=record_1, by=referee),
        code="bad_deal", status=422, detail=expected["error"])


def test_record_with_an_act_out_of_turn_is_refused_with_the_engines_reason(table, referee,
                                                                          record_1):
    """An act by a seat whose turn it is not (not_your_turn)."""
    record_1["actions"][0]["seat"] = (record_1["actions"][0]["seat"] + 1) % 6
    expected = engine.replay(record_1, first_game=True)
    assert expected["error"]["code"] == "not_your_turn"

    exc = assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, record=record_1, by=referee),
        code="not_your_turn", status=422, detail=expected["error"])
    assert exc.message == expected["error"]["message"]


def test_record_with_a_tampered_tribute_card_is_refused(table, referee, record_1, record_2):
    """Game 2's tribute (进贡) must be the giver's biggest cards; a changed card is bad_pre."""
    result_submit(table=table, number=1, record=record_1, by=referee)
    index = next(i for i, e in enumerate(record_2["pre"]) if e["type"] == "tribute")
    record_2["pre"][index]["cards"] = ["3S"] * len(record_2["pre"][index]["cards"])
    expected = engine.replay(record_2)
    assert expected["error"]["code"] == "bad_pre"

    assert_refused_unchanged(
        lambda: result_submit(table=table, number=2, record=record_2, by=referee),
        code="bad_pre", status=422, detail=expected["error"])


def test_unfinished_record_is_refused(table, referee, record_1):
    """A game in progress is not a result: submit it when the game is over."""
    record_1["actions"] = record_1["actions"][:40]
    expected = engine.replay(record_1, first_game=True)
    assert expected["ok"] and not expected["complete"]

    exc = assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, record=record_1, by=referee),
        code="record_unfinished", status=422)
    assert exc.detail["to_act"] == expected["to_act"]


def test_record_with_other_rules_is_refused(table, referee, record_1):
    record_1["rules"] = "online"
    assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, record=record_1, by=referee),
        code="wrong_rules")


# ----------------------------------------------------------------------------- foreign records
def test_a_later_game_from_elsewhere_is_not_a_tables_game_one(table, referee, record_2):
    """A record that follows another game (its ``previous`` set: its tributes and leader come
    from a game this table never played) cannot be the table's first game."""
    assert engine.replay(record_2, first_game=True)["ok"]  # valid by itself

    exc = assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, record=record_2, by=referee),
        code="wrong_previous")
    assert "game 1" in exc.message


def test_a_record_opening_at_another_seat_is_refused(table, referee, record_1):
    """Every table opens at seat 0 (1号位, where 亮3 ties start): a record opening elsewhere
    was not dealt at this table, even when the engine finds it valid."""
    record_1["opening_seat"] = 3
    assert engine.replay(record_1, first_game=True)["ok"]

    exc = assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, record=record_1, by=referee),
        code="wrong_opening_seat", status=422)
    assert exc.detail == {"opening_seat": 0}


def test_a_record_naming_the_tables_own_start_is_accepted(table, referee, record_1):
    """``opening_seat`` 0 and ``previous`` null, as the service's own records name them."""
    assert record_1["opening_seat"] == 0 and record_1["previous"] is None
    result = result_submit(table=table, number=1, record=record_1, by=referee)
    assert result.versions.get().payload["opening_seat"] == 0


def test_a_foreign_game_that_fits_only_waits_for_the_other_side(table, seats, match):
    """What no check can catch: a valid game made elsewhere that starts from the table's state
    (here a bot game with another deal as game 1). It is stored as submitted, not counted:
    the other 联邦 (or a referee) must confirm it, and may see its replay first."""
    foreign = play_match("dagang", 1, random.Random(99))[0].record()
    assert foreign["deal"] != match[0][0]["deal"]
    submitter = login_for(seats[0])

    result = result_submit(table=table, number=1, record=foreign, by=submitter)

    assert result.status == GameResult.Status.SUBMITTED
    with pytest.raises(Forbidden):
        result_confirm(result=result, by=login_for(seats[2]))  # the submitter's own 联邦


# ----------------------------------------------------------------------------- duplicates
def test_same_sheet_twice_returns_the_stored_result(table, referee):
    """A resent submission (network retry) is the same result: one row, one version."""
    first = result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee)
    again = result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee)

    assert again.pk == first.pk
    assert stored_counts() == (1, 1)


def test_same_record_twice_returns_the_stored_result(table, referee, record_1):
    first = result_submit(table=table, number=1, record=copy.deepcopy(record_1), by=referee)
    again = result_submit(table=table, number=1, record=copy.deepcopy(record_1), by=referee)

    assert again.pk == first.pk
    assert stored_counts() == (1, 1)


def test_same_idempotency_key_returns_the_stored_result(table, referee):
    first = result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee,
                          idempotency_key="table-1-game-1")
    again = result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee,
                          idempotency_key="table-1-game-1")

    assert again.pk == first.pk
    assert stored_counts() == (1, 1)
    assert first.versions.get().idempotency_key == "table-1-game-1"


def test_different_result_for_the_same_game_is_refused_with_conflict(table, referee):
    """A second, different result is a correction and needs a reason: Conflict."""
    first = result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee)

    with pytest.raises(Conflict) as info:
        result_submit(table=table, number=1, sheet=sheet([1, 3, 5, 0, 2, 4]), by=referee)

    assert info.value.code == "already_submitted"
    assert info.value.status == 409
    assert stored_counts() == (1, 1)
    first.refresh_from_db()
    assert [first.points_a, first.points_b] == [12, 0]


def test_same_game_at_another_table_is_a_separate_result(table, other_table, referee):
    result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee)
    result_submit(table=other_table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee)
    assert stored_counts() == (2, 2)


# ----------------------------------------------------------------------------- confirmation
def test_submitter_cannot_confirm_own_result(submitted):
    """Two-person rule (双人确认): the submitter never confirms."""
    result, submitter = submitted
    with pytest.raises(Forbidden) as info:
        result_confirm(result=result, by=submitter)
    assert info.value.code == "own_submission"
    result.refresh_from_db()
    assert result.status == GameResult.Status.SUBMITTED


@pytest.mark.parametrize("seat", [2, 4])
def test_player_of_the_submitters_lianbang_cannot_confirm(submitted, seats, seat):
    """A partner of the same 联邦 (same seat parity) as the seated submitter cannot confirm."""
    result, _ = submitted
    partner = login_for(seats[seat])
    with pytest.raises(Forbidden) as info:
        result_confirm(result=result, by=partner)
    assert info.value.code == "same_side"
    result.refresh_from_db()
    assert result.status == GameResult.Status.SUBMITTED
    assert result.confirmed_by is None


@pytest.mark.parametrize("seat", [1, 3, 5])
def test_player_of_the_other_lianbang_confirms(submitted, seats, seat):
    """A player of the other 联邦 at the table confirms the result."""
    result, _ = submitted
    opponent = login_for(seats[seat])

    confirmed = result_confirm(result=result, by=opponent)

    confirmed.refresh_from_db()
    assert confirmed.status == GameResult.Status.CONFIRMED
    assert confirmed.confirmed_by == opponent
    assert confirmed.confirmed_at is not None


def test_player_not_at_the_table_cannot_confirm(submitted, other_table):
    result, _ = submitted
    stranger = login_for(Seat.objects.filter(table=other_table, seat=1).select_related(
        "player").get())
    with pytest.raises(Forbidden) as info:
        result_confirm(result=result, by=stranger)
    assert info.value.code == "not_at_table"
    result.refresh_from_db()
    assert result.status == GameResult.Status.SUBMITTED


def test_user_without_a_player_cannot_confirm_without_referee_rights(submitted):
    result, _ = submitted
    with pytest.raises(Forbidden) as info:
        result_confirm(result=result, by=UserFactory())
    assert info.value.code == "not_at_table"


def test_referee_confirms(submitted, referee):
    result, _ = submitted
    confirmed = result_confirm(result=result, by=referee, as_referee=True)
    confirmed.refresh_from_db()
    assert confirmed.status == GameResult.Status.CONFIRMED
    assert confirmed.confirmed_by == referee


@pytest.mark.parametrize("seat", [0, 1])
def test_any_player_of_the_table_confirms_a_referees_submission(table, seats, referee, seat):
    """When the submitter did not sit at the table, a player of either 联邦 is the second
    person."""
    result = result_submit(table=table, number=1, sheet=sheet([0, 1, 2, 3, 4, 5]), by=referee)
    player = login_for(seats[seat])
    assert result_confirm(result=result, by=player).status == GameResult.Status.CONFIRMED


def test_confirming_twice_changes_nothing(submitted, seats, referee):
    result, _ = submitted
    opponent = login_for(seats[1])
    result_confirm(result=result, by=opponent)
    result.refresh_from_db()
    first = model_to_dict(result)
    first_at = result.confirmed_at

    again = result_confirm(result=result, by=referee, as_referee=True)

    again.refresh_from_db()
    assert again.confirmed_by == opponent
    assert again.confirmed_at == first_at
    assert model_to_dict(again) == first


# ----------------------------------------------------------------------------- corrections
@pytest.mark.parametrize("reason", ["", "   ", None])
def test_correction_needs_a_reason(submitted, referee, reason):
    result, _ = submitted
    assert_refused_unchanged(
        lambda: result_correct(result=result, sheet=sheet([1, 3, 5, 0, 2, 4]), reason=reason,
                               by=referee, as_referee=True),
        code="reason_required")
    result.refresh_from_db()
    assert result.version == 1


def test_correction_adds_a_version_and_keeps_the_earlier_one(submitted, seats):
    """A correction (更正) is a new version with who, when and why; version 1 stays as it was."""
    result, submitter = submitted
    original = model_to_dict(result.versions.get(version=1))
    opponent = login_for(seats[1])

    corrected = result_correct(result=result, sheet=sheet([1, 3, 5, 0, 2, 4]),
                               reason="  seats 1 and 3 were swapped on the sheet  ", by=opponent)

    versions = list(corrected.versions.order_by("version"))
    assert [v.version for v in versions] == [1, 2]
    assert model_to_dict(versions[0]) == original
    assert versions[1].submitted_by == opponent
    assert versions[1].submitted_at >= versions[0].submitted_at
    assert versions[1].reason == "seats 1 and 3 were swapped on the sheet"
    assert versions[1].kind == GameResultVersion.Kind.SHEET
    assert [versions[1].points_a, versions[1].points_b] == [0, 12]


def test_result_points_follow_the_current_version(submitted, referee):
    result, _ = submitted
    new = sheet([1, 3, 0, 5, 2, 4])
    expected = engine_sheet(new)

    result_correct(result=result, sheet=new, reason="wrong order", by=referee, as_referee=True)

    result.refresh_from_db()
    assert result.version == 2
    assert [result.points_a, result.points_b] == expected["team_points"] == [0, 6]
    assert result.places == expected["places"]
    assert result.engine_result == expected


def test_players_correction_of_an_unconfirmed_result_awaits_confirmation(submitted, seats):
    """A player's correction of a result awaiting confirmation adds a version that stays
    "submitted"; the other 联邦 than the corrector's confirms it. (Of a confirmed result it is a
    proposal: tests/games/test_result_proposals.py.)"""
    result, submitter = submitted
    opponent = login_for(seats[1])

    corrected = result_correct(result=result, sheet=sheet([1, 3, 5, 0, 2, 4]),
                               reason="we misread the order", by=opponent)

    corrected.refresh_from_db()
    assert corrected.status == GameResult.Status.SUBMITTED
    assert corrected.confirmed_by is None and corrected.confirmed_at is None
    with pytest.raises(Forbidden):
        result_confirm(result=corrected, by=opponent)  # the corrector is now the submitter
    partner = login_for(seats[3])
    with pytest.raises(Forbidden):
        result_confirm(result=corrected, by=partner)  # same 联邦 as the corrector
    assert result_confirm(result=corrected, by=submitter).status == GameResult.Status.CONFIRMED


def test_referees_correction_stands_confirmed(submitted, referee):
    result, _ = submitted
    corrected = result_correct(result=result, sheet=sheet([1, 3, 5, 0, 2, 4]),
                               reason="checked with both 联邦", by=referee, as_referee=True)
    corrected.refresh_from_db()
    assert corrected.status == GameResult.Status.CONFIRMED
    assert corrected.confirmed_by == referee
    assert corrected.confirmed_at is not None
    assert corrected.versions.get(version=2).submitted_by == referee


def test_correction_by_a_player_not_at_the_table_is_refused(submitted, other_table):
    result, _ = submitted
    stranger = login_for(Seat.objects.filter(table=other_table, seat=0).select_related(
        "player").get())
    assert_refused_unchanged(
        lambda: result_correct(result=result, sheet=sheet([1, 3, 5, 0, 2, 4]),
                               reason="mine", by=stranger),
        code="not_at_table")


def test_invalid_correction_is_refused_and_the_result_unchanged(submitted, referee):
    result, _ = submitted
    bad = sheet([0, 1, 2, 3, 4, 4])
    expected = engine_sheet(bad)
    assert_refused_unchanged(
        lambda: result_correct(result=result, sheet=bad, reason="typo", by=referee,
                               as_referee=True),
        code=expected["error"]["code"], status=422, detail=expected["error"])
    result.refresh_from_db()
    assert (result.version, result.points_a, result.points_b) == (1, 12, 0)


def test_idempotency_key_reused_with_a_different_body_is_refused(table, referee):
    """STYLE.md: an idempotency key reused with a different body is refused with 422, not
    answered with the stored result; nothing is stored."""
    result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee,
                  idempotency_key="table-1-game-1")

    assert_refused_unchanged(
        lambda: result_submit(table=table, number=1, sheet=sheet([1, 3, 5, 0, 2, 4]),
                              by=referee, idempotency_key="table-1-game-1"),
        code="idempotency_key_reused", status=422)


def test_idempotency_key_of_another_user_does_not_return_the_result(table, referee):
    """Keys are scoped per user: another user's different body with the same key is a second
    result for the game, refused with Conflict."""
    result_submit(table=table, number=1, sheet=sheet([0, 2, 4, 1, 3, 5]), by=referee,
                  idempotency_key="k1")

    with pytest.raises(Conflict) as info:
        result_submit(table=table, number=1, sheet=sheet([1, 3, 5, 0, 2, 4]), by=UserFactory(),
                      idempotency_key="k1")
    assert info.value.code == "already_submitted"
    assert stored_counts() == (1, 1)
