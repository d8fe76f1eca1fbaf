"""A whole live game played through the HTTP API by six clients, one per seat (PRODUCT.md,
"Live play"): the finished game becomes the table's confirmed, system-recorded result whose
record replays to the same result, and the standings are recomputed."""

from __future__ import annotations

import pytest

import engine
from games.models import GameResult, GameResultVersion
from live.models import LiveGame
from tests.live.helpers import all_ready, play_through_api, start_url

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def stored_standings(event):
    from tournaments.models import Standing

    return sorted(Standing.objects.filter(event=event).values_list(
        "entry_id", "rank", "points", "games_played"))


def expected_standings(event):
    from tournaments import standings

    return sorted((r.entry_id, r.rank, r.points, r.games_played)
                  for r in standings.compute(event))


def check_result(lt, live_id: int, number: int, previous=None) -> GameResult:
    lg = LiveGame.objects.get(pk=live_id)
    assert lg.status == LiveGame.Status.FINISHED
    assert lg.turn_deadline is None
    result = GameResult.objects.get(table=lt.table, number=number)
    assert lg.result_id == result.pk
    assert result.system_recorded is True
    assert result.status == GameResult.Status.CONFIRMED and result.confirmed_at is not None
    version = result.versions.get(version=result.version)
    assert version.kind == GameResultVersion.Kind.RECORD
    record = version.payload
    assert record["format"] == "gouji-record/1"
    assert record["previous"] == previous
    # the record the server kept is the game that was played, act by act
    assert record["actions"] == lg.state["record"]["actions"]
    replayed = engine.replay(record, first_game=(number == 1 and previous is None))
    assert replayed.get("ok") is True, replayed
    assert replayed == result.engine_result
    assert replayed["places"] == result.places
    assert replayed["team_points"] == [result.points_a, result.points_b]
    return result


def test_six_seat_clients_play_a_whole_game_and_it_becomes_the_confirmed_result(live_table):
    lt = live_table
    # given game 1 started over the API by a seated player, every seat ready
    all_ready(lt)
    r = lt.clients[0].post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 201, r.content
    start = r.json()
    assert start["seat"] == 0 and start["number"] == 1 and start["status"] == "running"
    live_id = start["id"]

    # when the six seats play it to the end, each with its own token and its own view
    played = play_through_api(lt, live_id, all_views=False)

    # then every client sees the finished game and its result
    final = played.final_views
    assert {v["status"] for v in final.values()} == {"finished"}
    assert len({v["version"] for v in final.values()}) == 1
    result = check_result(lt, live_id, 1)
    # (the view's "result" is the GameResult id: live_view overwrites the engine's result
    # object with it, live/services.py live_view)
    assert {v["result"] for v in final.values()} == {result.pk}
    assert {v["state"] for v in final.values()} == {"over"}
    lg = LiveGame.objects.get(pk=live_id)
    assert final[None]["version"] == lg.version
    assert played.acts >= len(lg.state["record"]["actions"]) > 0
    # and the standings were recomputed from it
    rows = stored_standings(lt.event)
    assert rows == expected_standings(lt.event)
    assert len(rows) == 6 and {row[3] for row in rows} == {1}


def test_the_second_game_starts_from_the_first_games_result_and_also_replays(live_table):
    lt = live_table
    # given game 1 played over the API
    all_ready(lt)
    first = lt.clients[0].post(start_url(lt.table.pk), {}, format="json").json()["id"]
    play_through_api(lt, first, all_views=False)
    previous = {k: v for k, v in GameResult.objects.get(table=lt.table, number=1)
                .engine_result.items() if k in engine.game.RESULT_KEYS}

    # when game 2 (tributes and 还贡 owed by game 1) is started by a referee and played
    r = lt.referee.post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["number"] == 2 and "hand" not in r.json()
    play_through_api(lt, r.json()["id"], all_views=False)

    # then its record carries game 1's result and replays to the stored result
    check_result(lt, r.json()["id"], 2, previous=previous)
    rows = stored_standings(lt.event)
    assert rows == expected_standings(lt.event)
    assert {row[3] for row in rows} == {2}
    # and the match is over: a third start is refused
    r = lt.clients[1].post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_over"


def test_a_tables_api_says_which_game_it_plays_live(live_table):
    """The table (``/tables/<id>/``) and a round's tables name the game being played live at
    each (what the table's public page links to the spectators' page with), else null; a
    round's list costs no more queries for it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from live import services as live

    lt, anyone = live_table, APIClient()
    table_url = f"/api/v1/tables/{lt.table.pk}/"
    tables_url = f"/api/v1/events/{lt.event.slug}/rounds/{lt.table.round.number}/tables/"
    assert anyone.get(table_url).json()["live_game"] is None
    with CaptureQueriesContext(connection) as before:
        anyone.get(tables_url)

    live.live_start(table=lt.table)

    assert anyone.get(table_url).json()["live_game"] == 1
    with CaptureQueriesContext(connection) as after:
        listed = anyone.get(tables_url).json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [t["live_game"] for t in rows if t["id"] == lt.table.pk] == [1]
    assert len(after) == len(before)
