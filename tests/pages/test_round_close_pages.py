"""A closed round on the pages (issue 51, item 9): once the next round is drawn, a player's
table page says the round is closed and a referee must make any change, offers no
acceptance, and refuses one sent anyway with that message; the referee desk says the round is
closed, marks a change made after the close in the history and says, for each later round,
whether its draw would have come out otherwise — in both languages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services as game_services
from games.models import GameResult, ResultProposal
from tests.pages.helpers import draw_round
from tests.pages.test_desk import sheet_post
from tournaments import draw as draw_module
from tournaments.models import Seat
from tournaments.services.draws import later_draws
from tournaments.services.links import entry_link_issue
from tournaments.standings import compute

pytestmark = pytest.mark.django_db


def sheet(order) -> dict:
    return {"order": list(order), "kaidian": [True] * 6}


# dagang, every seat 开点: 联邦 0 scores 2 with the first sheet, 12 with the second
SMALL_WIN, BIG_WIN = sheet([0, 1, 2, 3, 4, 5]), sheet([0, 2, 4, 1, 3, 5])


def play(table, referee, *sheets) -> None:
    """Enter and confirm the table's games from ``sheets``, as a referee."""
    for number, body in enumerate(sheets, 1):
        result = game_services.result_submit(table=table, number=number, sheet=body, by=referee)
        game_services.result_confirm(result=result, by=referee, as_referee=True)


@pytest.fixture
def fixed_seeds(monkeypatch):
    """Every round drawn from the same published seed, so that the seating (and whether a
    correction would change it) is the same on every run and database."""
    monkeypatch.setattr(draw_module, "new_seed", lambda: "5eed" * 16)


def desk_table_url(table) -> str:
    return reverse("pages:desk-table", kwargs={"slug": table.round.event.slug,
                                               "table_id": table.pk})


@pytest.fixture
def referee_client(client, referee_user):
    client.force_login(referee_user)
    return client


def swiss_event(make_event, referee_user, *, brackets: bool):
    """Twelve players, round 1 played and round 2 drawn (seated by score from round 2 when
    ``brackets``): table 1's 联邦 0 won 4 points, table 2's 联邦 0 14. Returns round 1."""
    event = make_event(slug="swiss-cup" if brackets else "random-cup", players=12,
                       swiss_brackets=brackets)
    round_1 = draw_round(event)
    play(round_1.tables.get(number=1), referee_user, SMALL_WIN, SMALL_WIN)
    play(round_1.tables.get(number=2), referee_user, BIG_WIN, SMALL_WIN)
    draw_round(event)
    return round_1


# ----------------------------------------------------------------------------- the desk
def test_the_desk_says_which_later_draw_a_correction_would_have_changed(
        referee_client, make_event, referee_user, fixed_seeds):
    # given a Swiss event whose round 2 was seated by score
    round_1 = swiss_event(make_event, referee_user, brackets=True)
    table = round_1.tables.get(number=1)
    page = referee_client.get(desk_table_url(table)).content.decode()
    assert "Round 1 is closed: round 2 has been drawn." in page
    assert "later-draws" not in page  # (nothing changed after the close: nothing re-drawn)
    ranks = {r.entry_id: r.rank for r in compute(round_1.event, 1)}
    # when the referee corrects game 1 of table 1: its 联邦 1 went out first and far
    response = referee_client.post(desk_table_url(table) + "?game=1", sheet_post(
        sheet([1, 3, 5, 0, 2, 4]), game=1, reason="the sheet was read the wrong way round"))
    assert response.status_code == 302
    # then the correction is marked, and table 1's two 联邦 swapped ranks in the standings
    result = GameResult.objects.get(table=table, number=1)
    assert (result.version, result.versions.get(version=2).after_close) == (2, 2)
    after = {r.entry_id: r.rank for r in compute(round_1.event, 1)}
    side = {s.entry_id: s.side for s in Seat.objects.filter(table=table)}
    assert all(after[e] < ranks[e] for e, s in side.items() if s == 1)
    assert all(after[e] > ranks[e] for e, s in side.items() if s == 0)
    # and the desk says round 2's draw would have been different, and where
    (later,) = later_draws(round_1)
    assert later.basis == "standings" and later.changed and later.tables
    tables = ", ".join(str(t) for t in later.tables)
    page = referee_client.get(desk_table_url(table)).content.decode()
    assert "after round 2 was drawn" in page
    assert ("Round 2 was seated by score: with the results as they stand now, its draw would "
            "have been different (table" in page) and tables in page
    chinese = referee_client.get(desk_table_url(table),
                                 HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第 1 轮已锁定：第 2 轮已抽签。" in chinese
    assert "第 2 轮抽签之后" in chinese
    assert f"第 2 轮按积分编排：按现在的成绩，其抽签本会不同（第 {tables} 桌）" in chinese


def test_a_random_draw_does_not_depend_on_the_standings(referee_client, make_event,
                                                        referee_user):
    round_1 = swiss_event(make_event, referee_user, brackets=False)
    table = round_1.tables.get(number=1)
    game_services.result_correct(result=GameResult.objects.get(table=table, number=1),
                                 sheet=sheet([1, 3, 5, 0, 2, 4]), by=referee_user,
                                 as_referee=True, reason="the wrong way round")
    page = referee_client.get(desk_table_url(table)).content.decode()
    assert ("Round 2 was drawn at random: its draw does not depend on the standings, so this "
            "change would not have changed it.") in page
    chinese = referee_client.get(desk_table_url(table),
                                 HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第 2 轮为随机抽签：其抽签不取决于排名，因此这次更改不会改变它。" in chinese


def test_the_desk_list_says_the_round_is_closed(referee_client, make_event, referee_user):
    round_1 = swiss_event(make_event, referee_user, brackets=False)
    url = reverse("pages:desk", kwargs={"slug": round_1.event.slug})
    assert "Round 1 is closed" in referee_client.get(url + "?round=1").content.decode()
    assert "is closed" not in referee_client.get(url + "?round=2").content.decode()


# ----------------------------------------------------------------------------- a player's page
@pytest.fixture
def proposal_before_the_close(make_event, referee_user):
    """Round 1 complete, seat 5 of table 1 proposing a correction of game 1 that is still
    open when round 2 is drawn (its seating not published yet: the players' links still open
    round 1). Returns the proposal and table 1's private links in seat order."""
    event = make_event(slug="closing-cup", players=12)
    round_1 = draw_round(event)
    table = round_1.tables.get(number=1)
    seats = list(Seat.objects.filter(table=table).select_related("entry").order_by("seat"))
    links = [f"/p/{entry_link_issue(entry=s.entry)[0].token()}/" for s in seats]
    play(table, referee_user, SMALL_WIN, SMALL_WIN)
    play(round_1.tables.get(number=2), referee_user, SMALL_WIN, SMALL_WIN)
    seat_5 = Seat.objects.select_related("player__user").get(pk=seats[5].pk).player.user
    proposal = game_services.result_correct(
        result=GameResult.objects.get(table=table, number=1), reason="I went out first",
        sheet=sheet([5, 0, 1, 2, 3, 4]), by=seat_5).proposal
    draw_round(event, publish=False)
    return proposal, links


def test_the_players_page_says_the_round_is_closed_and_refuses_an_acceptance(
        client, proposal_before_the_close):
    proposal, links = proposal_before_the_close
    page = client.get(links[0]).content.decode()
    assert "Round 1 is closed: round 2 has been drawn." in page and "ask a referee" in page
    assert "Accept the correction" not in page  # (declining it stays possible)
    chinese = client.get(links[0], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第 1 轮已锁定：第 2 轮已抽签。" in chinese
    # an acceptance sent from a page loaded before the draw is refused, with the reason
    response = client.post(links[0] + f"results/{proposal.result_id}/proposals/{proposal.pk}"
                                      "/accept/")
    assert response.status_code == 409
    assert ("round 1 is closed: round 2 has been drawn, so only a referee may change its "
            "results now") in response.content.decode()
    assert ResultProposal.objects.get(pk=proposal.pk).status == ResultProposal.Status.OPEN
    assert GameResult.objects.get(pk=proposal.result_id).version == 1
