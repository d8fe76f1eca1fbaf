"""The organizer's admin in a real browser (headless Chromium driven by Playwright, as
tests/pages/test_browser.py): bulk registration from a GBK file — the preview shows a line's
error, the corrected file is confirmed and its players registered — with JavaScript off, as
the form needs none. With ``UPDATE_SCREENSHOTS=1`` the settings test also writes
``docs/admin-event-settings-en.png`` and ``docs/admin-event-settings-zh.png``."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.factories import EventFactory
from tests.pages.test_browser import CHROMIUM, REPO, browser  # noqa: F401 (fixture)
from tournaments.models import Entry, Event

pytestmark = [
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
    pytest.mark.django_db(transaction=True),
]


def _login(browser, live_server, *, locale="en-US", javascript=True):  # noqa: F811
    get_user_model().objects.create_superuser(username="organizer", password="a-long-pw-7")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale,
                                  java_script_enabled=javascript)
    tab = context.new_page()
    tab.goto(live_server.url + reverse("admin:login"))
    tab.fill("#id_username", "organizer")
    tab.fill("#id_password", "a-long-pw-7")
    tab.click("input[type=submit]")
    tab.wait_for_url("**/admin/")
    return context, tab


def test_a_gbk_file_is_previewed_with_its_errors_then_imported(browser, live_server,  # noqa: F811
                                                               tmp_path):
    event = EventFactory(name="青岛公开赛")
    context, tab = _login(browser, live_server, javascript=False)
    try:
        # the organizer opens the event and follows its bulk registration link
        tab.goto(live_server.url + reverse("admin:tournaments_event_change", args=[event.pk]))
        tab.click("text=Import players or 联邦 teams")
        # uploads a GBK CSV (as Excel saves it on Chinese systems) with one bad number
        bad = tmp_path / "报名.csv"
        bad.write_bytes("姓名,俱乐部,编号\n张三,市南,51\n李四,崂山,五十二\n王五,,53\n".encode("gbk"))
        tab.set_input_files("#id_file", str(bad))
        tab.click("#import-upload input[type=submit]")
        # the preview reads it as GBK, shows the bad line's error and offers no confirmation
        assert "Read as GBK: 3 lines." in tab.inner_text("#content-main")
        row = tab.inner_text("#import-preview tbody tr:nth-child(2)")
        assert "李四" in row and "五十二 is not a whole number" in row
        assert tab.locator("#import-confirm").count() == 0
        assert not Entry.objects.filter(event=event).exists()
        # the corrected file previews clean, and confirming registers the three players
        good = tmp_path / "报名2.csv"
        good.write_bytes("姓名,俱乐部,编号\n张三,市南,51\n李四,崂山,52\n王五,,53\n".encode("gbk"))
        tab.set_input_files("#id_file", str(good))
        tab.click("#import-upload input[type=submit]")
        assert tab.locator("#import-preview .errorlist").count() == 0
        tab.click("#import-confirm input[type=submit]")
        tab.wait_for_url("**/admin/tournaments/entry/**")
        assert "3 registered (3 new players)" in tab.inner_text(".messagelist")
        assert sorted(Entry.objects.filter(event=event).values_list(
            "player__number", flat=True)) == [51, 52, 53]
    finally:
        context.close()


@pytest.mark.parametrize("locale,suffix,heading", [("en-US", "en", "Rules preset"),
                                                   ("zh-CN", "zh", "规则预设")])
def test_the_settings_form_in_both_languages(browser, live_server, locale, suffix,  # noqa: F811
                                             heading):
    context, tab = _login(browser, live_server, locale=locale)
    try:
        tab.goto(live_server.url + reverse("admin:tournaments_event_add"))
        assert heading in tab.inner_text("#content-main")
        tab.fill("#id_name", "2026 青岛够级公开赛")
        tab.select_option("#id_rules_preset", "basic")
        tab.select_option("#id_rule_fanche_double", "on")
        tab.select_option("#id_tie_break_0", "game_wins")
        if os.environ.get("UPDATE_SCREENSHOTS"):
            tab.screenshot(path=str(REPO / "docs" / f"admin-event-settings-{suffix}.png"),
                           full_page=True)
        tab.click("input[name=_save]")
        tab.wait_for_url("**/admin/tournaments/event/")
        event = Event.objects.get()
        assert event.slug == "2026-qing-dao-gou-ji-gong-kai-sai"
        assert event.rules == {"preset": "basic", "options": {"fanche_double": True}}
        assert event.tie_breaks == ["game_wins"]
    finally:
        context.close()
