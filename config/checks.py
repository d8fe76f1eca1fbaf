"""System checks of the deployment (``manage.py check --deploy``), registered as the settings
package loads (config/__init__.py).

Django's own ``security.W009`` only *warns* about a short key, and ``check --deploy`` exits 0 on
warnings: a server set up on the public development key (it is in this repository, so anyone
could forge sessions, CSRF tokens and the signed live announcements with it) passed the check.
Here it is an error, whatever ``--fail-level``."""

from __future__ import annotations

from django.core import checks

#: the check's id, as ``SILENCED_SYSTEM_CHECKS`` would name it (it should not be silenced)
DEVELOPMENT_KEY_ID = "gouji.E001"


@checks.register(checks.Tags.security, deploy=True)
def development_key_refused(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """An error when the secret key is the public development key (DJANGO_SECRET_KEY unset, or
    set to that very value)."""
    from django.conf import settings

    if settings.SECRET_KEY != settings.DEVELOPMENT_SECRET_KEY:
        return []
    return [checks.Error(
        "SECRET_KEY is the public development key: DJANGO_SECRET_KEY is not set (or is set to "
        "that key, which is in this repository). Anyone could forge sessions, CSRF tokens and "
        "signed links with it.",
        hint="Set DJANGO_SECRET_KEY to a long random secret, the same in every process: "
             "python -c \"import secrets; print(secrets.token_urlsafe(50))\"",
        id=DEVELOPMENT_KEY_ID)]
