"""What spectators (观战) of a live table see, and when: the public view of its game, held back
by the event's ``spectator_delay`` (seconds).

The public view (:func:`public_view`) is what anyone may see at the table: the combo on top,
whose turn, the hand counts as ``show_counts`` (报牌) allows, who has finished and in which
place, 开点, burns (烧牌), eliminations, revolutions, the pre-play events (tributes are shown at
the table) and the last acts. It never holds a seat's hand, nor who *could* burn (that depends
on hidden cards).

The delay is kept here, in one place: a *delayed publication*. Each time a spectator asks, the
game's current public view is put on a short timeline in the shared cache, stamped with the
time of the act that made it (``LiveGame.updated_at``: set when the act was stored, or later
by a 托管 switch, never earlier); the spectator gets the newest view on the timeline whose
stamp is at least ``delay`` seconds old. A view is therefore never shown before its act is
``delay`` seconds old. If nobody watched a version, it is missing from the timeline and the
spectators skip it (their view stays older for a little longer, which the delay allows). Two
processes appending at once may lose one entry the same way: only the watchers' lag grows.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.core.cache import cache
from django.utils import timezone

from live.cache import games
from live.models import LiveGame

#: how many of the last acts the public view lists (the replay has them all, once it is over)
RECENT_ACTS = 12
#: seconds a timeline stays in the cache after its last use
TIMELINE_TTL = 3600


def public_view(live: LiveGame) -> dict:
    """The game's public view at ``live.version`` (see the module's docstring)."""

    def read(game) -> dict:
        view = game.view(None)
        actions = view.pop("actions")
        view.pop("legal", None)
        view.pop("hand", None)
        over = game.state == "over"
        view.update({
            "n_actions": len(actions),
            "recent": [dict(a, index=len(actions) - len(actions[-RECENT_ACTS:]) + i)
                       for i, a in enumerate(actions[-RECENT_ACTS:])],
            "kaidian": list(game.kaidian),
            "burns": [dict(b) for b in game.burns],
            "eliminated": [{"seat": s, "reason": r} for s, r in game.eliminated],
            "smothers": list(game.smothers),
            "luanchan": game.state == "play" and game.phase2(),  # 四户乱缠
            "places": _places(game) if not over else list(view["result"]["places"]),
        })
        return view

    view = games.read(live, read)
    view.update({
        "id": live.pk, "table": live.table_id, "number": live.number, "status": live.status,
        "version": live.version, "result_id": live.result_id,
        "hosted_seats": [s for s in range(6) if live.hosted >> s & 1],
    })
    return view


def _places(game) -> list[int]:
    """Places known so far by seat (0: still playing or not placed yet)."""
    places = [0] * 6
    for k, seat in enumerate(game.finish_order):
        places[seat] = k + 1
    return places


def _timeline_key(live: LiveGame) -> str:
    return f"gouji:spectate:{live.pk}:{live.started_at.timestamp():.6f}"


def _stamp(live: LiveGame) -> float:
    at = live.updated_at or live.started_at
    return at.timestamp() if isinstance(at, datetime) else float(at)


def spectator_view(*, live: LiveGame, delay: int, now: float | None = None) -> dict:
    """What spectators of ``live`` may see now, ``delay`` seconds late: ``{"view", "delay",
    "next_in"}``. ``view`` is the newest public view old enough (``None`` while none is);
    ``next_in`` the seconds until a newer one may be shown (``None``: not known yet).

    The timeline is a small index ``[(stamp, version), …]`` under one key and each view under
    its own, so a spectator's poll reads the index and one view."""
    if delay <= 0:
        return {"view": public_view(live), "delay": 0, "next_in": None}
    now = time.time() if now is None else now
    key = _timeline_key(live)
    timeline: list = cache.get(key) or []
    changed = False
    if not timeline or timeline[-1][1] < live.version:
        cache.set(f"{key}:{live.version}", public_view(live), TIMELINE_TTL)
        timeline.append((_stamp(live), live.version))
        changed = True
    cutoff = now - delay
    ripe = [k for k, (stamp, _version) in enumerate(timeline) if stamp <= cutoff]
    if ripe and ripe[-1] > 0:  # keep the newest entry old enough to show, and those after it
        timeline = timeline[ripe[-1]:]
        changed = True
    if changed:
        cache.set(key, timeline, TIMELINE_TTL)
    later = [stamp + delay - now for stamp, _version in timeline if stamp > cutoff]
    view = cache.get(f"{key}:{timeline[0][1]}") if ripe else None
    return {"view": view, "delay": delay,
            "next_in": round(max(0.0, min(later)), 3) if later else None}


def watched_game(table_id: int, delay: int) -> LiveGame | None:
    """The live game spectators of a table follow: the latest one started at least ``delay``
    seconds ago (a game started later is not shown yet)."""
    qs = LiveGame.objects.filter(table_id=table_id).defer("state").order_by("-number")
    if delay > 0:
        qs = qs.filter(started_at__lte=timezone.now() - timedelta(seconds=delay))
    return qs.first()
