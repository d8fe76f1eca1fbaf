"""The names people read (issue 52, item 5): people by their names, never by a login
("player-4"), with who confirmed a result in its history; the two 联邦 as 红方/黑方 (or the
teams), never "联邦 0"; the game's terms as RULES.md and the Outline use them. In both
languages, on the desk, a player's table page, the public pages and the scripts' texts."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.models import GameResult
from games.services import result_confirm, result_correct, result_dispute, result_submit
from tests.pages.helpers import draw_round
from tournaments.models import Penalty, Seat
from tournaments.names import person_name, side_names
from tournaments.services.links import entry_link_issue
from tournaments.services.players import player_create
from web.forms.sheet import SheetForm

pytestmark = pytest.mark.django_db

LANGS = ["en", "zh-hans"]
FIRST = {"order": [0, 2, 4, 1, 3, 5], "kaidian": [True] * 6}
SECOND = {"order": [1, 3, 5, 0, 2, 4], "kaidian": [True] * 6}
#: how each language says a result was confirmed, in a history
CONFIRMED = {"en": "confirmed", "zh-hans": "已确认"}
SIDES = {"en": ("red (红方)", "black (黑方)"), "zh-hans": ("红方", "黑方")}


def client_of(user=None, lang="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    if user is not None:
        client.force_login(user)
    return client


def histories(page: str) -> str:
    """Every result history of a page, one text."""
    found = re.findall(r'<details class="history">.*?</details>', page, flags=re.S)
    assert found, "the page shows no history"
    return "\n".join(found)


def no_logins_nor_side_numbers(page: str) -> None:
    assert not re.search(r"player-\d", page)  # the logins made for private links
    assert "联邦 0" not in page and "联邦 1" not in page


@pytest.fixture
def table(make_event, referee_user):
    """Table 1 of round 1, every seat with its private link (a "player-N" login each), and
    a referee who plays in other events (a player with a login): game 1 submitted by seat 1,
    confirmed by seat 2, then a correction proposed by seat 6; game 2 submitted by seat 3
    and disputed by seat 4."""
    event = make_event(slug="names")
    tbl = draw_round(event).tables.get(number=1)
    seats = list(Seat.objects.filter(table=tbl).select_related("player", "entry")
                 .order_by("seat"))
    for s in seats:
        entry_link_issue(entry=s.entry)
        s.player.refresh_from_db()
    users = [s.player.user for s in seats]
    assert all(u.username.startswith("player-") for u in users)
    first = result_confirm(result=result_submit(table=tbl, number=1, sheet=FIRST, by=users[0]),
                           by=users[1])
    result_correct(result=first, reason="6号位先走", by=users[5],
                   sheet={"order": [5, 0, 2, 4, 1, 3], "kaidian": [True] * 6})
    second = result_submit(table=tbl, number=2, sheet=SECOND, by=users[2])
    result_dispute(result=second, reason="名次记错了", by=users[3])
    tbl.seats_list = seats
    return tbl


@pytest.mark.parametrize("lang", LANGS)
def test_the_desk_names_who_submitted_confirmed_proposed_and_disputed(table, referee_user,
                                                                      lang):
    seats = table.seats_list
    url = reverse("pages:desk-table", kwargs={"slug": table.round.event.slug,
                                              "table_id": table.pk})

    page = client_of(referee_user, lang).get(url).content.decode()

    history = histories(page)
    for who in (0, 1, 5, 2, 3):  # submitted, confirmed, proposed; submitted, disputed
        assert seats[who].player.name in history
    assert CONFIRMED[lang] in history
    # the open dispute and the open proposal name their people too
    assert f"{seats[3].player.name}: “名次记错了”" in page
    assert f"— {seats[5].player.name}: “6号位先走”" in page
    red, black = SIDES[lang]
    assert red in page and black in page
    no_logins_nor_side_numbers(page)


@pytest.mark.parametrize("lang", LANGS)
def test_a_players_table_page_shows_who_confirmed(table, lang):
    seats = table.seats_list
    confirmer = seats[1].player.name

    page = client_of(seats[0].player.user, lang).get(reverse("pages:me")).content.decode()

    history = histories(page)
    assert re.search(rf"{CONFIRMED[lang]} · {confirmer}", history)
    no_logins_nor_side_numbers(page)


@pytest.mark.parametrize("lang", LANGS)
def test_a_referee_who_plays_reads_as_the_player_and_one_who_does_not_by_full_name(
        table, referee_user, lang):
    # given: the second game confirmed by the desk's referee, who is a player too
    player_create(name="裁判刘", number=999)
    referee_player = player_create(name="刘裁判", number=998)
    referee_player.user = referee_user
    referee_player.save()
    second = GameResult.objects.get(table=table, number=2)
    result_confirm(result=second, by=referee_user, as_referee=True, reason="核对无误")
    staff = get_user_model().objects.create_user("desk-2", first_name="老", last_name="王")
    table.round.event.referees.add(staff)
    url = reverse("pages:desk-table", kwargs={"slug": table.round.event.slug,
                                              "table_id": table.pk})

    # when
    page = client_of(staff, lang).get(url).content.decode()

    # then
    assert f"{CONFIRMED[lang]}" in histories(page) and "刘裁判" in histories(page)
    assert "pages-referee" not in page
    assert person_name(staff) == "老 王" and person_name(None) == ""


@pytest.mark.parametrize("lang", LANGS)
def test_the_public_pages_name_the_sides_and_people(table, lang):
    event = table.round.event
    client = client_of(lang=lang)
    red, black = SIDES[lang]

    seating = client.get(reverse("pages:round-seating", kwargs={
        "slug": event.slug, "number": 1}) + "?q=" + table.seats_list[3].player.name)
    public_table = client.get(reverse("pages:table", kwargs={
        "slug": event.slug, "number": 1, "table": table.number}))

    for response in (seating, public_table):
        page = response.content.decode()
        assert response.status_code == 200
        assert red in page and black in page
        no_logins_nor_side_numbers(page)
    page = public_table.content.decode()
    assert table.seats_list[1].player.name in histories(page)
    seating_text = json.loads(re.search(r'id="js-text" type="application/json">(.*?)</script>',
                                        seating.content.decode()).group(1))
    assert seating_text["sides"] == list(SIDES[lang])
    assert "联邦" not in seating_text["found"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_replay_reads_tricks_not_rounds_and_names_the_sides(table, lang):
    event = table.round.event
    url = reverse("pages:watch", kwargs={"slug": event.slug, "number": 1,
                                         "table": table.number})

    page = client_of(lang=lang).get(url).content.decode()

    text = json.loads(re.search(r'id="js-text" type="application/json">(.*?)</script>',
                                page).group(1))
    live = json.loads(re.search(r'id="live-data" type="application/json">(.*?)</script>',
                                page).group(1))
    assert live["sides"] == list(SIDES[lang])
    assert "联邦 0" not in text["points"]
    assert text["round"] == {"en": "Trick %(n)s", "zh-hans": "出牌第 %(n)s 圈"}[lang]


def test_team_events_name_the_sides_by_their_teams(table):
    from tournaments.models import Team

    event = table.round.event
    a = Team.objects.create(event=event, name="崂山队")
    b = Team.objects.create(event=event, name="市南队")
    table.team_a, table.team_b = a, b

    assert side_names(table) == {0: "崂山队", 1: "市南队"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_terms_follow_the_rules(lang):
    from django.utils import translation

    with translation.override(lang):
        form = SheetForm(rules=table_rules(), seats=[
            {"seat": s, "label": f"{s + 1}", "name": f"p{s}"} for s in range(6)])
        smother_by = str(form.fields["smother_0_by"].label)
        forfeit = str(Penalty.Kind.LEAD_FORFEIT.label)
    assert smother_by == {"en": "smothered by", "zh-hans": "闷人者"}[lang]
    assert "操作人" not in smother_by
    # the Outline's 第二十九条: 取消一次发（顺）牌权 — 发/顺牌 is playing a card, not dealing
    assert forfeit == {"en": "loss of a turn to play (取消一次发（顺）牌权)",
                       "zh-hans": "取消一次发（顺）牌权"}[lang]


def table_rules():
    """Rules under which the sheet asks who smothered whom (憋3 with 闷贡)."""
    import engine

    return engine.Rules.from_spec({"preset": "online"})
