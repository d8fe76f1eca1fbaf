"""Tournament services: registration, check-in (报到), rounds with verifiable draws (抽签组邦),
byes (轮空), team events (联邦 teams, Swiss pairing) and repeated 对头 across rounds."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from games import services as game_services
from games.models import GameResult
from tests.factories import EventFactory, PlayerFactory
from tournaments import draw as draw_module
from tournaments.errors import ServiceError
from tournaments.models import Bye, Entry, Event, Round, Seat, Table, Team, TeamMember
from tournaments.services.draws import compute_draw, round_draw, round_verify
from tournaments.services.entries import (
    entries_check_in,
    entry_check_in,
    entry_register,
    entry_withdraw,
)
from tournaments.services.events import event_finish
from tournaments.services.matches import round_missing_results
from tournaments.services.rounds import round_create, round_open, round_publish, round_request_draw
from tournaments.services.teams import team_register
from tournaments.tasks import round_draw_task

pytestmark = pytest.mark.django_db

# Finishing orders (头科 first) that the dagang rules accept with every seat 开点; varied so that
# scores differ between tables and rounds.
ORDERS = [
    [0, 1, 2, 3, 4, 5],
    [1, 2, 0, 5, 3, 4],
    [0, 4, 1, 3, 2, 5],
    [1, 5, 2, 0, 3, 4],
    [2, 0, 5, 1, 4, 3],
    [3, 0, 2, 5, 1, 4],
]


# ----------------------------------------------------------------------------- helpers
def sheet(order):
    """A result sheet for one game: finishing order and 开点 flags (dagang rules)."""
    return {"order": list(order), "kaidian": [True] * 6}


def individual_event(players: int, **kwargs) -> Event:
    """An individual event (个人赛) with ``players`` registered and checked-in entries."""
    event = EventFactory(**kwargs)
    for _ in range(players):
        entry = entry_register(event=event, player=PlayerFactory())
        entry_check_in(entry=entry)
    return event


def team_event(teams: int, **kwargs) -> Event:
    """A team event (团体赛) with ``teams`` checked-in 联邦 teams of three."""
    kwargs.setdefault("games_per_match", 1)
    event = EventFactory(format=Event.Format.TEAM, **kwargs)
    for k in range(teams):
        entry = team_register(event=event, name=f"Team {k + 1}",
                                       players=[PlayerFactory() for _ in range(3)])
        entry_check_in(entry=entry)
    return event


def open_and_draw(event: Event) -> Round:
    rnd = round_create(event=event)
    return round_draw(round_id=rnd.pk)


def confirm_round(rnd: Round, referee) -> None:
    """Submit a result sheet for every game of every table and confirm it as a referee."""
    rnd = Round.objects.select_related("event").get(pk=rnd.pk)
    games = rnd.event.games_per_match
    for table in rnd.tables.order_by("number"):
        for number in range(1, games + 1):
            order = ORDERS[(table.number + number + rnd.number) % len(ORDERS)]
            result = game_services.result_submit(table=table, number=number, sheet=sheet(order),
                                                 by=referee)
            game_services.result_confirm(result=result, by=referee, as_referee=True)


def seating(rnd: Round) -> list[list[int]]:
    """Entry ids per table, in seat order 0..5."""
    out = []
    for table in rnd.tables.order_by("number"):
        out.append([s.entry_id for s in table.seats.order_by("seat")])
    return out


def snapshot(rnd: Round):
    """Everything a draw writes, comparable across calls."""
    rnd = Round.objects.get(pk=rnd.pk)
    return (
        rnd.status, rnd.drawn_at, rnd.seed, rnd.commitment,
        sorted(Table.objects.filter(round=rnd).values_list("pk", "number", "team_a",
                                                           "team_b")),
        sorted(Seat.objects.filter(round=rnd).values_list("pk", "table_id", "seat",
                                                          "player_id", "entry_id")),
        sorted(Bye.objects.filter(round=rnd).values_list("pk", "entry_id", "points")),
    )


# ----------------------------------------------------------------------------- registration
def test_individual_event_refuses_team_registration():
    """An individual event (个人赛, 抽签组邦) takes players, not 联邦 teams; nothing is created."""
    event = EventFactory()
    with pytest.raises(ServiceError) as exc:
        team_register(event=event, name="Reds", players=PlayerFactory.create_batch(3))
    assert exc.value.code == "wrong_format"
    assert not Team.objects.exists() and not Entry.objects.exists()


def test_team_event_refuses_player_registration():
    """A team event (团体赛) registers 联邦 teams; a lone player is refused."""
    event = EventFactory(format=Event.Format.TEAM)
    with pytest.raises(ServiceError) as exc:
        entry_register(event=event, player=PlayerFactory())
    assert exc.value.code == "wrong_format"
    assert not Entry.objects.exists()


def test_duplicate_registration_is_refused_and_creates_nothing():
    event = EventFactory()
    player = PlayerFactory()
    first = entry_register(event=event, player=player)

    with pytest.raises(ServiceError) as exc:
        entry_register(event=event, player=player)

    assert exc.value.code == "already_registered"
    assert exc.value.status == 409
    assert list(Entry.objects.filter(event=event)) == [first]


def test_same_player_may_enter_different_events():
    player = PlayerFactory()
    entry_register(event=EventFactory(), player=player)
    entry_register(event=EventFactory(), player=player)
    assert Entry.objects.filter(player=player).count() == 2


def test_finished_event_refuses_registration():
    event = EventFactory(status=Event.Status.FINISHED)
    team = EventFactory(status=Event.Status.FINISHED, format=Event.Format.TEAM)

    with pytest.raises(ServiceError) as exc:
        entry_register(event=event, player=PlayerFactory())
    assert exc.value.code == "event_finished"
    with pytest.raises(ServiceError) as exc:
        team_register(event=team, name="Reds", players=PlayerFactory.create_batch(3))
    assert exc.value.code == "event_finished"
    assert not Entry.objects.exists() and not Team.objects.exists()


def test_registration_before_round_one_is_not_late():
    entry = entry_register(event=EventFactory(), player=PlayerFactory())
    assert entry.first_round == 1 and entry.late is False
    assert entry.status == Entry.Status.REGISTERED


def test_late_entry_after_round_one_joins_from_the_next_round(checked_in_event, referee):
    """Once round 1's draw list is fixed (its commitment published), a registration is late and
    joins from round 2: not in round 1's draw, in round 2's."""
    # given: round 1 committed
    round_1 = round_create(event=checked_in_event)

    # when
    late = entry_register(event=checked_in_event, player=PlayerFactory())
    entry_check_in(entry=late)

    # then
    assert late.late is True and late.first_round == 2
    assert late.pk not in round_1.draw_entries
    round_draw(round_id=round_1.pk)
    assert not Seat.objects.filter(round=round_1, entry=late).exists()
    assert not Bye.objects.filter(round=round_1, entry=late).exists()
    confirm_round(round_1, referee)
    round_2 = round_create(event=checked_in_event)
    assert late.pk in round_2.draw_entries


def test_late_team_entry_joins_from_the_next_round():
    event = team_event(4)
    round_create(event=event)
    entry = team_register(event=event, name="Late", players=PlayerFactory.create_batch(3))
    assert entry.late is True and entry.first_round == 2


def test_team_registration_creates_team_members_and_entry():
    """A 联邦 team: three players in positions 0, 1, 2, one entry for the team."""
    event = EventFactory(format=Event.Format.TEAM)
    players = PlayerFactory.create_batch(3)

    entry = team_register(event=event, name="  Reds ", players=players)

    assert entry.team.name == "Reds" and entry.player_id is None
    assert list(entry.team.members.order_by("position").values_list("player_id", "position")) \
        == [(p.pk, i) for i, p in enumerate(players)]


@pytest.mark.parametrize("pick", [[0, 0, 1], [0, 1], [0, 1, 2, 3]],
                         ids=["repeated", "two", "four"])
def test_team_needs_three_distinct_players(pick):
    """A 联邦 team is exactly three different players."""
    event = EventFactory(format=Event.Format.TEAM)
    pool = PlayerFactory.create_batch(4)
    with pytest.raises(ServiceError) as exc:
        team_register(event=event, name="Reds", players=[pool[i] for i in pick])
    assert exc.value.code == "bad_team"
    assert not Team.objects.exists() and not TeamMember.objects.exists()


def test_team_needs_a_name():
    event = EventFactory(format=Event.Format.TEAM)
    with pytest.raises(ServiceError) as exc:
        team_register(event=event, name="  ", players=PlayerFactory.create_batch(3))
    assert exc.value.code == "bad_team"
    assert not Team.objects.exists()


def test_player_plays_for_one_team_per_event():
    """A player is in at most one 联邦 team per event (another event is fine)."""
    event = EventFactory(format=Event.Format.TEAM)
    players = PlayerFactory.create_batch(5)
    team_register(event=event, name="Reds", players=players[:3])

    with pytest.raises(ServiceError) as exc:
        team_register(event=event, name="Blacks", players=[players[2], *players[3:]])

    assert exc.value.code == "already_in_team"
    assert list(Team.objects.filter(event=event).values_list("name", flat=True)) == ["Reds"]
    assert TeamMember.objects.filter(event=event).count() == 3
    assert Entry.objects.filter(event=event).count() == 1
    other = EventFactory(format=Event.Format.TEAM)
    team_register(event=other, name="Reds", players=players[:3])


def test_team_names_are_unique_in_an_event():
    event = EventFactory(format=Event.Format.TEAM)
    team_register(event=event, name="Reds", players=PlayerFactory.create_batch(3))

    with pytest.raises(ServiceError) as exc:
        team_register(event=event, name="Reds", players=PlayerFactory.create_batch(3))

    assert exc.value.code == "team_name_taken"
    assert Team.objects.filter(event=event).count() == 1
    assert TeamMember.objects.filter(event=event).count() == 3


# ----------------------------------------------------------------------------- constraints
def _refused_by_database(make):
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_database_refuses_an_entry_with_both_player_and_team():
    event = EventFactory(format=Event.Format.TEAM)
    team = Team.objects.create(event=event, name="Reds")
    _refused_by_database(lambda: Entry.objects.create(event=event, player=PlayerFactory(),
                                                      team=team))


def test_database_refuses_an_entry_with_neither_player_nor_team():
    _refused_by_database(lambda: Entry.objects.create(event=EventFactory()))


def test_database_refuses_a_second_entry_of_one_player():
    event = EventFactory()
    player = PlayerFactory()
    Entry.objects.create(event=event, player=player)
    _refused_by_database(lambda: Entry.objects.create(event=event, player=player))


def test_database_refuses_first_round_zero():
    _refused_by_database(lambda: Entry.objects.create(event=EventFactory(),
                                                      player=PlayerFactory(), first_round=0))


def test_database_refuses_a_player_in_two_teams_of_one_event():
    event = EventFactory(format=Event.Format.TEAM)
    player = PlayerFactory()
    reds = Team.objects.create(event=event, name="Reds")
    blacks = Team.objects.create(event=event, name="Blacks")
    TeamMember.objects.create(team=reds, event=event, player=player, position=0)
    _refused_by_database(lambda: TeamMember.objects.create(team=blacks, event=event,
                                                           player=player, position=0))


def test_database_refuses_a_fourth_team_position():
    event = EventFactory(format=Event.Format.TEAM)
    team = Team.objects.create(event=event, name="Reds")
    _refused_by_database(lambda: TeamMember.objects.create(team=team, event=event,
                                                           player=PlayerFactory(), position=3))


def test_database_refuses_two_teams_with_one_name():
    event = EventFactory(format=Event.Format.TEAM)
    Team.objects.create(event=event, name="Reds")
    _refused_by_database(lambda: Team.objects.create(event=event, name="Reds"))


def test_database_refuses_seat_six_and_a_player_seated_twice(checked_in_event):
    """Seats are 0..5, one player per seat, one seat per player and round."""
    rnd = open_and_draw(checked_in_event)
    table = rnd.tables.get(number=1)
    bye = rnd.byes.first().entry
    seated = table.seats.get(seat=0)

    _refused_by_database(lambda: Seat.objects.create(table=table, round=rnd, seat=6,
                                                     player=bye.player, entry=bye))
    _refused_by_database(lambda: Seat.objects.create(table=table, round=rnd, seat=0,
                                                     player=bye.player, entry=bye))
    other = rnd.tables.get(number=2)
    _refused_by_database(lambda: Seat.objects.create(
        table=other, round=rnd, seat=0, player=seated.player, entry=seated.entry))


def test_database_refuses_a_second_bye_in_one_round(checked_in_event):
    rnd = open_and_draw(checked_in_event)
    bye = rnd.byes.first()
    _refused_by_database(lambda: Bye.objects.create(round=rnd, entry=bye.entry, points=0))


def test_database_refuses_a_second_round_with_one_number(checked_in_event):
    rnd = round_create(event=checked_in_event)
    _refused_by_database(lambda: Round.objects.create(
        event=checked_in_event, number=rnd.number, seed="x", commitment="y"))


# ----------------------------------------------------------------------------- check-in (报到)
def test_check_in_marks_a_registered_entry():
    """报到: a registered entry is checked in, with the time."""
    entry = entry_register(event=EventFactory(), player=PlayerFactory())
    before = timezone.now()

    entry = entry_check_in(entry=entry)

    entry.refresh_from_db()
    assert entry.status == Entry.Status.CHECKED_IN
    assert entry.checked_in_at is not None and entry.checked_in_at >= before


def test_check_in_is_idempotent():
    """报到 twice changes nothing the second time."""
    entry = entry_register(event=EventFactory(), player=PlayerFactory())
    first = entry_check_in(entry=entry)

    second = entry_check_in(entry=entry)

    assert second.status == Entry.Status.CHECKED_IN
    assert second.checked_in_at == first.checked_in_at
    assert entries_check_in(entries=Entry.objects.filter(pk=entry.pk)) == 0


@pytest.mark.parametrize("disqualify", [False, True], ids=["withdrawn", "disqualified"])
def test_withdrawn_entry_cannot_check_in(disqualify):
    """Only registered entries check in (报到); a withdrawn or disqualified one is refused."""
    entry = entry_register(event=EventFactory(), player=PlayerFactory())
    entry_withdraw(entry=entry, disqualify=disqualify)

    with pytest.raises(ServiceError) as exc:
        entry_check_in(entry=entry)

    assert exc.value.code == "cannot_check_in"
    entry.refresh_from_db()
    assert entry.status != Entry.Status.CHECKED_IN and entry.checked_in_at is None


def test_finished_event_refuses_check_in():
    event = EventFactory()
    entry = entry_register(event=event, player=PlayerFactory())
    Event.objects.filter(pk=event.pk).update(status=Event.Status.FINISHED)
    with pytest.raises(ServiceError) as exc:
        entry_check_in(entry=entry)
    assert exc.value.code == "event_finished"
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_entries_check_in_counts_the_changed_ones():
    event = EventFactory()
    entries = [entry_register(event=event, player=PlayerFactory()) for _ in range(3)]
    entry_check_in(entry=entries[0])
    assert entries_check_in(entries=Entry.objects.filter(event=event)) == 2
    assert set(Entry.objects.filter(event=event).values_list("status", flat=True)) == {
        Entry.Status.CHECKED_IN}


def test_only_checked_in_entries_are_drawn():
    """抽签组邦 seats checked-in entries only: registered-only and withdrawn ones stay out."""
    # given: 7 checked in, one only registered, one withdrawn before the draw
    event = individual_event(7)
    unchecked = entry_register(event=event, player=PlayerFactory())
    gone = entry_register(event=event, player=PlayerFactory())
    entry_check_in(entry=gone)
    entry_withdraw(entry=gone)

    # when
    rnd = open_and_draw(event)

    # then
    checked_in = set(Entry.objects.filter(event=event, status=Entry.Status.CHECKED_IN)
                     .values_list("pk", flat=True))
    assert set(rnd.draw_entries) == checked_in and len(checked_in) == 7
    drawn = set(Seat.objects.filter(round=rnd).values_list("entry_id", flat=True)) | set(
        rnd.byes.values_list("entry_id", flat=True))
    assert drawn == checked_in
    assert unchecked.pk not in drawn and gone.pk not in drawn


@pytest.mark.parametrize("disqualify", [False, True], ids=["withdrawal", "disqualification"])
def test_withdrawal_leaves_from_the_next_round(checked_in_event, referee, disqualify):
    """A withdrawn or disqualified entry keeps its seat in the round it played and is not drawn
    again from the next round on."""
    # given: round 1 drawn and played
    round_1 = open_and_draw(checked_in_event)
    leaving = Seat.objects.filter(round=round_1).first().entry
    confirm_round(round_1, referee)

    # when
    left = entry_withdraw(entry=leaving, disqualify=disqualify)

    # then
    assert left.status == (Entry.Status.DISQUALIFIED if disqualify else Entry.Status.WITHDRAWN)
    assert left.left_after_round == 1
    assert Seat.objects.filter(round=round_1, entry=leaving).exists()
    round_2 = open_and_draw(checked_in_event)
    assert leaving.pk not in round_2.draw_entries
    assert not Seat.objects.filter(round=round_2, entry=leaving).exists()
    assert not Bye.objects.filter(round=round_2, entry=leaving).exists()
    assert Seat.objects.filter(round=round_2).count() + round_2.byes.count() == 13


def test_withdrawal_during_a_committed_round_is_consistent(checked_in_event, referee):
    """An entry withdrawn after round 2's commitment (its draw list) but before the draw: either
    it is still seated in round 2 and ``left_after_round`` says it played round 2, or it is not
    seated — never seated in a round after the one it "left after"."""
    confirm_round(open_and_draw(checked_in_event), referee)
    round_2 = round_create(event=checked_in_event)
    leaving = Entry.objects.get(pk=round_2.draw_entries[0])

    left = entry_withdraw(entry=leaving)
    round_draw(round_id=round_2.pk)

    played = max(
        Seat.objects.filter(entry=leaving).aggregate(m=Max("round__number"))["m"] or 0,
        Bye.objects.filter(entry=leaving).aggregate(m=Max("round__number"))["m"] or 0)
    assert played <= left.left_after_round


def test_withdrawal_is_idempotent(checked_in_event):
    entry = Entry.objects.filter(event=checked_in_event).first()
    entry_withdraw(entry=entry, disqualify=True)
    again = entry_withdraw(entry=entry)
    assert again.status == Entry.Status.DISQUALIFIED and again.left_after_round == 0


# ----------------------------------------------------------------------------- rounds
def test_round_create_publishes_the_commitment_and_keeps_the_seed(checked_in_event):
    """Before the draw the service publishes commitment = sha256(seed, entries, round, event)
    and keeps the seed secret (status committed); nothing is seated yet."""
    rnd = round_create(event=checked_in_event)

    rnd.refresh_from_db()
    ids = sorted(Entry.objects.filter(event=checked_in_event).values_list("pk", flat=True))
    assert rnd.number == 1 and rnd.status == Round.Status.COMMITTED
    assert sorted(rnd.draw_entries) == ids
    assert len(rnd.seed) == 64
    assert rnd.commitment == draw_module.commitment(rnd.seed, ids, 1, checked_in_event.pk)
    assert rnd.seed_revealed is False
    assert not rnd.tables.exists() and not rnd.byes.exists()
    checked_in_event.refresh_from_db()
    assert checked_in_event.status == Event.Status.RUNNING


def test_round_seeds_differ_between_rounds(checked_in_event, referee):
    round_1 = open_and_draw(checked_in_event)
    confirm_round(round_1, referee)
    round_2 = round_create(event=checked_in_event)
    assert round_2.number == 2 and round_2.seed != round_1.seed
    assert round_2.commitment != round_1.commitment


def test_round_create_refuses_while_the_previous_round_is_undrawn(checked_in_event):
    round_create(event=checked_in_event)
    with pytest.raises(ServiceError) as exc:
        round_create(event=checked_in_event)
    assert exc.value.code == "previous_not_drawn"
    assert checked_in_event.rounds.count() == 1


def test_round_create_refuses_while_results_are_missing_or_unconfirmed(checked_in_event, referee):
    """The next round opens only when every game of the previous round has a confirmed result
    (two-person rule: a submitted result is not enough)."""
    round_1 = open_and_draw(checked_in_event)
    with pytest.raises(ServiceError) as exc:
        round_create(event=checked_in_event)
    assert exc.value.code == "previous_unfinished"

    # every game submitted, one left unconfirmed
    results = []
    for table in round_1.tables.order_by("number"):
        for number in (1, 2):
            results.append(game_services.result_submit(
                table=table, number=number, sheet=sheet(ORDERS[number]), by=referee))
    for result in results[:-1]:
        game_services.result_confirm(result=result, by=referee, as_referee=True)
    assert round_missing_results(round=round_1) == 1
    with pytest.raises(ServiceError) as exc:
        round_create(event=checked_in_event)
    assert exc.value.code == "previous_unfinished"
    assert checked_in_event.rounds.count() == 1

    game_services.result_confirm(result=results[-1], by=referee, as_referee=True)
    assert round_create(event=checked_in_event).number == 2


def test_round_create_refuses_too_few_entries():
    """A draw needs six checked-in players (one table)."""
    event = individual_event(5)
    entry_register(event=event, player=PlayerFactory())  # registered, not checked in
    with pytest.raises(ServiceError) as exc:
        round_create(event=event)
    assert exc.value.code == "too_few_entries"
    assert not Round.objects.exists()
    event.refresh_from_db()
    assert event.status == Event.Status.REGISTRATION


def test_team_round_create_refuses_a_single_team():
    event = team_event(1)
    with pytest.raises(ServiceError) as exc:
        round_create(event=event)
    assert exc.value.code == "too_few_entries"
    assert not Round.objects.exists()


def test_round_create_refuses_rounds_beyond_rounds_planned(referee):
    event = individual_event(6, rounds_planned=1, games_per_match=1)
    confirm_round(open_and_draw(event), referee)
    with pytest.raises(ServiceError) as exc:
        round_create(event=event)
    assert exc.value.code == "no_more_rounds"
    assert event.rounds.count() == 1


def test_round_create_refuses_a_finished_event(checked_in_event):
    Event.objects.filter(pk=checked_in_event.pk).update(status=Event.Status.FINISHED)
    with pytest.raises(ServiceError) as exc:
        round_create(event=checked_in_event)
    assert exc.value.code == "event_finished"


def test_round_publish_needs_a_drawn_round(checked_in_event):
    rnd = round_create(event=checked_in_event)
    with pytest.raises(ServiceError) as exc:
        round_publish(round=rnd)
    assert exc.value.code == "not_drawn"
    round_draw(round_id=rnd.pk)
    published = round_publish(round=rnd)
    assert published.status == Round.Status.PUBLISHED and published.published_at is not None
    assert round_publish(round=rnd).published_at == published.published_at


# ----------------------------------------------------------------------------- draw (抽签组邦)
def test_draw_seats_six_per_table_once_each_with_byes(checked_in_event):
    """抽签组邦 of 14: two tables of six, seats 0..5, nobody twice; 14 % 6 = 2 byes (轮空) that
    score the event's bye points."""
    rnd = open_and_draw(checked_in_event)

    assert rnd.status == Round.Status.DRAWN and rnd.drawn_at is not None
    assert rnd.seed_revealed
    tables = list(rnd.tables.order_by("number"))
    assert [t.number for t in tables] == [1, 2]
    for table in tables:
        seats = list(table.seats.order_by("seat"))
        assert [s.seat for s in seats] == [0, 1, 2, 3, 4, 5]
        assert all(s.round_id == rnd.pk and s.player_id == s.entry.player_id for s in seats)
    seated = list(Seat.objects.filter(round=rnd).values_list("entry_id", flat=True))
    byes = list(rnd.byes.values_list("entry_id", "points"))
    assert len(seated) == len(set(seated)) == 12
    assert len(byes) == 14 % 6
    assert {points for _, points in byes} == {checked_in_event.bye_points}
    assert set(seated) | {e for e, _ in byes} == set(rnd.draw_entries)
    assert not set(seated) & {e for e, _ in byes}


@pytest.mark.parametrize("bye_points", [0, 3])
def test_bye_scores_the_configured_bye_points(bye_points):
    """轮空 earns the event's bye score."""
    event = individual_event(7, bye_points=bye_points, games_per_match=1)
    rnd = open_and_draw(event)
    assert list(rnd.byes.values_list("points", flat=True)) == [bye_points]


def test_no_byes_when_the_count_is_a_multiple_of_six():
    rnd = open_and_draw(individual_event(12, games_per_match=1))
    assert rnd.tables.count() == 2 and not rnd.byes.exists()


@pytest.mark.parametrize(("players", "rounds"), [(7, 7), (13, 4), (8, 5)])
def test_byes_rotate_fairly(referee, players, rounds):
    """轮空 rotate: nobody gets a second bye before everyone has had one."""
    event = individual_event(players, rounds_planned=rounds, games_per_match=1)
    byes = Counter()
    for number in range(1, rounds + 1):
        rnd = open_and_draw(event)
        this_round = list(rnd.byes.values_list("entry_id", flat=True))
        assert len(this_round) == players % 6
        byes.update(this_round)
        counts = [byes[e] for e in rnd.draw_entries]
        assert max(counts) - min(counts) <= 1, f"round {number}: byes {sorted(counts)}"
        if number < rounds:
            confirm_round(rnd, referee)
    if players == 7:
        assert set(byes.values()) == {1} and len(byes) == 7


def test_round_draw_is_idempotent(checked_in_event):
    """A second draw of a drawn round changes nothing (a redelivered task is harmless)."""
    rnd = round_create(event=checked_in_event)
    round_draw(round_id=rnd.pk)
    before = snapshot(rnd)

    again = round_draw(round_id=rnd.pk)

    assert again.status == Round.Status.DRAWN
    assert snapshot(rnd) == before


def test_round_draw_matches_the_public_redraw(checked_in_event):
    """The stored seating is what the pure draw gives from the revealed seed and public data."""
    rnd = open_and_draw(checked_in_event)
    drawn = compute_draw(round=rnd)
    assert seating(rnd) == drawn["tables"]
    assert sorted(rnd.byes.values_list("entry_id", flat=True)) == sorted(drawn["byes"])


def test_round_verify_accepts_a_real_draw(checked_in_event, referee):
    round_1 = open_and_draw(checked_in_event)
    confirm_round(round_1, referee)
    round_2 = open_and_draw(checked_in_event)
    assert round_verify(round=Round.objects.get(pk=round_1.pk)) == []
    assert round_verify(round=Round.objects.get(pk=round_2.pk)) == []


def test_round_verify_refuses_an_undrawn_round(checked_in_event):
    rnd = round_create(event=checked_in_event)
    problems = round_verify(round=rnd)
    assert len(problems) == 1 and "not drawn" in str(problems[0])


def test_round_verify_reports_a_tampered_seat(checked_in_event):
    """Swapping two seated players at a table is caught by re-running the draw."""
    rnd = open_and_draw(checked_in_event)
    table = rnd.tables.get(number=1)
    a, b = table.seats.get(seat=0), table.seats.get(seat=1)
    pairs = [(a.player_id, a.entry_id), (b.player_id, b.entry_id)]
    Seat.objects.filter(pk__in=[a.pk, b.pk]).delete()
    Seat.objects.create(table=table, round=rnd, seat=0, player_id=pairs[1][0],
                        entry_id=pairs[1][1])
    Seat.objects.create(table=table, round=rnd, seat=1, player_id=pairs[0][0],
                        entry_id=pairs[0][1])

    problems = [str(p) for p in round_verify(round=Round.objects.get(pk=rnd.pk))]

    assert problems and "table 1 differs" in problems[0]


def test_round_verify_reports_a_tampered_bye(checked_in_event):
    """Seating a bye player in place of a drawn one is caught."""
    rnd = open_and_draw(checked_in_event)
    bye = rnd.byes.first()
    seat = rnd.tables.get(number=2).seats.get(seat=3)
    seat.entry, seat.player = bye.entry, bye.entry.player
    seat.save()
    assert round_verify(round=Round.objects.get(pk=rnd.pk))


def test_round_verify_reports_a_tampered_seed(checked_in_event):
    rnd = open_and_draw(checked_in_event)
    Round.objects.filter(pk=rnd.pk).update(seed=draw_module.new_seed())

    problems = [str(p) for p in round_verify(round=Round.objects.get(pk=rnd.pk))]

    assert any("commitment does not match" in p for p in problems)


def test_round_verify_reports_a_tampered_commitment(checked_in_event):
    rnd = open_and_draw(checked_in_event)
    Round.objects.filter(pk=rnd.pk).update(commitment="0" * 64)

    problems = [str(p) for p in round_verify(round=Round.objects.get(pk=rnd.pk))]

    assert len(problems) == 1 and "commitment does not match" in problems[0]


def test_round_verify_reports_a_tampered_entry_list(checked_in_event):
    """The commitment binds the entry list too."""
    rnd = open_and_draw(checked_in_event)
    Round.objects.filter(pk=rnd.pk).update(draw_entries=list(rnd.draw_entries)[:-1])
    problems = [str(p) for p in round_verify(round=Round.objects.get(pk=rnd.pk))]
    assert any("commitment does not match" in p for p in problems)


def test_round_draw_task_runs_eagerly_like_the_service(checked_in_event):
    """The Celery task (in-process without a broker) draws exactly what the service draws."""
    rnd = round_create(event=checked_in_event)

    out = round_draw_task.delay(rnd.pk).get()

    assert out == {"round": rnd.pk, "status": Round.Status.DRAWN}
    by_task = seating(rnd), sorted(rnd.byes.values_list("entry_id", "points"))
    # undo the draw, then let the service draw the same committed round
    Seat.objects.filter(round=rnd).delete()
    Table.objects.filter(round=rnd).delete()
    Bye.objects.filter(round=rnd).delete()
    Round.objects.filter(pk=rnd.pk).update(status=Round.Status.COMMITTED, drawn_at=None)
    round_draw(round_id=rnd.pk)
    assert (seating(rnd), sorted(rnd.byes.values_list("entry_id", "points"))) == by_task
    assert round_draw_task.delay(rnd.pk).get()["status"] == Round.Status.DRAWN


def test_round_request_draw_runs_the_task_on_commit(checked_in_event,
                                                    django_capture_on_commit_callbacks):
    rnd = round_create(event=checked_in_event)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        round_request_draw(round=rnd)
    assert callbacks  # the draw (and then, for scored byes, a standings recompute)
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.DRAWN
    assert round_verify(round=rnd) == []


def test_round_open_queues_the_draw_only_when_its_transaction_commits(
        checked_in_event, django_capture_on_commit_callbacks):
    # when the next round is opened
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        rnd = round_open(event=checked_in_event)
    # then it is committed (not drawn) until the queued draw runs on commit
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.COMMITTED
    assert len(callbacks) == 1
    callbacks[0]()
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.DRAWN and round_verify(round=rnd) == []


def test_round_open_refused_opens_nothing_and_queues_nothing(
        django_capture_on_commit_callbacks):
    event = EventFactory()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(ServiceError) as refused:
            round_open(event=event)
    assert refused.value.code == "too_few_entries"
    assert callbacks == [] and not Round.objects.filter(event=event).exists()


def test_event_finish_closes_the_event_to_new_entries():
    event = event_finish(event=EventFactory())
    assert Event.objects.get(pk=event.pk).status == Event.Status.FINISHED
    with pytest.raises(ServiceError) as refused:
        entry_register(event=event, player=PlayerFactory())
    assert refused.value.code == "event_finished"


# ----------------------------------------------------------------------------- team events
def _min_rematches(team_ids, met):
    """Fewest rematches over every pairing of an even list of teams (brute force)."""
    def pairings(rest):
        if not rest:
            yield []
            return
        first = rest[0]
        for k in range(1, len(rest)):
            for tail in pairings(rest[1:k] + rest[k + 1:]):
                yield [(first, rest[k]), *tail]
    return min(sum((min(p), max(p)) in met for p in pairing)
               for pairing in pairings(list(team_ids)))


def test_team_draw_pairs_swiss_without_rematch_while_avoidable(referee):
    """团体赛: 联邦 teams meet team against team; no pair meets twice while a pairing without a
    rematch exists (six teams, five rounds: a full round robin is possible)."""
    event = team_event(6, rounds_planned=5)
    met: set[tuple[int, int]] = set()
    for number in range(1, 6):
        rnd = open_and_draw(event)
        pairs = []
        for table in rnd.tables.all():
            pairs.append(tuple(sorted((table.team_a.entry.pk, table.team_b.entry.pk))))
        playing = [e for p in pairs for e in p]
        assert len(playing) == len(set(playing)) == 6
        rematches = sum(p in met for p in pairs)
        assert rematches == _min_rematches(sorted(playing), met), f"round {number}: {pairs}"
        met.update(pairs)
        confirm_round(rnd, referee)
    assert len(met) == 15


def test_team_table_seats_team_a_even_and_team_b_odd():
    """Team A (联邦 0) sits 0, 2, 4 and team B (联邦 1) sits 1, 3, 5."""
    event = team_event(4)
    rnd = open_and_draw(event)
    assert rnd.tables.count() == 2 and not rnd.byes.exists()
    for table in rnd.tables.all():
        assert table.team_a_id and table.team_b_id and table.team_a_id != table.team_b_id
        members_a = set(table.team_a.members.values_list("player_id", flat=True))
        members_b = set(table.team_b.members.values_list("player_id", flat=True))
        seats = {s.seat: s for s in table.seats.all()}
        assert sorted(seats) == [0, 1, 2, 3, 4, 5]
        assert {seats[s].player_id for s in (0, 2, 4)} == members_a
        assert {seats[s].player_id for s in (1, 3, 5)} == members_b
        assert {seats[s].entry_id for s in (0, 2, 4)} == {table.team_a.entry.pk}
        assert {seats[s].entry_id for s in (1, 3, 5)} == {table.team_b.entry.pk}
    assert round_verify(round=Round.objects.get(pk=rnd.pk)) == []


def test_team_draw_gives_an_odd_team_a_bye(referee):
    """Five teams: two tables and one 轮空 with the bye points; byes rotate."""
    event = team_event(5, rounds_planned=3, bye_points=3)
    had_bye = []
    for number in range(1, 4):
        rnd = open_and_draw(event)
        assert rnd.tables.count() == 2
        byes = list(rnd.byes.values_list("entry_id", "points"))
        assert len(byes) == 1 and byes[0][1] == 3
        had_bye.append(byes[0][0])
        assert round_verify(round=Round.objects.get(pk=rnd.pk)) == []
        if number < 3:
            confirm_round(rnd, referee)
    assert len(set(had_bye)) == 3


# ----------------------------------------------------------------------------- repeats (对头)
def test_service_draw_repeats_no_more_than_a_plain_shuffle(referee):
    """Across 4 rounds of 36 players the service seats fewer (or as few) repeated 对头,
    partners and tablemates as a plain shuffle of the same seeds; 对头 repeats above all are
    avoidable here and must not happen."""
    event = individual_event(36, rounds_planned=4, games_per_match=1)
    service_tables, shuffle_tables = [], []
    for number in range(1, 5):
        rnd = open_and_draw(event)
        service_tables.append(seating(rnd))
        players = [draw_module.DrawPlayer(id=i) for i in rnd.draw_entries]
        shuffle_tables.append(draw_module.draw_shuffle(players, rnd.seed).tables)
        if number < 4:
            confirm_round(rnd, referee)
    # every round seats everyone once
    for tables in service_tables:
        flat = [e for t in tables for e in t]
        assert len(flat) == len(set(flat)) == 36

    service = draw_module.repeat_stats(service_tables)
    shuffle = draw_module.repeat_stats(shuffle_tables)
    simulated = [draw_module.simulate(36, 4, f"baseline-{k}", method="shuffle")
                 for k in range(5)]

    def weighted(stats):
        return (100 * stats["opposite_repeats"] + 10 * stats["partner_repeats"]
                + stats["tablemate_repeats"])

    assert service["opposite_repeats"] <= shuffle["opposite_repeats"]
    assert weighted(service) <= weighted(shuffle)
    assert weighted(service) <= min(weighted(s) for s in simulated)
    assert service["opposite_repeats"] == 0


def test_individual_seats_rotate_over_rounds(referee):
    """Seats rotate: with 6 players over 6 rounds, nobody sits in one seat every round."""
    event = individual_event(6, rounds_planned=6, games_per_match=1)
    seats_of = {}
    for number in range(1, 7):
        rnd = open_and_draw(event)
        for s in Seat.objects.filter(round=rnd):
            seats_of.setdefault(s.entry_id, []).append(s.seat)
        if number < 6:
            confirm_round(rnd, referee)
    for seats in seats_of.values():
        assert len(set(seats)) > 1


def test_confirmed_results_exist_for_every_game(checked_in_event, referee):
    """Sanity of the helper the round tests rely on: every game confirmed, nothing missing."""
    rnd = open_and_draw(checked_in_event)
    confirm_round(rnd, referee)
    assert round_missing_results(round=rnd) == 0
    assert GameResult.objects.filter(table__round=rnd, status="confirmed").count() == 4

