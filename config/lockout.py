"""Login lockouts in tiers: django-axes' database handler with a limit for each of its
lockout parameters (``settings.LOGIN_LOCKOUTS``).

Axes counts failures by each of ``AXES_LOCKOUT_PARAMETERS`` (any item of the list locks; a
sub-list counts its fields together) but holds them all to one ``AXES_FAILURE_LIMIT``. A
username locked after a few failures let anyone lock any user out from anywhere by failing
their password. Here the pair (username, address) is locked after a few, the username alone
and the address alone only after many: a guesser at one address gets a few guesses, one
spread over many addresses or usernames a bounded number, and the user keeps their own
address. The failures stay axes' own rows (updated under a row lock, listed in the admin's
"Access attempts", where staff lift a lockout by deleting them), for every login that goes
through Django's ``authenticate``, rather than a second count beside them.
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum


class TieredLockoutHandler(AxesDatabaseHandler):
    """Axes' database handler that locks each of ``settings.LOGIN_LOCKOUTS`` — a lockout
    parameter of axes and the failures that lock it — at its own limit."""

    def get_failures(self, request, credentials=None) -> int:
        """The failures axes weighs against ``AXES_FAILURE_LIMIT`` (it locks out at that many,
        both before checking a password and after a failure): each lockout's failures scaled
        from its own limit to that one (5 of 10 when the username has 50 of its 100), the
        most of them — at the limit exactly when a lockout has reached its own."""
        limit = get_failure_limit(request, credentials)
        counts = [attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
                  for attempts in self.get_user_attempts(request, credentials)]
        return max(count * limit // own for count, (_parameter, own) in zip(
            counts, settings.LOGIN_LOCKOUTS, strict=True))

    def reset_user_attempts(self, request, credentials=None) -> int:
        """A login that succeeds clears the failures of its username from its address only:
        someone else's failures against the username elsewhere, and those of other usernames
        from the address (a sprayer signing in to an account of their own), still count."""
        count, _ = AccessAttempt.objects.filter(
            username=get_client_username(request, credentials),
            ip_address=request.axes_ip_address).delete()
        return count
