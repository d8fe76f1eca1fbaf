"""Management commands: the one-command demo event, and re-running a draw (抽签组邦) from its
public data to verify it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games import services as game_services
from tests.factories import EventFactory, PlayerFactory
from tournaments.models import Entry, Event, Round, Seat, Standing
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.rounds import round_create


def _drawn_event(referee, rounds: int = 2) -> Event:
    """An individual event of 14 (two byes, 轮空) with ``rounds`` rounds drawn; every round
    except the last has confirmed results."""
    event = EventFactory(games_per_match=1)
    for _ in range(14):
        entry = entry_register(event=event, player=PlayerFactory())
        entry_check_in(entry=entry)
    for number in range(1, rounds + 1):
        rnd = round_create(event=event)
        rnd = round_draw(round_id=rnd.pk)
        if number < rounds:
            for table in rnd.tables.order_by("number"):
                result = game_services.result_submit(
                    table=table, number=1, by=referee,
                    sheet={"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6})
                game_services.result_confirm(result=result, by=referee, as_referee=True)
    return event


def _verify(*args) -> str:
    out = StringIO()
    call_command("verify_draw", *args, stdout=out)
    return out.getvalue()


# ----------------------------------------------------------------------------- demo_event
@pytest.mark.django_db(transaction=True)
def test_demo_event_runs_a_whole_event_and_prints_the_leaderboard():
    """One command runs registration, 报到, draws, bot-played games, confirmations and
    standings on SQLite with in-process tasks (draws run on commit, hence transaction=True)."""
    out = StringIO()

    call_command("demo_event", players=14, rounds=2, games=1, stdout=out)

    text = out.getvalue()
    assert "Leaderboard" in text
    assert "late entry" in text
    assert text.count("draw verified") == 2 and "NOT verified" not in text
    event = Event.objects.get()
    assert event.status == Event.Status.FINISHED
    assert event.rounds.count() == 2
    assert set(event.rounds.values_list("status", flat=True)) == {Round.Status.PUBLISHED}
    assert Entry.objects.filter(event=event).count() == 14
    assert Standing.objects.filter(event=event).count() == 14
    leaderboard = text.split("Leaderboard", 1)[1]
    top = Standing.objects.filter(event=event).order_by("rank").select_related("entry__player")
    assert top[0].entry.player.name in leaderboard
    assert f"verify_draw {event.slug}" in text


@pytest.mark.django_db(transaction=True)
def test_demo_event_draws_verify_afterwards():
    out = StringIO()
    call_command("demo_event", players=14, rounds=2, games=1, stdout=out)
    slug = Event.objects.get().slug

    text = _verify(slug)

    assert "round 1: verified" in text and "round 2: verified" in text


# ----------------------------------------------------------------------------- verify_draw
@pytest.mark.django_db
def test_verify_draw_prints_verified_for_every_round(referee):
    event = _drawn_event(referee)

    text = _verify(event.slug)

    assert "round 1: verified" in text and "round 2: verified" in text
    assert "NOT VERIFIED" not in text


@pytest.mark.django_db
def test_verify_draw_checks_one_round(referee):
    event = _drawn_event(referee)
    text = _verify(event.slug, "2")
    assert "round 2: verified" in text and "round 1" not in text


@pytest.mark.django_db
def test_verify_draw_exits_1_after_a_stored_seat_is_tampered_with(referee):
    """A seat moved after the draw no longer matches the re-run from the revealed seed."""
    event = _drawn_event(referee)
    rnd = event.rounds.get(number=2)
    bye = rnd.byes.first()
    seat = Seat.objects.filter(round=rnd).order_by("table__number", "seat").first()
    seat.entry, seat.player = bye.entry, bye.entry.player
    seat.save()
    out = StringIO()

    with pytest.raises(SystemExit) as exc:
        call_command("verify_draw", event.slug, stdout=out)

    assert exc.value.code == 1
    text = out.getvalue()
    assert "round 1: verified" in text
    assert "round 2: NOT VERIFIED" in text


@pytest.mark.django_db
def test_verify_draw_exits_1_after_a_seat_swap(referee):
    """Two players swapping seats at a table (the same people, other 联邦) is caught."""
    event = _drawn_event(referee, rounds=1)
    rnd = event.rounds.get()
    table = rnd.tables.get(number=1)
    a, b = table.seats.get(seat=0), table.seats.get(seat=1)
    moved = [(b.player_id, b.entry_id), (a.player_id, a.entry_id)]
    Seat.objects.filter(pk__in=[a.pk, b.pk]).delete()
    for seat, (player_id, entry_id) in enumerate(moved):
        Seat.objects.create(table=table, round=rnd, seat=seat, player_id=player_id,
                            entry_id=entry_id)

    with pytest.raises(SystemExit) as exc:
        _verify(event.slug)

    assert exc.value.code == 1


@pytest.mark.django_db
def test_verify_draw_refuses_an_unknown_event():
    with pytest.raises(CommandError):
        _verify("no-such-event")


@pytest.mark.django_db
def test_verify_draw_reports_an_undrawn_round(referee):
    """A committed round's seed is still secret: it cannot be verified yet."""
    event = _drawn_event(referee, rounds=1)
    rnd = event.rounds.get()
    for table in rnd.tables.all():
        result = game_services.result_submit(
            table=table, number=1, by=referee,
            sheet={"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6})
        game_services.result_confirm(result=result, by=referee, as_referee=True)
    round_create(event=event)
    out = StringIO()

    with pytest.raises(SystemExit) as exc:
        call_command("verify_draw", event.slug, stdout=out)

    assert exc.value.code == 1
    assert "round 2: NOT VERIFIED" in out.getvalue()
