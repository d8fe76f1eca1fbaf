"""``make demo`` (demo_event) prints one player's private link, and it opens their table."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db(transaction=True)
def test_demo_event_prints_a_private_link_that_opens_the_players_table(client):
    out = StringIO()
    call_command("demo_event", players=14, rounds=2, games=1, stdout=out)
    found = re.search(r"^  (.+)'s private link:\s+http://127\.0\.0\.1:8000(/p/[\w-]+/)$",
                      out.getvalue(), re.M)
    assert found, out.getvalue()[-500:]
    page = client.get(found[2])
    assert page.status_code == 200
    assert 'class="seat-list"' in page.content.decode()
