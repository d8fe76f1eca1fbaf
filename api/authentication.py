"""Token authentication (``Authorization: Token …``) for every API request, and for the act's
short path on the ASGI server (api/fast_act.py), the same rule checked inside the act's own
update (:func:`token_holds_sql`)."""

from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from live.cache import Recent
from tournaments.sqlrows import Columns, fetch_one


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication with its one query (the token's user) written once instead of
    built by the ORM on every request: every authenticated request makes it, live acts
    included, and building it took longer than PostgreSQL took to answer it. Same answers,
    same messages; a deleted token or an inactive user stops working at once (nothing cached)."""

    def authenticate_credentials(self, key):
        user_columns, created_column, sql = _user_by_token()
        row = fetch_one(sql, [key])  # prepared on PostgreSQL (tournaments.sqlrows)
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = user_columns.build(row[:len(user_columns)])
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        created = created_column.build(row[len(user_columns):]).created
        token_users.put(key, user)  # (a player's stream opens before their first act)
        return user, Token(key=key, user=user, created=created)


@functools.cache
def _user_by_token() -> tuple[Columns, Columns, str]:
    User = get_user_model()
    q = connection.ops.quote_name
    user_columns = Columns(User, "u")
    created = Columns(Token, "t", only=("created",))
    return user_columns, created, (
        f"SELECT {user_columns.sql}, {created.sql} "
        f"FROM {q(User._meta.db_table)} u JOIN {q(Token._meta.db_table)} t "
        f"ON t.{q(Token._meta.get_field('user').column)} = u.{q(User._meta.pk.column)} "
        f"WHERE t.{q(Token._meta.get_field('key').column)} = %s")


@functools.cache
def token_holds_sql() -> str:
    """A condition that holds when the token (the first parameter) is still the key of the
    active user (the second: the user's id) — what :meth:`TokenAuthentication.
    authenticate_credentials` checks — for a statement that must do nothing otherwise."""
    User = get_user_model()
    q = connection.ops.quote_name
    return (f"EXISTS (SELECT 1 FROM {q(Token._meta.db_table)} t JOIN "
            f"{q(User._meta.db_table)} u ON u.{q(User._meta.pk.column)} = "
            f"t.{q(Token._meta.get_field('user').column)} "
            f"WHERE t.{q(Token._meta.get_field('key').column)} = %s "
            f"AND u.{q(User._meta.pk.column)} = %s "
            f"AND u.{q(User._meta.get_field('is_active').column)})")


#: The users of the tokens this process has authenticated lately (any request), by key, for a
#: write that checks the token again in its own statement (:func:`token_holds_sql`): a token
#: deleted, or its user deactivated, since it was remembered makes that statement do nothing,
#: and the request then goes to the view, whose authentication refuses it (401) — at once, as
#: without this. Nothing else trusts what is remembered here.
token_users = Recent(65_536)
