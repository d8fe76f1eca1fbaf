"""Private links (``/p/<token>/``): issued to an entry's players, revoked."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments import locks
from tournaments.errors import ServiceError
from tournaments.models import Entry, Player, PlayerLink
from tournaments.selectors import entry_link_players
from tournaments.signals import access_ended


def _player_login(player: Player):
    """The player's login, made when they have none (a username of their id, no usable
    password): results handed in through a private link are theirs, and the two-person rule
    of confirming (``games.services``) knows their seat by it. An organizer may give it a
    password later in the admin for signing in at ``/accounts/login/`` (from then on it counts
    as the player's own login: :func:`number_claimed_by`)."""
    if player.user_id is None:
        User = get_user_model()
        username = f"player-{player.pk}"
        if User.objects.filter(username=username).exists():  # (an admin chose it meanwhile)
            username = f"{username}-{secrets.token_hex(4)}"
        user = User(username=username)
        user.set_unusable_password()
        user.save()
        player.user = user
        player.save(update_fields=["user"])
    return player.user


def entry_link_issue(*, entry: Entry, player: Player | None = None, by=None,
                     keep: bool = False) -> list:
    """Issue a private link (``/p/<token>/``) for each player of ``entry`` (or only
    ``player``): a new token, and the previous link of that player stops working. With
    ``keep`` a player's working link is kept (printing slips issues only the missing ones).
    Returns the players' working links (:class:`tournaments.models.PlayerLink`)."""
    players = entry_link_players(entry)
    if player is not None:
        if player.pk not in {p.pk for p in players}:
            raise ServiceError("not_of_entry", _("%(player)s does not play for this entry") % {
                "player": player})
        players = [player]
    links = []
    with transaction.atomic():
        locks.lock_entry(entry.pk)  # one issue of an entry's links at a time
        for p in players:
            active = PlayerLink.objects.filter(entry=entry, player=p,
                                               revoked_at__isnull=True).first()
            if active is not None and keep:
                links.append(active)
                continue
            if active is not None:
                active.revoked_at = timezone.now()
                active.save(update_fields=["revoked_at"])
                access_ended.send(PlayerLink, users=[p.user_id], events=[])
            _player_login(p)
            link = PlayerLink(entry=entry, player=p, nonce=secrets.token_urlsafe(32),
                              created_by=by if getattr(by, "pk", None) else None)
            link.token_hash = hashlib.sha256(link.token().encode()).hexdigest()
            link.save()
            links.append(link)
    return links


def entry_link_revoke(*, entry: Entry, player: Player | None = None) -> int:
    """Revoke the working private links of ``entry`` (or of its ``player`` only): they open
    nothing from now on. Returns how many were revoked."""
    links = PlayerLink.objects.filter(entry=entry, revoked_at__isnull=True)
    if player is not None:
        links = links.filter(player=player)
    with transaction.atomic():
        users = list(links.values_list("player__user_id", flat=True))
        revoked = links.update(revoked_at=timezone.now())
        if revoked:
            access_ended.send(PlayerLink, users=users, events=[])
    return revoked
