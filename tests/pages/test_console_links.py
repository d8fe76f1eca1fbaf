"""Issue 17's words and links: the leaderboard legend, the 对头 sentence, the projector's byes,
"view on site" from the admin and the console link on an event's admin page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tournaments.models import Player

pytestmark = pytest.mark.django_db


def _get(path, lang="en"):
    return Client().get(path, HTTP_ACCEPT_LANGUAGE=lang)


def test_leaderboard_legend_defines_only_abbreviations(event):
    """In Chinese the points column is headed 积分: the legend does not say 积分 = 积分."""
    url = reverse("pages:leaderboard", kwargs={"slug": event.slug})

    zh = _get(url, "zh-hans").content.decode()
    en = _get(url).content.decode()

    assert "<abbr>积分</abbr> = 积分" not in zh and "<abbr>胜局</abbr> = 胜局数" in zh
    assert "<abbr>Pts</abbr> = points" in en


def test_seating_says_the_dui_tou_sits_opposite(event):
    url = reverse("pages:seating", kwargs={"slug": event.slug})

    assert "你的对头坐在你的正对面。" in _get(url, "zh-hans").content.decode()
    assert "sits opposite you" in _get(url).content.decode()


def test_rounds_are_lun_ci_in_chinese(event):
    from django.utils import translation

    with translation.override("zh-hans"):
        assert str(event.rounds.get()) == f"{event.name} · 轮次 1"


def test_round_byes_json_lists_the_byes_of_a_public_round(event, make_event):
    rnd = event.rounds.get()
    names = sorted(b.entry.player.name for b in rnd.byes.all())

    data = _get(reverse("pages:round-byes", kwargs={"slug": event.slug, "number": 1})).json()

    assert data["round"] == 1 and sorted(b["name"] for b in data["byes"]) == names
    assert _get(reverse("pages:round-byes", kwargs={"slug": event.slug,
                                                    "number": 2})).status_code == 404
    hidden = make_event(slug="hidden", published=False)
    assert _get(reverse("pages:round-byes", kwargs={"slug": hidden.slug,
                                                    "number": 1})).status_code == 404


def test_view_on_site_opens_the_public_page_of_events_rounds_tables_and_players(event):
    table = event.rounds.get().tables.get(number=1)
    player = table.seats.get(seat=0).player
    lonely = Player.objects.create(name="无赛事")

    for obj in (event, event.rounds.get(), table, player):
        assert _get(obj.get_absolute_url()).status_code == 200, obj
    assert f"q={player.number}" in player.get_absolute_url()
    assert lonely.get_absolute_url() == reverse("pages:events")


def test_event_admin_page_links_to_the_console_and_the_site(event):
    admin = get_user_model().objects.create_superuser("boss", "b@example.org", "pw")
    client = Client()
    client.force_login(admin)

    page = client.get(reverse("admin:tournaments_event_change", args=[event.pk]))

    text = page.content.decode()
    assert reverse("pages:console-event", kwargs={"slug": event.slug}) in text
    assert "View on site" in text
    assert client.get(reverse("pages:console-event", kwargs={"slug": event.slug})
                      ).status_code == 200


def test_event_page_links_organizers_to_their_console(event):
    dashboard = reverse("pages:console-event", kwargs={"slug": event.slug})
    organizer = get_user_model().objects.create_user("org")
    event.organizers.add(organizer)
    client = Client()
    page = reverse("pages:event", kwargs={"slug": event.slug})

    assert dashboard not in client.get(page).content.decode()
    client.force_login(organizer)
    assert dashboard in client.get(page).content.decode()
