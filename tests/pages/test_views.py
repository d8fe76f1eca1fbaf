"""The public pages without a browser (Django's test client): what they show, to whom, in which
language; QR codes; the admin's print action."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.pages.helpers import draw_round, play_table
from tournaments.models import Bye, Round, Seat, Standing
from tournaments.services.entries import entry_check_in
from tournaments.services.events import event_create, event_publish
from tournaments.services.players import player_create
from tournaments.services.rounds import round_publish
from tournaments.services.teams import team_register
from tournaments.standings import standings_recompute

pytestmark = pytest.mark.django_db


def live_data(response) -> dict:
    match = re.search(r'<script id="live-data" type="application/json">(.*?)</script>',
                      response.content.decode(), re.S)
    assert match, "the page hands no settings to its script"
    return json.loads(match.group(1))


def page_urls(slug: str, table: int = 1) -> list[str]:
    return [
        reverse("pages:event", kwargs={"slug": slug}),
        reverse("pages:leaderboard", kwargs={"slug": slug}),
        reverse("pages:seating", kwargs={"slug": slug}),
        reverse("pages:round-seating", kwargs={"slug": slug, "number": 1}),
        reverse("pages:table", kwargs={"slug": slug, "number": 1, "table": table}),
        reverse("pages:table-current", kwargs={"slug": slug, "table": table}),
        reverse("pages:projector", kwargs={"slug": slug}),
    ]


# ----------------------------------------------------------------------------- visibility
def test_every_page_of_a_published_event_answers(client, event):
    for url in page_urls(event.slug):
        response = client.get(url)
        assert response.status_code in (200, 302), (url, response.status_code)


def test_an_unpublished_event_is_not_found_on_any_page(client, make_event, referee_user):
    # given: a drawn and published round of an event that is itself not published
    hidden = make_event(slug="hidden-cup", published=False)
    rnd = draw_round(hidden)
    play_table(table=rnd.tables.get(number=1), referee=referee_user)

    # then
    for url in page_urls(hidden.slug):
        assert client.get(url).status_code == 404, url
    assert hidden.name not in client.get(reverse("pages:events")).content.decode()


def test_the_not_found_page_is_the_sites_own(client):
    response = client.get("/e/no-such-event/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 404
    assert "未找到" in response.content.decode()


def test_the_event_list_shows_published_events_only(client, event, make_event):
    make_event(slug="draft-cup", name="Draft cup", published=False, players=6)
    body = client.get(reverse("pages:events")).content.decode()
    assert event.name in body
    assert "Draft cup" not in body


def test_seating_shows_only_once_the_round_is_published(client, make_event):
    # given: round 1 drawn but its seating not published
    ev = make_event(slug="waiting-cup")
    rnd = draw_round(ev, publish=False)
    someone = Seat.objects.filter(round=rnd).select_related("player").first().player.name

    # then: no seat is shown anywhere
    response = client.get(reverse("pages:seating", kwargs={"slug": ev.slug}))
    assert response.status_code == 200
    assert someone not in response.content.decode()
    assert "not published yet" in response.content.decode()
    assert client.get(reverse("pages:round-seating", kwargs={
        "slug": ev.slug, "number": 1})).status_code == 404
    assert client.get(reverse("pages:table", kwargs={
        "slug": ev.slug, "number": 1, "table": 1})).status_code == 404
    current = client.get(reverse("pages:table-current", kwargs={"slug": ev.slug, "table": 1}))
    assert current.status_code == 200 and someone not in current.content.decode()

    # when
    round_publish(round=rnd)

    # then
    assert someone in client.get(reverse("pages:seating", kwargs={"slug": ev.slug})
                                 ).content.decode()


# ----------------------------------------------------------------------------- event page
def test_event_page_shows_format_rules_rounds_links_and_a_qr_code(client, event):
    response = client.get(reverse("pages:event", kwargs={"slug": event.slug}))
    body = response.content.decode()
    assert event.name in body
    assert "individual, drawn teams" in body
    assert "the Qingdao competition outline" in body  # the dagang preset
    assert "seating published" in body  # round 1's status
    assert Round.objects.get(event=event, number=1).seed[:12] in body  # revealed seed
    assert reverse("api:standings-csv", kwargs={"slug": event.slug}) in body
    assert reverse("api:round-seating-csv", kwargs={"slug": event.slug, "number": 1}) in body
    assert '<svg viewBox' in body and 'class="qr"' in body
    assert f"http://testserver/e/{event.slug}/" in body  # what the QR code encodes


def test_event_page_marks_rule_options_changed_from_the_preset(client, make_event):
    ev = make_event(slug="house-rules", rules={"preset": "dagang", "options": {"bie3": False}},
                    players=6)
    body = client.get(reverse("pages:event", kwargs={"slug": ev.slug})).content.decode()
    assert re.search(r'class="changed"[^>]*>off<', body)


# ----------------------------------------------------------------------------- leaderboard
def test_leaderboard_lists_standings_in_rank_order_with_the_events_tie_breaks(client, event):
    response = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    body = response.content.decode()
    entries = [s.entry_id for s in Standing.objects.filter(event=event).order_by("rank")]
    positions = [body.index(f'data-entry="{entry}"') for entry in entries]
    assert positions == sorted(positions)
    headers = re.findall(r'<th class="num col-(\w+)"', body)
    assert headers == ["points", "game_wins", "head_count", "opponents_points", "head_to_head",
                       "games_played"]
    assert "after round 1" in body


def test_leaderboard_columns_follow_a_custom_tie_break_order(client, make_event):
    ev = make_event(slug="custom-order", tie_breaks=["head_count", "points", "drawn"],
                    players=6)
    body = client.get(reverse("pages:leaderboard", kwargs={"slug": ev.slug})).content.decode()
    assert re.findall(r'<th class="num col-(\w+)"', body) == ["head_count", "points",
                                                               "games_played"]
    assert "No confirmed results yet." in body


def test_leaderboard_shows_movement_since_the_previous_round(client, event):
    # given: two entries whose places changed since the last round
    first, second = Standing.objects.filter(event=event).order_by("rank")[:2]
    first.previous_rank, second.previous_rank = 5, 2
    first.save(update_fields=["previous_rank"])
    second.save(update_fields=["previous_rank"])

    body = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug})).content.decode()
    assert '<span class="move up" title="up 4 places">▲4</span>' in body
    assert '<span class="move same" title="same place">–</span>' in body


def test_leaderboard_hands_its_script_the_api_and_the_standings_etag(client, event):
    response = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    live = live_data(response)
    api = client.get(live["api"])
    assert api.status_code == 200
    assert api["ETag"] == live["etag"]
    assert client.get(live["api"], HTTP_IF_NONE_MATCH=live["etag"]).status_code == 304
    assert live["columns"][0] == "points"


def test_leaderboard_search_finds_a_player_by_name_or_number(client, event):
    standing = Standing.objects.filter(event=event).select_related("entry__player").last()
    player = standing.entry.player
    url = reverse("pages:leaderboard", kwargs={"slug": event.slug})
    for query in (player.name, str(player.number)):
        body = client.get(url, {"q": query}).content.decode()
        assert body.count("data-entry=") == 1
        assert f'data-entry="{standing.entry_id}"' in body and player.name in body


# ----------------------------------------------------------------------------- find my table
def test_find_my_table_by_name_highlights_the_players_seat(client, event):
    seat = Seat.objects.filter(round__event=event, table__number=2).select_related(
        "player").get(seat=3)
    response = client.get(reverse("pages:seating", kwargs={"slug": event.slug}),
                          {"q": seat.player.name})
    body = response.content.decode()
    assert f"{seat.player.name}: table 2, seat 4, black (黑方)" in body  # engine seat 3 is 4号位
    assert re.search(r'class="table-card hit" id="table-2"', body)
    assert re.search(r'<li class="seat side-1 hit">.*?' + re.escape(seat.player.name), body)
    assert 'id="table-1"' not in body  # only the table found


def test_find_my_table_by_player_number_and_by_table_number(client, event):
    seat = Seat.objects.filter(round__event=event, table__number=1).select_related(
        "player").first()
    url = reverse("pages:seating", kwargs={"slug": event.slug})
    body = client.get(url, {"q": str(seat.player.number)}).content.decode()
    assert "table 1, seat" in body
    body = client.get(url, {"q": "2"}).content.decode()
    assert 'class="table-card hit" id="table-2"' in body


def test_find_my_table_tells_a_player_with_a_bye(client, event):
    bye = Bye.objects.filter(round__event=event).select_related("entry__player").first()
    body = client.get(reverse("pages:seating", kwargs={"slug": event.slug}),
                      {"q": bye.entry.player.name}).content.decode()
    assert f"{bye.entry.player.name} has a bye this round (2 points)." in body


def test_find_my_table_says_when_nobody_matches(client, event):
    body = client.get(reverse("pages:seating", kwargs={"slug": event.slug}),
                      {"q": "nobody-here"}).content.decode()
    assert "No table found for “nobody-here”." in body


def test_seating_links_the_csv_and_the_tables_api(client, event):
    response = client.get(reverse("pages:seating", kwargs={"slug": event.slug}))
    csv_url = reverse("api:round-seating-csv", kwargs={"slug": event.slug, "number": 1})
    assert csv_url in response.content.decode()
    assert client.get(csv_url)["Content-Type"].startswith("text/csv")
    live = live_data(response)
    assert client.get(live["tables_api"], {"player": "张伟"}).status_code == 200


# ----------------------------------------------------------------------------- table page
def test_table_page_shows_seats_sides_games_and_their_status(client, event, referee_user):
    # given: table 2 with one game submitted, not yet confirmed
    table = event.rounds.get(number=1).tables.get(number=2)
    play_table(table=table, referee=referee_user, confirm=False)
    url = reverse("pages:table", kwargs={"slug": event.slug, "number": 1, "table": 2})

    body = client.get(url).content.decode()
    for seat in Seat.objects.filter(table=table).select_related("player"):
        assert re.search(rf'ring-seat seat-{seat.seat} side-{seat.seat % 2}">.*?'
                         + re.escape(seat.player.name), body, re.S)
    assert body.count('<span class="badge ">submitted, awaiting confirmation</span>') == 2
    assert "对头: seat 3" in body

    # when: the referee confirms them
    from games import services as game_services
    from games.models import GameResult
    game_services.results_confirm(results=GameResult.objects.filter(table=table),
                                  by=referee_user)
    body = client.get(url).content.decode()
    assert body.count('<span class="badge ">submitted, awaiting confirmation</span>') == 0
    assert body.count('<span class="badge done">confirmed</span>') == 2


def test_a_tables_stable_address_opens_it_in_the_current_round(client, event):
    response = client.get(reverse("pages:table-current", kwargs={"slug": event.slug,
                                                                 "table": 2}))
    assert response.status_code == 302
    assert response["Location"] == reverse("pages:table", kwargs={
        "slug": event.slug, "number": 1, "table": 2})
    unused = client.get(reverse("pages:table-current", kwargs={"slug": event.slug,
                                                               "table": 9}))
    assert unused.status_code == 200
    assert "Table 9 is not in use in round 1." in unused.content.decode()


# ----------------------------------------------------------------------------- projector
def test_projector_hands_its_script_the_apis_and_clamps_its_settings(client, event):
    response = client.get(reverse("pages:projector", kwargs={"slug": event.slug}),
                          {"rows": "500", "seconds": "x"})
    assert response.status_code == 200
    live = live_data(response)
    assert live["rows"] == 40 and live["seconds"] == 10
    assert client.get(live["standings_api"]).status_code == 200
    assert client.get(live["rounds_api"]).status_code == 200
    assert 'class="qr"' in response.content.decode()


# ----------------------------------------------------------------------------- languages
def test_pages_follow_the_browsers_language(client, event):
    url = reverse("pages:leaderboard", kwargs={"slug": event.slug})
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert chinese["Content-Language"] == "zh-hans"
    body = chinese.content.decode()
    assert "<h1>排行榜</h1>" in body and "第 1 轮后" in body
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert "<h1>Leaderboard</h1>" in english.content.decode()


def test_the_language_switcher_changes_the_language_and_returns(client, event):
    url = reverse("pages:seating", kwargs={"slug": event.slug})
    body = client.get(url).content.decode()
    assert 'name="language" value="zh-hans"' in body  # the switcher is on the page

    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": url})
    assert response.status_code == 302 and response["Location"] == url
    assert "查找座位" in client.get(url).content.decode()

    client.post(reverse("set_language"), {"language": "en", "next": url})
    assert "Find my table" in client.get(url).content.decode()


def test_every_page_has_the_language_switcher(client, event):
    for url in page_urls(event.slug):
        response = client.get(url, follow=True)
        assert 'action="/i18n/setlang/"' in response.content.decode(), url


def test_the_script_texts_are_translated_too(client, event):
    body = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}),
                      HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    texts = json.loads(re.search(r'<script id="js-text" type="application/json">(.*?)</script>',
                                 body, re.S).group(1))
    assert texts["table"] == "第 %(n)s 桌"
    assert texts["confirmed_status"] == "已确认"


# ----------------------------------------------------------------------------- QR codes
@pytest.fixture
def staff_client(client, db):
    user = get_user_model().objects.create_superuser("organizer", "o@example.org", "pw-12345")
    client.force_login(user)
    return client


def test_qr_codes_page_is_for_the_events_staff_only(client, event, referee_user):
    """Anonymous visitors sign in on the site's page; a stranger gets 404; the event's
    referee (and organizers) print them without the admin."""
    url = reverse("pages:qr", kwargs={"slug": event.slug})
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("pages:login"))
    client.force_login(get_user_model().objects.create_user("stranger"))
    assert client.get(url).status_code == 404
    client.force_login(referee_user)
    assert client.get(url).status_code == 200


def test_qr_codes_page_renders_an_svg_per_page_and_per_table(staff_client, event):
    response = staff_client.get(reverse("pages:qr", kwargs={"slug": event.slug}))
    assert response.status_code == 200
    body = response.content.decode()
    tables = event.rounds.get(number=1).tables.count()
    assert body.count("<svg") == 3 + tables  # event, leaderboard, find my table + tables
    assert f"http://testserver/e/{event.slug}/table/{tables}/" in body
    more = staff_client.get(reverse("pages:qr", kwargs={"slug": event.slug}), {"tables": "5"})
    assert more.content.decode().count("<svg") == 3 + 5


def test_qr_codes_print_for_an_unpublished_event_too(staff_client, make_event):
    ev = make_event(slug="not-yet", published=False, players=6)
    response = staff_client.get(reverse("pages:qr", kwargs={"slug": ev.slug}))
    assert response.status_code == 200
    assert "not published yet" in response.content.decode()


def test_admin_action_opens_the_printable_qr_page(staff_client, event, make_event):
    other = make_event(slug="second-cup", name="Second cup", players=6)
    response = staff_client.post(reverse("admin:tournaments_event_changelist"), {
        "action": "print_qr_codes", "_selected_action": [event.pk, other.pk]})
    assert response.status_code == 302
    page = staff_client.get(response["Location"])
    assert page.status_code == 200
    body = page.content.decode()
    assert event.name in body and "Second cup" in body


def test_pages_carry_no_inline_script_handler_or_style(staff_client, event):
    # so a Content-Security-Policy without 'unsafe-inline' leaves every page working
    urls = [reverse("pages:events"), *page_urls(event.slug), "/e/no-such-event/",
            reverse("pages:qr", kwargs={"slug": event.slug})]
    for url in urls:
        body = staff_client.get(url, follow=True).content.decode()
        for attributes in re.findall(r"<script\b([^>]*)>", body):
            assert 'src="' in attributes or 'type="application/json"' in attributes, url
        assert not re.search(r"<[^>]*\s(on[a-z]+|style)=", body), url
        assert "<style" not in body, url


def test_admin_event_page_links_the_qr_codes(staff_client, event):
    response = staff_client.get(reverse("admin:tournaments_event_change", args=[event.pk]))
    assert reverse("pages:qr", kwargs={"slug": event.slug}) in response.content.decode()


def test_standings_page_and_csv_agree(client, event, referee_user):
    # given: table 2 plays too
    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    standings_recompute(event_id=event.pk)
    body = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug})).content.decode()
    csv_text = client.get(reverse("api:standings-csv", kwargs={"slug": event.slug})
                          ).content.decode("utf-8-sig")
    csv_names = [line.split(",")[1] for line in csv_text.strip().splitlines()[1:]]
    # each name links to its history (issue 19)
    html_names = re.findall(r'<td class="name"><a href="/e/[^"]+/entries/\d+/">([^<]+?)</a>'
                            r'(?: <small class="pno">#(\d+)</small>)?</td>', body)
    assert csv_names == [f"{name} (#{number})" for name, number in html_names]


def test_leaderboard_search_is_polled_with_the_same_search(client, event):
    player = Seat.objects.filter(round__event=event).select_related("player").first().player
    response = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}),
                          {"q": player.name})
    live = live_data(response)
    results = client.get(live["api"]).json()["results"]
    assert [r["entry"]["number"] for r in results] == [player.number]


def test_a_team_event_shows_its_teams(client, referee_user):
    # given: a team event of four 联邦 teams, round 1 paired and published, table 1 played
    event = event_create(name="团体赛", slug="team-cup", format="team",
                                  games_per_match=2, rounds_planned=3)
    event.referees.add(referee_user)
    for t in range(4):
        players = [player_create(name=f"队{t}员{k}", number=500 + 3 * t + k)
                   for k in range(3)]
        entry = team_register(event=event, name=f"联队{t}", players=players)
        entry_check_in(entry=entry)
    event_publish(event=event)
    rnd = draw_round(event)
    table = rnd.tables.get(number=1)
    play_table(table=table, referee=referee_user)
    standings_recompute(event_id=event.pk)

    # then
    board = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug}))
    body = board.content.decode()
    assert "联邦 team" in body and "联队0" in body
    assert re.findall(r'<th class="num col-(\w+)"', body)[:2] == ["match_points", "points"]
    seating = client.get(reverse("pages:seating", kwargs={"slug": event.slug})).content.decode()
    assert f'<span class="side-0">{table.team_a.name}</span>' in seating
    page = client.get(reverse("pages:table", kwargs={"slug": event.slug, "number": 1,
                                                     "table": 1})).content.decode()
    assert table.team_b.name in page
