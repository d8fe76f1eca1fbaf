"""The admin actions on entries for private links (issue 16): print the slips, re-issue,
revoke."""

from __future__ import annotations

import pytest

from tests.factories import EventFactory, PlayerFactory
from tests.tournaments.test_admin import _messages, _run_action, admin_client, superuser  # noqa: F401
from tournaments.models import Entry, PlayerLink
from tournaments.selectors import link_resolve
from tournaments.services.entries import entry_register
from tournaments.services.links import entry_link_issue

pytestmark = pytest.mark.django_db


@pytest.fixture
def entries(db):
    event = EventFactory()
    return [entry_register(event=event, player=PlayerFactory()) for _ in range(3)]


def test_print_slips_opens_the_slips_of_the_chosen_entries(admin_client, entries):  # noqa: F811
    response = _run_action(admin_client, Entry, "print_slips", entries[:2])
    assert response.status_code == 200
    assert response.content.decode().count('class="slip"') == 2
    assert PlayerLink.objects.filter(revoked_at__isnull=True).count() == 2


def test_reissue_and_revoke_links(admin_client, entries):  # noqa: F811
    (old,) = entry_link_issue(entry=entries[0])
    response = _run_action(admin_client, Entry, "reissue_links", entries[:2])
    assert "2 private links issued." in _messages(response)
    assert link_resolve(old.token()) is None
    response = _run_action(admin_client, Entry, "revoke_links", entries)
    assert "2 private links revoked." in _messages(response)
    assert not PlayerLink.objects.filter(revoked_at__isnull=True).exists()
