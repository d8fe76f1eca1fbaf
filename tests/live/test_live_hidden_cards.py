"""Hidden cards (PRODUCT.md, "Live play": every seat sees only its own cards; STYLE.md: the
version, never a hash of the state, is the ETag).

Every response of a whole game — each seat's GET and act responses, the public GET, and the
422 refusals of illegal acts sent along the way — is checked: a seat's view holds ``hand`` and
``legal`` only for itself, the public view holds neither, no card outside the public parts of the
view (plays, pre-play events, the top, the rules) is one the viewer does not hold, no other
seat's hand appears whole, and counts above 10 read "10+" under ``show_counts = le10``.
"""

from __future__ import annotations

import random

import pytest

import engine
from live import deals as live_deals
from live import services as live
from tests.live.helpers import (
    all_ready,
    hidden_card_problems,
    live_url,
    play_on_server,
    play_through_api,
    server_game,
    start_url,
    to_act_problems,
)

pytestmark = pytest.mark.django_db

REAL_DEAL = engine.deal
#: with this deal and the helpers' bots, game 1 has a burn window in which a seat may burn (烧牌)
BURN_SEED = 4


def seeded_deal(monkeypatch, seed):
    """The next live deal gives ``engine.deal(random.Random(seed))`` (not a verifiable one)."""
    monkeypatch.setattr(live_deals, "derive_deal",
                        lambda _seed, _label: REAL_DEAL(random.Random(seed)))


@pytest.mark.slow
@pytest.mark.parametrize("number", [1, 2], ids=["game1-with-a-burn", "game2-with-tributes"])
def test_no_response_of_a_whole_game_shows_another_seats_cards(live_table, monkeypatch, number):
    lt = live_table
    # given game ``number`` dealt from a fixed deck (game 1: one with a burn; game 2: tributes
    # and 还贡 owed by game 1, played on the server)
    if number == 2:
        seeded_deal(monkeypatch, 11)
        play_on_server(lt, live.live_start(table=lt.table).pk)
    seeded_deal(monkeypatch, BURN_SEED)
    all_ready(lt)
    r = lt.clients[0].post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 201
    live_id = r.json()["id"]
    assert not hidden_card_problems(r.json(), 0, server_game(live_id))

    # when the six seats play it through the API, every seat and the public reading every
    # version, and illegal acts probing for other seats' cards along the way
    played = play_through_api(lt, live_id, all_views=True, check_hidden=True,
                              probe_refusals=True)

    # then no response told anyone of another seat's cards
    assert played.acts > 100 and played.responses > 7 * played.acts
    assert played.problems == [], played.problems[:10]
    game = server_game(live_id)
    if number == 1:
        assert game.burns, "the fixed deal was chosen to include a burn"
    else:
        assert game.pre_events, "game 2 pays tributes"


def test_the_public_and_other_seats_are_not_told_who_could_burn(live_table, monkeypatch):
    lt = live_table
    # given a game at a moment when some seat could burn (烧牌) the 够级 combo on the table
    seeded_deal(monkeypatch, BURN_SEED)
    live_id = live.live_start(table=lt.table).pk
    _, game = play_on_server(lt, live_id, until=lambda g: (g.to_act() or {}).get("burners"))
    burners = game.to_act()["burners"]
    assert burners, "the fixed deal has a burn window"

    # when the other seats and the public read the game
    problems = []
    for seat in [None, *range(6)]:
        client = lt.anon if seat is None else lt.clients[seat]
        view = client.get(live_url(live_id)).json()
        problems += to_act_problems(view, seat)

    # then none of them learns which seats hold a combo that can burn: whether a seat can
    # burn depends on its hidden cards (and under strict 烧牌, on its jokers)
    assert problems == [], problems


def crafted_deal_with_a_revolutionary(seat: int) -> list[list[str]]:
    """A four-deck deal where ``seat`` holds no 3, no 2 and no joker (it may revolt, 革命)."""
    cards = REAL_DEAL(random.Random(5))
    pool = [c for hand in cards for c in hand]
    low = [c for c in pool if c[:-1] not in ("3", "2") and c not in ("BJ", "RJ")]
    rng = random.Random(6)
    rng.shuffle(low)
    mine = low[:36]
    rest = list(pool)
    for c in mine:
        rest.remove(c)
    rng.shuffle(rest)
    hands = [rest[i * 36:(i + 1) * 36] for i in range(5)]
    hands.insert(seat, mine)
    return hands


def test_the_revolution_question_is_not_shown_to_the_other_seats(live_table, monkeypatch):
    lt = live_table
    # given a deal where seat 2 alone may revolt (dealt no 3, 2 or joker)
    hands = crafted_deal_with_a_revolutionary(2)
    monkeypatch.setattr(live_deals, "derive_deal", lambda _seed, _label: hands)
    live_id = live.live_start(table=lt.table).pk
    _, game = play_on_server(lt, live_id, until=lambda g: "revolt" in {
        a["act"] for a in g.legal_actions(2)})
    assert game.to_act() == {"seat": 2, "acts": ["decline", "revolt"]}

    # when seat 2 has not answered yet and the others read the game
    problems = []
    for seat in [None, 0, 1, 3, 4, 5]:
        client = lt.anon if seat is None else lt.clients[seat]
        view = client.get(live_url(live_id)).json()
        problems += to_act_problems(view, seat)
    own = lt.clients[2].get(live_url(live_id)).json()

    # then only seat 2's own legal acts say it may revolt; the others see the same question
    # every seat is asked (otherwise they would learn that seat 2 holds no 3, no 2 and no joker)
    assert {a["act"] for a in own["legal"]} == {"revolt", "decline"}
    assert problems == [], problems


def test_every_seat_is_asked_about_revolution_in_the_same_words(live_table):
    """革命: every seat gets the revolution question, eligible or not, and the public sees the
    same to_act for each; an ineligible seat's own legal acts hold only decline."""
    lt = live_table
    live_id = live.live_start(table=lt.table).pk
    _, game = play_on_server(lt, live_id, until=lambda g: g.stage == 1)
    asked = []
    while game.state == "pre" and game.stage == 1:
        view = lt.anon.get(live_url(live_id)).json()
        assert view["to_act"]["acts"] == ["decline", "revolt"]
        asked.append(view["to_act"]["seat"])
        lg = live.live_act(live_id=live_id, seat=view["to_act"]["seat"],
                           action={"act": "decline"}, version=view["version"])
        game = live.live_game(lg)
    assert sorted(asked) == list(range(6))
