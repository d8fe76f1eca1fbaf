"""Verifiable deals of live games (live.deals): dealt from a secret seed and the game's label,
the commitment public from the start, the seed shown only once the game is over and its record
may be seen — never before, by any response, stream or log."""

from __future__ import annotations

import json
import logging

import pytest
from django.core.management import call_command

from engine.cli import main as engine_cli
from engine.deals import commitment, derive_deal
from games.models import GameResult
from games.selectors import RecordAccess
from live import deals
from live import services as live
from live.models import LiveGame
from tests.live.helpers import (
    act_url,
    all_ready,
    bot_pick,
    live_url,
    play_on_server,
    server_game,
    start_url,
)

pytestmark = pytest.mark.django_db


def result_url(result_id: int) -> str:
    return f"/api/v1/results/{result_id}/"


def test_a_live_game_is_dealt_from_its_seed_and_label(live_table):
    lt = live_table
    lg = live.live_start(table=lt.table)
    lg.refresh_from_db()
    rnd = lt.table.round
    assert lg.deal_label == (f"gouji/event/{lt.event.pk}/round/{rnd.number}/table/"
                             f"{lt.table.number}/game/1")
    assert len(lg.deal_seed) == 64 and lg.deal_commitment == commitment(lg.deal_seed,
                                                                         lg.deal_label)
    assert server_game(lg.pk).record(actions=False)["deal"] == derive_deal(lg.deal_seed,
                                                                          lg.deal_label)
    assert deals.deal_verification(lg) == []
    # the commitment is in the public state's views from the first version on
    assert server_game(lg.pk).public_view()["verifiable_deal"] == {
        "label": lg.deal_label, "commitment": lg.deal_commitment}
    assert lg.deal_seed not in json.dumps(lg.state)  # the stored state never holds the seed


def test_no_response_of_a_running_game_shows_its_seed(live_table, client, caplog):
    lt = live_table
    caplog.set_level(logging.DEBUG)
    all_ready(lt)
    r = lt.clients[0].post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 201
    live_id = r.json()["id"]
    lg = LiveGame.objects.get(pk=live_id)
    seed, public = lg.deal_seed, lg.deal_commitment
    bodies = [r.content]
    # every seat's and the public GET, then a few acts each with its response and GETs
    for _ in range(12):
        for c in (*lt.clients, lt.anon, lt.stranger, lt.referee):
            got = c.get(live_url(live_id))
            assert got.status_code == 200
            bodies.append(got.content)
        game = server_game(live_id)
        seat, action = bot_pick(game, lt.bots)
        version = LiveGame.objects.get(pk=live_id).version
        done = lt.clients[seat].post(act_url(live_id), {"version": version, **action},
                                     format="json")
        assert done.status_code == 200, done.content
        bodies.append(done.content)
    views = [json.loads(b) for b in bodies[1:] if b.startswith(b"{")]
    assert all(v["verifiable_deal"]["commitment"] == public for v in views if "state" in v)
    # the event stream, the spectator page's JSON, the seat's own page and the table page
    events = lt.clients[0].get(f"/api/v1/live/{live_id}/events/?seconds=0",
                               HTTP_ACCEPT="text/event-stream")
    bodies.append(b"".join(events.streaming_content))
    rnd, event = lt.table.round, lt.event
    base = f"/e/{event.slug}/rounds/{rnd.number}/tables/{lt.table.number}/"
    for url in (base, base + "watch/", base + "watch.json"):
        bodies.append(client.get(url).content)
    assert public.encode() in bodies[-3]  # the public table page shows the commitment
    client.force_login(lt.users[0])
    page = client.get(f"/me/live/{live_id}/")
    assert page.status_code == 200 and public.encode() in page.content
    bodies.append(page.content)
    # a referee's API view of the table and its (empty) results
    bodies.append(lt.referee.get(f"/api/v1/tables/{lt.table.pk}/results/").content)
    assert public.encode() in b"".join(bodies)
    assert all(seed.encode() not in body for body in bodies)
    assert seed not in caplog.text


def test_the_seed_is_shown_once_the_game_is_over_where_its_record_may_be_seen(live_table,
                                                                              tmp_path):
    lt = live_table
    live_id = live.live_start(table=lt.table).pk
    lg, _game = play_on_server(lt, live_id)
    assert lg.status == LiveGame.Status.FINISHED and lg.result_id is not None
    result = GameResult.objects.get(pk=lg.result_id)
    shown = lt.anon.get(result_url(result.pk)).json()["verifiable_deal"]
    assert shown["seed"] == lg.deal_seed and shown["commitment"] == lg.deal_commitment
    assert shown["command"] == (f"python -m engine deal --seed {lg.deal_seed} --label "
                                f"{lg.deal_label} --commitment {lg.deal_commitment}")
    # a result that does not count yet (disputed, say): the seed only to the table and staff
    GameResult.objects.filter(pk=result.pk).update(status=GameResult.Status.DISPUTED)
    assert lt.anon.get(result_url(result.pk)).json()["verifiable_deal"]["seed"] is None
    assert lt.stranger.get(result_url(result.pk)).json()["verifiable_deal"]["seed"] is None
    assert lt.clients[3].get(result_url(result.pk)).json()["verifiable_deal"]["seed"] \
        == lg.deal_seed
    assert lt.referee.get(result_url(result.pk)).json()["verifiable_deal"]["seed"] \
        == lg.deal_seed
    result.refresh_from_db()
    assert deals.result_deal(result, RecordAccess().allows(result))["seed"] is None
    # and its record's hands are the derived deal
    record = next(v for v in result.versions.all() if v.kind == "record").payload
    assert record["deal"] == derive_deal(lg.deal_seed, lg.deal_label)
    # which the documented command checks, as anyone would from the replay page's download
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert engine_cli(["deal", "--seed", shown["seed"], "--label", shown["label"],
                       "--commitment", shown["commitment"], "--record", str(path)]) == 0


def test_verify_deal_checks_a_stored_game(live_table, capsys):
    lt = live_table
    live_id = live.live_start(table=lt.table).pk
    lg, _game = play_on_server(lt, live_id)
    call_command("verify_deal", str(live_id))
    out = capsys.readouterr().out
    assert "verified" in out and lg.deal_label in out and f"--seed {lg.deal_seed}" in out
    # a seed changed after the commitment was published does not verify
    LiveGame.objects.filter(pk=live_id).update(deal_seed="ab" * 32)
    with pytest.raises(SystemExit) as stop:
        call_command("verify_deal", str(live_id))
    assert stop.value.code == 1
    assert "do not give the published commitment" in capsys.readouterr().out
    # a stored game whose hands are not the deal its seed derives does not verify either
    other = "cd" * 32
    LiveGame.objects.filter(pk=live_id).update(
        deal_seed=other, deal_commitment=commitment(other, lg.deal_label))
    with pytest.raises(SystemExit):
        call_command("verify_deal", str(live_id))
    out = capsys.readouterr().out
    assert "stored state are not the deal" in out and "the record of result version 1" in out


def test_two_games_have_their_own_seeds(live_table):
    lt = live_table
    first = live.live_start(table=lt.table)
    play_on_server(lt, first.pk)
    second = live.live_start(table=lt.table)
    assert first.deal_seed != second.deal_seed
    assert first.deal_label.endswith("/game/1") and second.deal_label.endswith("/game/2")
