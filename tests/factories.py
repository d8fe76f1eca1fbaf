"""factory_boy factories for the tests (one place for all of them).

What has invariants is built through the services, as the product builds it: a round is
committed by ``round_create`` and seated by ``round_draw`` (its tables, seats and byes come
from the draw, never by hand), a team is registered by ``team_register``, a result submitted
(and confirmed) through ``games.services``, a live game dealt by ``live_start``. Players,
users, events and entries have none and are plain rows.
"""

from __future__ import annotations

import random

import factory
from django.contrib.auth import get_user_model

from games.models import GameResult
from live.models import LiveGame
from tournaments.models import Entry, Event, Player, Round, Seat, Table, Team


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    name = factory.Sequence(lambda n: f"Player {n}")
    number = factory.Sequence(lambda n: 1000 + n)


class EventFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Event

    name = factory.Sequence(lambda n: f"Cup {n}")
    slug = factory.Sequence(lambda n: f"cup-{n}")
    rules = "dagang"
    rounds_planned = 5
    games_per_match = 2
    bye_points = 2


class EntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entry

    event = factory.SubFactory(EventFactory)
    player = factory.SubFactory(PlayerFactory)


class TeamFactory(factory.django.DjangoModelFactory):
    """A 联邦 team of three new players in a team event, registered by the staff
    (``team_register``: all three accepted) and checked in unless ``checked_in=False``."""

    class Meta:
        model = Team

    event = factory.SubFactory(EventFactory, format=Event.Format.TEAM)
    name = factory.Sequence(lambda n: f"Team {n}")
    checked_in = True

    @classmethod
    def _create(cls, model_class, *, event, name, checked_in):
        from tournaments.services.entries import entry_check_in
        from tournaments.services.teams import team_register

        entry = team_register(event=event, name=name, players=PlayerFactory.create_batch(3))
        if checked_in:
            entry_check_in(entry=entry)
        return model_class.objects.select_related("entry").get(pk=entry.team_id)


def check_in(event: Event, players: int) -> list[Entry]:
    """Register and check in ``players`` new players of an individual event (``players`` / 3
    new teams of a team event): its entries."""
    from tournaments.services.entries import entry_check_in, entry_register

    if event.format == Event.Format.TEAM:
        return [team.entry for team in TeamFactory.create_batch(players // 3, event=event)]
    return [entry_check_in(entry=entry_register(event=event, player=player))
            for player in PlayerFactory.create_batch(players)]


class RoundFactory(factory.django.DjangoModelFactory):
    """The event's next round through the services: committed (``round_create``), drawn
    (``round_draw``: its tables, seats and byes) unless ``drawn=False``, and published when
    ``published``. An event without checked-in entries gets ``players`` of them first (12 by
    default: two tables, no byes)."""

    class Meta:
        model = Round

    event = factory.SubFactory(EventFactory)
    players = 12
    drawn = True
    published = False

    @classmethod
    def _create(cls, model_class, *, event, players, drawn, published):
        from tournaments.services.draws import round_draw
        from tournaments.services.rounds import round_create, round_publish

        if not event.entries.filter(status=Entry.Status.CHECKED_IN).exists():
            check_in(event, players)
        rnd = round_create(event=event)
        if drawn or published:
            rnd = round_draw(round_id=rnd.pk)
        if published:
            rnd = round_publish(round=rnd)
        return rnd


class TableFactory(factory.django.DjangoModelFactory):
    """Table ``number`` of a drawn round (by default of a new round of six players: its only
    table)."""

    class Meta:
        model = Table

    round = factory.SubFactory(RoundFactory, players=6)
    number = 1

    @classmethod
    def _create(cls, model_class, *, round, number):
        return round.tables.get(number=number)


class SeatFactory(factory.django.DjangoModelFactory):
    """Seat ``seat`` (0–5: 1–6号位) of a drawn table, as the draw filled it."""

    class Meta:
        model = Seat

    table = factory.SubFactory(TableFactory)
    seat = 0

    @classmethod
    def _create(cls, model_class, *, table, seat):
        return Seat.objects.select_related("entry", "player").get(table=table, seat=seat)


def sheet(seed: int) -> dict:
    """A result sheet the engine accepts under dagang (打点 on, no revolutions), the same for
    the same ``seed``."""
    rng = random.Random(seed)
    order = list(range(6))
    rng.shuffle(order)
    return {"order": order, "revolutions": [], "eliminated": [], "burns": [],
            "kaidian": [rng.random() < 0.5 for _ in range(6)], "leader": rng.randrange(6)}


class ResultFactory(factory.django.DjangoModelFactory):
    """Game ``number`` of a table submitted (``result_submit``) from a sheet by ``by``, made a
    referee of the event (a new user by default), who confirms it unless ``confirmed=False``."""

    class Meta:
        model = GameResult

    table = factory.SubFactory(TableFactory)
    number = 1
    sheet = factory.Sequence(sheet)
    by = factory.SubFactory(UserFactory)
    confirmed = True

    @classmethod
    def _create(cls, model_class, *, table, number, sheet, by, confirmed):
        from games import services

        table.round.event.referees.add(by)
        result = services.result_submit(table=table, number=number, sheet=sheet, by=by,
                                        as_referee=True)
        if confirmed:
            result = services.result_confirm(result=result, by=by, as_referee=True)
        return result


class LiveGameFactory(factory.django.DjangoModelFactory):
    """The table's next game dealt and started live (``live_start``), by default at the only
    table of a new published round of six players."""

    class Meta:
        model = LiveGame

    table = factory.SubFactory(TableFactory, round__published=True)
    number = None

    @classmethod
    def _create(cls, model_class, *, table, number):
        from live import services

        return services.live_start(table=table, number=number)
