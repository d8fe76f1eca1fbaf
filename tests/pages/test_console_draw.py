"""The console's check of a draw and a round's print pages (issue 52): organizers only, each
action's refusal, and what the pages show (1–6号位, 红方 / 黑方, repeats, byes, the record)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.pages.helpers import draw_round, play_table
from tournaments.models import PlayerLink, Round, Seat
from tournaments.services.draw_changes import SeatRef, round_seats_swap
from tournaments.services.entries import entry_check_in
from tournaments.services.events import event_create
from tournaments.services.rounds import round_publish
from tournaments.services.teams import team_register
from web.views.console.print import name_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("organizer", first_name="Lin", last_name="Zhou")


@pytest.fixture
def drawn(make_event, organizer):
    """An event of 14 (two tables, two byes) whose round 1 is drawn, not published."""
    event = make_event(slug="check-cup")
    event.organizers.add(organizer)
    draw_round(event, publish=False)
    return event


def client_of(user=None, lang="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    if user is not None:
        client.force_login(user)
    return client


def check_url(event, number=1) -> str:
    return reverse("pages:console-round-check", kwargs={"slug": event.slug, "number": number})


def print_url(event, number=1, sheet="") -> str:
    url = reverse("pages:console-round-print", kwargs={"slug": event.slug, "number": number})
    return url + (f"?sheet={sheet}" if sheet else "")


def choice(rnd, table, seat) -> str:
    s = Seat.objects.get(round=rnd, table__number=table, seat=seat)
    return f"{table}-{seat}-{s.player_id}"


def player_at(rnd, table, seat):
    return Seat.objects.select_related("player").get(round=rnd, table__number=table,
                                                     seat=seat).player


# ----------------------------------------------------------------------------- who may
@pytest.mark.parametrize("page", [check_url, print_url])
def test_only_the_events_organizers_open_the_pages(drawn, referee_user, page):
    stranger = get_user_model().objects.create_user("stranger")

    assert client_of(stranger).get(page(drawn)).status_code == 404
    assert client_of(referee_user).get(page(drawn)).status_code == 404  # a referee: not here
    anonymous = client_of().get(page(drawn))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    organizer = drawn.organizers.get()
    assert client_of(organizer).get(page(drawn)).status_code == 200
    assert client_of(organizer).get(page(drawn, number=9)).status_code == 404


def test_nobody_else_can_swap_redraw_or_publish(drawn, referee_user):
    rnd = drawn.rounds.get()
    before = sorted(Seat.objects.filter(round=rnd).values_list("table__number", "seat",
                                                               "player_id"))
    for user in (get_user_model().objects.create_user("stranger"), referee_user):
        for data in ({"action": "swap", "seat_a": choice(rnd, 1, 0),
                      "seat_b": choice(rnd, 2, 0), "reason": "x"},
                     {"action": "redraw", "commitment": rnd.commitment, "reason": "x"},
                     {"action": "publish"}):
            assert client_of(user).post(check_url(drawn), data).status_code == 404
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.DRAWN and rnd.draw_changes == []
    assert sorted(Seat.objects.filter(round=rnd).values_list(
        "table__number", "seat", "player_id")) == before


# ----------------------------------------------------------------------------- the check page
@pytest.mark.parametrize("lang, words", [
    ("en", ["seat 1", "seat 6", "红方", "黑方", "Byes (轮空)", "What the draw achieved"]),
    ("zh-hans", ["1号位", "6号位", "红方", "黑方", "轮空", "抽签结果"]),
])
def test_the_check_page_shows_each_table_by_seat_and_side(drawn, lang, words):
    rnd = drawn.rounds.get()
    organizer = drawn.organizers.get()

    page = client_of(organizer, lang).get(check_url(drawn)).content.decode()

    for word in words:
        assert word in page, word
    for seat in Seat.objects.filter(round=rnd).select_related("player"):
        assert seat.player.name in page and f"#{seat.player.number}" in page
    for bye in rnd.byes.select_related("entry__player"):
        assert bye.entry.player.name in page
    assert 'id="swap-form"' in page and 'id="redraw-form"' in page
    assert "联邦 0" not in page and "seat 0" not in page and "0号位" not in page


def test_the_check_page_names_the_repeats_the_draw_could_not_avoid(make_event, organizer,
                                                                   referee_user):
    """Seven players, one table and a bye each round: the same five meet again whatever the
    draw does; the page names them and the earlier round."""
    event = make_event(slug="small-cup", players=7)
    event.organizers.add(organizer)
    first = draw_round(event)
    play_table(table=first.tables.get(), referee=referee_user)
    draw_round(event, publish=False)

    page = client_of(organizer).get(check_url(event, 2)).content.decode()

    assert "could not be avoided" in page and "(round 1)" in page
    assert 'class="table-repeats"' in page


def test_a_swap_from_the_page_moves_the_two_players_and_is_recorded(drawn, organizer):
    rnd = drawn.rounds.get()
    a, b = player_at(rnd, 1, 0), player_at(rnd, 2, 3)

    response = client_of(organizer).post(check_url(drawn), {
        "action": "swap", "seat_a": choice(rnd, 1, 0), "seat_b": choice(rnd, 2, 3),
        "reason": "sat together at home"})

    assert response.status_code == 302 and response["Location"] == check_url(drawn)
    assert player_at(rnd, 1, 0) == b and player_at(rnd, 2, 3) == a
    page = client_of(organizer).get(check_url(drawn)).content.decode()
    assert "sat together at home" in page and "Lin Zhou" in page
    assert f"swapped {a.name} (table 1, seat 1) and {b.name} (table 2, seat 4)" in page
    assert "1 manual change" in page


def test_a_double_submitted_swap_swaps_once(drawn, organizer):
    rnd = drawn.rounds.get()
    data = {"action": "swap", "seat_a": choice(rnd, 1, 0), "seat_b": choice(rnd, 2, 3),
            "reason": "asked"}
    client = client_of(organizer)

    assert client.post(check_url(drawn), data).status_code == 302
    once = sorted(Seat.objects.filter(round=rnd).values_list("table__number", "seat",
                                                             "player_id"))
    assert client.post(check_url(drawn), data).status_code == 302

    assert sorted(Seat.objects.filter(round=rnd).values_list(
        "table__number", "seat", "player_id")) == once
    rnd.refresh_from_db()
    assert len(rnd.draw_changes) == 1


def test_a_swap_without_a_reason_is_refused_on_top_of_the_page(drawn, organizer):
    rnd = drawn.rounds.get()
    data = {"action": "swap", "seat_a": choice(rnd, 1, 0), "seat_b": choice(rnd, 2, 3),
            "reason": "   "}

    response = client_of(organizer).post(check_url(drawn), data)

    assert response.status_code == 400
    page = response.content.decode()
    assert page.index('id="refusal"') < page.index('id="achieved"')  # above everything else
    assert "say why" in page
    assert f'value="{data["seat_a"]}" selected' in page  # the choices kept
    rnd.refresh_from_db()
    assert rnd.draw_changes == []


def test_a_swap_of_nonsense_seats_is_refused(drawn, organizer):
    for bad in ("", "1-2", "a-b-c", "1-9-1", "99999999999-0-1"):
        response = client_of(organizer).post(check_url(drawn), {
            "action": "swap", "seat_a": bad, "seat_b": choice(drawn.rounds.get(), 1, 0),
            "reason": "x"})
        assert response.status_code in (400, 404), bad
    assert client_of(organizer).post(check_url(drawn), {"action": "fly"}).status_code == 400


def test_after_publishing_the_page_refuses_swaps_and_redraws(drawn, organizer):
    rnd = drawn.rounds.get()
    swap = {"action": "swap", "seat_a": choice(rnd, 1, 0), "seat_b": choice(rnd, 2, 3),
            "reason": "late"}
    redraw = {"action": "redraw", "commitment": rnd.commitment, "reason": "late"}
    client = client_of(organizer)

    published = client.post(check_url(drawn), {"action": "publish"})
    assert published.status_code == 302 and published["Location"] == print_url(drawn)
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.PUBLISHED

    for data in (swap, redraw):
        response = client.post(check_url(drawn), data)
        assert response.status_code == 409
        assert "is published" in response.content.decode()
    page = client.get(check_url(drawn)).content.decode()
    assert 'id="swap-form"' not in page and "can no longer be swapped" in page
    rnd.refresh_from_db()
    assert rnd.draw_changes == [] and rnd.draw_history == []


def test_a_redraw_from_the_page_needs_a_reason_and_happens_once(drawn, organizer):
    rnd = drawn.rounds.get()
    seen = rnd.commitment
    client = client_of(organizer)

    refused = client.post(check_url(drawn), {"action": "redraw", "commitment": seen,
                                             "reason": ""})
    assert refused.status_code == 400
    assert client.post(check_url(drawn), {"action": "redraw", "commitment": seen,
                                          "reason": "wrong check-in list"}).status_code == 302
    # (no worker here: the new draw waits) a second click changes nothing
    assert client.post(check_url(drawn), {"action": "redraw", "commitment": seen,
                                          "reason": "wrong check-in list"}).status_code == 302

    rnd.refresh_from_db()
    assert len(rnd.draw_history) == 1 and rnd.status == Round.Status.COMMITTED
    page = client.get(check_url(drawn)).content.decode()
    assert 'http-equiv="refresh"' in page and "re-drawn 1 time" in page
    stale = client.post(check_url(drawn), {"action": "redraw", "commitment": "f" * 64,
                                           "reason": "again"})
    assert stale.status_code == 409


def test_the_public_seating_shows_the_swap_and_the_redraw_count(drawn, organizer):
    rnd = drawn.rounds.get()
    a, b = player_at(rnd, 1, 0), player_at(rnd, 2, 3)
    round_seats_swap(round=rnd, seat_a=SeatRef(1, 0, a.pk),
                              seat_b=SeatRef(2, 3, b.pk), by=organizer,
                              reason="sat together at home")
    round_publish(round=rnd)

    en = client_of().get(reverse("pages:seating", kwargs={"slug": drawn.slug})).content.decode()
    zh = client_of(lang="zh-hans").get(reverse("pages:seating", kwargs={
        "slug": drawn.slug})).content.decode()

    assert "re-drawn 0 times · 1 manual change" in en
    assert f"swapped {a.name} (table 1, seat 1) and {b.name} (table 2, seat 4)" in en
    assert "sat together at home" in en
    assert "重抽 0 次 · 手动调整 1 处" in zh and "1号位" in zh


# ----------------------------------------------------------------------------- printing
def test_printing_waits_for_the_publication(drawn, organizer):
    client = client_of(organizer)
    menu = client.get(print_url(drawn))
    assert menu.status_code == 200 and "not published yet" in menu.content.decode()
    assert client.get(print_url(drawn, sheet="slips")).status_code == 409
    assert not PlayerLink.objects.exists()  # nothing issued
    assert client.get(print_url(drawn, sheet="poster")).status_code == 404


@pytest.fixture
def published(drawn):
    round_publish(round=drawn.rounds.get())
    return drawn


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_slips_are_a_page_per_table_with_each_players_link(published, organizer, lang):
    rnd = published.rounds.get()

    response = client_of(organizer, lang).get(print_url(published, sheet="slips"))

    page = response.content.decode()
    assert response.status_code == 200
    assert page.count('class="sheet slip-page"') == rnd.tables.count()
    assert page.count("<svg") == Seat.objects.filter(round=rnd).count()
    assert PlayerLink.objects.filter(revoked_at__isnull=True).count() == 12
    first = page.index('id="table-1"')
    for seat in Seat.objects.filter(round=rnd, table__number=1).select_related("player"):
        assert page.index(seat.player.name) > first
    assert ("6号位" if lang == "zh-hans" else "seat 6") in page and "红方" in page
    # printing again hands out the same links
    again = client_of(organizer, lang).get(print_url(published, sheet="slips")).content.decode()
    assert PlayerLink.objects.count() == 12
    tokens = [link.token() for link in PlayerLink.objects.all()]
    assert all(t in page and t in again for t in tokens)


def test_the_seating_list_is_by_pinyin_with_table_and_seat(published, organizer):
    rnd = published.rounds.get()

    page = client_of(organizer, "zh-hans").get(print_url(published, sheet="names")).content \
        .decode()

    seated = {s.player.name: s for s in Seat.objects.filter(round=rnd).select_related(
        "player", "table")}
    byes = [b.entry.player.name for b in rnd.byes.select_related("entry__player")]
    names = sorted([*seated, *byes], key=name_key)
    positions = [page.index(f'<td class="name">{n}</td>') for n in names]
    assert positions == sorted(positions)  # 陈静, 黄勇, 李娜, 刘洋, … as in pinyin
    assert names[0] == "陈静"
    assert page.count("轮空") >= len(byes)
    assert '<tr class="letter"><th colspan="5" scope="rowgroup">C</th></tr>' in page


def test_name_key_sorts_chinese_by_pinyin_and_others_without_case():
    names = ["张伟", "bob", "安娜", "Alice", "赵敏"]
    assert sorted(names, key=name_key) == ["Alice", "安娜", "bob", "张伟", "赵敏"]


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_score_sheet_per_table_with_boxes_for_every_game(published, organizer, lang):
    rnd = published.rounds.get()

    page = client_of(organizer, lang).get(print_url(published, sheet="scores")).content.decode()

    tables = list(rnd.tables.order_by("number"))
    assert page.count('class="sheet score-sheet"') == len(tables)
    assert page.count('class="game-box"') == len(tables) * published.games_per_match
    for word in ("头科", "二科", "三科", "四科", "二落", "大落", "开点", "革命"):
        assert word in page
    desk = reverse("pages:desk-table", kwargs={"slug": published.slug,
                                               "table_id": tables[0].pk})
    assert page.count("<svg") == len(tables) and desk in page
    if lang == "zh-hans":
        assert "红方签字" in page and "黑方签字" in page and "处罚" in page
    else:
        assert "red (红方) signs" in page and "black (黑方) signs" in page and "Penalties" in page


def test_the_console_links_a_drawn_round_to_its_check_and_a_published_one_to_printing(
        drawn, organizer):
    console = reverse("pages:console-event", kwargs={"slug": drawn.slug})
    round_page = reverse("pages:console-round", kwargs={"slug": drawn.slug, "number": 1})

    for page in (console, round_page):
        html = client_of(organizer).get(page).content.decode()
        assert f'href="{check_url(drawn)}"' in html  # not the admin's round (seats 0–5)
        assert reverse("admin:tournaments_round_change", args=[drawn.rounds.get().pk]) not in html

    round_publish(round=drawn.rounds.get())
    for page in (console, round_page):
        assert f'href="{print_url(drawn)}"' in client_of(organizer).get(page).content.decode()


def test_a_team_rounds_check_names_the_teams_and_swaps_teammates_only(organizer,
                                                                     referee_user):
    from tests.factories import PlayerFactory

    event = event_create(name="Team cup", slug="team-cup", format="team",
                                  games_per_match=1, organizer=organizer)
    event.referees.add(referee_user)
    for k in range(4):
        entry = team_register(event=event, name=f"联邦 队{k + 1}",
                                       players=[PlayerFactory() for _ in range(3)])
        entry_check_in(entry=entry)
    for table in draw_round(event).tables.all():
        play_table(table=table, referee=referee_user)
    rnd = draw_round(event, publish=False)
    table = rnd.tables.select_related("team_a", "team_b").get(number=1)

    page = client_of(organizer).get(check_url(event, 2)).content.decode()
    assert table.team_a.name in page and table.team_b.name in page
    assert "partners again" not in page and "teams meeting again" in page

    across = client_of(organizer).post(check_url(event, 2), {
        "action": "swap", "seat_a": choice(rnd, 1, 0), "seat_b": choice(rnd, 1, 1),
        "reason": "x"})
    assert across.status_code == 400 and "teammate" in across.content.decode()
    within = client_of(organizer).post(check_url(event, 2), {
        "action": "swap", "seat_a": choice(rnd, 1, 0), "seat_b": choice(rnd, 1, 2),
        "reason": "captain first"})
    assert within.status_code == 302
