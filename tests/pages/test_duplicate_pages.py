"""The pages and the API of a duplicate (复式) event: a board's results, replays and seed
hidden from the public — and from the other tables' players — until every table of its group
has finished it, then shown on the boards page, the board page and the (kept) table page."""

from __future__ import annotations

import pytest
from django.test import Client, TestCase
from django.urls import reverse

from games.models import GameResult
from live import services as live
from tests.duplicate_helpers import duplicate_event, play_game, play_out
from tests.live.helpers import token_client
from tournaments.models import Board

pytestmark = pytest.mark.django_db


def _pages(event, rnd, board, table):
    slug, n = event.slug, rnd.number
    return {
        "boards": reverse("pages:round-boards", args=[slug, n]),
        "board": reverse("pages:board", args=[slug, n, board.group, board.number]),
        "table": reverse("pages:table", kwargs={"slug": slug, "number": n,
                                                "table": table.number}),
        "results": reverse("pages:round-results", args=[slug, n]),
        "replay": reverse("pages:replay", kwargs={"slug": slug, "number": n,
                                                  "table": table.number, "game": 1}),
    }


def test_a_board_shows_nothing_of_its_play_until_its_group_finished(client):
    event, rnd = duplicate_event(players=12, games=1, method="imp")
    first, twin = rnd.tables.order_by("number")
    board = Board.objects.get(round=rnd)
    urls = _pages(event, rnd, board, first)
    before = client.get(urls["table"]).content.decode()  # kept rendered: its key must move
    assert 'id="duplicate-note"' in before
    assert 'id="duplicate-note"' in client.get(event.get_absolute_url()).content.decode()
    play_game(first, 1, seed=3)
    result = GameResult.objects.get(table=first, number=1)
    # a player of the twin table (still to play the board) is the public here
    other = Client()
    other.force_login(twin.seats.get(seat=0).player.user)
    api = f"/api/v1/tables/{first.pk}/results/"
    for c in (client, other):
        for name in ("boards", "board", "table", "results"):
            page = c.get(urls[name])
            assert page.status_code == 200
            assert board.seed not in page.content.decode(), name
        assert c.get(urls["board"]).content.decode().count('id="board-hidden"') == 1
        assert c.get(urls["replay"]).status_code == 404
        assert c.get(api).json() == []
        assert c.get(f"/api/v1/results/{result.pk}/").status_code == 404
    history = reverse("pages:player-history", args=[event.slug,
                                                    first.seats.get(seat=0).player_id])
    assert urls["replay"] not in client.get(history).content.decode()
    table_page = client.get(urls["table"]).content.decode()
    assert f"{result.points_a}:{result.points_b}" not in table_page.replace(" ", "")
    play_game(twin, 1, seed=4)
    page = client.get(urls["board"]).content.decode()
    assert 'id="board-results"' in page and board.seed in page
    assert "python -m engine deal --seed" in page
    assert client.get(urls["replay"]).status_code == 200
    assert [r["number"] for r in client.get(api).json()] == [1]
    assert 'id="board-hidden"' not in client.get(urls["board"]).content.decode()
    assert client.get(urls["table"]).content.decode() != before
    assert urls["replay"] in client.get(history).content.decode()


def test_a_plain_event_has_no_boards_page(client):
    from tests.live.helpers import make_live_table

    lt = make_live_table()
    url = reverse("pages:round-boards", args=[lt.event.slug, 1])
    assert client.get(url).status_code == 404


def test_a_board_being_played_is_not_watched_until_its_group_finished(client):
    event, rnd = duplicate_event(players=12, games=2)
    first, twin = rnd.tables.order_by("number")
    with TestCase.captureOnCommitCallbacks(execute=True):
        running = live.live_start(table=first, number=2)
    api = f"/api/v1/live/{running.pk}/"
    watch = reverse("pages:watch-data", kwargs={"slug": event.slug, "number": rnd.number,
                                                "table": first.number})
    anon = token_client(None)
    refused = anon.get(api)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "board_hidden"
    twin_player = token_client(twin.seats.get(seat=0).player.user)
    assert twin_player.get(api).status_code == 403  # the twin plays the same cards
    assert token_client(first.seats.get(seat=0).player.user).get(api).status_code == 200
    assert client.get(watch).json()["game"] is None
    play_game(twin, 2, seed=7)
    play_out(running.pk, seed=8)
    assert anon.get(api).status_code == 200
    assert client.get(watch).json()["game"] == 2
