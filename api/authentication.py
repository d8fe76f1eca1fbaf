"""Token authentication (``Authorization: Token …``) for every API request."""

from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication with its one query (the token's user) written once instead of
    built by the ORM on every request: every authenticated request makes it, live acts
    included, and building it took longer than PostgreSQL took to answer it. Same answers,
    same messages; a deleted token or an inactive user stops working at once (nothing cached)."""

    def authenticate_credentials(self, key):
        users = list(get_user_model().objects.raw(_user_by_token_sql(), [key]))
        if not users:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = users[0]
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, Token(key=key, user=user, created=user.token_created)


@functools.cache
def _user_by_token_sql() -> str:
    User = get_user_model()
    q = connection.ops.quote_name
    columns = ", ".join(f"u.{q(f.column)}" for f in User._meta.concrete_fields)
    return (f"SELECT {columns}, t.{q(Token._meta.get_field('created').column)} AS token_created "
            f"FROM {q(User._meta.db_table)} u JOIN {q(Token._meta.db_table)} t "
            f"ON t.{q(Token._meta.get_field('user').column)} = u.{q(User._meta.pk.column)} "
            f"WHERE t.{q(Token._meta.get_field('key').column)} = %s")
