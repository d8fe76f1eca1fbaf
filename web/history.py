"""A result's history as people read it, on every page that shows one (the table page, the
referee desk, a table's public page): each step's label, who by name
(:func:`tournaments.names.person_name`: a player's name, a referee's or organizer's name,
never a login such as "player-4"), when, and why — with who confirmed the current version."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.selectors import result_history
from tournaments.names import person_name

#: a result's history steps (games.selectors.result_history) as people read them
STEP_LABELS = {
    "submitted": gettext_lazy("submitted"),
    "recorded": gettext_lazy("recorded by the server (live game)"),
    "corrected": gettext_lazy("corrected"),
    "proposed": gettext_lazy("correction proposed"),
    "accepted": gettext_lazy("correction accepted"),
    "declined": gettext_lazy("correction declined"),
    "withdrawn": gettext_lazy("correction withdrawn"),
    "superseded": gettext_lazy("correction closed by a referee's correction"),
    "disputed": gettext_lazy("disputed"),
    "settled": gettext_lazy("dispute settled by a referee"),
    "confirmed": gettext_lazy("confirmed"),
}


def history_rows(result) -> list[dict]:
    """``result``'s history, oldest first (``games.selectors.result_history`` with its
    confirmation): each step with its ``label`` and ``by``, the name of who took it ("the
    server" for a live game's record and its confirmation). Prefetch
    ``games.selectors.RESULT_HISTORY_PREFETCH`` and select ``confirmed_by__player`` for a
    list."""
    return [{**step, "label": STEP_LABELS.get(step["step"], step["step"]),
             "by": person_name(step["user"]) or _("the server")}
            for step in result_history(result, confirmation=True)]
