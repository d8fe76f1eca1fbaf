"""Fixtures for the public pages: small published events built through the services."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.pages.helpers import NAMES, draw_round, play_table
from tournaments.models import Event
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create
from tournaments.standings import standings_recompute


@pytest.fixture
def referee_user(db):
    return get_user_model().objects.create(username="pages-referee")


@pytest.fixture
def make_event(db, referee_user):
    """``make_event(slug=…, published=True, players=14, **event_fields)``: an individual event
    with checked-in players named from NAMES (numbers 101, 102, …)."""

    def make(*, slug="qingdao-open", name="青岛够级公开赛", published=True, players=14,
             **fields) -> Event:
        fields.setdefault("games_per_match", 2)
        fields.setdefault("rounds_planned", 3)
        fields.setdefault("bye_points", 2)
        event = event_create(name=name, slug=slug, **fields)
        event.referees.add(referee_user)
        base = 101 + 1000 * (Event.objects.count() - 1)  # player numbers are unique
        for i in range(players):
            player = player_create(name=NAMES[i % len(NAMES)] + (
                "" if i < len(NAMES) else str(i)), number=base + i)
            entry_check_in(entry=entry_register(event=event, player=player))
        if published:
            event_publish(event=event)
        return event

    return make


@pytest.fixture
def event(make_event, referee_user) -> Event:
    """A published event: round 1 (two tables, two byes) published, table 1's two games
    confirmed, table 2's games not played; standings computed."""
    ev = make_event()
    rnd = draw_round(ev)
    play_table(table=rnd.tables.get(number=1), referee=referee_user)
    standings_recompute(event_id=ev.pk)
    ev.refresh_from_db()
    return ev
