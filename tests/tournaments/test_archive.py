"""An event's archive (tournaments/archive.py, ``event_export`` / ``event_import``): one file
that imports into an empty database and renders the same standings and verified draws
(issue 53)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from games import services as game_services
from games.models import GameResult, GameResultVersion
from tournaments.models import Entry, Event, Penalty, Player, Round, Standing
from tournaments.services.draw_changes import round_redraw, round_seats_swap
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_prizes_set, event_staff_add
from tournaments.services.penalties import penalty_add
from tournaments.services.releases import standings_release
from tournaments.services.rounds import round_create, round_publish
from tournaments.services.teams import team_register

#: the rows a leaderboard shows, in rank order (every stored figure of a standing)
STANDING_FIELDS = ["entry_id", "rank", "points", "match_points", "game_wins", "head_count",
                   "opponents_points", "head_to_head", "games_played", "byes", "penalty_points",
                   "drawn", "previous_rank", "through_round"]
#: printed by a fresh process on the imported database: its standings, released standings,
#: results' versions and penalties, as JSON
SHOW = """
import json, django
django.setup()
from tournaments.models import Event, Standing, ReleasedStanding, Penalty, Prize, TeamMember
from games.models import GameResultVersion
event = Event.objects.get(slug=SLUG)
fields = FIELDS
print(json.dumps({
    "standings": [list(r) for r in Standing.objects.filter(event=event).order_by("rank", "entry_id")
                  .values_list(*fields)],
    "released": [list(r) for r in ReleasedStanding.objects.filter(event=event)
                 .order_by("through_round", "rank", "entry_id").values_list("through_round", *fields)],
    "versions": [list(r) for r in GameResultVersion.objects.filter(result__table__round__event=event)
                 .order_by("pk").values_list("pk", "version", "kind", "points_a", "points_b",
                                             "reason", "submitted_by__username")],
    "penalties": [list(r) for r in Penalty.objects.filter(event=event).order_by("pk")
                  .values_list("entry_id", "kind", "points", "reason")],
    "prizes": [list(r) for r in Prize.objects.filter(event=event).order_by("place_from")
               .values_list("place_from", "place_to", "name")],
    "teams": [list(r) for r in TeamMember.objects.filter(team__event=event)
              .order_by("team_id", "position").values_list("team_id", "team__name", "player_id",
                                                           "position", "status")],
    "released_round": event.standings_released_round,
}, ensure_ascii=False))
"""


def _show(slug: str) -> str:
    return SHOW.replace("SLUG", repr(slug)).replace("FIELDS", repr(STANDING_FIELDS))


def _fresh(database: str, *args: str, code: str = "") -> subprocess.CompletedProcess:
    """``manage.py args`` (or ``python -c code``) on the SQLite database file ``database``."""
    command = [sys.executable, "-c", code] if code else [sys.executable, "manage.py", *args]
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "LIVE_PUBSUB_URL")}
    out = subprocess.run(command, cwd=settings.BASE_DIR, capture_output=True, text=True,
                         timeout=300, env={**env, "DATABASE_URL": f"sqlite:///{database}",
                                           "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert out.returncode == 0, (args, out.stdout[-3000:], out.stderr[-3000:])
    return out


def _here(event: Event) -> dict:
    """What SHOW prints, read in this process from the source database."""
    out = StringIO()
    namespace: dict = {}
    code = _show(event.slug).replace("django.setup()", "")
    with contextlib.redirect_stdout(out):
        exec(compile(code, "show", "exec"), namespace)  # noqa: S102 (our own text)
    return json.loads(out.getvalue())


def _verify(*args) -> str:
    out = StringIO()
    call_command("verify_draw", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def played_event(transactional_db):
    """The demo event (14 players, 3 rounds, draws on a worker run on commit), then what the
    demo does not do: a correction (a second version), a point deduction, prizes, and the
    standings held back at round 2 (a released snapshot the public sees)."""
    call_command("demo_event", players=14, rounds=3, games=1, stdout=StringIO())
    event = Event.objects.get()
    referee = event.referees.first() or event.organizers.first()
    result = GameResult.objects.filter(table__round__event=event, table__round__number=1,
                                       status=GameResult.Status.CONFIRMED).order_by("pk").first()
    game_services.result_correct(
        result=result, reason="order of 3号位 and 4号位 read back from the score sheet",
        sheet={"order": [0, 1, 3, 2, 4, 5], "kaidian": [True] * 6}, by=referee, as_referee=True)
    entry = Entry.objects.filter(event=event).order_by("pk")[3]
    penalty_add(event=event, entry=entry, kind=Penalty.Kind.POINT_DEDUCTION, points=2,
                         reason="late back from the break (迟到)", by=referee,
                         round=event.rounds.get(number=2))
    event_prizes_set(event=event, prizes=[(1, 1, "冠军"), (2, 3, "Runner-up")])
    standings_release(event=event, round_number=2, anyway=True)
    from tournaments.standings import standings_recompute
    standings_recompute(event_id=event.pk, force=True)
    event.refresh_from_db()
    assert GameResultVersion.objects.filter(result=result).count() == 2
    return event


def test_an_event_archive_imports_into_a_new_database_with_the_same_standings_and_draws(
        played_event, tmp_path):
    # given the played event's archive
    event = played_event
    archive = tmp_path / "archive.json"
    call_command("event_export", event.slug, str(archive), stderr=StringIO())
    here = _here(event)
    assert here["standings"] and here["released"] and len(here["penalties"]) == 1
    verified_here = _verify(event.slug)
    assert verified_here.count(": verified") == 3, verified_here
    # when it is imported into a new, empty database
    database = tmp_path / "fresh.sqlite3"
    _fresh(str(database), "migrate", "--noinput", "-v0")
    imported = _fresh(str(database), "event_import", str(archive))
    assert f"{event.slug}: imported (14 entries, 3 rounds, 14 standings rows)" in imported.stdout
    # then the standings recomputed there from its results, the released ones, every result
    # version, the penalties and prizes are the same, row for row
    there = json.loads(_fresh(str(database), code=_show(event.slug)).stdout)
    assert there == here
    # and every draw verifies there from its revealed seed, exactly as here
    verified_there = _fresh(str(database), "verify_draw", event.slug).stdout
    assert verified_there == verified_here


def test_an_archive_is_refused_where_its_ids_are_taken_and_nothing_is_written(played_event,
                                                                               tmp_path):
    # given an archive of an event still in this database
    archive = tmp_path / "archive.json"
    call_command("event_export", played_event.slug, str(archive), stderr=StringIO())
    counts = (Event.objects.count(), Player.objects.count(), Round.objects.count(),
              Standing.objects.count())
    # when it is imported here
    with pytest.raises(CommandError, match="already here"):
        call_command("event_import", str(archive), stdout=StringIO())
    # then the refusal names the slug, and nothing changed
    assert counts == (Event.objects.count(), Player.objects.count(), Round.objects.count(),
                      Standing.objects.count())
    # and with another slug, the ids in the way are named
    data = json.loads(archive.read_text(encoding="utf-8"))
    data["event"]["slug"] = "another-slug"
    archive.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CommandError, match="ids this database already uses"):
        call_command("event_import", str(archive), stdout=StringIO())
    assert counts[0] == Event.objects.count()


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "message"), [
    ("not json", "not JSON"),
    ('{"format": "something-else"}', "not an event archive"),
    ('{"format": "gouji-event-archive", "version": 99}', "archive version 99"),
    ('{"format": "gouji-event-archive", "version": 1, "users": []}',
     "'players' is missing"),
])
def test_a_file_that_is_not_an_archive_is_refused_naming_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        call_command("event_import", str(path), stdout=StringIO())
    assert not Event.objects.exists()


@pytest.fixture
def redrawn_and_swapped_event(transactional_db):
    """An individual event of 14 (two byes): round 1 re-drawn once, two of its seats swapped by
    the organizer, its results confirmed; round 2 committed and drawn, not yet played."""
    from tests.factories import EventFactory, PlayerFactory, UserFactory
    from tournaments.models import Seat
    from tournaments.services.draw_changes import SeatRef

    organizer = UserFactory(username="organizer-archive")
    event = EventFactory(games_per_match=1)
    event_staff_add(event=event, user=organizer, role="organizer")
    for _ in range(14):
        entry_check_in(entry=entry_register(event=event,
                                                              player=PlayerFactory()))
    rnd = round_draw(round_id=round_create(event=event).pk)
    round_redraw(round=rnd, by=organizer, reason="a table was missing")
    rnd = round_draw(round_id=rnd.pk)
    a, b = (Seat.objects.get(round=rnd, table__number=t, seat=s) for t, s in ((1, 0), (2, 3)))
    round_seats_swap(round=rnd, seat_a=SeatRef(1, 0, a.player_id),
                              seat_b=SeatRef(2, 3, b.player_id), by=organizer,
                              reason="eyesight: nearer the front")
    rnd = round_publish(round=Round.objects.get(pk=rnd.pk))
    for table in rnd.tables.order_by("number"):
        result = game_services.result_submit(
            table=table, number=1, by=organizer,
            sheet={"order": [0, 1, 2, 3, 4, 5], "kaidian": [True] * 6})
        game_services.result_confirm(result=result, by=organizer, as_referee=True)
    round_draw(round_id=round_create(event=event).pk)
    event.refresh_from_db()
    return event


def test_a_redrawn_and_swapped_draw_verifies_after_the_round_trip(redrawn_and_swapped_event,
                                                                  tmp_path):
    # given an event whose first draw was replaced and then changed by hand
    event = redrawn_and_swapped_event
    verified_here = _verify(event.slug)
    assert "round 1: verified, with 1 manual change, re-drawn 1 time" in verified_here
    assert "round 2: verified" in verified_here
    archive = tmp_path / "archive.json"
    call_command("event_export", event.slug, str(archive), stderr=StringIO())
    # when it is imported into a new database
    database = tmp_path / "fresh.sqlite3"
    _fresh(str(database), "migrate", "--noinput", "-v0")
    _fresh(str(database), "event_import", str(archive))
    # then both draws, the earlier one and the swap included, verify there as here, and the
    # standings are the same
    assert _fresh(str(database), "verify_draw", event.slug).stdout == verified_here
    there = json.loads(_fresh(str(database), code=_show(event.slug)).stdout)
    assert there == _here(event)


@pytest.fixture
def team_event_played(transactional_db):
    """A team event (团体赛) of four 联邦 teams: round 1 played and confirmed, round 2 drawn."""
    from tests.factories import EventFactory, PlayerFactory, UserFactory

    referee = UserFactory(username="referee-archive")
    event = EventFactory(format=Event.Format.TEAM, games_per_match=1)
    event_staff_add(event=event, user=referee, role="referee")
    for k in range(4):
        entry = team_register(event=event, name=f"联邦 {k + 1}",
                                       players=[PlayerFactory() for _ in range(3)])
        entry_check_in(entry=entry)
    rnd = round_publish(round=round_draw(
        round_id=round_create(event=event).pk))
    for table in rnd.tables.order_by("number"):
        result = game_services.result_submit(
            table=table, number=1, by=referee,
            sheet={"order": [1, 0, 3, 2, 5, 4], "kaidian": [True] * 6})
        game_services.result_confirm(result=result, by=referee, as_referee=True)
    round_draw(round_id=round_create(event=event).pk)
    event.refresh_from_db()
    return event


def test_a_team_event_round_trips_with_its_teams_and_draws(team_event_played, tmp_path):
    event = team_event_played
    here = _here(event)
    assert len(here["teams"]) == 12 and here["standings"]
    verified_here = _verify(event.slug)
    assert verified_here.count(": verified") == 2, verified_here
    archive = tmp_path / "archive.json"
    call_command("event_export", event.slug, str(archive), stderr=StringIO())
    database = tmp_path / "fresh.sqlite3"
    _fresh(str(database), "migrate", "--noinput", "-v0")
    _fresh(str(database), "event_import", str(archive))
    assert json.loads(_fresh(str(database), code=_show(event.slug)).stdout) == here
    assert _fresh(str(database), "verify_draw", event.slug).stdout == verified_here
