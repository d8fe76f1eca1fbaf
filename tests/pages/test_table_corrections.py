"""Corrections from the phone (web/views/table.py, issue 52): a seated player corrects a result
awaiting confirmation, or proposes a correction of a confirmed one, with the same form as a
submission (prefilled with the result) and a required reason; the other 联邦 accepts it on
their own link; a closed round takes no correction; a submission that lost the race to another
opens the correction form with what was entered. Plain POSTs, as a phone without JavaScript."""

from __future__ import annotations

import re

import pytest

from games.models import GameResult, ResultProposal
from games.services import result_confirm, result_submit
from tests.pages import test_table_views
from tests.pages.helpers import draw_round, play_table
from tests.pages.test_table_views import FIRST, sheet_post
from tournaments.models import Seat

pytestmark = pytest.mark.django_db

#: the table, its seats and their private links (test_table_views' fixtures)
table, seats, links = test_table_views.table, test_table_views.seats, test_table_views.links

CORRECTED = (5, 0, 2, 4, 1, 3)  # 6号位 went out first: 联邦 1 takes 头科


def fix_post(order=CORRECTED, reason="6号位先出完", **extra) -> dict:
    """The correction form as a phone without JavaScript posts it (its fields prefixed)."""
    data = {"number": "1", "form": "fix", "reason": reason, "fix-leader": "0",
            **{f"fix-place_{i}": str(s) for i, s in enumerate(order)},
            **{f"fix-kaidian_{s}": "yes" for s in range(6)}}
    return {**data, **extra}


def selected(page: str, name: str) -> str | None:
    """The value selected in the page's ``<select name=…>``."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S)
    option = re.search(r'<option value="(\d*)" selected>', select[1]) if select else None
    return option[1] if option else None


@pytest.fixture
def confirmed(table, seats):
    users = [s.player.user for s in seats]
    return result_confirm(result=result_submit(table=table, number=1, sheet=FIRST,
                                               by=users[0]), by=users[1])


def test_a_player_proposes_a_correction_of_a_confirmed_result_and_the_other_side_accepts(
        client, links, confirmed):
    # given: the page of 1号位 (联邦 0) offers a correction of confirmed game 1
    page = client.get(links[0]).content.decode()
    assert f'href="{links[0]}?correct=1#correct-1"' in page and "Propose a correction" in page

    # when: they open it — the form holds the result as it stands
    page = client.get(links[0] + "?correct=1").content.decode()
    assert 'id="correct-1"' in page and 'action="' + links[0] + \
        f'results/{confirmed.pk}/correct/#correct-1"' in page
    assert [selected(page, f"fix-place_{i}") for i in range(6)] == [
        str(s) for s in FIRST["order"]]

    # then: without a reason nothing is proposed, and the page says why beside the form
    r = client.post(links[0] + f"results/{confirmed.pk}/correct/", fix_post(reason=" "))
    assert r.status_code == 400 and not ResultProposal.objects.exists()
    assert "a correction needs a reason" in r.content.decode()
    assert selected(r.content.decode(), "fix-place_0") == "5"  # what they entered, kept

    # when: with a reason
    r = client.post(links[0] + f"results/{confirmed.pk}/correct/", fix_post())
    assert r.status_code == 302 and r["Location"] == links[0] + "#game-1"

    # then: a proposal, the result unchanged meanwhile
    proposal = ResultProposal.objects.get(result=confirmed)
    assert (proposal.status, proposal.reason) == ("open", "6号位先出完")
    assert proposal.engine_result["order"] == list(CORRECTED)
    confirmed.refresh_from_db()
    assert (confirmed.version, confirmed.status) == (1, "confirmed")
    own = client.get(links[0]).content.decode()
    assert "Withdraw my correction" in own and "Propose a correction" not in own  # one at a time

    # when: 2号位 (联邦 1) accepts it on their own link
    other = client.get(links[1]).content.decode()
    assert "Accept the correction" in other
    r = client.post(links[1] + f"results/{confirmed.pk}/proposals/{proposal.pk}/accept/")
    assert r.status_code == 302

    # then: the table shows the new version
    confirmed.refresh_from_db()
    assert (confirmed.version, confirmed.status) == (2, "confirmed")
    assert confirmed.engine_result["order"] == list(CORRECTED)
    page = client.get(links[0]).content.decode()
    assert "Version 2" in page and "6号位先出完" in page


def test_a_result_awaiting_confirmation_is_corrected_for_the_other_side_to_confirm(
        client, links, table, seats):
    # given: 1号位 (联邦 0) handed in game 1
    client.post(links[0] + "submit/", sheet_post())
    result = GameResult.objects.get(table=table, number=1)
    page = client.get(links[1]).content.decode()
    assert "Waiting for your confirmation" in page and "Correct it" in page

    # when: 2号位 (联邦 1) corrects it instead of confirming
    r = client.post(links[1] + f"results/{result.pk}/correct/", fix_post())
    assert r.status_code == 302

    # then: version 2, theirs, awaiting 联邦 0's confirmation (not a proposal)
    result.refresh_from_db()
    assert (result.version, result.status) == (2, "submitted")
    assert result.versions.get(version=2).submitted_by == seats[1].player.user
    assert not ResultProposal.objects.exists()
    assert "Waiting for your confirmation" in client.get(links[0]).content.decode()
    assert "Waiting for your confirmation" not in client.get(links[1]).content.decode()


def test_score_it_shows_the_corrections_points_and_changes_nothing(client, links, confirmed):
    r = client.post(links[0] + f"results/{confirmed.pk}/correct/", {
        **fix_post(), "preview": "1"})
    assert r.status_code == 200 and "Team points:" in r.content.decode()
    assert not ResultProposal.objects.exists()
    r = client.post(links[0] + "score/", fix_post())
    assert r.json()["ok"] is True and r.json()["points"] == [2, 0]


def test_an_impossible_correction_is_refused_on_its_field_in_chinese(client, links, confirmed):
    # 1号位 revolted (革命) yet is marked 开点
    r = client.post(links[0] + f"results/{confirmed.pk}/correct/",
                    fix_post(order=(1, 2, 3, 0, 4, 5), **{"fix-revolution_0": "on",
                                                          "fix-leader": "1"}),
                    HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    assert "1号位革命了，应为不开点" in r.content.decode()
    assert not ResultProposal.objects.exists()


def test_a_closed_round_offers_no_correction_and_takes_none(client, links, confirmed, table,
                                                            referee_user):
    # given: every game of round 1 confirmed, and round 2 drawn (not published yet, so the
    # players' pages still show round 1): round 1 is closed
    result_confirm(result=result_submit(table=table, number=2, sheet=FIRST, by=referee_user),
                   by=referee_user, as_referee=True)
    play_table(table=table.round.tables.get(number=2), referee=referee_user)
    draw_round(table.round.event, publish=False)
    page = client.get(links[0]).content.decode()
    assert "?correct=1" not in page
    assert 'id="correct-1"' not in client.get(links[0] + "?correct=1").content.decode()
    # when / then: a correction sent anyway is refused by the service, and nothing changes
    r = client.post(links[0] + f"results/{confirmed.pk}/correct/", fix_post())
    assert r.status_code == 409 and "only a referee" in r.content.decode()
    assert not ResultProposal.objects.exists()


def test_a_correction_of_another_tables_result_is_a_404(client, links, table):
    other = table.round.tables.get(number=2)
    result = result_submit(table=other, number=1, sheet=FIRST,
                           by=Seat.objects.get(table=other, seat=0).player.user)
    r = client.post(links[0] + f"results/{result.pk}/correct/", fix_post())
    assert r.status_code == 404
    assert GameResult.objects.get(pk=result.pk).version == 1


def test_a_sheet_sent_after_someone_else_opens_the_correction_form_with_it(
        client, links, table, seats):
    # given: 2号位 handed in game 1 while 1号位 was filling in the same game differently
    result_submit(table=table, number=1, sheet=FIRST, by=seats[1].player.user)

    # when
    r = client.post(links[0] + "submit/", sheet_post(order=CORRECTED))

    # then: nothing stored of theirs; the page says so at its top and opens game 1's
    # correction form with what they entered, for them to send with a reason
    assert r.status_code == 409
    page = r.content.decode()
    assert page.index('class="notice error"') < page.index('id="seats-h"')
    assert "someone at your table sent it first" in page
    assert 'id="correct-1"' in page and "The form holds what you entered." in page
    assert [selected(page, f"fix-place_{i}") for i in range(6)] == [str(s) for s in CORRECTED]
    assert GameResult.objects.get(table=table, number=1).version == 1
