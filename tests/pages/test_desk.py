"""The referee desk without a browser: who may open it, what it lists, and that each action
goes through its service, with refusals shown on the form and nothing changed."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from engine.bots import play_match
from engine.sheet import sheet_of
from games import services as game_services
from games.models import GameResult, ResultProposal
from tests.pages.helpers import draw_round, play_table
from tournaments.models import Entry, Penalty, Seat, Standing

pytestmark = pytest.mark.django_db


def desk_url(event, **params) -> str:
    url = reverse("pages:desk", kwargs={"slug": event.slug})
    return url + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


def table_url(table, **params) -> str:
    url = reverse("pages:desk-table", kwargs={"slug": table.round.event.slug,
                                              "table_id": table.pk})
    return url + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


def bot_sheet(event, seed=5) -> dict:
    """A possible sheet under the event's rules (a bot-played game's)."""
    game = play_match(event.rules, 1, random.Random(seed))[0]
    return sheet_of(game.result(), game.record()["leader"])


def sheet_post(sheet: dict, **extra) -> dict:
    """The sheet form's POST data for ``sheet`` (a ``gouji-sheet/1`` dict)."""
    data = {"action": "sheet", "sheet-leader": sheet.get("leader", 0)}
    for i, seat in enumerate(sheet["order"]):
        data[f"sheet-place_{i}"] = seat
    for s in sheet.get("revolutions") or []:
        data[f"sheet-revolution_{s}"] = "on"
    for e in sheet.get("eliminated") or []:
        data[f"sheet-out_{e['seat']}"] = e["reason"]
    for s, flag in enumerate(sheet.get("kaidian") or []):
        if s not in (sheet.get("revolutions") or []):  # (the form's rule answers those)
            data[f"sheet-kaidian_{s}"] = "yes" if flag else "no"
    for k, b in enumerate(sheet.get("burns") or []):
        data.update({f"sheet-burn_{k}_burner": b["burner"], f"sheet-burn_{k}_burned": b["burned"]})
        if b["counter"]:
            data[f"sheet-burn_{k}_counter"] = "on"
    return {**data, **extra}


@pytest.fixture
def referee_client(client, referee_user):
    client.force_login(referee_user)
    return client


@pytest.fixture
def table2(event):
    """Table 2 of round 1: no result yet."""
    return event.rounds.get(number=1).tables.get(number=2)


# ----------------------------------------------------------------------------- who
def test_the_desk_sends_a_visitor_to_sign_in(client, event, table2):
    for url in (desk_url(event), table_url(table2)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")


def test_a_player_of_the_event_is_refused(client, event, table2):
    # given: a seated player with a login
    seat = Seat.objects.filter(table=table2).first()
    user = get_user_model().objects.create(username="a-player")
    seat.player.user = user
    seat.player.save()
    client.force_login(user)

    # then: neither the desk nor a POST to a table
    assert client.get(desk_url(event)).status_code == 403
    response = client.post(table_url(table2), sheet_post(bot_sheet(event)) | {"confirm": "1"})
    assert response.status_code == 403
    assert not GameResult.objects.filter(table=table2).exists()


def test_a_referee_of_another_event_is_refused(client, event, make_event, table2):
    other = make_event(slug="other-cup")
    ref = get_user_model().objects.create(username="other-referee")
    other.referees.add(ref)
    client.force_login(ref)
    assert client.get(desk_url(event)).status_code == 403
    assert client.post(table_url(table2), {"action": "penalty"}).status_code == 403
    # and another event's table is not found under this event's desk
    client.force_login(get_user_model().objects.get(username="pages-referee"))
    rnd = draw_round(other)
    assert client.get(table_url(rnd.tables.first()).replace(other.slug, event.slug)
                      ).status_code == 404


def test_an_organizer_uses_the_desk(client, event):
    organizer = get_user_model().objects.create(username="an-organizer")
    event.organizers.add(organizer)
    client.force_login(organizer)
    assert client.get(desk_url(event)).status_code == 200


# ----------------------------------------------------------------------------- the list
def test_the_desk_lists_every_table_with_its_state_and_counts(referee_client, event, table2):
    response = referee_client.get(desk_url(event))
    assert response.status_code == 200
    chips = {c["key"]: c["count"] for c in response.context["chips"]}
    assert chips["confirmed"] == 1 and chips["none"] == 1
    states = {r["table"].number: r["state"] for r in response.context["rows"]}
    assert states == {1: "confirmed", 2: "none"}


def test_a_submitted_then_proposed_result_changes_the_tables_state(referee_client, event,
                                                                   table2, referee_user):
    game_services.result_submit(table=table2, number=1, sheet=bot_sheet(event),
                                by=referee_user)
    rows = referee_client.get(desk_url(event)).context["rows"]
    assert {r["table"].number: r["state"] for r in rows}[2] == "submitted"
    # filtered by state: only that table
    rows = referee_client.get(desk_url(event, state="submitted")).context["rows"]
    assert [r["table"].number for r in rows] == [2]


def test_the_desk_finds_a_table_by_number_player_name_or_number(referee_client, event, table2):
    seat = Seat.objects.select_related("player").filter(table=table2).first()
    for q in ("2", seat.player.name, str(seat.player.number)):
        rows = referee_client.get(desk_url(event, q=q)).context["rows"]
        assert 2 in [r["table"].number for r in rows], q
    rows = referee_client.get(desk_url(event, q="nobody-is-called-this")).context["rows"]
    assert rows == []


def test_the_desks_fragment_has_an_etag_and_answers_304_when_unchanged(referee_client, event):
    response = referee_client.get(desk_url(event, fragment=1))
    assert response.status_code == 200 and "<html" not in response.content.decode()
    again = referee_client.get(desk_url(event, fragment=1), HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_the_desk_costs_the_same_queries_for_more_tables(referee_client, event, make_event,
                                                         referee_user):
    # given: a second event with four times the tables, one with results
    big = make_event(slug="big-cup", players=48)
    play_table(table=draw_round(big).tables.get(number=3), referee=referee_user,
               confirm=False)
    counts = []
    for ev in (event, big):
        with CaptureQueriesContext(connection) as queries:
            assert referee_client.get(desk_url(ev)).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 13  # (13: the round's games being played live too)


# ----------------------------------------------------------------------------- one table
def test_a_table_shows_its_seats_and_games(referee_client, event):
    table = event.rounds.get(number=1).tables.get(number=1)
    body = referee_client.get(table_url(table)).content.decode()
    assert "seat 1" in body and "seat 6" in body
    chinese = referee_client.get(table_url(table), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "1号位" in chinese.content.decode() and "6号位" in chinese.content.decode()
    for seat in Seat.objects.filter(table=table).select_related("player"):
        assert seat.player.name in body


def test_the_sheets_heads_and_labels_begin_with_a_capital(referee_client, event, table2):
    body = referee_client.get(table_url(table2)).content.decode()
    assert '<th scope="col">Seat</th>' in body
    assert all(f'<th scope="row">Seat {n}</th>' in body for n in range(1, 7))  # (a row's head)
    for label in ("Burner:", "Burned:", "Counter-burn:"):
        assert f'">{label}</label>' in body, label
    assert '<th scope="col">Eliminated</th>' in body
    assert '">Void (流局)</label>' in body  # (after its box: no colon)
    chinese = referee_client.get(table_url(table2), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert '<th scope="row">6号位</th>' in chinese.content.decode()


def test_entering_a_paper_sheet_submits_and_confirms_it(referee_client, event, table2):
    sheet = bot_sheet(event)
    response = referee_client.post(table_url(table2), sheet_post(sheet, game=1, confirm="1"))
    assert response.status_code == 302
    result = GameResult.objects.get(table=table2, number=1)
    assert result.status == GameResult.Status.CONFIRMED
    assert result.engine_result["order"] == sheet["order"]


def test_a_game_being_played_live_is_in_play_with_a_link_to_watch_and_takes_no_sheet(
        referee_client, event, table2):
    from live import services as live

    # given: game 1 of table 2 dealt live
    live.live_start(table=table2)

    # when
    body = referee_client.get(table_url(table2)).content.decode()

    # then: game 1 is in play, with a link to watch it; the sheet is offered for game 2
    watch = reverse("pages:watch", kwargs={"slug": event.slug, "number": 1, "table": 2})
    assert "Being played live" in body and f'href="{watch}"' in body
    assert 'name="game" value="2"' in body and 'name="game" value="1"' not in body

    # and asked for game 1's sheet, the desk says the server records it instead of a form
    body = referee_client.get(table_url(table2, game=1)).content.decode()
    assert "Game 1: being played live" in body and 'name="game" value="1"' not in body
    chinese = referee_client.get(table_url(table2, game=1), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "第 1 局：正在线上进行" in chinese.content.decode()

    # and a sheet for game 1 posted from a page loaded before it was dealt live is refused,
    # said in the referee's language in the sheet section (where the form's answer scrolls to;
    # it shows no form to put it on)
    response = referee_client.post(table_url(table2), sheet_post(bot_sheet(event), game=1),
                                   HTTP_ACCEPT_LANGUAGE="zh-hans")
    body = response.content.decode()
    assert response.status_code == 400
    section = body[body.index('id="sheet"'):]
    assert '<p class="desk-error" role="alert">本桌第 1 局正在线上进行' in section
    assert not GameResult.objects.filter(table=table2).exists()

    # an event not published has no spectators' page to link to
    type(event).objects.filter(pk=event.pk).update(published=False)
    body = referee_client.get(table_url(table2)).content.decode()
    assert "Being played live" in body and f'href="{watch}"' not in body


def test_a_table_playing_live_is_in_play_on_the_desks_list_and_the_console(
        referee_client, event, table2):
    """The list and the organizer's console count a table whose game is being played live as
    in play, with that game's chip so, not as a table with nothing yet."""
    from live import services as live
    from web.views.console.rounds import round_progress

    # given: table 1's match confirmed, table 2's game 1 dealt live
    live.live_start(table=table2)

    # when
    response = referee_client.get(desk_url(event))

    # then
    rows = {row["table"].number: row for row in response.context["rows"]}
    assert rows[2]["state"] == "playing"
    assert [(g["number"], g["state"], g["label"]) for g in rows[2]["games"]] == [
        (1, "playing", "Game 1: in play"), (2, "none", "Game 2: nothing yet")]
    assert 'aria-label="Game 1: in play" title="Game 1: in play">1</span>' in \
        response.content.decode()
    chinese = referee_client.get(desk_url(event), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert 'aria-label="第 1 局：进行中"' in chinese.content.decode()
    assert rows[1]["state"] == "confirmed"
    chips = {chip["key"]: chip["count"] for chip in response.context["chips"]}
    assert (chips["playing"], chips["none"], chips["confirmed"]) == (1, 0, 1)
    states = round_progress(table2.round)["states"]
    assert (states["playing"], states["none"], states["confirmed"]) == (1, 0, 1)
    body = referee_client.get(desk_url(event, state="playing")).content.decode()
    assert "Table 2" in body and "Table 1" not in body


def test_a_game_being_played_live_keeps_a_table_in_play_whatever_else_it_has():
    from web.views.desk import table_state

    assert table_state(["confirmed", "playing"], 2) == "playing"  # game 2 live after game 1
    assert table_state(["playing"], 1) == "playing"
    assert table_state(["submitted", "playing"], 2) == "submitted"  # the referee's to do first
    assert table_state(["confirmed", "confirmed"], 2) == "confirmed"
    assert table_state([], 2) == "none"


def test_a_sheet_naming_a_seat_twice_is_refused_on_its_field(referee_client, event, table2):
    data = sheet_post(bot_sheet(event), game=1)
    data["sheet-place_1"] = data["sheet-place_0"]
    response = referee_client.post(table_url(table2), data)
    assert response.status_code == 400
    assert response.context["sheet_form"].errors["place_0"]
    assert not GameResult.objects.filter(table=table2).exists()


def test_an_engine_refusal_shows_on_its_field_in_the_readers_language(referee_client, event,
                                                                      table2):
    # a burn of one's own 对头: the engine refuses it
    data = sheet_post(bot_sheet(event), game=1) | {"sheet-burn_0_burner": "0",
                                                   "sheet-burn_0_burned": "3"}
    response = referee_client.post(table_url(table2), data)
    assert response.status_code == 400
    assert response.context["sheet_form"].errors["burn_0_burner"] == [
        "a seat cannot burn itself or its 对头"]
    assert not GameResult.objects.filter(table=table2).exists()


def test_confirm_confirms_a_submitted_result(referee_client, event, table2, referee_user):
    result = game_services.result_submit(table=table2, number=1, sheet=bot_sheet(event),
                                         by=None)
    response = referee_client.post(table_url(table2), {"action": "confirm", "game": 1,
                                                       "version": result.version})
    assert response.status_code == 302
    result.refresh_from_db()
    assert result.status == GameResult.Status.CONFIRMED and result.confirmed_by == referee_user


def test_a_stale_confirmation_is_refused_and_changes_nothing(referee_client, event, table2):
    game_services.result_submit(table=table2, number=1, sheet=bot_sheet(event), by=None)
    response = referee_client.post(table_url(table2), {"action": "confirm", "game": 1,
                                                       "version": 7})
    assert response.status_code == 400
    assert "version" in response.context["errors"][1]
    assert GameResult.objects.get(table=table2, number=1).status == GameResult.Status.SUBMITTED


def test_a_correction_needs_a_reason_then_applies_confirmed(referee_client, event):
    table = event.rounds.get(number=1).tables.get(number=1)
    result = GameResult.objects.get(table=table, number=1)
    sheet = bot_sheet(event, seed=9)
    response = referee_client.post(table_url(table), sheet_post(sheet, game=1))
    assert response.status_code == 400 and response.context["errors"]["reason"]
    assert GameResult.objects.get(pk=result.pk).version == result.version

    response = referee_client.post(table_url(table), sheet_post(sheet, game=1,
                                                               reason="sheet misread"))
    assert response.status_code == 302
    result.refresh_from_db()
    assert result.version == 2 and result.status == GameResult.Status.CONFIRMED
    assert result.versions.get(version=2).reason == "sheet misread"


def _proposal(event):
    """A player's proposed correction of table 1's confirmed game 1."""
    table = event.rounds.get(number=1).tables.get(number=1)
    seat = Seat.objects.filter(table=table).select_related("player").first()
    user = get_user_model().objects.create(username="proposer")
    seat.player.user = user
    seat.player.save()
    result = GameResult.objects.get(table=table, number=1)
    result = game_services.result_correct(result=result, sheet=bot_sheet(event, seed=11),
                                          by=user, reason="we misread the order")
    return table, result.proposal


def test_a_proposed_correction_is_accepted_from_the_desk(referee_client, event):
    table, proposal = _proposal(event)
    response = referee_client.post(table_url(table), {"action": "accept", "game": 1,
                                                      "proposal": proposal.pk})
    assert response.status_code == 302
    proposal.refresh_from_db()
    assert proposal.status == ResultProposal.Status.ACCEPTED
    assert proposal.result.version == 2


def test_declining_a_proposal_needs_a_reason(referee_client, event):
    table, proposal = _proposal(event)
    response = referee_client.post(table_url(table), {"action": "decline", "game": 1,
                                                      "proposal": proposal.pk})
    assert response.status_code == 400 and response.context["errors"][1]
    proposal.refresh_from_db()
    assert proposal.status == ResultProposal.Status.OPEN
    referee_client.post(table_url(table), {"action": "decline", "game": 1,
                                           "proposal": proposal.pk, "reason": "as played"})
    proposal.refresh_from_db()
    assert proposal.status == ResultProposal.Status.DECLINED


def test_a_penalty_is_given_to_a_player_picked_by_number(referee_client, event, table2):
    seat = Seat.objects.select_related("player").filter(table=table2).first()
    response = referee_client.post(table_url(table2), {
        "action": "penalty", "penalty-who": str(seat.player.number),
        "penalty-kind": "point_deduction", "penalty-points": "3",
        "penalty-reason": "slow play"})
    assert response.status_code == 302
    penalty = Penalty.objects.get()
    assert (penalty.player, penalty.points, penalty.table) == (seat.player, 3, table2)
    assert penalty.entry == Entry.objects.get(event=event, player=seat.player)


def test_a_penalty_by_name_and_label_finds_the_player(referee_client, event, table2):
    seat = Seat.objects.select_related("player").filter(table=table2).last()
    for who in (seat.player.name, str(seat.player)):
        response = referee_client.post(table_url(table2), {
            "action": "penalty", "penalty-who": who, "penalty-kind": "warning",
            "penalty-reason": "phone at the table"})
        assert response.status_code == 302, who
    assert Penalty.objects.filter(player=seat.player).count() == 2


def test_a_refused_penalty_shows_why_and_records_nothing(referee_client, event, table2):
    seat = Seat.objects.select_related("player").filter(table=table2).first()
    response = referee_client.post(table_url(table2), {
        "action": "penalty", "penalty-who": "nobody-like-this", "penalty-kind": "warning",
        "penalty-reason": "x"})
    assert response.status_code == 400 and response.context["penalty_form"].errors["who"]
    # the service's refusal: a point deduction without points
    response = referee_client.post(table_url(table2), {
        "action": "penalty", "penalty-who": str(seat.player.number),
        "penalty-kind": "point_deduction", "penalty-reason": "late"})
    assert response.status_code == 400 and response.context["penalty_form"].non_field_errors()
    assert not Penalty.objects.exists()


def test_a_forced_last_penalty_rewrites_the_game_and_the_standings(referee_client, event):
    table = event.rounds.get(number=1).tables.get(number=1)
    result = GameResult.objects.get(table=table, number=1)
    # the best-placed seat that did not revolt (a revolutionary's place is fixed, RULES.md §8)
    head = next(s for s in result.engine_result["order"]
                if s not in result.engine_result["revolutions"])
    seat = Seat.objects.select_related("player").get(table=table, seat=head)
    response = referee_client.post(table_url(table), {
        "action": "penalty", "penalty-who": str(seat.player.number), "penalty-kind":
        "forced_last", "penalty-game_number": "1", "penalty-reason": "cheating"})
    assert response.status_code == 302
    result.refresh_from_db()
    assert result.places[head] == 6
    assert Standing.objects.filter(event=event).exists()


def test_the_desks_forms_need_the_csrf_token(event, table2, referee_user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(referee_user)
    response = client.post(table_url(table2), sheet_post(bot_sheet(event), game=1))
    assert response.status_code == 403
    assert not GameResult.objects.filter(table=table2).exists()


def test_the_desk_speaks_chinese(referee_client, event):
    body = referee_client.get(desk_url(event), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "裁判台" in body


def _disputed(event, table, referee_user):
    """Game 1 of ``table`` submitted by a player of 联邦 0 and disputed by one of 联邦 1."""
    users = {}
    for seat in Seat.objects.filter(table=table, seat__in=(0, 1)).select_related("player"):
        users[seat.seat] = get_user_model().objects.create(username=f"seat-{seat.seat}")
        seat.player.user = users[seat.seat]
        seat.player.save()
    result = game_services.result_submit(table=table, number=1, sheet=bot_sheet(event),
                                         by=users[0])
    return game_services.result_dispute(result=result, by=users[1], reason="3号位 was 二科")


def test_a_dispute_shows_on_the_desk_and_is_settled_by_confirming(referee_client, event,
                                                                 table2, referee_user):
    result = _disputed(event, table2, referee_user)
    rows = referee_client.get(desk_url(event, state="disputed")).context["rows"]
    assert [r["table"].number for r in rows] == [2]
    body = referee_client.get(table_url(table2)).content.decode()
    assert "3号位 was 二科" in body

    response = referee_client.post(table_url(table2), {
        "action": "confirm", "game": 1, "version": result.version, "reason": "as written"})
    assert response.status_code == 302
    result.refresh_from_db()
    assert result.status == GameResult.Status.CONFIRMED
    dispute = result.disputes.get()
    assert (dispute.settlement, dispute.settlement_reason) == ("confirmed", "as written")


def test_a_dispute_is_settled_by_a_correction(referee_client, event, table2, referee_user):
    result = _disputed(event, table2, referee_user)
    response = referee_client.post(table_url(table2), sheet_post(
        bot_sheet(event, seed=9), game=1, reason="the players agree on the new order"))
    assert response.status_code == 302
    result.refresh_from_db()
    assert (result.status, result.version) == (GameResult.Status.CONFIRMED, 2)
    assert result.disputes.get().settlement == "corrected"


# ----------------------------------------------------------------------------- a whole round
def round_confirm_url(event, number=1) -> str:
    return reverse("pages:desk-round-confirm", kwargs={"slug": event.slug, "number": number})


def test_a_referee_confirms_the_rounds_waiting_results_after_a_question(referee_client, event,
                                                                        referee_user, table2):
    # given: table 2's games submitted, awaiting confirmation
    play_table(table=table2, referee=referee_user, confirm=False)
    waiting = GameResult.objects.filter(table=table2, status=GameResult.Status.SUBMITTED)
    assert waiting.count() == 2
    # the desk offers it; the GET only asks
    assert round_confirm_url(event) in referee_client.get(desk_url(event)).content.decode()
    page = referee_client.get(round_confirm_url(event))
    assert page.status_code == 200 and "2 results of this round await" in page.content.decode()
    assert waiting.count() == 2
    # when: the referee confirms
    response = referee_client.post(round_confirm_url(event))
    # then: back to the round on the desk, every waiting result confirmed by the referee
    assert response.status_code == 302 and response["Location"].endswith("?round=1")
    assert not waiting.exists()
    assert set(GameResult.objects.filter(table=table2).values_list(
        "status", "confirmed_by")) == {("confirmed", referee_user.pk)}
    assert "2 results of round 1 confirmed." in referee_client.get(
        response["Location"]).content.decode()


def test_a_player_cannot_confirm_a_round_at_the_desk(client, event, referee_user, table2):
    play_table(table=table2, referee=referee_user, confirm=False)
    seat = Seat.objects.filter(table=table2).first()
    user = get_user_model().objects.create(username="a-player")
    seat.player.user = user
    seat.player.save()
    client.force_login(user)
    assert client.post(round_confirm_url(event)).status_code == 403
    assert GameResult.objects.filter(table=table2, status="submitted").count() == 2


def test_a_tied_knockout_match_waits_for_its_extra_game_at_the_desk(client, referee_user):
    """加赛 at the desk: a knockout match tied with both games confirmed is still playing, its
    game 3 is listed as the deciding extra game, and the referee enters it from the sheet."""
    from tests.pages.test_dashboard import _knockout_cup
    from tests.tournaments.test_knockout import TEAM0_WINS, TEAM1_WINS, _draw, _play_round
    from tournaments.services.matches import match_score
    from tournaments.services.rounds import round_publish
    from web.views.console.rounds import round_progress

    event = _knockout_cup(referee_user)
    event.referees.add(referee_user)
    final = round_publish(round=_draw(event, knockout=True))
    _play_round(final, referee_user, lambda t: [TEAM0_WINS, TEAM1_WINS])  # 12 : 12
    (table,) = final.tables.all()
    client.force_login(referee_user)

    # the list: the table is playing, with a game 3 to come; the console counts it so
    response = client.get(desk_url(event, round=final.number))
    (row,) = response.context["rows"]
    assert row["state"] == "playing"
    assert [g["number"] for g in row["games"]] == [1, 2, 3]
    assert round_progress(final)["states"]["playing"] == 1
    assert round_progress(final)["missing"] == 1

    # the table: game 3, the extra game, to enter from the sheet
    body = client.get(table_url(table)).content.decode()
    assert 'id="game-3"' in body and "deciding extra game (加赛)" in body
    response = client.post(table_url(table), sheet_post(
        {"order": [1, 3, 5, 0, 2, 4], "kaidian": [True] * 6}, game=3, confirm="1"))
    assert response.status_code == 302
    assert GameResult.objects.get(table=table, number=3).status == GameResult.Status.CONFIRMED
    assert match_score(table=table)["winner"] == table.team_b.entry.pk
    response = client.get(desk_url(event, round=final.number))
    assert response.context["rows"][0]["state"] == "confirmed"
