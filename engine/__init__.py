"""够级 (Gouji) rules engine: pure Python, no Django.

Public API (RULES.md, RECORD.md)::

    from engine import parse_cards, parse_combo, can_beat, is_gouji, replay, replay_match
    from engine import Game, deal, RandomBot, HeuristicBot, CarefulBot, hosted_act, score_sheet
"""

from .bots import CarefulBot, HeuristicBot, RandomBot, bot_game, hosted_act, play_match, play_out
from .cards import (
    CardError,
    Combo,
    ComboError,
    can_beat,
    deal,
    is_gouji,
    parse_cards,
    parse_combo,
)
from .errors import CODES, IllegalAction
from .game import Game, opp
from .record import replay, replay_game, replay_match
from .rules import PRESETS, Rules, RulesError
from .sheet import score_sheet

__all__ = [
    "CODES",
    "PRESETS",
    "CardError",
    "CarefulBot",
    "Combo",
    "ComboError",
    "Game",
    "HeuristicBot",
    "IllegalAction",
    "RandomBot",
    "Rules",
    "RulesError",
    "bot_game",
    "can_beat",
    "deal",
    "hosted_act",
    "is_gouji",
    "opp",
    "parse_cards",
    "parse_combo",
    "play_match",
    "play_out",
    "replay",
    "replay_game",
    "replay_match",
    "score_sheet",
]
