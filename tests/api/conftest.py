"""Fixtures for the REST API tests: one token-authenticated client per role.

Roles (PRODUCT.md, "Interfaces"): the event's organizer (staff, in ``event.organizers``), its
referee (``event.referees``), the seated players (``Player.user`` set), another event's
referee, a random logged-in user and the anonymous public.

Requests run through :class:`tests.api.helpers.Client`, which executes the ``transaction.on_commit`` callbacks a
request registers once it is answered, as a committed request would in production: the seating
draw (202, then poll) and the standings recompute after a confirmation happen "on a worker"
(in-process, ``CELERY_TASK_ALWAYS_EAGER``) after the response.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.api.helpers import client_for
from tests.factories import UserFactory
from tournaments.models import Event, Round, Table
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create
from tournaments.services.rounds import round_create, round_publish

PLAYERS = 12  # two full tables, no bye


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters live in the cache: start every test with an empty one."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def anon():
    return client_for(None)


@pytest.fixture
def organizer(db):
    return UserFactory(username="organizer", is_staff=True)


@pytest.fixture
def referee_user(db):
    return UserFactory(username="table-referee")


@pytest.fixture
def other_referee(db):
    """The referee of another event: no rights in ``event``."""
    user = UserFactory(username="other-referee")
    other = event_create(name="Other cup", slug="other-cup", games_per_match=2,
                                  rounds_planned=3)
    other.referees.add(user)
    other.published = True
    other.save(update_fields=["published"])
    return user


@pytest.fixture
def stranger(db):
    """A logged-in user with no role and no player profile."""
    return UserFactory(username="stranger")


@pytest.fixture
def event(organizer, referee_user) -> Event:
    """A published individual event (dagang, 2 games per match, 3 rounds, bye score 2)."""
    ev = event_create(name="Qingdao cup", slug="qingdao-cup", games_per_match=2,
                               rounds_planned=3, bye_points=2, organizer=organizer)
    ev.referees.add(referee_user)
    event_publish(event=ev)
    return ev


@pytest.fixture
def hidden_event(organizer, referee_user) -> Event:
    """An unpublished event of the same organizer and referee."""
    ev = event_create(name="Secret cup", slug="secret-cup", games_per_match=2,
                               rounds_planned=3, organizer=organizer)
    ev.referees.add(referee_user)
    return ev


@pytest.fixture
def entries(event):
    """Twelve checked-in players of ``event``, each with a login (``player.user``)."""
    out = []
    for i in range(PLAYERS):
        user = UserFactory(username=f"player{i:02d}")
        player = player_create(name=f"Player {i:02d}", number=100 + i, user=user)
        entry = entry_register(event=event, player=player)
        out.append(entry_check_in(entry=entry))
    return out


@pytest.fixture
def drawn_round(event, entries) -> Round:
    """Round 1 drawn (two tables) but its seating not yet published."""
    rnd = round_create(event=event)
    return round_draw(round_id=rnd.pk)


@pytest.fixture
def published_round(drawn_round) -> Round:
    """Round 1 drawn and its seating published."""
    return round_publish(round=drawn_round)


@pytest.fixture
def table(published_round) -> Table:
    """Table 1 of the published round 1."""
    return published_round.tables.get(number=1)


@pytest.fixture
def other_table(published_round) -> Table:
    return published_round.tables.get(number=2)


@pytest.fixture
def user_of(request):
    """``user_of(role)``: the user of a role named in a parametrized test ("anon" is None,
    "player" a checked-in player of ``event`` who sits at no particular table)."""

    def get(role: str):
        if role == "anon":
            return None
        if role == "player":
            return request.getfixturevalue("entries")[0].player.user
        return request.getfixturevalue(role)

    return get
