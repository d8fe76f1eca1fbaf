"""The end of an event (issue 52, item 10): the organizers' final report, the prize form and the
exports (web/views/console/report.py), and the public final standings page, through Django's
test client."""

from __future__ import annotations

import csv
import io
import re
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from tests.pages.helpers import draw_round, play_table
from tournaments.exchange import exports
from tournaments.models import Prize
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_finish, event_prizes_set
from tournaments.services.players import player_create
from tournaments.services.releases import standings_release
from tournaments.standings import standings_recompute

pytestmark = pytest.mark.django_db

HOSTILE = "=cmd|' /C calc'!A0"


@pytest.fixture
def ended(make_event, referee_user):
    """Two rounds played and confirmed, a player named :data:`HOSTILE`, prizes for 1 and 2–3."""
    event = make_event(slug="end-cup", rounds_planned=2)
    entry = entry_register(event=event, player=player_create(
        name="𠮷野 小二", number=998))
    entry_check_in(entry=entry)
    for _ in range(2):
        for table in draw_round(event).tables.all():
            play_table(table=table, referee=referee_user)
    hostile = player_create(name=HOSTILE + "!", number=997)
    entry_register(event=event, player=hostile)  # (registered late, never played)
    standings_recompute(event_id=event.pk, force=True)
    event_prizes_set(event=event, prizes=[(1, 1, "冠军 champion"), (2, 3, "一等奖")])
    event.refresh_from_db()
    return event


@pytest.fixture
def organizer(ended):
    user = get_user_model().objects.create_user("end-organizer", password="pw")
    ended.organizers.add(user)
    return user


def _client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _urls(event) -> list[str]:
    slug = {"slug": event.slug}
    return [reverse("pages:console-report", kwargs=slug),
            reverse("pages:console-report-prizes", kwargs=slug),
            reverse("pages:console-export", kwargs=slug),
            reverse("pages:console-export-xlsx", kwargs=slug),
            reverse("pages:console-export-zip", kwargs=slug),
            *(reverse("pages:console-export-csv", kwargs={**slug, "sheet": key})
              for key in exports.SHEET_KEYS)]


# ----------------------------------------------------------------------------- who may
def test_anonymous_visitors_are_sent_to_sign_in(ended):
    for url in _urls(ended):
        response = _client().get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("pages:login")), url


@pytest.mark.parametrize("who", ["stranger", "referee", "staff", "other-organizer"])
def test_everyone_but_the_events_organizers_gets_404(ended, referee_user, make_event, who):
    if who == "referee":
        user = referee_user
    else:
        user = get_user_model().objects.create_user(who, is_staff=who == "staff")
        if who == "other-organizer":
            make_event(slug="other-cup", players=0).organizers.add(user)
    client = _client(user)
    for url in _urls(ended):
        assert client.get(url).status_code == 404, url
    response = client.post(reverse("pages:console-report-prizes", kwargs={"slug": ended.slug}),
                           _prize_post([(1, 1, "stolen")]))
    assert response.status_code == 404
    assert list(Prize.objects.filter(event=ended).values_list("name", flat=True)) == [
        "冠军 champion", "一等奖"]


def test_the_organizers_and_a_superuser_get_every_page(ended, organizer):
    superuser = get_user_model().objects.create_superuser("root", password="pw")
    for user in (organizer, superuser):
        client = _client(user)
        for url in _urls(ended):
            assert client.get(url).status_code == 200, url
    response = _client(organizer).get(reverse("pages:console-export-csv", kwargs={
        "slug": ended.slug, "sheet": "secrets"}))
    assert response.status_code == 404


# ----------------------------------------------------------------------------- the report
def test_the_report_shows_the_prizes_the_places_and_every_rounds_tables(ended, organizer):
    response = _client(organizer).get(reverse("pages:console-report",
                                              kwargs={"slug": ended.slug}))
    html = response.content.decode()
    standings = list(ended.standings.select_related("entry__player").order_by("rank"))

    # the prizes by place, with who won them
    prizes = html[html.index('class="prize-list"'):html.index("</ol>")]
    assert "冠军 champion" in prizes and "一等奖" in prizes
    assert f"1. {standings[0].entry.player.name}" in prizes
    assert f"3. {standings[2].entry.player.name}" in prizes
    # every place, its tie-breaks, and the prize of the places that have one
    rows = re.findall(r'<tr data-entry="(\d+)"[^>]*>\s*<td class="rank">(\d+)</td>', html)
    assert [(int(e), int(r)) for e, r in rows] == [(s.entry_id, s.rank) for s in standings]
    for key in ("points", "game_wins", "head_count", "opponents_points", "head_to_head"):
        assert f'class="num col-{key}"' in html
    assert html.count('<td class="prize col-prize">一等奖</td>') == 2
    assert html.count('<td class="prize col-prize">冠军 champion</td>') == 1
    # each round, table by table, with its games
    for number in (1, 2):
        assert f'id="round-{number}"' in html
    assert html.count('class="round-table"') == 2
    assert len(re.findall(r"G1 \d+:\d+", html)) == 4  # two tables, two rounds
    assert "red (红方)" in html and "black (黑方)" in html
    assert html.count('data-print') == 1  # the print button (the page prints without it)
    assert "<abbr>Pen</abbr> = penalty points" in html
    zh = _client(organizer).get(reverse("pages:console-report", kwargs={"slug": ended.slug}),
                                HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "冠军 champion" in zh and "第 1 轮成绩" in zh and "红方" in zh
    assert "<abbr>罚分</abbr> = 罚分" not in zh  # (no legend says a word is itself)


def test_the_console_links_to_the_report_and_the_exports(ended, organizer):
    html = _client(organizer).get(reverse("pages:console-event", kwargs={"slug": ended.slug})
                                  ).content.decode()
    assert reverse("pages:console-report", kwargs={"slug": ended.slug}) in html
    assert reverse("pages:console-export", kwargs={"slug": ended.slug}) in html


# ----------------------------------------------------------------------------- prizes
def _prize_post(rows, *, initial=0) -> dict:
    data = {"prize-TOTAL_FORMS": str(len(rows)), "prize-INITIAL_FORMS": str(initial),
            "prize-MIN_NUM_FORMS": "0", "prize-MAX_NUM_FORMS": "1000"}
    for i, (place_from, place_to, name) in enumerate(rows):
        data.update({f"prize-{i}-place_from": place_from, f"prize-{i}-place_to": place_to,
                     f"prize-{i}-name": name})
    return data


def test_the_prize_form_shows_sets_and_removes_prizes(ended, organizer):
    client = _client(organizer)
    url = reverse("pages:console-report-prizes", kwargs={"slug": ended.slug})
    form = client.get(url).content.decode()
    assert 'value="冠军 champion"' in form and 'value="一等奖"' in form

    # a prize for place 4 (to: empty, the same place), 2–3 emptied, an empty row left alone
    response = client.post(url, _prize_post([(1, 1, "冠军 champion"), ("", "", ""),
                                             (4, "", "最佳新人"), ("", "", "")], initial=2))

    assert response.status_code == 302
    assert response["Location"] == reverse("pages:console-report", kwargs={"slug": ended.slug})
    assert list(Prize.objects.filter(event=ended).values_list(
        "place_from", "place_to", "name")) == [(1, 1, "冠军 champion"), (4, 4, "最佳新人")]


@pytest.mark.parametrize("rows, says", [
    ([(1, 3, "一等奖"), (3, 5, "二等奖")], "both name place 3"),
    ([(5, 2, "二等奖")], "from 5 to 2, backwards"),
    ([(1, 1, "")], "give the prize a name"),
    (([("", 2, "二等奖")]), "say from which place"),
    ([(0, 1, "零")], "greater than or equal to 1"),
])
def test_a_refused_prize_says_what_is_wrong_and_changes_nothing(ended, organizer, rows, says):
    response = _client(organizer).post(
        reverse("pages:console-report-prizes", kwargs={"slug": ended.slug}), _prize_post(rows))

    assert response.status_code == 400
    assert says in response.content.decode()
    assert list(Prize.objects.filter(event=ended).values_list("name", flat=True)) == [
        "冠军 champion", "一等奖"]


# ----------------------------------------------------------------------------- exports
def test_the_exports_download_as_a_workbook_a_zip_and_csv_files(ended, organizer):
    client = _client(organizer)
    slug = {"slug": ended.slug}

    book = client.get(reverse("pages:console-export-xlsx", kwargs=slug))
    assert book["Content-Type"].startswith("application/vnd.openxmlformats")
    assert book["Content-Disposition"] == 'attachment; filename="end-cup.xlsx"'
    workbook = load_workbook(io.BytesIO(book.content))
    assert len(workbook.sheetnames) == len(exports.SHEET_KEYS)

    archive = client.get(reverse("pages:console-export-zip", kwargs=slug))
    names = zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
    assert names == [f"end-cup-{key}.csv" for key in exports.SHEET_KEYS]

    entries = client.get(reverse("pages:console-export-csv", kwargs={**slug,
                                                                     "sheet": "entries"}))
    assert entries["Content-Disposition"] == 'attachment; filename="end-cup-entries.csv"'
    rows = list(csv.reader(io.StringIO(entries.content.decode("utf-8-sig"))))
    assert "'" + HOSTILE + "!" in [row[1] for row in rows]
    assert "𠮷野 小二" in [row[1] for row in rows]
    standings = client.get(reverse("pages:console-export-csv", kwargs={**slug,
                                                                       "sheet": "standings"}))
    rows = list(csv.reader(io.StringIO(standings.content.decode("utf-8-sig"))))
    assert [row[-1] for row in rows[1:4]] == ["冠军 champion", "一等奖", "一等奖"]


# ----------------------------------------------------------------------------- the public
def test_the_public_final_standings_wait_for_the_end_or_a_release(ended, organizer):
    final = reverse("pages:final-standings", kwargs={"slug": ended.slug})
    event_page = reverse("pages:event", kwargs={"slug": ended.slug})
    anon = _client()

    # while the event runs with live standings: no final page, no link to it
    assert anon.get(final).status_code == 404
    assert final not in anon.get(event_page).content.decode()

    # released after round 1: the page shows what the leaderboard shows (that round's)
    standings_release(event=ended, round_number=1)
    html = anon.get(final).content.decode()
    assert "after round 1" in html and "as released by the organizers" in html
    assert final in anon.get(event_page).content.decode()

    # finished: the final standings, with the prizes by place
    standings_release(event=ended, round_number=None)
    event_finish(event=ended)
    html = anon.get(final).content.decode()
    assert "Final standings" in html and "冠军 champion" in html and "after round 2" in html
    assert "col-byes" not in html  # (the organizers' columns stay on the report)

    # hidden again (released: none yet): the page says so and lists nobody
    standings_release(event=ended, round_number=0)
    html = anon.get(final).content.decode()
    assert "The standings are not released yet." in html and "data-entry" not in html


def test_an_unpublished_events_final_page_is_404(make_event):
    event = make_event(slug="hidden-cup", published=False)
    event_finish(event=event)
    assert _client().get(reverse("pages:final-standings",
                                 kwargs={"slug": event.slug})).status_code == 404
