"""The names people read (issue 52): who someone is, and what a table's two 联邦 are called.

Every page, printout, export header and script text that shows a person or a side takes it
from here, so that nobody reads a login ("player-4") or an internal side number ("联邦 0"):

- :func:`person_name`: a login as people know it — its player's name when the login is a
  player's (also when that player referees or organizes), else its full name, else its
  username;
- :func:`side_name` / :func:`side_names`: a 联邦 of a table — the team's name in a team
  event, else 红方 (seats 1, 3, 5: the engine's side 0) and 黑方 (seats 2, 4, 6).

The JSON record and the API keep their own fields (usernames, ``side`` 0 and 1): those are
the contract, not text for people.
"""

from __future__ import annotations

from django.utils.translation import pgettext, pgettext_lazy

#: the two 联邦 of an individual event's table, as people call them
SIDES = {0: pgettext_lazy("side", "red (红方)"), 1: pgettext_lazy("side", "black (黑方)")}


def person_name(user, *, number: bool = False) -> str:
    """How people know ``user``: their player's name (with the player's number when
    ``number``, to tell two people of one name apart in a list to pick from), else their
    full name, else their username; "" for nobody (``None``)."""
    if user is None:
        return ""
    player = getattr(user, "player", None)
    if player is not None:
        return str(player) if number else player.name
    return user.get_full_name() or user.get_username()


def side_name(side: int, table=None) -> str:
    """What people call 联邦 ``side`` (0 or 1) of ``table``: its team's name when the table
    is a team event's match, else 红方 or 黑方 (``table`` may be ``None`` for that)."""
    if table is not None and table.team_a_id and table.team_b_id:
        return (table.team_a if side == 0 else table.team_b).name
    return str(SIDES[side])


def side_names(table=None) -> dict[int, str]:
    """Both 联邦 of ``table`` as :func:`side_name` names them: ``{0: …, 1: …}``."""
    return {0: side_name(0, table), 1: side_name(1, table)}


def plain_side_names() -> list[str]:
    """红方 and 黑方 in the language of the request, for scripts that name the sides of tables
    they read from the API (which has no teams there)."""
    return [pgettext("side", "red (红方)"), pgettext("side", "black (黑方)")]
