"""The verifiable deal on the pages (live.deals): the replay page of a live game shows its
label, commitment, seed and the command that checks them, in both languages; the seat's live
page shows the commitment only; a practice game shows its seed once it is over."""

from __future__ import annotations

import pytest
from django.test import Client

from engine.bots import hosted_act
from engine.deals import commitment, derive_deal
from engine.game import Game
from games.models import GameResult
from live import practice
from live import services as live
from tests.live.helpers import make_live_table, play_on_server

pytestmark = pytest.mark.django_db


def _replay_url(lt) -> str:
    rnd = lt.table.round
    return f"/e/{lt.event.slug}/rounds/{rnd.number}/tables/{lt.table.number}/games/1/replay/"


def test_the_replay_shows_the_deal_to_check_in_both_languages():
    lt = make_live_table()
    lg, _game = play_on_server(lt, live.live_start(table=lt.table).pk)
    page = Client().get(_replay_url(lt)).content.decode()
    assert 'id="verifiable-deal"' in page and "Verifiable deal" in page
    for shown in (lg.deal_label, lg.deal_commitment, lg.deal_seed):
        assert shown in page
    assert (f"python -m engine deal --seed {lg.deal_seed} --label {lg.deal_label} "
            f"--commitment {lg.deal_commitment}") in page
    zh = Client().get(_replay_url(lt), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "发牌可验证" in zh and "承诺值" in zh and lg.deal_seed in zh


def test_an_unconfirmed_games_seed_is_only_on_its_tables_replay():
    lt = make_live_table()
    lg, _game = play_on_server(lt, live.live_start(table=lt.table).pk)
    GameResult.objects.filter(pk=lg.result_id).update(status=GameResult.Status.DISPUTED)
    assert Client().get(_replay_url(lt)).status_code == 404
    seated = Client()
    seated.force_login(lt.users[2])
    page = seated.get(_replay_url(lt)).content.decode()
    assert lg.deal_seed in page


def test_a_practice_game_shows_its_seed_once_it_is_over():
    game, token = practice.practice_start(preset="dagang")
    view = practice.practice_view(game)
    deal = view["verifiable_deal"]
    assert deal["label"].startswith("gouji/practice/") and deal["seed"] is None
    assert game.deal_seed not in str(view)
    assert deal["commitment"] == commitment(game.deal_seed, game.deal_label)
    assert Game.from_state(game.state).record()["deal"] == derive_deal(game.deal_seed,
                                                                      game.deal_label)
    page = Client().get(f"/practice/{token}/").content.decode()
    assert deal["commitment"] in page and game.deal_seed not in page
    while game.status != "finished":
        engine_game = Game.from_state(game.state)
        seat, action = hosted_act(engine_game)
        assert seat == game.seat
        game = practice.practice_act(token=token, action=action, version=game.version)
    assert practice.practice_view(game)["verifiable_deal"]["seed"] == game.deal_seed
    assert game.deal_seed in Client().get(f"/practice/{token}/").content.decode()
