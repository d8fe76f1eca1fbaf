"""Helpers for the public pages' tests: build events through the services, with results the
engine scored (bot-played matches, as the demo command plays them)."""

from __future__ import annotations

import random

from django.db import transaction

from engine.bots import play_match
from engine.sheet import sheet_of
from games import services as game_services
from games.models import GameResult
from tournaments.models import Event, Round, Table
from tournaments.services.draws import round_draw
from tournaments.services.rounds import round_create, round_publish

# distinct names: no one's name is part of another's, so a search finds one player
NAMES = ["张伟", "王芳", "李娜", "刘洋", "陈静", "杨磊", "赵敏", "黄勇", "周杰", "吴霞",
         "徐明", "孙丽", "马超", "朱琳"]


def play_table(*, table: Table, referee, seed: int = 1, confirm: bool = True) -> None:
    """Bot-play ``table``'s match, submit every game as a result sheet and (by default) have
    the referee confirm them. Standings follow on commit (or call ``standings_recompute``)."""
    event = table.round.event
    rng = random.Random(seed * 1000 + table.pk)
    for k, game in enumerate(play_match(event.rules, event.games_per_match, rng)):
        record, result = game.record(), game.result()
        game_services.result_submit(table=table, number=k + 1,
                                    sheet=sheet_of(result, record["leader"]), by=referee)
    if confirm:
        game_services.results_confirm(results=GameResult.objects.filter(table=table),
                                      by=referee, as_referee=True)


def draw_round(event: Event, *, publish: bool = True) -> Round:
    """Open, draw (here, not on a worker) and optionally publish the next round."""
    with transaction.atomic():
        rnd = round_create(event=event)
    rnd = round_draw(round_id=rnd.pk)
    return round_publish(round=rnd) if publish else rnd


def bot_act(game, seat: int) -> dict:
    """The act 托管's bot makes for ``seat``, whose turn it is (engine.bots.hosted_act)."""
    from engine.bots import hosted_act

    return hosted_act(game, seat)[1]
