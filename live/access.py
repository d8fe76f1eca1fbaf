"""Ending open streams when the access they were opened on ends: revocations (撤销).

An event stream or a long-poll of a live game shows a seat's hand on the access its view
checked when it opened: a private link, a session, an API token, the seat itself. When that
access may have ended, :func:`revoke` says whose — a user (``u:<id>``: their links, sessions,
tokens and seats) or an event (``e:<id>``) — once the change commits and, inside a request,
once its answer is sent (a sign-out flushes its session after Django's signal):

- to this process's streams at once (:func:`live.notify.revoked`);
- to the other processes' on Redis pub/sub (:func:`live.notify.publish_revocation`);
- in the database (:class:`live.models.Revocation`), which every process reads when it reads
  the games' versions (:func:`live.notify.catch_up_revocations`): within ``FALLBACK_POLL``
  seconds while Redis is down or none is configured.

A stream that hears a revocation of one of its keys (:func:`stream_keys`) checks its access at
once, before it sends anything more — its view runs again with the credentials read afresh, as
at its periodic check (:func:`live.aio.reopener`) — and ends if the view would not open the
same stream; a long-poll answers at once as a request made now would. A revocation only ever
causes a check: another session of the same user signed out costs that user's streams a check.

The changes that revoke (:func:`connect`): a private link revoked or re-issued and an event
unpublished (the tournaments services send :data:`tournaments.signals.access_ended`), a
sign-out, a deleted token or user, a changed password or a user made inactive, a player given
another login (the seats were theirs). Anything else — a session deleted by hand, say — is
caught by the stream's periodic check (``live.streams.RECHECK``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import DatabaseError, transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.utils import timezone

from live import notify

log = logging.getLogger(__name__)

#: how long the revocations' log keeps a row (every process reads the last
#: ``live.notify.LOG_WINDOW`` seconds of it)
KEPT = timedelta(minutes=10)


def user_key(user_id: int) -> str:
    return f"u:{user_id}"


def event_key(event_id: int) -> str:
    return f"e:{event_id}"


def stream_keys(user, live) -> tuple[str, ...]:
    """What a stream or long-poll of ``live`` opened on ``user``'s access (a private link's:
    its player's login; ``None`` or anonymous: a spectator's) watches: the event's key, and
    the user's."""
    keys = [event_key(live.table.round.event_id)]
    if user is not None and getattr(user, "is_authenticated", False):
        keys.append(user_key(user.pk))
    return tuple(keys)


def revoke(*, users: Iterable[int | None] = (), events: Iterable[int | None] = ()) -> None:
    """End the open streams and long-polls of ``users`` and ``events`` (ids) whose access no
    longer holds, in every process: once the current transaction commits, and inside a request
    once its answer is sent."""
    keys = tuple(sorted({user_key(u) for u in users if u is not None}
                        | {event_key(e) for e in events if e is not None}))
    if keys:
        transaction.on_commit(lambda: notify.after_response(lambda: _send(keys)))


def _send(keys: tuple[str, ...]) -> None:
    logged = _log(keys)
    notify.revoked(keys, logged)
    notify.publish_revocation(logged, keys)


def _log(keys: tuple[str, ...]) -> int:
    """The revocation's row in the log (0 if it could not be written: the database is down,
    and the other processes hear it through pub/sub alone); older rows are deleted."""
    from live.models import Revocation

    now = timezone.now()
    try:
        with transaction.atomic():  # (a failure leaves a caller's transaction usable)
            Revocation.objects.filter(at__lt=now - KEPT).delete()
            return Revocation.objects.create(keys=" ".join(keys), at=now).pk
    except DatabaseError as exc:
        log.warning("a revocation was not logged (%s): only pub/sub carries it",
                    type(exc).__name__)
        return 0


# ----------------------------------------------------------------------------- what revokes
def _access_ended(sender, users=(), events=(), **kwargs) -> None:
    revoke(users=users, events=events)


def _signed_out(sender, request, user, **kwargs) -> None:
    if user is not None:
        revoke(users=[user.pk])


def _token_deleted(sender, instance, **kwargs) -> None:
    revoke(users=[instance.user_id])


def _user_saved(sender, instance, created, update_fields=None, raw=False, **kwargs) -> None:
    """A changed password (Django then signs the user's sessions out) or a user made
    inactive (their tokens stop working); a save of other fields alone (the last login)
    revokes nothing."""
    if created or raw:
        return
    if update_fields is None or {"password", "is_active"} & set(update_fields):
        revoke(users=[instance.pk])


def _user_deleted(sender, instance, **kwargs) -> None:
    revoke(users=[instance.pk])


def _player_saving(sender, instance, raw=False, update_fields=None, **kwargs) -> None:
    """Note a player's login before a save that may change it (its seats are the player's:
    the login they had no longer sits there)."""
    if raw or instance.pk is None or (update_fields is not None and "user" not in update_fields):
        return
    instance._login_before = (sender.objects.filter(pk=instance.pk)
                              .values_list("user_id", flat=True).first())


def _player_saved(sender, instance, **kwargs) -> None:
    before = instance.__dict__.pop("_login_before", None)
    if before is not None and before != instance.user_id:
        revoke(users=[before])


def connect() -> None:
    """Connect the changes that revoke (the app's ``ready``)."""
    from tournaments.signals import access_ended

    access_ended.connect(_access_ended, dispatch_uid="live_access_ended")
    user_logged_out.connect(_signed_out, dispatch_uid="live_access_signed_out")
    post_delete.connect(_token_deleted, sender="authtoken.Token",
                        dispatch_uid="live_access_token_deleted")
    post_save.connect(_user_saved, sender=settings.AUTH_USER_MODEL,
                      dispatch_uid="live_access_user_saved")
    post_delete.connect(_user_deleted, sender=settings.AUTH_USER_MODEL,
                        dispatch_uid="live_access_user_deleted")
    pre_save.connect(_player_saving, sender="tournaments.Player",
                     dispatch_uid="live_access_player_saving")
    post_save.connect(_player_saved, sender="tournaments.Player",
                      dispatch_uid="live_access_player_saved")
