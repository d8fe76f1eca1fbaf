"""The live game's row lock: the one place that locks a live game (``tournaments/locks.py``
gives the order across apps: event → round → table → **live game** → advisory locks).

Every function here must be called inside ``transaction.atomic()``.
"""

from __future__ import annotations

import functools

from django.db import connection
from django.utils.translation import gettext as _

from live.models import LiveGame
from live.queries import live_row_params, live_row_sql
from tournaments.errors import NotFound


@functools.cache
def _locked_sql() -> str:
    # the game's row only (FOR UPDATE OF lg): its table, round and event are read, not locked,
    # so other tables' games never queue behind it
    lock = " FOR UPDATE OF lg" if connection.features.has_select_for_update_of else ""
    return live_row_sql() + lock


def lock_live(live_id: int, user=None) -> LiveGame:
    """Lock the live game's row and return it without its state (this process's cache has the
    game), annotated in the same statement with the seat ``user`` has at its table
    (``user_seat``; ``None`` without a user) and the seat they act from (``acting_seat``:
    :func:`live.queries.acting_seat_sql`): the hot path of every act and 托管 switch."""
    rows = list(LiveGame.objects.raw(_locked_sql(), live_row_params(live_id,
                                                                   getattr(user, "pk", None))))
    if not rows:
        raise NotFound("not_found", _("no such live game"))
    return rows[0]


def lock_practice(practice_id: int):
    """Lock a practice game's row (:class:`live.models.PracticeGame`): one act at a time."""
    from live.models import PracticeGame

    return PracticeGame.objects.select_for_update().get(pk=practice_id)


def lock_challenge_play(play_id: int):
    """Lock a daily challenge play's row (:class:`live.models.ChallengePlay`): one act at a
    time."""
    from live.models import ChallengePlay

    return ChallengePlay.objects.select_for_update().get(pk=play_id)
