"""Make the minimal project's database ready for a run: created if missing, migrated, emptied,
and given one user per token the run posts with (the same keys as the product's tokens, so the
same requests go to both). The tokens come on standard input as a JSON object, key → username.

    MINIMAL_DATABASE_URL=postgres://… python -m benchmarks.minimal_drf.setup < tokens.json
"""

from __future__ import annotations

import json
import os
import sys


def create_database_if_missing(url: str) -> None:
    """``CREATE DATABASE`` of ``url``'s database on its server, unless it exists."""
    import dj_database_url
    import psycopg
    from psycopg import sql

    cfg = dj_database_url.parse(url)
    if not cfg["ENGINE"].endswith("postgresql"):
        return  # (SQLite makes its file itself)
    with psycopg.connect(dbname="postgres", host=cfg.get("HOST") or None,
                         port=cfg.get("PORT") or None, user=cfg.get("USER") or None,
                         password=cfg.get("PASSWORD") or None, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              [cfg["NAME"]]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(cfg["NAME"])))


def main() -> None:
    tokens = json.load(sys.stdin)
    os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.minimal_drf.settings"
    import django

    from benchmarks.minimal_drf import settings

    create_database_if_missing(settings.DATABASE_URL)
    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import transaction
    from rest_framework.authtoken.models import Token

    from benchmarks.minimal_drf.models import Row

    call_command("migrate", interactive=False, verbosity=0)
    with transaction.atomic():
        Row.objects.all().delete()
        Token.objects.all().delete()
        User.objects.all().delete()
        users = User.objects.bulk_create(User(username=name) for name in tokens.values())
        Token.objects.bulk_create(Token(key=key, user=user)
                                  for key, user in zip(tokens, users, strict=True))
    print(f"minimal project: {len(users)} users with tokens")


if __name__ == "__main__":
    main()
