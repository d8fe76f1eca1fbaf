"""Checking a draw before publishing it: swapping two seats and re-drawing a round
(``round_seats_swap``, ``round_redraw``), and a verification that stays
honest — it re-runs the draw from the seed, applies the recorded swaps, and checks every earlier
draw a re-draw replaced (``round_verification``, ``manage.py verify_draw``)."""

from __future__ import annotations

import threading
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, connections, transaction

from games import services as game_services
from tests.factories import EventFactory, PlayerFactory, UserFactory
from tests.pg import start_behind_a_lock
from tournaments import draw as draw_module
from tournaments import locks
from tournaments.errors import ServiceError
from tournaments.models import Entry, Event, Round, Seat
from tournaments.services.draw_changes import SeatRef, round_redraw, round_seats_swap
from tournaments.services.draws import round_draw, round_verification, round_verify
from tournaments.services.entries import entry_check_in, entry_register, entry_withdraw
from tournaments.services.rounds import round_create, round_publish
from tournaments.services.teams import team_register

pytestmark = pytest.mark.django_db


# ----------------------------------------------------------------------------- helpers
@pytest.fixture
def organizer(db):
    return UserFactory(username="organizer", first_name="Wei", last_name="Zhang")


def drawn(event: Event) -> Round:
    return round_draw(round_id=round_create(event=event).pk)


def ref(rnd: Round, table: int, seat: int) -> SeatRef:
    """The seat as the organizer sees it on the check page."""
    s = Seat.objects.get(table__round=rnd, table__number=table, seat=seat)
    return SeatRef(table=table, seat=seat, player_id=s.player_id)


def seating(rnd: Round) -> dict[tuple[int, int], int]:
    return {(s.table.number, s.seat): s.player_id
            for s in Seat.objects.filter(round=rnd).select_related("table")}


def fresh(rnd: Round) -> Round:
    return Round.objects.get(pk=rnd.pk)


def verify(*args) -> str:
    out = StringIO()
    call_command("verify_draw", *args, stdout=out)
    return out.getvalue()


def refused(code: str, status: int, call) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        call()
    assert (exc.value.code, exc.value.status) == (code, status), exc.value.message
    return exc.value


def team_event(teams: int) -> Event:
    event = EventFactory(format=Event.Format.TEAM, games_per_match=1)
    for k in range(teams):
        entry = team_register(event=event, name=f"Team {k + 1}",
                                       players=[PlayerFactory() for _ in range(3)])
        entry_check_in(entry=entry)
    return event


# ----------------------------------------------------------------------------- swaps
def test_a_swap_between_two_tables_is_recorded_and_the_draw_still_verifies(
        checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    before = seating(rnd)
    a, b = ref(rnd, 1, 0), ref(rnd, 2, 3)

    round_seats_swap(round=rnd, seat_a=a, seat_b=b, by=organizer,
                              reason="  two brothers at one table  ")

    after = seating(rnd)
    assert after[(1, 0)] == b.player_id and after[(2, 3)] == a.player_id
    assert {k: v for k, v in after.items() if k not in {(1, 0), (2, 3)}} == {
        k: v for k, v in before.items() if k not in {(1, 0), (2, 3)}}
    rnd = fresh(rnd)
    (change,) = rnd.draw_changes
    assert change["kind"] == "swap" and change["reason"] == "two brothers at one table"
    assert change["by"] == "Wei Zhang" and change["by_id"] == organizer.pk and change["at"]
    assert [(s["table"], s["seat"], s["player"]) for s in change["seats"]] == [
        (1, 0, a.player_id), (2, 3, b.player_id)]
    # the entries moved with their players: the seats' entries are theirs
    for s in Seat.objects.filter(round=rnd, player_id__in=[a.player_id, b.player_id]):
        assert s.entry.player_id == s.player_id
    report = round_verification(round=rnd)
    assert report.verified and report.changes == [change] and report.redraws == []


def test_verify_draw_reports_the_manual_changes_and_lists_them(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    names = {s.player_id: s.player.name for s in Seat.objects.filter(round=rnd)
             .select_related("player")}
    a, b = ref(rnd, 1, 2), ref(rnd, 1, 5)
    round_seats_swap(round=rnd, seat_a=a, seat_b=b, by=organizer, reason="eyesight")

    text = verify(checked_in_event.slug)

    assert "round 1: verified, with 1 manual change (commitment" in text
    assert (f"swapped {names[a.player_id]} (table 1, seat 3) and {names[b.player_id]} "
            "(table 1, seat 6): eyesight") in text


def test_a_seat_moved_outside_the_record_still_fails_the_verification(checked_in_event,
                                                                      organizer):
    rnd = drawn(checked_in_event)
    round_seats_swap(round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0),
                              by=organizer, reason="asked for")
    # a second swap made behind the record's back
    x, y = Seat.objects.get(round=rnd, table__number=2, seat=4), Seat.objects.get(
        round=rnd, table__number=2, seat=5)
    moved = [(x.table, 4, y.player_id, y.entry_id), (y.table, 5, x.player_id, x.entry_id)]
    Seat.objects.filter(pk__in=[x.pk, y.pk]).delete()
    for table, seat, player_id, entry_id in moved:
        Seat.objects.create(table=table, round=rnd, seat=seat, player_id=player_id,
                            entry_id=entry_id)

    problems = [str(p) for p in round_verify(round=fresh(rnd))]

    assert problems and "table 2 differs" in problems[0]
    with pytest.raises(SystemExit):
        verify(checked_in_event.slug)


def test_a_recorded_change_that_was_edited_is_caught(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    round_seats_swap(round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0),
                              by=organizer, reason="asked for")
    rnd = fresh(rnd)
    changes = rnd.draw_changes
    changes[0]["seats"][0]["player"] = changes[0]["seats"][0]["player"] + 1000
    changes[0]["seats"][0]["entry"] += 1000
    Round.objects.filter(pk=rnd.pk).update(draw_changes=changes)

    problems = [str(p) for p in round_verify(round=fresh(rnd))]

    assert problems == ["manual change 1 does not fit the draw it changes"]


def test_the_public_cli_applies_the_published_swaps(checked_in_event, organizer, capsys):
    """Anyone re-runs a swapped draw from its published data (``python -m tournaments.draw``)."""
    import json

    rnd = drawn(checked_in_event)
    round_seats_swap(round=rnd, seat_a=ref(rnd, 1, 1), seat_b=ref(rnd, 2, 4),
                              by=organizer, reason="asked for")
    rnd = fresh(rnd)
    data = {"seed": rnd.seed, "brackets": rnd.brackets, "history": [],
            "players": [{"id": e, "score": 0, "byes": 0} for e in rnd.draw_entries],
            "changes": rnd.draw_changes}
    stdin = StringIO(json.dumps(data))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdin", stdin)
        assert draw_module.main(["draw"]) == 0

    out = json.loads(capsys.readouterr().out)
    stored = [[s.entry_id for s in t.seats.order_by("seat")] for t in rnd.tables.order_by("number")]
    assert out["tables"] == stored and out["changes_applied"] == 1


def test_a_swap_is_refused_once_the_seating_is_published(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    round_publish(round=rnd)
    before = seating(rnd)

    error = refused("round_published", 409, lambda: round_seats_swap(
        round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0), by=organizer, reason="late"))

    assert "published" in error.message
    assert seating(rnd) == before and fresh(rnd).draw_changes == []
    assert error.to_dict()["code"] == "round_published"  # the service error shape


def test_a_swap_needs_a_drawn_round(checked_in_event, organizer):
    rnd = round_create(event=checked_in_event)
    refused("not_drawn", 409, lambda: round_seats_swap(
        round=rnd, seat_a=SeatRef(1, 0, 1), seat_b=SeatRef(1, 1, 2), by=organizer, reason="x"))


@pytest.mark.parametrize("reason", ["", "   ", None])
def test_a_swap_needs_a_reason(checked_in_event, organizer, reason):
    rnd = drawn(checked_in_event)
    before = seating(rnd)

    error = refused("reason_required", 400, lambda: round_seats_swap(
        round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0), by=organizer, reason=reason))

    assert error.detail == {"field": "reason"}
    assert seating(rnd) == before and fresh(rnd).draw_changes == []


@pytest.mark.parametrize("reason", ["x" * 501, "a\x00b"])
def test_a_reason_is_text_of_at_most_500_characters(checked_in_event, organizer, reason):
    rnd = drawn(checked_in_event)
    refused("bad_reason", 400, lambda: round_seats_swap(
        round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0), by=organizer,
        reason=reason))
    refused("bad_reason", 400, lambda: round_redraw(
        round=rnd, by=organizer, reason=reason))
    assert fresh(rnd).draw_changes == [] and fresh(rnd).draw_history == []


def test_a_double_submitted_swap_changes_nothing_the_second_time(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    a, b = ref(rnd, 1, 0), ref(rnd, 2, 3)
    round_seats_swap(round=rnd, seat_a=a, seat_b=b, by=organizer, reason="asked")
    once = seating(rnd)

    round_seats_swap(round=rnd, seat_a=a, seat_b=b, by=organizer, reason="asked")

    assert seating(rnd) == once and len(fresh(rnd).draw_changes) == 1
    assert round_verify(round=fresh(rnd)) == []


def test_swapping_back_from_the_new_seating_is_a_second_change(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    before = seating(rnd)
    round_seats_swap(round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 3),
                              by=organizer, reason="asked")

    round_seats_swap(round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 3),
                              by=organizer, reason="changed our minds")

    assert seating(rnd) == before and len(fresh(rnd).draw_changes) == 2
    assert "with 2 manual changes" in verify(checked_in_event.slug)


def test_a_swap_chosen_on_a_seating_that_changed_since_is_refused(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    stale_a, stale_b = ref(rnd, 1, 0), ref(rnd, 2, 3)
    round_seats_swap(round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 1, 1),
                              by=organizer, reason="first")
    before = seating(rnd)

    refused("seating_changed", 409, lambda: round_seats_swap(
        round=rnd, seat_a=stale_a, seat_b=stale_b, by=organizer, reason="second"))

    assert seating(rnd) == before and len(fresh(rnd).draw_changes) == 1


def test_a_swap_needs_two_different_players_and_real_seats(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    a = ref(rnd, 1, 0)
    refused("same_seat", 400, lambda: round_seats_swap(
        round=rnd, seat_a=a, seat_b=a, by=organizer, reason="x"))
    refused("bad_seat", 400, lambda: round_seats_swap(
        round=rnd, seat_a=a, seat_b=SeatRef(1, 6, a.player_id + 1), by=organizer, reason="x"))
    refused("no_table", 404, lambda: round_seats_swap(
        round=rnd, seat_a=a, seat_b=SeatRef(9, 0, a.player_id + 1), by=organizer, reason="x"))


def test_a_table_with_a_result_keeps_its_seats(checked_in_event, organizer, referee):
    rnd = drawn(checked_in_event)
    game_services.result_submit(table=rnd.tables.get(number=2), number=1, by=referee,
                                sheet={"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6})

    error = refused("table_in_play", 409, lambda: round_seats_swap(
        round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0), by=organizer, reason="x"))

    assert error.detail == {"tables": [2]}
    refused("table_in_play", 409, lambda: round_redraw(
        round=rnd, by=organizer, reason="x"))


def test_team_events_swap_teammates_only(organizer):
    event = team_event(4)
    rnd = drawn(event)

    refused("team_seats", 400, lambda: round_seats_swap(
        round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 1, 1), by=organizer, reason="x"))
    refused("team_seats", 400, lambda: round_seats_swap(
        round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0), by=organizer, reason="x"))
    a, b = ref(rnd, 1, 0), ref(rnd, 1, 4)
    round_seats_swap(round=rnd, seat_a=a, seat_b=b, by=organizer, reason="captain")

    assert seating(rnd)[(1, 0)] == b.player_id
    assert round_verify(round=fresh(rnd)) == []


# ----------------------------------------------------------------------------- re-draws
def test_a_redraw_commits_to_a_new_seed_and_keeps_the_earlier_draw_public(
        checked_in_event, organizer, django_capture_on_commit_callbacks):
    rnd = drawn(checked_in_event)
    round_seats_swap(round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 0),
                              by=organizer, reason="first try")
    rnd = fresh(rnd)
    old = {"commitment": rnd.commitment, "seed": rnd.seed, "seating": seating(rnd),
           "byes": sorted(rnd.byes.values_list("entry_id", flat=True))}

    with django_capture_on_commit_callbacks() as queued:
        round_redraw(round=rnd, by=organizer, reason="a table without a referee",
                              commitment=old["commitment"])

    # committed again: a new secret seed and its commitment, published before the new draw
    rnd = fresh(rnd)
    assert rnd.status == Round.Status.COMMITTED and rnd.drawn_at is None
    assert rnd.seed != old["seed"] and rnd.commitment != old["commitment"]
    assert rnd.commitment == draw_module.commitment(rnd.seed, rnd.draw_entries, rnd.number,
                                                    rnd.event_id)
    assert not rnd.tables.exists() and not rnd.byes.exists() and rnd.draw_changes == []
    # the new draw, queued for when the commitment is committed
    assert [c.__qualname__.split(".")[0] for c in queued if "draw" in c.__qualname__] == [
        "round_request_draw"]
    (earlier,) = rnd.draw_history
    assert (earlier["commitment"], earlier["seed"]) == (old["commitment"], old["seed"])
    assert earlier["redraw"]["reason"] == "a table without a referee"
    assert earlier["redraw"]["by_id"] == organizer.pk
    assert [c["reason"] for c in earlier["changes"]] == ["first try"]
    assert earlier["byes"] == old["byes"] and len(earlier["tables"]) == 2

    # the worker draws it; both draws verify, the earlier one with its swap
    rnd = round_draw(round_id=rnd.pk)
    report = round_verification(round=fresh(rnd))
    assert report.verified and len(report.redraws) == 1 and report.changes == []
    text = verify(checked_in_event.slug)
    assert "round 1: verified, re-drawn 1 time" in text
    assert "a table without a referee" in text and old["commitment"][:16] in text


def test_an_earlier_draw_that_was_edited_fails_the_verification(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    round_redraw(round=rnd, by=organizer, reason="again")
    rnd = round_draw(round_id=rnd.pk)
    history = fresh(rnd).draw_history
    history[0]["tables"][0][0], history[0]["tables"][1][0] = (history[0]["tables"][1][0],
                                                             history[0]["tables"][0][0])
    Round.objects.filter(pk=rnd.pk).update(draw_history=history)

    problems = [str(p) for p in round_verify(round=fresh(rnd))]

    assert len(problems) == 1 and problems[0].startswith("draw 1 (re-drawn): table 1 differs")


def test_a_double_submitted_redraw_draws_once(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    seen = rnd.commitment
    round_redraw(round=rnd, by=organizer, reason="again", commitment=seen)
    committed = fresh(rnd)

    # the second click, while the new draw is still running and after it has run
    round_redraw(round=rnd, by=organizer, reason="again", commitment=seen)
    assert fresh(rnd).commitment == committed.commitment
    round_draw(round_id=rnd.pk)
    round_redraw(round=rnd, by=organizer, reason="again", commitment=seen)

    rnd = fresh(rnd)
    assert rnd.commitment == committed.commitment and len(rnd.draw_history) == 1
    assert rnd.status == Round.Status.DRAWN


def test_a_redraw_of_a_draw_never_seen_is_refused(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    refused("draw_changed", 409, lambda: round_redraw(
        round=rnd, by=organizer, reason="again", commitment="0" * 64))
    assert fresh(rnd).draw_history == []


def test_a_redraw_is_refused_once_published_and_needs_a_reason(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    refused("reason_required", 400, lambda: round_redraw(
        round=rnd, by=organizer, reason=" "))
    round_publish(round=rnd)
    before = seating(rnd)

    refused("round_published", 409, lambda: round_redraw(
        round=rnd, by=organizer, reason="late", commitment=rnd.commitment))

    rnd = fresh(rnd)
    assert seating(rnd) == before and rnd.draw_history == []
    assert rnd.status == Round.Status.PUBLISHED


def test_a_redraw_takes_the_entries_checked_in_now(checked_in_event, organizer):
    rnd = drawn(checked_in_event)
    gone = Entry.objects.get(pk=rnd.draw_entries[0])
    entry_withdraw(entry=gone)  # a no-show, after the draw
    assert Entry.objects.get(pk=gone.pk).left_after_round == 1

    round_redraw(round=rnd, by=organizer, reason="a no-show")
    rnd = round_draw(round_id=rnd.pk)

    assert gone.pk not in rnd.draw_entries and len(rnd.draw_entries) == 13
    assert gone.pk in rnd.draw_history[0]["entries"]
    assert not Seat.objects.filter(round=rnd, entry=gone).exists()
    assert Entry.objects.get(pk=gone.pk).left_after_round == 0
    assert round_verify(round=fresh(rnd)) == []


def test_a_redraw_of_a_team_round_verifies(organizer):
    event = team_event(5)
    rnd = drawn(event)
    round_redraw(round=rnd, by=organizer, reason="again")
    rnd = round_draw(round_id=rnd.pk)
    assert round_verification(round=fresh(rnd)).verified


# ----------------------------------------------------------------------------- what a draw achieved
def test_round_repeats_are_the_repeats_the_draw_counts(referee):
    """Seven players, a table and a bye a round: the check page's repeats of round 3 are what
    ``draw.repeat_stats`` counts for it, each with the earlier rounds of the meeting."""
    from tournaments.selectors import round_repeats

    event = EventFactory(games_per_match=1)
    for _ in range(7):
        entry_check_in(entry=entry_register(event=event, player=PlayerFactory()))
    tables = []
    for number in (1, 2, 3):
        rnd = drawn(event)
        tables.append([[s.entry_id for s in t.seats.order_by("seat")]
                       for t in rnd.tables.order_by("number")])
        if number < 3:
            for table in rnd.tables.all():
                result = game_services.result_submit(
                    table=table, number=1, by=referee,
                    sheet={"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6})
                game_services.result_confirm(result=result, by=referee, as_referee=True)

    found = round_repeats(rnd)

    before, after = draw_module.repeat_stats(tables[:2]), draw_module.repeat_stats(tables)
    assert found["totals"] == {
        draw_module.OPPOSITE: after["opposite_repeats"] - before["opposite_repeats"],
        draw_module.PARTNER: after["partner_repeats"] - before["partner_repeats"],
        draw_module.TABLEMATE: after["tablemate_repeats"] - before["tablemate_repeats"]}
    assert sum(found["totals"].values()) > 0  # five of seven meet again, whatever the seed
    for repeat in found["tables"][1]:
        a, b = (tables[2][0][i] for i in repeat.seats)
        assert repeat.rounds and all(
            any({a, b} <= set(t) for t in tables[n - 1]) for n in repeat.rounds)


def test_round_repeats_of_a_team_event_name_the_rematch_and_leave_teammates_out(referee):
    from tournaments.selectors import round_repeats

    event = team_event(2)
    first = drawn(event)
    for table in first.tables.all():
        result = game_services.result_submit(
            table=table, number=1, by=referee,
            sheet={"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6})
        game_services.result_confirm(result=result, by=referee, as_referee=True)

    found = round_repeats(drawn(event))

    assert found["rematches"] == {1: [1]}
    assert found["totals"][draw_module.PARTNER] == 0


# ----------------------------------------------------------------------------- locks
def _on_its_own_connection(call, errors):
    def run():
        try:
            call()
        except Exception as exc:  # noqa: BLE001 (reported to the test)
            errors.append(exc)
        finally:
            connections.close_all()
    return threading.Thread(target=run)


@pytest.mark.django_db(transaction=True)
def test_two_requests_of_the_same_swap_at_once_swap_once(organizer):
    """Two submissions of one swap (a double click reaching two workers) wait for the round's
    row lock in turn: the second finds the swap made and changes nothing."""
    if not connection.features.has_select_for_update:
        pytest.skip("row locks need PostgreSQL")
    event = EventFactory()
    for _ in range(12):
        entry_check_in(entry=entry_register(event=event, player=PlayerFactory()))
    rnd = drawn(event)
    a, b = ref(rnd, 1, 0), ref(rnd, 2, 3)
    errors: list = []
    threads = [_on_its_own_connection(lambda: round_seats_swap(
        round=rnd, seat_a=a, seat_b=b, by=organizer, reason="asked"), errors) for _ in range(2)]

    with transaction.atomic():
        locks.lock_round(rnd.pk, with_event=True)
        start_behind_a_lock(threads)
    for thread in threads:
        thread.join(20)

    assert errors == []
    rnd = fresh(rnd)
    assert len(rnd.draw_changes) == 1 and seating(rnd)[(1, 0)] == b.player_id
    assert round_verify(round=rnd) == []


@pytest.mark.django_db(transaction=True)
def test_a_swap_waiting_behind_the_publication_is_refused(organizer):
    """Publishing holds the round's row: a swap asked meanwhile waits, then finds the seating
    published and changes nothing."""
    if not connection.features.has_select_for_update:
        pytest.skip("row locks need PostgreSQL")
    event = EventFactory()
    for _ in range(12):
        entry_check_in(entry=entry_register(event=event, player=PlayerFactory()))
    rnd = drawn(event)
    before = seating(rnd)
    errors: list = []
    swap = _on_its_own_connection(lambda: round_seats_swap(
        round=rnd, seat_a=ref(rnd, 1, 0), seat_b=ref(rnd, 2, 3), by=organizer,
        reason="too late"), errors)

    with transaction.atomic():
        round_publish(round=rnd)  # holds the round's row until this commits
        start_behind_a_lock([swap])
    swap.join(20)

    assert [getattr(e, "code", e) for e in errors] == ["round_published"]
    assert seating(rnd) == before and fresh(rnd).draw_changes == []


@pytest.mark.django_db(transaction=True)
def test_two_redraws_at_once_draw_once(organizer):
    if not connection.features.has_select_for_update:
        pytest.skip("row locks need PostgreSQL")
    event = EventFactory()
    for _ in range(12):
        entry_check_in(entry=entry_register(event=event, player=PlayerFactory()))
    rnd = drawn(event)
    seen = rnd.commitment
    errors: list = []
    answers: list = []
    threads = [_on_its_own_connection(lambda: answers.append(round_redraw(
        round=rnd, by=organizer, reason="again", commitment=seen).commitment), errors)
        for _ in range(2)]

    with transaction.atomic():
        locks.lock_round(rnd.pk, with_event=True)
        start_behind_a_lock(threads)
    for thread in threads:
        thread.join(20)

    assert errors == []
    rnd = fresh(rnd)
    assert len(rnd.draw_history) == 1 and rnd.draw_history[0]["commitment"] == seen
    assert answers == [rnd.commitment] * 2  # one new commitment: the second saw it made
