"""Practice games (练习): anyone plays one game against five bots, no event and no account — the
newcomer's way to learn the rules and to see what the service does.

A practice game is a :class:`live.models.PracticeGame` found by an unguessable token (the row
keeps only its SHA-256). The player acts against the version they saw, as in live play; the five
other seats are played at once, in the same transaction, by the bot of 托管
(:func:`engine.bots.hosted_act`), until it is the player's turn again or the game is over. A game
idle for :data:`PRACTICE_IDLE` is gone: it is found no more, and starting a new game deletes the
expired ones.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import engine
from engine.bots import hosted_act
from engine.rules import PRESETS
from live import deals
from live.locks import lock_practice
from live.models import PracticeGame
from tournaments.errors import Conflict, NotFound, ServiceError

#: a practice game untouched this long is gone
PRACTICE_IDLE = timedelta(hours=6)
#: the bots' acts in a row at most (a whole game is a few hundred acts): a bug, not a rule
MAX_BOT_ACTS = 5000


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def practice_find(token: str) -> PracticeGame | None:
    """The practice game of ``token`` unless it has expired, or ``None``."""
    if not isinstance(token, str) or not token.isascii() or not 20 <= len(token) <= 100:
        return None
    return PracticeGame.objects.filter(
        token_hash=_hash(token), updated_at__gte=timezone.now() - PRACTICE_IDLE).first()


def practice_start(*, preset: str) -> tuple[PracticeGame, str]:
    """Deal a practice game under the rules ``preset`` (one of the engine's presets), the player
    at a seat drawn by lot and the bots played up to the player's first question. Returns the
    game and its token (shown once: only its hash is stored). Expired games are deleted."""
    if preset not in PRESETS:
        raise ServiceError("bad_preset", _("unknown rules preset %(p)s; choose one of %(all)s")
                           % {"p": preset, "all": ", ".join(PRESETS)})
    rng = secrets.SystemRandom()
    seat = rng.randrange(6)
    hands, verifiable = deals.deal(deals.practice_label())  # verifiable (live.deals)
    game = engine.Game(preset, hands, None, first_game=True)
    game.published_deal = deals.public_deal(verifiable)
    _bots_play(game, seat)
    token = secrets.token_urlsafe(24)
    with transaction.atomic():
        PracticeGame.objects.filter(updated_at__lt=timezone.now() - PRACTICE_IDLE).delete()
        practice = PracticeGame.objects.create(
            token_hash=_hash(token), preset=preset, seat=seat, state=game.to_state(),
            version=game.version, status=_status(game), **verifiable)
    return practice, token


def practice_act(*, token: str, action: dict, version: int) -> PracticeGame:
    """The player's act in their practice game, made against ``version``; then the bots play
    until it is the player's turn again. Refused without a change: an unknown or expired game
    (404), a finished game or a stale version (409), an act the engine refuses (422, its code)."""
    if not isinstance(action, dict):
        raise ServiceError("bad_format", _("an act must be an object"))
    found = practice_find(token)
    if found is None:
        raise NotFound("not_found", _("no such practice game (they expire after some hours "
                                      "idle): start a new one"))
    act = {k: v for k, v in action.items() if k not in ("version", "seat", "auto")}
    with transaction.atomic():
        practice = lock_practice(found.pk)
        if practice.status == PracticeGame.Status.FINISHED:
            raise Conflict("game_over", _("the game is over"))
        if version != practice.version:
            raise Conflict("stale_version", _(
                "the game has moved on (version %(v)s, you sent %(s)s); fetch it again") % {
                "v": practice.version, "s": version}, detail={"version": practice.version})
        game = engine.Game.from_state(practice.state)
        try:
            game.act(practice.seat, act)
        except engine.IllegalAction as exc:
            raise ServiceError(exc.code, exc.message, detail={
                "code": exc.code, "seat": exc.seat, "message": exc.message},
                status=422) from None
        _bots_play(game, practice.seat)
        practice.state = game.to_state()
        practice.version = game.version
        practice.status = _status(game)
        practice.save(update_fields=["state", "version", "status", "updated_at"])
    return practice


def practice_view(practice: PracticeGame) -> dict:
    """What the player sees of their practice game: their seat's view (never a bot's cards
    before the end), with its deal's commitment (:mod:`live.deals`) and, once it is over, the
    seed."""
    view = engine.Game.from_state(practice.state).view(practice.seat)
    view["outcome"] = view.get("result")  # as in live play's views
    if practice.deal_commitment:  # the seed once the game is over: the record is the player's
        view["verifiable_deal"] = deals.revealed_deal(
            practice, practice.status == PracticeGame.Status.FINISHED)
    view.update({"status": practice.status, "version": practice.version, "auto_seats": [],
                 "hosted_seats": [], "turn_deadline": None})
    return view


def _status(game: engine.Game) -> str:
    return PracticeGame.Status.FINISHED if game.state == "over" else PracticeGame.Status.RUNNING


def _bots_play(game: engine.Game, seat: int) -> None:
    """The bots play every turn that is not ``seat``'s, until it is or the game is over."""
    for _step in range(MAX_BOT_ACTS):
        turn = game.whose_turn()
        if turn is None or turn == seat:
            return
        game.act(*hosted_act(game))
    raise RuntimeError("the practice bots did not reach the player's turn")  # a bug, not a rule
