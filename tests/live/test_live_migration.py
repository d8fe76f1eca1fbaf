"""LiveGame moved from ``games`` to ``live`` (``games.0006`` and ``live.0001``, state only): a
database holding live games before the move holds the same games after it, read through the new
model, and again after migrating back."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

import engine
from engine.bots import HeuristicBot
from live import services
from live.models import LiveGame
from tests.live.helpers import make_live_table

pytestmark = pytest.mark.django_db(transaction=True)

#: the state before the move: games at its last migration with LiveGame, no live app
BEFORE = [("games", "0004_livegame_hosted"), ("live", None)]


def migrate(targets=None):
    """Migrate the test database to ``targets`` (default: every app's latest); the apps of the
    state reached."""
    executor = MigrationExecutor(connection)
    targets = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(
        [(app, name) for app, name in targets if name is not None]).apps


def played(rules: str, acts: int, seed: int) -> engine.Game:
    """A dealt game with ``acts`` acts made by bots."""
    game = engine.Game(rules, engine.deal(random.Random(seed)), None, first_game=True)
    bot = HeuristicBot(random.Random(seed))
    for _ in range(acts):
        to_act = game.to_act()
        game.act(to_act["seat"], bot.choose(game, to_act["seat"]))
    return game


def rows(model) -> list[dict]:
    return list(model.objects.order_by("pk").values())


def rows_as(model, before: list[dict]) -> list[dict]:
    """``model``'s rows with the columns of ``before`` only; the columns added since (a
    verifiable deal's) are empty: those games were dealt before."""
    now = rows(model)
    assert all(not r[f] for r in now for f in ("deal_label", "deal_commitment", "deal_seed"))
    return [{k: r[k] for k in before[0]} for r in now]


def content_type_of_live_games() -> list[tuple]:
    return list(ContentType.objects.filter(model="livegame").values_list("pk", "app_label"))


def test_live_games_stored_before_the_move_are_all_there_after_it_and_back():
    tables = [make_live_table() for _ in range(2)]
    content_type = content_type_of_live_games()
    assert [label for _pk, label in content_type] == ["live"]
    try:
        # given a database before the move, holding live games with states, versions and
        # seats in 托管, written through the model as it was
        old = migrate(BEFORE).get_model("games", "LiveGame")
        assert not {"live"} & {m._meta.app_label for m in old._meta.apps.get_models()}
        now = timezone.now().replace(microsecond=0)
        for k, (table, number, acts, hosted) in enumerate([
                (tables[0].table, 1, 40, 0b000101), (tables[0].table, 2, 0, 0),
                (tables[1].table, 1, 12, 0b100000)]):
            game = played(tables[0].event.rules, acts, seed=k)
            old.objects.create(table_id=table.pk, number=number, state=game.to_state(),
                               version=game.version, move_seconds=30 + k, hosted=hosted,
                               turn_deadline=now + timedelta(seconds=k),
                               status="finished" if k == 1 else "running")
        before = rows(old)
        assert len(before) == 3 and {r["hosted"] for r in before} == {0b000101, 0, 0b100000}

        # when the database migrates forward
        migrate()

        # then every live game is there, unchanged, through the new model, and plays on
        assert rows_as(LiveGame, before) == before
        assert content_type_of_live_games() == content_type
        for row in before:
            live = LiveGame.objects.get(pk=row["id"])
            assert engine.Game.from_state(live.state).version == row["version"]
            assert services.live_view(live=live, seat=None)["version"] == row["version"]

        # and back again: the games stay, through the old model
        old = migrate(BEFORE).get_model("games", "LiveGame")
        assert rows(old) == before
        assert [label for _pk, label in content_type_of_live_games()] == ["games"]
    finally:
        migrate()
    assert rows_as(LiveGame, before) == before
    assert content_type_of_live_games() == content_type
