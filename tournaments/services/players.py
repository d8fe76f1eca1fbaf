"""Players: made by the staff, and whether a number is claimed by self-registration."""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.errors import Conflict, ServiceError
from tournaments.models import Player
from tournaments.services.checks import check_bounds


def player_create(*, name: str, club: str = "", number: int | None = None, user=None) -> Player:
    name, club = (name or "").strip(), (club or "").strip()
    if not name:
        raise ServiceError("bad_player", _("a player needs a name"), detail={"field": "name"})
    check_bounds(model=Player, code="bad_player",
                 values={"name": name, "club": club, "number": number})
    if number is not None and Player.objects.filter(number=number).exists():
        raise Conflict("number_taken", _("player number %(n)s is taken") % {"n": number},
                       detail={"field": "number"})
    return Player.objects.create(name=name, club=club, number=number, user=user)


def number_claimed_by(*, player: Player | None, organizer=None) -> bool:
    """Whether ``player``'s number is *claimed by self-registration*: the player has a login
    (``Player.user``) other than ``organizer``'s. An import or an organizer's player never has
    one — a login is linked to a player only by its owner (``POST /players/me/``) or by a
    superuser in the admin — so a number held by a player with a login was chosen by whoever
    holds that login, and may be someone else's number. A login without a usable password —
    made for a private link (:func:`entry_link_issue`) — has never signed in, so it claimed
    nothing."""
    return (player is not None and player.user_id is not None
            and (organizer is None or player.user_id != organizer.pk)
            and player.user.has_usable_password())
