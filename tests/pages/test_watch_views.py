"""Watching and looking back (issue 19), without a browser: the spectator JSON never holds a
hidden card and honours the event's delay; the replay is public only once a game's result
counts; the table page shows the whole results with every version's who and why and the
penalties' reasons; the player, team and round histories; 404s for what the public may not
see."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import UTC, datetime

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

import engine
from engine.steps import replay_steps
from games.models import GameResult
from games.services import result_correct
from live import services as live
from live import spectate, streams
from live.models import LiveGame
from tests.factories import UserFactory
from tests.live.helpers import bot_pick, deleted_while_waiting, make_live_table
from tests.pages.helpers import draw_round, play_table
from tournaments.errors import ServiceError
from tournaments.models import Event, Penalty
from tournaments.services.entries import entry_check_in
from tournaments.services.events import event_create, event_publish, event_update
from tournaments.services.penalties import penalty_add
from tournaments.services.players import player_create
from tournaments.services.teams import team_register
from tournaments.standings import standings_recompute

pytestmark = pytest.mark.django_db

CARD_RE = re.compile(r'"((?:10|[2-9JQKA])[SHDC]|BJ|RJ)"')


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _url(name, event, rnd=1, table=1, **kw):
    return reverse(f"pages:{name}", kwargs={"slug": event.slug, "number": rnd, "table": table,
                                            **kw})


def revealed(game: engine.Game, n_actions: int) -> Counter:
    """The cards anyone at the table has seen after ``n_actions`` acts: those played or burned,
    and those of the pre-play events (tributes, returns, 买3: shown at the table)."""
    seen = Counter()
    for ev in game.pre_events:  # tributes, returns and 买3 exchanges are shown at the table
        seen.update((ev.get("cards") or []) + [ev[k] for k in ("give", "take") if k in ev])
    for act in game.actions[:n_actions]:
        seen.update(act.get("cards") or [])
    return seen


def foreign_cards(payload: dict, game: engine.Game, n_actions: int) -> list[str]:
    """Cards a spectator's payload names beyond what the table has seen by then (each card as
    many times as it may have been seen), and any hand or legal-act key."""
    text = json.dumps(payload)
    problems = [k for k in ("hand", "legal", "hands", "deal", "burners") if f'"{k}"' in text]
    named = Counter(CARD_RE.findall(json.dumps(payload.get("view") or {})))
    # a card named in several parts (the top, the last acts) counts once per part: compare sets
    # and then that no card is named more often than four decks hold it
    extra = set(named) - set(revealed(game, n_actions))
    return problems + sorted(extra)


def correct_and_penalise(table, referee, *, game: int, seat: int, correction: str,
                         penalty: str) -> None:
    """A referee swaps the first two places of ``game`` at ``table`` (a correction with the
    reason ``correction``) and takes 2 points off ``seat``'s player in it for ``penalty``."""
    result = GameResult.objects.get(table=table, number=game)
    order = result.engine_result["order"]
    result_correct(result=result, by=referee, as_referee=True, reason=correction,
                   sheet={"order": [order[1], order[0], *order[2:]],
                          "kaidian": result.engine_result["kaidian"]})
    sat = table.seats.select_related("entry", "player").get(seat=seat)
    penalty_add(event=table.round.event, entry=sat.entry, player=sat.player,
                         kind="point_deduction", points=2, reason=penalty, round=table.round,
                         table=table, game_number=game, by=referee)


def play_live_game(lt, *, check=None, live_id: int | None = None) -> LiveGame:
    """Bot-play a live game at ``lt``'s table (game ``live_id``, or one started now) through
    the services, calling ``check(live)`` before every act; the finished game."""
    lg = live.live_start(table=lt.table) if live_id is None else LiveGame(pk=live_id)
    while True:
        lg = LiveGame.objects.get(pk=lg.pk)
        if check is not None:
            check(lg)
        game = live.live_game(lg)
        if game.state == "over":
            return lg
        seat, action = bot_pick(game, lt.bots)
        live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)


# ----------------------------------------------------------------------------- spectators
def test_the_spectator_json_of_every_state_of_a_whole_game_names_no_hidden_card(
        django_capture_on_commit_callbacks):
    lt = make_live_table()
    client = Client()
    url = _url("watch-data", lt.event, table=lt.table.number)
    problems, states = [], 0

    def check(lg):
        nonlocal states
        body = client.get(url).json()
        view = body["view"]
        assert view is not None and view["version"] == lg.version
        game = live.live_game(lg)
        problems.extend(foreign_cards(body, game, view["n_actions"]))
        le10 = game.rules["show_counts"] == "le10"  # 报牌 only at 10 cards or fewer
        assert view["counts"] == [("10+" if le10 and n > 10 else n) for n in game.count]
        states += 1

    with django_capture_on_commit_callbacks(execute=True):
        play_live_game(lt, check=check)
    assert states > 100
    assert problems == []
    final = client.get(url).json()
    assert final["view"]["state"] == "over"
    assert final["replay"] == _url("replay", lt.event, table=lt.table.number, game=1)


def test_the_spectator_view_is_held_back_by_the_events_delay():
    lt = make_live_table()
    Event.objects.filter(pk=lt.event.pk).update(spectator_delay=30)
    lg = live.live_start(table=lt.table)
    lg = LiveGame.objects.get(pk=lg.pk)
    t0 = lg.updated_at.timestamp()

    # nothing is shown before the first state is 30 s old
    first = spectate.spectator_view(live=lg, delay=30, now=t0 + 5)
    assert first["view"] is None and first["next_in"] == pytest.approx(25, abs=0.01)
    # then the first state
    shown = spectate.spectator_view(live=lg, delay=30, now=t0 + 31)
    assert shown["view"]["version"] == lg.version

    # acts made later, 10 s apart (their times set so), each stay hidden until 30 s old
    versions = []
    for k in range(1, 6):
        game = live.live_game(lg)
        seat, action = bot_pick(game, lt.bots)
        live.live_act(live_id=lg.pk, seat=seat, action=action, version=lg.version)
        at = datetime.fromtimestamp(t0 + 10 * k, tz=UTC)
        LiveGame.objects.filter(pk=lg.pk).update(updated_at=at)
        lg = LiveGame.objects.get(pk=lg.pk)
        versions.append(lg.version)
        seen = spectate.spectator_view(live=lg, delay=30, now=t0 + 10 * k + 1)
        assert seen["view"] is None or seen["view"]["version"] <= (
            versions[k - 4] if k >= 4 else lg.version - k)
    # 29 s after the last act: the state of the act before it (10 s earlier) is shown
    early = spectate.spectator_view(live=lg, delay=30, now=t0 + 50 + 29)
    assert early["view"]["version"] == versions[3] < lg.version
    assert early["next_in"] == pytest.approx(1, abs=0.01)
    late = spectate.spectator_view(live=lg, delay=30, now=t0 + 50 + 30.5)
    assert late["view"]["version"] == lg.version


def test_the_spectator_page_of_a_delayed_event_shows_nothing_of_a_game_just_started(client):
    lt = make_live_table()
    Event.objects.filter(pk=lt.event.pk).update(spectator_delay=60)
    live.live_start(table=lt.table)
    body = client.get(_url("watch-data", lt.event, table=lt.table.number)).json()
    assert body == {"game": None, "view": None, "delay": 60, "next_in": None, "replay": None}
    page = client.get(_url("watch", lt.event, table=lt.table.number))
    assert page.status_code == 200
    assert "60 s after it is made" in page.content.decode()


def test_the_spectator_page_and_json_are_404_for_an_unpublished_event(client):
    lt = make_live_table()
    event_publish(event=lt.event, published=False)
    for name in ("watch", "watch-data"):
        assert client.get(_url(name, lt.event, table=lt.table.number)).status_code == 404


def test_the_event_form_sets_the_spectator_delay():
    from tournaments.forms import EventAdminForm

    assert "spectator_delay" in EventAdminForm.base_fields
    event = event_create(name="Delay cup", slug="delay-cup", spectator_delay=20)
    assert event.spectator_delay == 20
    assert event_update(event=event, spectator_delay=45).spectator_delay == 45
    with pytest.raises(ServiceError):
        event_update(event=event, spectator_delay=99999)


# ----------------------------------------------------------------------------- replays
def test_the_replay_of_a_live_game_steps_through_every_act_with_the_engines_result(client):
    lt = make_live_table()
    lg = play_live_game(lt)
    result = GameResult.objects.get(pk=lg.result_id)
    page = client.get(_url("replay", lt.event, table=lt.table.number, game=1))
    assert page.status_code == 200
    assert page["Content-Security-Policy"]
    data = client.get(_url("replay-data", lt.event, table=lt.table.number, game=1),
                      HTTP_ACCEPT_ENCODING="gzip")
    assert data.status_code == 200 and data["Content-Encoding"] == "gzip"
    body = replay_steps(result.versions.get().payload, first_game=True)
    game = live.live_game(lg)
    assert len(body["steps"]) == len(game.actions)
    assert body["result"]["places"] == result.places
    # every step's hands add up to the counts the engine gives
    hands = body["start"]["hands"]
    for step in body["steps"]:
        hands = [step["hands"].get(str(s), h) for s, h in enumerate(hands)]
        assert [len(h) for h in hands] == step["counts"]
    assert [sorted(h) for h in hands] == [sorted(c for c, n in game.hands[s].items()
                                                 for _ in range(n)) for s in range(6)]


def test_the_replay_is_not_public_before_the_result_counts_but_referees_see_it(client):
    lt = make_live_table()
    lg = play_live_game(lt)
    GameResult.objects.filter(pk=lg.result_id).update(status=GameResult.Status.DISPUTED)
    url = _url("replay", lt.event, table=lt.table.number, game=1)
    assert client.get(url).status_code == 404
    assert client.get(url.replace("/replay/", "/replay.json")).status_code == 404
    client.force_login(lt.referee_user)
    assert client.get(url).status_code == 200


def test_a_game_entered_as_a_sheet_has_no_replay(client, event):
    url = _url("replay", event, table=1, game=1)
    assert client.get(url).status_code == 404
    assert "Replay" not in client.get(_url("table", event, table=1)).content.decode()


# ----------------------------------------------------------------------------- table page
def test_the_table_page_shows_the_whole_results_versions_and_penalties(client, event,
                                                                      referee_user):
    table = event.rounds.get(number=1).tables.get(number=1)
    correct_and_penalise(table, referee_user, game=1, seat=0,
                         correction="the scorer swapped two places",
                         penalty="talked about cards during play")
    html = client.get(_url("table", event, table=1)).content.decode()
    for text in ("Game by game", "头科", "大落", "开点", "the scorer swapped two places",
                 "corrected", "talked about cards during play", "−2"):
        assert text in html, text
    # each game's finishing order names all six players
    names = [s.player.name for s in table.seats.select_related("player")]
    block = html[html.index('id="game-1"'):html.index('id="game-2"')]
    assert all(n in block for n in names)


# ----------------------------------------------------------------------------- histories
@pytest.fixture
def two_rounds(event, referee_user):
    play_table(table=event.rounds.get(number=1).tables.get(number=2), referee=referee_user)
    rnd2 = draw_round(event)
    for tbl in rnd2.tables.all():
        play_table(table=tbl, referee=referee_user, seed=2)
    standings_recompute(event_id=event.pk)
    event.refresh_from_db()
    return event


def test_the_leaderboard_links_each_name_to_its_history(client, two_rounds):
    event = two_rounds
    html = client.get(reverse("pages:leaderboard", kwargs={"slug": event.slug})).content.decode()
    links = re.findall(r'href="(/e/[^"]+/entries/\d+/)"', html)
    assert links
    r = client.get(links[0])
    assert r.status_code == 302 and "/players/" in r["Location"]
    assert reverse("pages:round-results", kwargs={"slug": event.slug, "number": 2}) in html


def test_a_players_history_shows_each_round_partners_places_points_and_rank_chart(
        client, two_rounds, referee_user):
    event = two_rounds
    seat = event.rounds.get(number=2).tables.get(number=1).seats.select_related(
        "player", "entry").get(seat=2)
    penalty_add(event=event, entry=seat.entry, player=seat.player, kind="warning",
                         reason="late to the table", by=referee_user)
    r = client.get(reverse("pages:player-history", kwargs={"slug": event.slug,
                                                           "player": seat.player_id}))
    assert r.status_code == 200
    html = r.content.decode()
    assert "<svg" in html and "polyline" in html
    assert "Round 2 · table 1" in html
    partners = [s.player.name for s in seat.table.seats.select_related("player")
                if s.seat in (0, 4)]
    assert all(p in html for p in partners)
    assert "late to the table" in html
    assert html.count('class="dot"') == 2  # rank after rounds 1 and 2


def test_the_round_results_page_lists_every_table(client, two_rounds):
    event = two_rounds
    r = client.get(reverse("pages:round-results", kwargs={"slug": event.slug, "number": 1}))
    assert r.status_code == 200
    html = r.content.decode()
    assert "Table 1" in html and "Table 2" in html and "Byes" in html


def test_the_round_results_page_sends_spectators_to_a_game_being_played_live(client, event):
    """A table whose game is being played live says so among its games, with the way to watch
    it; it is not 'not played yet'."""
    from live import services as live

    table2 = event.rounds.get(number=1).tables.get(number=2)
    live.live_start(table=table2)
    url = reverse("pages:round-results", kwargs={"slug": event.slug, "number": 1})
    html = client.get(url).content.decode()
    block = html[html.index(">Table 2<"):]
    block = block[:block.index("</article>")]
    watch = _url("watch", event, table=2)
    assert f'<li class="live-now"><a href="{watch}">G1 being played live: watch</a></li>' in block
    assert "not played yet" not in block
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "第1局正在线上进行：观战" in chinese


def test_the_table_page_sends_spectators_to_its_game_being_played_live(client, event):
    """The table's page lists a game being played live as such, with the way to watch it, not
    as 'not played yet'."""
    from live import services as live

    game = live.live_start(table=event.rounds.get(number=1).tables.get(number=2))
    url = _url("table", event, table=2)
    html = client.get(url).content.decode()
    watch = _url("watch", event, table=2)
    assert (f'<tr class="pending live-now"><td>1</td><td colspan="5"><a href="{watch}">'
            f'being played live: watch</a>') in html
    assert f'<code class="deal-commitment">{game.deal_commitment}</code>' in html  # (发牌可验证)
    assert game.deal_seed not in html
    rows = html[html.index('id="results"'):html.index("</table>")]
    assert rows.count("not played yet") == 1  # (game 2)
    assert "正在线上进行：观战" in client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


def test_a_players_history_sends_spectators_to_the_game_they_play_live(client, event):
    from live import services as live

    table2 = event.rounds.get(number=1).tables.get(number=2)
    live.live_start(table=table2)
    player = table2.seats.get(seat=0).player
    html = client.get(reverse("pages:player-history", kwargs={
        "slug": event.slug, "player": player.pk})).content.decode()
    watch = _url("watch", event, table=2)
    assert f'<li class="live-now"><a href="{watch}">G1 being played live: watch</a></li>' in html
    assert 'class="muted">not played yet' not in html


def test_the_seating_page_marks_a_table_playing_live_with_the_way_to_watch(client, event):
    from live import services as live

    live.live_start(table=event.rounds.get(number=1).tables.get(number=2))
    html = client.get(reverse("pages:seating", kwargs={"slug": event.slug})).content.decode()
    watch = _url("watch", event, table=2)
    card = html[html.index('id="table-2"'):]
    card = card[:card.index("</article>")]
    assert f'<a class="badge live-now" href="{watch}">G1 being played live: watch</a>' in card
    assert "live-now" not in html[html.index('id="table-1"'):html.index('id="table-2"')]


def test_histories_are_404_for_unpublished_events_and_strangers(client, make_event, event):
    hidden = make_event(slug="hidden-cup", published=False)
    entry = hidden.entries.select_related("player").first()
    assert client.get(reverse("pages:player-history", kwargs={
        "slug": hidden.slug, "player": entry.player_id})).status_code == 404
    assert client.get(reverse("pages:round-results", kwargs={
        "slug": hidden.slug, "number": 1})).status_code == 404
    # a player of another event is no one here
    assert client.get(reverse("pages:player-history", kwargs={
        "slug": event.slug, "player": entry.player_id})).status_code == 404
    assert Penalty.objects.count() == 0


def test_a_team_history_shows_rounds_and_opponents(client):
    event = event_create(name="Team cup", slug="team-cup", format="team",
                                  games_per_match=1, rounds_planned=2)
    rng = random.Random(3)
    for t in range(2):
        players = [player_create(name=f"T{t}P{i}", number=900 + 10 * t + i)
                   for i in range(3)]
        entry = team_register(event=event, name=f"Team {t}", players=players)
        entry_check_in(entry=entry)
    event_publish(event=event)
    rnd = draw_round(event)
    referee = UserFactory()
    event.referees.add(referee)
    play_table(table=rnd.tables.get(), referee=referee, seed=rng.randrange(100))
    standings_recompute(event_id=event.pk)
    team = event.teams.get(name="Team 0")
    r = client.get(reverse("pages:team-history", kwargs={"slug": event.slug, "team": team.pk}))
    assert r.status_code == 200
    html = r.content.decode()
    assert "Team 1" in html and "T0P0" in html and "Round 1 · table 1" in html


def test_the_api_holds_spectators_back_by_the_delay_too_but_not_the_players():
    from tests.live.helpers import live_url

    lt = make_live_table()
    Event.objects.filter(pk=lt.event.pk).update(spectator_delay=60)
    lg = live.live_start(table=lt.table)
    public = lt.anon.get(live_url(lg.pk))
    assert public.status_code == 200
    assert public.json()["view"] is None and public.json()["delay"] == 60
    stream = lt.anon.get(live_url(lg.pk) + "events/")
    assert stream.status_code == 409
    assert stream.json()["error"]["code"] == "spectators_delayed"
    seated = lt.clients[0].get(live_url(lg.pk))
    assert seated.status_code == 200 and "hand" in seated.json()


def test_an_uploaded_record_has_a_replay_once_confirmed(client, make_event, referee_user):
    from engine.bots import play_match
    from games.services import result_submit, results_confirm

    event = make_event(slug="record-cup")
    table = draw_round(event).tables.get(number=1)
    (game,) = play_match(event.rules, 1, random.Random(5))
    result = result_submit(table=table, number=1, record=game.record(), by=referee_user)
    url = _url("replay-data", event, table=1, game=1)
    assert client.get(url).status_code == 404  # submitted, not confirmed yet
    results_confirm(results=GameResult.objects.filter(pk=result.pk), by=referee_user)
    body = client.get(url).json()
    assert len(body["steps"]) == len(game.actions)
    assert body["result"]["order"] == game.result()["order"]
    assert _url("replay", event, table=1, game=1) in client.get(
        _url("table", event, table=1)).content.decode()


def test_a_game_deleted_while_a_spectator_waits_on_it_answers_no_game_not_an_error(monkeypatch):
    # given a spectator's long-poll on a running game (its table published, no delay)
    lt = make_live_table()
    lg = live.live_start(table=lt.table)
    monkeypatch.setattr(streams, "wait_for_version", deleted_while_waiting)
    url = _url("watch-data", lt.event, table=lt.table.number)
    # when the game goes while the request waits
    r = Client().get(url, {"game": lg.number, "since": lg.version, "wait": 5})
    # then the page hears that there is no game to watch now, as on its first load
    assert r.status_code == 200, r.content[:300]
    assert r.json() == {"game": None, "view": None, "delay": 0, "next_in": None, "replay": None}
