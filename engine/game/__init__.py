"""One game (一局) of 够级 as a state machine: pre-play events, then rounds of play.

The :class:`Game` is used two ways:

* **replaying a record** (``engine.record``): pre-play events are fed with
  :meth:`Game.apply_pre_event`, the first lead is fixed with :meth:`Game.begin_play`, then every
  act goes through :meth:`Game.act`;
* **live play**: the game prompts seats for their pre-play choices (declarations, revolution,
  还贡 cards, 买3, 会3) through the same :meth:`Game.act`, pays the tributes it can decide by
  itself, and then plays.

Where each rule lives:

=================  ==================================================================
``state``          the data of a game, moving cards between hands, the deal and
                   ``previous`` checks
``preplay``        预点, 革命 and the 够死级 waiver, 进贡/还贡, 买3, 明点, 会3; the first lead
``prompts``        live pre-play: asking one seat at a time
``play``           acts, turns, answering, 让牌, 无头, 四户乱缠, finishing, the end of a round
``burns``          烧牌, 诈烧, 解烧, 反烧
``moves``          the legal plays and acts of a seat (:func:`legal_plays`), whose turn it is
``scoring``        开点, places, team points, tributes owed, the next leader
``views``          a seat's view, the record, the stored state
=================  ==================================================================
"""

from __future__ import annotations

from ..errors import IllegalAction
from .burns import Burns
from .moves import Moves, legal_plays
from .play import Play
from .preplay import PrePlay
from .prompts import Prompts
from .scoring import PLACE_POINTS, PLACE_WORD, Scoring
from .state import RESULT_KEYS, TRIBUTE_KINDS, TRIBUTE_WORD, GameState, opp
from .views import Views

__all__ = ["PLACE_POINTS", "PLACE_WORD", "RESULT_KEYS", "TRIBUTE_KINDS", "TRIBUTE_WORD", "Game",
           "IllegalAction", "legal_plays", "opp"]


class Game(Views, Moves, Scoring, Burns, Play, Prompts, PrePlay, GameState):
    """A game of 够级 from the deal to the last place (RULES.md §4–§11)."""
