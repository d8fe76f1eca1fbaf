"""A live game and a hand-submitted result for the same game number (PRODUCT.md, "Live play":
the finished game becomes the table's result)."""

from __future__ import annotations

import pytest

import engine
from games.models import GameResult
from games.services import result_correct
from live import services as live
from live.models import LiveGame
from tests.live.helpers import bot_pick, play_on_server
from tournaments.errors import Conflict

pytestmark = pytest.mark.django_db


def test_a_sheet_for_a_game_being_played_live_is_refused_and_the_game_still_ends(live_table):
    lt = live_table
    # given game 1 running live
    live_id = live.live_start(table=lt.table).pk

    # when a player of the table submits a result sheet for game 1 by hand
    r = lt.clients[1].post(f"/api/v1/tables/{lt.table.pk}/results/", {
        "number": 1, "sheet": {"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6}},
        format="json")
    sheet_status = r.status_code

    # and the live game is played to its end
    refused_at_the_end = None
    while True:
        lg = LiveGame.objects.get(pk=live_id)
        game = live.live_game(lg)
        if game.state == "over":
            break
        seat, action = bot_pick(game, lt.bots)
        try:
            live.live_act(live_id=live_id, seat=seat, action=action, version=lg.version)
        except Conflict as exc:
            refused_at_the_end = (exc.code, exc.message)
            break

    # then the hand-made sheet was refused while the game ran, and the game finished as the
    # table's result (not stuck refusing its last act)
    lg = LiveGame.objects.get(pk=live_id)
    assert (sheet_status, refused_at_the_end, lg.status) == (409, None, "finished"), (
        f"sheet answered {sheet_status}; the last live act was refused with "
        f"{refused_at_the_end}; the live game is {lg.status}")
    assert GameResult.objects.get(table=lt.table, number=1).system_recorded


def test_game_2_ends_as_played_after_game_1_is_corrected_meanwhile(live_table):
    lt = live_table
    # given game 1 played live, and game 2 dealt after it with the tributes it left owing
    play_on_server(lt, live.live_start(table=lt.table).pk)
    game_1 = GameResult.objects.get(table=lt.table, number=1)
    dealt_after = live.live_game(live.live_start(table=lt.table)).record()["previous"]
    live_id = LiveGame.objects.get(table=lt.table, number=2).pk

    # when a referee corrects game 1 while game 2 is being played: the order reversed
    order = list(reversed(game_1.engine_result["order"]))
    result_correct(result=game_1, reason="places copied the wrong way round",
                   sheet={"order": order, "kaidian": [True] * 6}, by=lt.referee_user,
                   as_referee=True)
    assert GameResult.objects.get(pk=game_1.pk).engine_result["places"] != dealt_after[
        "places"], "the correction changed nothing the tributes depend on"

    # then game 2 still ends, and its result is the game as it was played: its record replays
    # from the game 1 it was dealt after
    lg, _ = play_on_server(lt, live_id)
    assert lg.status == LiveGame.Status.FINISHED
    result = GameResult.objects.get(table=lt.table, number=2)
    record = result.versions.get().payload
    assert record["previous"] == dealt_after
    assert engine.replay(record) == result.engine_result
