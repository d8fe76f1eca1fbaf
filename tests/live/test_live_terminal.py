"""The terminal client ``manage.py play_live``: five bots and a seat typed at the keyboard (or
a sixth bot), through the same live services as the API."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command

import engine
from engine.bots import HeuristicBot
from engine.cards import card_word
from games.models import GameResult
from live import deals as live_deals
from live.models import LiveGame

pytestmark = pytest.mark.django_db


def test_bots_only_finishes_a_game_and_prints_the_result():
    out = io.StringIO()
    call_command("play_live", bots_only=True, seed=1, stdout=out)
    text = out.getvalue()
    assert "Game over. Places (seat: place):" in text
    assert "Team points:" in text
    lg = LiveGame.objects.get()
    assert lg.status == LiveGame.Status.FINISHED
    result = GameResult.objects.get(pk=lg.result_id)
    assert result.system_recorded
    places = ", ".join(f"{s}: {p}" for s, p in enumerate(result.places))
    assert places in text
    assert engine.replay(result.versions.get().payload, first_game=True) == result.engine_result


def test_two_bots_only_games_with_the_same_seed(monkeypatch):
    # two terminals starting ``--seed 1`` (at the same moment) must both get a game: the
    # event's name does not come from the seed or the clock
    for _ in range(2):
        call_command("play_live", bots_only=True, seed=1, stdout=io.StringIO())
    assert LiveGame.objects.filter(status=LiveGame.Status.FINISHED).count() == 2


def say(card_list):
    return " ".join(card_list)


def test_typed_acts_are_played_and_refusals_print_the_engines_words(monkeypatch):
    # a fixed deal: with a random one, seat 0's six typed acts were now and then mostly the
    # deal's questions (tributes, declarations), too few plays for what is checked below
    monkeypatch.setattr(live_deals, "derive_deal",
                        lambda _seed, _label: engine.deal(random.Random(3)))
    typed = []
    bot = HeuristicBot()
    script = iter(["?", "legal", "p"])  # help, list, then a pass that pre-play refuses

    def fake_input(prompt=""):
        # first the scripted lines; then the bot's choice for seat 0, typed; quit after 6
        line = next(script, None)
        if line is None:
            lg = LiveGame.objects.get()
            game = engine.Game.from_state(lg.state)
            if sum(1 for t in typed if t not in ("?", "legal", "p")) >= 6:
                line = "q"
            else:
                action = bot.choose(game, 0)
                line = {"decline": "d", "pass": "p", "yield": "y"}.get(action["act"])
                if line is None and action["act"] == "play":
                    line = say(action["cards"])
                elif line is None and action["act"] == "buy3":
                    line = f"buy {action['give']}"
                elif line is None and action["act"] == "return":
                    line = "r " + say(action["cards"])
                elif line is None:
                    line = {"declare": "yu", "revolt": "revolt", "hui3": "hui3"}[action["act"]]
        typed.append(line)
        return line

    monkeypatch.setattr("builtins.input", fake_input)
    out = io.StringIO()
    call_command("play_live", seed=3, stdout=out)
    text = out.getvalue()
    lg = LiveGame.objects.get()
    # the help and the legal acts were printed
    assert "p / pass" in text and "act=decline" in text
    # the refused pass printed the engine's own words, and changed nothing
    game = engine.Game.from_state(lg.state)
    assert "refused: seat 0 cannot 'pass' now; it may: declare, decline" in text
    # the typed acts were applied as seat 0's, not by the bot
    played = [a for a in game.actions if a["seat"] == 0]
    assert not any(a.get("auto") for a in game.actions)
    assert "You are seat 0" in text
    assert "your hand: " in text
    assert typed[-1] == "q"
    assert len(typed) > 6
    assert len(played) >= 3
    for act in played:
        words = " ".join(card_word(c) for c in act.get("cards", []))
        assert f"  you: {act['act']} {words}".rstrip() in text


def test_auto_hands_the_seat_to_the_bot_to_the_end(monkeypatch):
    typed = iter(["auto"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed, "q"))
    out = io.StringIO()
    call_command("play_live", seed=5, stdout=out)
    text = out.getvalue()
    assert "托管: the bot plays your seat from now on" in text
    assert "Game over." in text
    lg = LiveGame.objects.get()
    assert lg.status == LiveGame.Status.FINISHED and lg.hosted == 1
    game = engine.Game.from_state(lg.state)
    plays = [a for a in game.actions if a["seat"] == 0]
    assert plays and all(a.get("auto") for a in plays)
