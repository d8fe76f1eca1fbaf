"""A seated player's table pages (web/views/table.py, issue 16): by private link or signed in;
the result form (without JavaScript: plain POSTs), confirmation and dispute by the other 联邦,
proposals; a link opens nothing of another table or event; revoked links 404; rate limits;
the printable slips."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from games.models import GameResult, ResultProposal
from games.services import result_confirm, result_correct, result_submit
from tests.pages.helpers import draw_round
from tournaments.models import Seat
from tournaments.services.links import entry_link_issue, entry_link_revoke
from tournaments.services.rounds import round_publish

pytestmark = pytest.mark.django_db

FIRST = {"order": [0, 2, 4, 1, 3, 5], "kaidian": [True] * 6}  # dagang: 联邦 0 scores


@pytest.fixture
def table(make_event):
    """Table 1 of round 1 of a published event, with nothing played yet."""
    event = make_event(slug="link-open")
    return draw_round(event).tables.get(number=1)


@pytest.fixture
def seats(table):
    return list(Seat.objects.filter(table=table).select_related("player", "entry")
                .order_by("seat"))


@pytest.fixture
def links(seats):
    """Each seat's private link address, in seat order (/p/<token>/)."""
    out = []
    for s in seats:
        (link,) = entry_link_issue(entry=s.entry)
        out.append(f"/p/{link.token()}/")
    for s in seats:
        s.player.refresh_from_db()
    return out


def place_fields(order) -> dict:
    return {f"place_{i}": str(seat) for i, seat in enumerate(order)}


def sheet_post(order=(0, 2, 4, 1, 3, 5), **extra) -> dict:
    """The result form as a phone without JavaScript posts it (dagang: 开点 for every seat)."""
    return {"number": "1", **place_fields(order), "leader": "0",
            **{f"kaidian_{s}": "yes" for s in range(6)}, **extra}


def test_the_link_opens_the_players_table_with_six_seats_and_the_form(client, links, seats):
    r = client.get(links[0])
    assert r.status_code == 200
    page = r.content.decode()
    assert all(s.player.name in page for s in seats)
    assert 'id="sheet"' in page and 'name="place_5"' in page
    assert "1号位" in page or "seat 1" in page


def test_a_sheet_posted_without_javascript_is_scored_then_sent(client, links, table):
    # "Score it" shows the team points and stores nothing
    r = client.post(links[0] + "submit/", {**sheet_post(), "preview": "1"})
    assert r.status_code == 200
    assert not GameResult.objects.filter(table=table).exists()
    assert "Team points" in r.content.decode()
    # "Send" stores it as the player's, awaiting the other side
    r = client.post(links[0] + "submit/", sheet_post())
    assert r.status_code == 302 and r["Location"] == links[0] + "#game-1"
    result = GameResult.objects.get(table=table, number=1)
    assert result.status == "submitted" and result.points_a > 0
    assert "Waiting for your confirmation" not in client.get(links[0]).content.decode()
    assert "Waiting for your confirmation" in client.get(links[1]).content.decode()


def test_a_refusal_points_at_the_field_in_the_players_language(client, links, table):
    # seat 0 (1号位) revolted (革命, so 不开点) yet is marked as the first leader
    data = sheet_post(order=(2, 4, 1, 0, 3, 5), revolution_0="on")
    data.pop("kaidian_0")
    r = client.post(links[2] + "submit/", data, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    assert '<ul class="errorlist" id="id_leader_error"><li>1号位革命了，不可能首出</li></ul>' in \
        r.content.decode()
    assert not GameResult.objects.filter(table=table).exists()
    r = client.post(links[2] + "score/", data, HTTP_ACCEPT_LANGUAGE="en")
    assert r.json() == {"ok": False, "errors": {"leader": [
        "seat 1 revolted, so it cannot have led"]}}


def test_the_score_endpoint_answers_points_or_errors_by_field(client, links):
    r = client.post(links[0] + "score/", sheet_post())
    assert r.json()["ok"] is True and r.json()["points"][0] > 0
    r = client.post(links[0] + "score/", {**sheet_post(), "place_1": "0"})
    body = r.json()
    assert body["ok"] is False and "place_0" in body["errors"]


def test_the_other_side_confirms_through_its_link(client, links, table):
    client.post(links[0] + "submit/", sheet_post())
    result = GameResult.objects.get(table=table, number=1)
    # the submitter's partner cannot: the service refuses, the page says why
    r = client.post(links[2] + f"results/{result.pk}/confirm/", {"version": "1"})
    assert r.status_code == 403
    r = client.post(links[1] + f"results/{result.pk}/confirm/", {"version": "1"})
    assert r.status_code == 302
    result.refresh_from_db()
    assert result.status == "confirmed"


def test_the_other_side_disputes_with_a_reason(client, links, table):
    client.post(links[0] + "submit/", sheet_post())
    result = GameResult.objects.get(table=table, number=1)
    r = client.post(links[3] + f"results/{result.pk}/dispute/", {"reason": ""})
    assert r.status_code == 400
    r = client.post(links[3] + f"results/{result.pk}/dispute/", {"reason": "seat 6 was first"})
    assert r.status_code == 302
    result.refresh_from_db()
    assert result.status == "disputed"
    page = client.get(links[0]).content.decode()
    assert "seat 6 was first" in page


def test_open_proposals_are_accepted_by_the_other_side(client, links, table, seats):
    users = [s.player.user for s in seats]
    result = result_confirm(result=result_submit(table=table, number=1, sheet=FIRST,
                                                 by=users[0]), by=users[1])
    proposal = result_correct(result=result, reason="seat 6 went out first", by=users[5],
                              sheet={"order": [5, 0, 2, 4, 1, 3], "kaidian": [True] * 6}
                              ).proposal
    page = client.get(links[5]).content.decode()
    assert "Withdraw my correction" in page and "Accept the correction" not in page
    page = client.get(links[0]).content.decode()
    assert "Accept the correction" in page
    r = client.post(links[0] + f"results/{result.pk}/proposals/{proposal.pk}/accept/")
    assert r.status_code == 302
    assert ResultProposal.objects.get(pk=proposal.pk).status == "accepted"


def test_a_link_opens_nothing_of_another_table(client, links, table):
    other = table.round.tables.get(number=2)
    other_seats = list(Seat.objects.filter(table=other).select_related("entry", "player")
                       .order_by("seat"))
    submitter = entry_link_issue(entry=other_seats[0].entry)[0].player.user
    result = result_submit(table=other, number=1, sheet=FIRST, by=submitter)
    for action in ("confirm", "dispute"):
        r = client.post(links[1] + f"results/{result.pk}/{action}/", {"reason": "x"})
        assert r.status_code == 404
    assert GameResult.objects.get(pk=result.pk).status == "submitted"
    page = client.get(links[1]).content.decode()
    assert all(s.player.name not in page for s in other_seats)


def test_a_link_of_another_event_opens_nothing_here(client, make_event, links, table):
    event_b = make_event(slug="other-open", name="Other open")
    rnd = draw_round(event_b)
    seat_b = rnd.tables.get(number=1).seats.select_related("entry").first()
    (link_b,) = entry_link_issue(entry=seat_b.entry)
    result = result_submit(table=table, number=1, sheet=FIRST,
                           by=Seat.objects.get(table=table, seat=0).player.user)
    r = client.post(f"/p/{link_b.token()}/results/{result.pk}/confirm/")
    assert r.status_code == 404
    assert "Other open" in client.get(f"/p/{link_b.token()}/").content.decode()


def test_a_revoked_or_reissued_link_is_a_404(client, links, seats):
    assert client.get(links[0]).status_code == 200
    entry_link_revoke(entry=seats[0].entry)
    assert client.get(links[0]).status_code == 404
    (new,) = entry_link_issue(entry=seats[0].entry)
    assert client.get(f"/p/{new.token()}/").status_code == 200
    entry_link_issue(entry=seats[0].entry)
    assert client.get(f"/p/{new.token()}/").status_code == 404


def test_links_are_rate_limited_per_player_and_misses_per_address(links, monkeypatch):
    from web.views.table import LinkThrottle

    monkeypatch.setattr(LinkThrottle, "THROTTLE_RATES", {"links": "3/min",
                                                         "link_misses": "2/min"})
    cache.clear()
    c = Client()
    assert [c.get(links[0]).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert c.get(links[1]).status_code == 200  # another player at the same address is not held
    wrong = "/p/" + "x" * 43 + "/"
    assert [c.get(wrong).status_code for _ in range(3)] == [404, 404, 429]
    cache.clear()


def test_signed_in_players_get_the_same_page_at_me(client, links, seats):
    user = seats[0].player.user
    user.set_password("a-long-password-1")
    user.save()
    assert client.get("/me/").status_code == 302  # to the sign-in page
    r = client.post("/accounts/login/", {"username": user.username,
                                         "password": "a-long-password-1"})
    assert r.status_code == 302 and r["Location"] == "/me/"
    page = client.get("/me/").content.decode()
    assert 'id="sheet"' in page and seats[0].player.name in page
    assert links[0] in page  # their private link, shown to them with its QR code


def test_slips_are_for_the_events_staff_and_issue_missing_links(client, table, referee_user,
                                                                 seats):
    url = f"/e/{table.round.event.slug}/rounds/1/slips/"
    assert client.get(url).status_code in (302, 404)
    client.force_login(referee_user)
    r = client.get(url)
    assert r.status_code == 200
    page = r.content.decode()
    assert page.count('class="slip"') == Seat.objects.filter(round=table.round).count()
    assert "<svg" in page and "/p/" in page
    again = client.get(url).content.decode()
    tokens = sorted(set(p.split("/")[0] for p in page.split("/p/")[1:]))
    assert tokens == sorted(set(p.split("/")[0] for p in again.split("/p/")[1:]))


def test_once_every_game_has_its_result_the_page_offers_no_game_and_says_why(
        client, links, table, referee_user):
    # given: both games of the match handed in (not yet confirmed)
    for number in (1, 2):
        result_submit(table=table, number=number, sheet=FIRST, by=referee_user)

    # when
    page = client.get(links[0]).content.decode()

    # then: no form, no deal button, and a line in the "play on this phone" card saying why
    assert 'id="sheet"' not in page and 'id="live-start"' not in page
    assert 'id="live-none"' in page and "no game left to play here" in page
    chinese = client.get(links[0], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "这里没有可打的牌局了" in chinese


def test_a_tied_knockout_match_offers_its_deciding_extra_game_once_every_game_is_confirmed(
        referee_user):
    from tests.pages.test_dashboard import _knockout_cup
    from tests.tournaments.test_knockout import TEAM0_WINS, TEAM1_WINS, _draw

    # given: the final, its two games handed in and tied 12 : 12
    event = _knockout_cup(referee_user)
    final = round_publish(round=_draw(event, knockout=True)).tables.get()
    results = [result_submit(table=final, number=n, sheet=sheet, by=referee_user)
               for n, sheet in ((1, TEAM0_WINS), (2, TEAM1_WINS))]
    seat = Seat.objects.select_related("entry", "player").get(table=final, seat=1)
    (link,) = entry_link_issue(entry=seat.entry, player=seat.player)
    url = f"/p/{link.token()}/"

    # then: not yet — the games are not confirmed
    page = Client().get(url).content.decode()
    assert 'id="sheet"' not in page and "deciding extra game (加赛)" in page

    # when: both confirmed, the match tied
    for result in results:
        result_confirm(result=result, by=referee_user, as_referee=True)
    page = Client().get(url).content.decode()

    # then: game 3, the extra game, can be handed in or dealt live from the page
    assert 'name="number" value="3"' in page and 'id="live-ready"' in page
    assert "Game 3 is dealt live" in page and 'id="live-none"' not in page
    response = Client().post(url + "submit/", {
        "number": "3", **place_fields((1, 3, 5, 0, 2, 4)), "leader": "0",
        **{f"kaidian_{s}": "yes" for s in range(6)}})
    assert response.status_code == 302
    assert GameResult.objects.get(table=final, number=3).status == "submitted"


def test_a_match_still_tied_after_the_last_extra_game_says_the_referee_settles_it(
        referee_user, monkeypatch):
    from tests.pages.test_dashboard import _knockout_cup
    from tests.tournaments.test_knockout import TEAM0_WINS, TEAM1_WINS, _draw

    # given: a final tied 12 : 12 after its two games, both confirmed, and no extra game left
    # to play (the most a match plays, made none here: a tie after five real ones is rare)
    monkeypatch.setattr("tournaments.services.matches.MAX_EXTRA_GAMES", 0)
    event = _knockout_cup(referee_user)
    final = round_publish(round=_draw(event, knockout=True)).tables.get()
    for n, sheet in ((1, TEAM0_WINS), (2, TEAM1_WINS)):
        result_confirm(result=result_submit(table=final, number=n, sheet=sheet, by=referee_user),
                       by=referee_user, as_referee=True)
    seat = Seat.objects.select_related("entry", "player").get(table=final, seat=1)
    (link,) = entry_link_issue(entry=seat.entry, player=seat.player)

    # when
    page = Client().get(f"/p/{link.token()}/").content.decode()

    # then: nothing to hand in or deal, and the card says who settles it (not "once every game
    # is confirmed": every game is)
    assert 'id="sheet"' not in page and 'id="live-start"' not in page
    assert "the referee settles it" in page and "once every game is confirmed" not in page
    chinese = Client().get(f"/p/{link.token()}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "由裁判裁定" in chinese
