"""Duplicate (复式) events: boards made at the draw and dealt at every table of a group (a twin
rotated one seat), scored once the group has finished them, idempotently, added up by the
standings — and hidden from all but the staff until then."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import TestCase

from engine.cli import main as engine_cli
from engine.deals import derive_deal
from games.duplicate import board_score
from games.models import GameResult
from games.selectors import RecordAccess, round_tables_with_results
from live import deals
from tests.duplicate_helpers import duplicate_event, play_game
from tournaments.boards import groups_of, rotated
from tournaments.errors import ServiceError
from tournaments.models import Board, BoardResult, Standing
from tournaments.services.events import event_create, event_update
from tournaments.standings import standings_recompute

pytestmark = pytest.mark.django_db


def test_groups_pair_tables_and_a_lone_last_table_joins_the_group_before():
    assert groups_of([1, 2, 3, 4], 2) == {1: (1, False), 2: (1, True), 3: (2, False),
                                          4: (2, True)}
    assert groups_of([1, 2, 3, 4, 5], 2)[5] == (2, False)  # a group of three: 3, 4, 5
    assert set(groups_of([1, 2, 3, 4, 5], 0).values()) == {(1, False), (1, True)}
    hands = [[str(s)] for s in range(6)]
    assert rotated(hands, True) == [["5"], ["0"], ["1"], ["2"], ["3"], ["4"]]


def test_the_setting_refuses_an_odd_group_and_is_fixed_once_round_1_exists():
    with pytest.raises(ServiceError) as exc:
        event_create(name="Odd", slug="odd-dup", duplicate="mp", duplicate_group=3)
    assert exc.value.code == "bad_event" and "even number" in str(exc.value.message)
    with pytest.raises(ServiceError):
        event_create(name="Odd", slug="odd-dup", duplicate="bridge")
    event, _rnd = duplicate_event(players=12)
    with pytest.raises(ServiceError) as exc:
        event_update(event=event, duplicate="imp")
    assert exc.value.code == "event_started"


def test_boards_are_made_at_the_draw_and_dealt_rotated_at_the_twin(capsys):
    event, rnd = duplicate_event(players=12, games=2)
    boards = list(Board.objects.filter(round=rnd).order_by("number"))
    assert [(b.group, b.number) for b in boards] == [(1, 1), (1, 2)]
    assert boards[1].label == f"gouji/event/{event.pk}/round/1/group/1/board/2"
    first, twin = rnd.tables.order_by("number")
    with TestCase.captureOnCommitCallbacks(execute=True):
        from live import services as live

        a = live.live_start(table=first, number=2)  # a board follows no earlier game
        b = live.live_start(table=twin, number=2)
    hands = derive_deal(boards[1].seed, boards[1].label)
    dealt_a = live.live_game(a).record(actions=False)
    dealt_b = live.live_game(b).record(actions=False)
    assert dealt_a["deal"] == hands and dealt_b["deal"] == rotated(hands, True)
    assert "previous" not in dealt_a or dealt_a["previous"] is None
    assert a.deal_commitment == b.deal_commitment == boards[1].commitment
    assert deals.deal_verification(a) == [] and deals.deal_verification(b) == []
    out = io.StringIO()
    call_command("verify_deal", str(b.pk), stdout=out)
    assert "verified" in out.getvalue() and out.getvalue().rstrip().endswith("--twin")
    assert engine_cli(["deal", "--seed", boards[1].seed, "--label", boards[1].label,
                       "--twin"]) == 0
    assert capsys.readouterr().out.startswith("seat 0: " + " ".join(hands[5]))
    b.deal_label = boards[0].label
    assert deals.deal_verification(b)  # another board's label is refused


def test_a_board_is_hidden_until_its_group_finished_then_scored_once():
    event, rnd = duplicate_event(players=12, games=1, method="mp")
    first, twin = rnd.tables.order_by("number")
    play_game(first, 1, seed=1)
    result = GameResult.objects.get(table=first, number=1)
    public, seated = RecordAccess(), RecordAccess(seated=True)
    assert not public.allows(result) and not public.allows_seed(result)
    assert seated.allows(result) and not seated.allows_seed(result)  # own table: not the seed
    assert RecordAccess(staff=True).allows_seed(result)
    shown = {t.number: list(t.results.all()) for t in round_tables_with_results(rnd)}
    assert shown[first.number] == []
    assert not BoardResult.objects.exists()
    out = io.StringIO()
    call_command("score_boards", event.slug, stdout=out)
    assert out.getvalue().startswith("0 board(s) scored, 1 still")
    play_game(twin, 1, seed=2)
    rows = {r.table_id: r for r in BoardResult.objects.all()}
    assert set(rows) == {first.pk, twin.pk}
    assert public.allows(result) and public.allows_seed(result)
    a, b = rows[first.pk], rows[twin.pk]
    # the untwinned 联邦 A and the twin's 联邦 B held the same hands: one beat the other
    assert a.net_a == -a.net_b and b.net_a == -b.net_b
    assert a.score_a + b.score_b == 1.0 and a.points_a + b.points_b == 2
    assert a.score_a == (1.0 if a.net_a > b.net_b else 0.5 if a.net_a == b.net_b else 0.0)
    standings_recompute(event_id=event.pk, force=True)
    totals = {s.entry.player_id: s.points for s in Standing.objects.select_related("entry")}
    seat0 = first.seats.get(seat=0).player_id
    assert totals[seat0] == a.points_a
    before = list(BoardResult.objects.order_by("pk").values_list(
        "table_id", "points_a", "points_b"))
    board_score(Board.objects.get(round=rnd).pk)  # a retried run counts nothing twice
    Board.objects.update(scored_at=None)  # (as if the on-commit run had been lost)
    call_command("score_boards", stdout=out)
    assert "1 board(s) scored" in out.getvalue()
    standings_recompute(event_id=event.pk, force=True)
    assert list(BoardResult.objects.order_by("pk").values_list(
        "table_id", "points_a", "points_b")) == before
    assert {s.entry.player_id: s.points
            for s in Standing.objects.select_related("entry")} == totals


def test_a_later_board_is_led_by_its_seat_and_stored_without_a_previous_game():
    _event, rnd = duplicate_event(players=12, games=2)
    first, twin = rnd.tables.order_by("number")
    board = Board.objects.get(round=rnd, number=2)
    for table, is_twin in ((first, False), (twin, True)):
        lg = play_game(table, 2, seed=5)  # game 1 not played: a board follows no game
        record = GameResult.objects.get(table=table, number=2).versions.get().payload
        assert record.get("previous") is None
        assert record["leader"] == (board.leader + is_twin) % 6 == lg.state["record"]["leader"]
    assert BoardResult.objects.filter(board=board).count() == 2
