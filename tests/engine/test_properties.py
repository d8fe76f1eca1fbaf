"""Property tests over many bot games (hypothesis): conservation of the 216 cards, replay
determinism, legal-move soundness and the scoring rule of RULES.md §7."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, IllegalAction, deal, replay, replay_match
from engine.bots import HeuristicBot, RandomBot, hosted_act, make_bot, play_match, play_out
from engine.cards import CARD_RANK, combo_of
from engine.cli import match_record
from engine.game import PLACE_POINTS

PRESETS = ["dagang", "basic", "online"]
NON_STRICT = {"preset": "dagang", "options": {"strict_burn": False}}


def _signature(cards):
    """What legality depends on: the combo's rank make-up, not its suits."""
    c = combo_of(list(cards))
    return (c.rank, c.size, c.n_two, c.n_bj, c.n_rj)


def _check_score(res):
    """RULES.md §7: place points, only the positive team scores, 串三户 = 12."""
    places = res["places"]
    assert sorted(places) == [1, 2, 3, 4, 5, 6]
    assert res["order"] == sorted(range(6), key=places.__getitem__)
    tp = res["team_points"]
    assert 0 in tp
    sums = [sum(PLACE_POINTS[places[s]] for s in range(t, 6, 2)) for t in (0, 1)]
    assert sums[0] + sums[1] == 0
    for t in (0, 1):
        mine = {places[s] for s in range(t, 6, 2)}
        if mine == {1, 2, 3}:
            assert res["sweep"] and tp[t] == 12
    if not res["sweep"]:
        assert tp == [max(0, sums[0]), max(0, sums[1])]


@pytest.mark.parametrize("preset", PRESETS + [NON_STRICT])
@pytest.mark.parametrize("bot", ["heuristic", "random", "careful"])
def test_many_bot_matches_replay_to_the_same_result(preset, bot):
    """Thousands of games: each finished game's record replays to the same result, the match
    record too (tributes and leaders checked across games), and scores obey §7."""
    rng = random.Random(f"{preset}-{bot}")
    n_games = 150 if bot == "random" else 400
    played = 0
    while played < n_games:
        games = play_match(preset, 4, rng, bot=bot)
        for g in games:
            res = g.result()
            assert g.card_total() == 216
            assert replay(json.loads(json.dumps(g.record())), first_game=False) == res
            if not res["void"]:
                _check_score(res)
        mres = replay_match(match_record(games))
        assert mres["ok"], mres
        assert mres["games"] == [g.result() for g in games]
        played += len(games)


def _step_checks(game: Game, rng: random.Random):
    """At one step: every listed act is accepted; unlisted plays are refused."""
    if game.state != "play":
        return
    seats = {game.turn} | set(range(6))
    for seat in seats:
        legal = game.legal_actions(seat)
        sigs = {(a["act"], _signature(a["cards"])) for a in legal if "cards" in a}
        simple = {a["act"] for a in legal if "cards" not in a}
        for a in rng.sample(legal, min(2, len(legal))):
            g2 = copy.deepcopy(game)
            g2.act(seat, a)  # must not raise
            assert g2.card_total() == 216
        hand = [c for c, n in game.hands[seat].items() for _ in range(n)]
        for _ in range(3):
            if not hand:
                break
            cards = rng.sample(hand, rng.randint(1, min(4, len(hand))))
            for act in ("play", "burn"):
                try:
                    listed = (act, _signature(cards)) in sigs
                except ValueError:
                    listed = False
                g2 = copy.deepcopy(game)
                try:
                    g2.act(seat, {"act": act, "cards": cards})
                    accepted = True
                except IllegalAction:
                    accepted = False
                assert accepted == listed, (seat, act, cards, game.to_act())
        for act in ("pass", "yield"):
            g2 = copy.deepcopy(game)
            try:
                g2.act(seat, {"act": act})
                accepted = True
            except IllegalAction:
                accepted = False
            assert accepted == (act in simple), (seat, act, game.to_act())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), preset=st.sampled_from(PRESETS + [NON_STRICT]),
       bot=st.sampled_from(["heuristic", "random"]))
def test_listed_acts_are_accepted_and_unlisted_refused(seed, preset, bot):
    """Legal-move soundness: what :meth:`Game.legal_actions` lists is accepted, any other play,
    burn, pass or yield is refused; 216 cards at every step; refused acts change nothing."""
    rng = random.Random(seed)
    game = Game(preset, deal(rng), first_game=True)
    bots = [(HeuristicBot if bot == "heuristic" else RandomBot)(random.Random(i)) for i in
            range(6)]
    steps = 0
    while game.state != "over":
        assert game.card_total() == 216
        if steps % 7 == 0:
            _step_checks(game, rng)
        before = (game.version, list(game.count))
        try:
            game.act((game.turn + 1) % 6 if game.state == "play" else 0,
                     {"act": "play", "cards": ["RJ", "3S"]})
        except IllegalAction:
            pass
        assert (game.version, list(game.count)) == before
        if game.state == "pre":
            seat = game.to_act()["seat"]
        else:
            seat = game.turn
        game.act(seat, bots[seat].choose(game, seat))
        steps += 1
    assert game.card_total() == 216
    assert replay(game.record(), first_game=True) == game.result()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**9), preset=st.sampled_from(PRESETS),
       stop=st.integers(0, 400))
def test_state_round_trips_exactly_mid_game(seed, preset, stop):
    """The stored state (JSON) rebuilds the same game: same views, legal acts and result."""
    rng = random.Random(seed)
    game = Game(preset, deal(rng), first_game=True)
    bots = [HeuristicBot(random.Random(i)) for i in range(6)]
    for _ in range(stop):
        if game.state == "over":
            break
        seat = game.to_act()["seat"] if game.state == "pre" else game.turn
        game.act(seat, bots[seat].choose(game, seat))
    state = json.loads(json.dumps(game.to_state()))
    again = Game.from_state(state)
    assert again.to_state() == game.to_state()
    for seat in (None, 0, 1, 2, 3, 4, 5):
        assert again.view(seat) == game.view(seat)
    assert again.result() == game.result()


def test_views_never_show_another_seats_cards():
    """Hidden information: at every step of whole games, a seat's view holds only its own hand
    and the spectator view none; other seats appear only as counts (报牌 per show_counts)."""
    for preset in PRESETS:
        rng = random.Random(preset)
        for _ in range(3):
            game = Game(preset, deal(rng), first_game=True)
            bots = [HeuristicBot(random.Random(i)) for i in range(6)]
            while game.state != "over":
                for seat in range(6):
                    v = game.view(seat)
                    own = sorted(c for c, n in game.hands[seat].items() for _ in range(n))
                    assert sorted(v["hand"]) == own
                    for other in range(6):
                        if other != seat and game.state == "play" and game.count[other]:
                            # the others' live hands are never listed anywhere in the view
                            assert game.hands[other] is not v.get("hand")
                    for k, n in enumerate(v["counts"]):
                        if k != seat and game.count[k] > 10 and \
                                game.rules["show_counts"] == "le10":
                            assert n == "10+"
                spectator = game.view(None)
                assert "hand" not in spectator and "legal" not in spectator
                text = json.dumps(spectator)
                assert '"hand"' not in text
                seat = game.to_act()["seat"] if game.state == "pre" else game.turn
                game.act(seat, bots[seat].choose(game, seat))


def test_deal_is_a_full_set_for_any_seed():
    for seed in range(50):
        hands = deal(random.Random(seed))
        assert [len(h) for h in hands] == [36] * 6
        flat = [c for h in hands for c in h]
        assert len(flat) == 216
        assert all(flat.count(c) == 4 for c in set(flat))
        assert sum(CARD_RANK[c] >= 16 for c in flat) == 8


def test_bot_games_end_with_burns_and_eliminations_exercised():
    """The simulations really reach the hard paths (burns, counter-burns, 诈烧, 闷), so the
    properties above are tested on them, not only on quiet games."""
    rng = random.Random(11)
    seen = {"burn": 0, "counter": 0, "failed_burn": 0, "smothered": 0}
    for _ in range(40):
        g = Game("online", deal(rng), first_game=True)
        play_out(g, [RandomBot(random.Random(rng.random()), burn_rate=0.5) for _ in range(6)],
                 rng)
        res = g.result()
        seen["burn"] += len(res["burns"])
        seen["counter"] += sum(b["counter"] for b in res["burns"])
        seen["failed_burn"] += sum(e["reason"] == "failed_burn" for e in res["eliminated"])
        seen["smothered"] += len(res["smothers"])
    assert all(v > 0 for v in seen.values()), seen


_junk = st.one_of(st.none(), st.integers(-3, 10**20), st.text(max_size=4),
                  st.lists(st.sampled_from(["3S", "RJ", "BJ", "2H", "KD", "x", "10C"]),
                           max_size=5))
_acts = st.fixed_dictionaries(
    {"act": st.sampled_from(["play", "pass", "yield", "burn", "declare", "decline", "revolt",
                             "return", "buy3", "hui3", "waive_gousiji", "nope"])},
    optional={"cards": _junk, "kind": st.sampled_from(["yudian", "mingdian", "x"]),
              "give": _junk, "seat": _junk, "extra": _junk})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(PRESETS),
       steps=st.integers(0, 120), junk=st.lists(st.tuples(st.integers(-1, 6), _acts),
                                                 min_size=1, max_size=8))
def test_junk_acts_are_refused_cleanly(seed, preset, steps, junk):
    """Whatever a client sends, a live game either accepts it as a legal act or refuses it with
    IllegalAction and is left exactly as it was (its stored state unchanged)."""
    rng = random.Random(seed)
    previous = {"owed_tributes": [{"kind": "luo", "from": 5, "to": 0, "count": 2},
                                  {"kind": "dian", "from": 1, "to": 4, "count": 1}],
                "next_leader": 5}
    game = Game(preset, deal(rng), previous)
    bots = [HeuristicBot(random.Random(i)) for i in range(6)]
    for _ in range(steps):
        if game.state == "over":
            break
        seat = game.to_act()["seat"] if game.state == "pre" else game.turn
        game.act(seat, bots[seat].choose(game, seat))
    for seat, act in junk:
        before = json.dumps(game.to_state(), sort_keys=True)
        try:
            game.act(seat, act)
        except IllegalAction as exc:
            assert exc.code and exc.message
            assert json.dumps(game.to_state(), sort_keys=True) == before
        assert game.card_total() == 216


_RULE_SETS = PRESETS + [NON_STRICT,
                        {"preset": "online", "options": {"rj_beats_any": True,
                                                         "revolution_kaidian": "rights"}},
                        {"preset": "dagang", "options": {"men": "tribute",
                                                         "closer_last": True}}]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), rules=st.sampled_from(_RULE_SETS),
       seats=st.lists(st.sampled_from(["careful", "careful", "heuristic", "random"]),
                      min_size=6, max_size=6), games=st.integers(1, 4))
def test_careful_bot_at_mixed_tables_plays_legally_and_replays(seed, rules, seats, games):
    """The careful bot (托管) among other bots, over whole matches: every act it makes is
    accepted, no game stalls, and the match record replays to the same results."""
    rng = random.Random(seed)
    bots = [make_bot(name, random.Random(rng.random())) for name in seats]
    played, previous = [], None
    for k in range(games):
        game = Game(rules, deal(rng), previous, first_game=(k == 0))
        play_out(game, bots, rng)
        assert game.card_total() == 216
        res = game.result()
        if not res["void"]:
            _check_score(res)
        played.append(game)
        previous = res
    mres = replay_match(json.loads(json.dumps(match_record(played))))
    assert mres["ok"], mres
    assert mres["games"] == [g.result() for g in played]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), preset=st.sampled_from(PRESETS))
def test_hosted_act_is_the_turn_seat_s_legal_act_until_the_end(seed, preset):
    """托管 (:func:`engine.bots.hosted_act`): from the first pre-play question to the last
    play, it names the seat whose turn it is and an act the game accepts; after the end, None;
    asked for another seat, None."""
    rng = random.Random(seed)
    game = Game(preset, deal(rng), first_game=True)
    while game.state != "over":
        got = hosted_act(game)
        assert got is not None
        seat, action = got
        assert seat == game.whose_turn() == game.to_act()["seat"]
        assert hosted_act(game, (seat + 1) % 6) is None
        game.act(seat, dict(action, auto=True))
    assert hosted_act(game) is None and game.whose_turn() is None
    assert replay(game.record(), first_game=True) == game.result()
