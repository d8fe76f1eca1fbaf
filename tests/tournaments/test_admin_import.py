"""Bulk registration in the admin (issue 17): a CSV (UTF-8, UTF-8 with BOM, GBK, GB18030) or
XLSX file, or pasted names, previewed line by line with nothing stored, then confirmed;
individual and 联邦 team events; the same file twice changes nothing; a number a
self-registered player holds is shown, never merged."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.factories import EventFactory, UserFactory
from tournaments.models import Entry, Event, Player, Team
from tournaments.services.players import player_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(get_user_model().objects.create_superuser(username="organizer"))
    return client


def _url(event):
    return reverse("admin:tournaments_event_import", args=[event.pk])


def _upload(client, event, content: bytes, name="players.csv"):
    return client.post(_url(event), {"file": SimpleUploadedFile(name, content)})


def _confirm(client, event, preview):
    return client.post(_url(event), {"payload": preview.context["payload"]})


CSV = "姓名,俱乐部,编号,报到\n张三,市南,51,是\n李四,,52,\n王五,崂山,53,\n"


@pytest.mark.parametrize("encoding,label", [("utf-8", "UTF-8"), ("utf-8-sig", "UTF-8 with BOM"),
                                            ("gbk", "GBK"), ("gb18030", "GB18030")])
def test_a_csv_is_previewed_then_imported(admin_client, encoding, label):
    """GB18030 is told from GBK by what GBK cannot write (𠀀, a CJK Extension B character)."""
    event = EventFactory()
    text = CSV.replace("王五", "王𠀀") if encoding == "gb18030" else CSV

    preview = _upload(admin_client, event, text.encode(encoding))

    assert preview.status_code == 200
    page = preview.content.decode()
    assert f"Read as {label}: 3 lines." in page and "张三 (#51)" in page
    assert [line["action"] for line in preview.context["preview"]["lines"]] == [
        "registered"] * 3
    assert not Entry.objects.filter(event=event).exists() and not Player.objects.exists()

    done = _confirm(admin_client, event, preview)

    assert done.status_code == 302
    statuses = dict(Entry.objects.filter(event=event).values_list("player__name", "status"))
    assert statuses == {"张三": "checked_in", "李四": "registered",
                        text.split("\n")[3].split(",")[0]: "registered"}


def test_the_same_file_twice_changes_nothing(admin_client):
    event = EventFactory()
    _confirm(admin_client, event, _upload(admin_client, event, CSV.encode("gbk")))
    before = list(Entry.objects.values_list("pk", "status"))

    again = _upload(admin_client, event, CSV.encode("gbk"))
    assert [line["action"] for line in again.context["preview"]["lines"]] == ["unchanged"] * 3
    _confirm(admin_client, event, again)

    assert list(Entry.objects.values_list("pk", "status")) == before
    assert Player.objects.count() == 3


def test_a_bad_line_is_shown_and_nothing_can_be_confirmed(admin_client):
    event = EventFactory()
    preview = _upload(admin_client, event, "name,number\n张三,51\n李四,五十二\n".encode("gbk"))

    lines = preview.context["preview"]["lines"]
    assert "error" not in lines[0] and "五十二 is not a whole number" in lines[1]["error"]
    page = preview.content.decode()
    assert "1 line has an error" in page and 'id="import-confirm"' not in page
    assert not Player.objects.exists()


def test_a_number_claimed_by_a_self_registered_player_is_shown_not_merged(admin_client):
    event = EventFactory()
    player_create(name="Self", number=51, user=UserFactory())

    preview = _upload(admin_client, event, CSV.encode())

    first = preview.context["preview"]["lines"][0]
    assert "claimed by a self-registered player" in first["error"]
    assert 'id="import-confirm"' not in preview.content.decode()
    assert not Entry.objects.filter(event=event).exists()


def test_pasted_names_are_imported(admin_client):
    event = EventFactory()
    preview = admin_client.post(_url(event), {"names": "张三\n\n李四\n"})
    assert preview.context["source"] == "pasted text"
    _confirm(admin_client, event, preview)
    assert sorted(Entry.objects.values_list("player__name", flat=True)) == ["张三", "李四"]


def _xlsx(rows) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_teams_are_imported_from_xlsx_with_their_players(admin_client):
    event = EventFactory(format=Event.Format.TEAM)
    content = _xlsx([["队名", "队员1", "编号1", "队员2", "编号2", "队员3", "编号3"],
                     ["青岛一队", "张三", 11, "李四", 12, "王五", 13],
                     ["青岛二队", "赵六", None, "钱七", None, "孙八", None]])

    preview = _upload(admin_client, event, content, name="teams.xlsx")
    assert preview.context["source"] == "XLSX"
    assert preview.context["preview"]["lines"][0]["what"] == (
        "青岛一队: 张三 (#11), 李四 (#12), 王五 (#13)")
    _confirm(admin_client, event, preview)

    team = Team.objects.get(event=event, name="青岛一队")
    assert [m.player.number for m in team.members.all()] == [11, 12, 13]
    assert Entry.objects.filter(event=event).count() == 2
    # again: unchanged, no new players for the team without numbers
    again = _upload(admin_client, event, content, name="teams.xlsx")
    assert [line["action"] for line in again.context["preview"]["lines"]] == ["unchanged"] * 2
    _confirm(admin_client, event, again)
    assert Player.objects.count() == 6


def test_pasted_teams_and_a_team_row_missing_a_player(admin_client):
    event = EventFactory(format=Event.Format.TEAM)
    preview = admin_client.post(_url(event), {"names": "一队，甲、乙、丙\n二队,丁,戊\n"})
    lines = preview.context["preview"]["lines"]
    assert lines[0]["what"] == "一队: 甲, 乙, 丙" and "error" not in lines[0]
    assert "player 3" in lines[1]["error"]
    assert not Team.objects.exists()


def test_an_altered_preview_is_refused(admin_client):
    event = EventFactory()
    preview = _upload(admin_client, event, CSV.encode())
    payload = re.sub(r".$", "x", preview.context["payload"])
    response = admin_client.post(_url(event), {"payload": payload}, follow=True)
    assert "expired or was altered" in response.content.decode()
    assert not Entry.objects.exists()


def test_the_event_page_links_to_the_import(admin_client):
    event = EventFactory()
    page = admin_client.get(reverse("admin:tournaments_event_change", args=[event.pk]))
    assert _url(event) in page.content.decode()
