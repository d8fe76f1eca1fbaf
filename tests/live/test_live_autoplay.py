"""托管: the sweep (``live.services.live_autoplay_overdue``: on Celery beat every
``LIVE_SWEEP_SECONDS``, or ``manage.py live_tick`` without a broker) lets the bot play every seat
whose move time ran out, marking its act ``"auto": true``. With a broker, a turn of a seat in 托管
has a timer of its own (``live.services.live_timer``), no other turn has one, and no act of a
seat not in 托管 queues one; however many copies of a timer arrive, late or twice, the bot acts
once per overdue turn."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.utils import timezone

import engine
from games.models import GameResult
from live import services as live
from live.models import LiveGame
from live.tasks import live_autoplay_task, live_sweep_task
from tests.live.helpers import bot_pick, in_play, live_url, make_live_table, play_on_server

pytestmark = pytest.mark.django_db


def snapshot(live_id):
    lg = LiveGame.objects.get(pk=live_id)
    return lg.version, lg.state, lg.status, lg.turn_deadline


def overdue(*live_ids) -> None:
    """Let the turn in hand of each game run out: its deadline moved into the past (no clock
    is waited for)."""
    LiveGame.objects.filter(pk__in=live_ids).update(
        turn_deadline=timezone.now() - timezone.timedelta(seconds=1))


def tick() -> str:
    out = io.StringIO()
    call_command("live_tick", stdout=out)
    return out.getvalue()


def test_live_tick_lets_the_bot_play_a_seat_whose_time_ran_out():
    # given a live game in play, its seat to act silent until its time ran out
    lt = make_live_table(move_seconds=60)
    live_id = live.live_start(table=lt.table).pk
    lg, game = play_on_server(lt, live_id, until=in_play)
    seat = game.turn
    assert tick() == "", "nothing is overdue yet"
    assert snapshot(live_id)[0] == lg.version
    overdue(live_id)

    # when the tick runs
    printed = tick()

    # then the bot played that seat once, marked auto, and gave the next seat a new deadline
    assert printed.strip() == "bot played 1 overdue seat(s)"
    after = LiveGame.objects.get(pk=live_id)
    assert after.version == lg.version + 1
    last = after.state["record"]["actions"][-1]
    assert last["seat"] == seat and last["auto"] is True
    assert after.turn_deadline > timezone.now()
    view = lt.clients[0].get(live_url(live_id)).json()
    assert view["auto_seats"] == [seat]
    assert view["actions"][-1] == last
    # and a second tick at once finds nothing overdue
    assert tick() == ""
    assert LiveGame.objects.get(pk=live_id).version == after.version


def test_live_tick_plays_every_overdue_game_once_and_a_finished_game_never():
    tables = [make_live_table(move_seconds=60) for _ in range(3)]
    ids = []
    for lt in tables:
        live_id = live.live_start(table=lt.table).pk
        play_on_server(lt, live_id, until=in_play)
        ids.append(live_id)
    # the third one is over
    lt, done = tables[2], ids[2]
    play_on_server(lt, done)
    overdue(*ids)
    before = [snapshot(i) for i in ids]
    assert tick().strip() == "bot played 2 overdue seat(s)"
    after = [snapshot(i) for i in ids]
    assert [a[0] - b[0] for a, b in zip(after, before, strict=True)] == [1, 1, 0]
    assert after[2] == before[2]


def test_a_whole_game_played_by_the_bot_alone_is_a_valid_result():
    # given a table where nobody acts
    lt = make_live_table(move_seconds=60)
    live_id = live.live_start(table=lt.table).pk
    # when every move is played by the 托管 bot as the deadlines pass (deadlines moved back
    # instead of sleeping)
    for _ in range(2000):
        lg = LiveGame.objects.get(pk=live_id)
        if lg.status == LiveGame.Status.FINISHED:
            break
        overdue(live_id)
        assert live.live_autoplay_overdue() == 1
    # then the game ended with every play marked auto, and its record replays
    lg = LiveGame.objects.get(pk=live_id)
    assert lg.status == LiveGame.Status.FINISHED
    actions = lg.state["record"]["actions"]
    assert actions and all(a.get("auto") is True for a in actions)
    result = GameResult.objects.get(pk=lg.result_id)
    record = result.versions.get().payload
    assert engine.replay(record, first_game=True) == result.engine_result
    assert sorted(lt.clients[3].get(live_url(live_id)).json()["auto_seats"]) == sorted(
        {a["seat"] for a in actions})


def test_a_late_timer_acts_only_once_the_turn_in_hand_is_overdue():
    lt = make_live_table(move_seconds=60)
    live_id = live.live_start(table=lt.table).pk
    lg, game = play_on_server(lt, live_id, until=in_play)
    # given a seat that acted in time: the timer armed at the version it acted on is late
    old = lg.version
    seat, action = bot_pick(game, lt.bots)
    live.live_act(live_id=live_id, seat=seat, action=action, version=old)
    before = snapshot(live_id)

    # when it (and a copy) arrives while the next seat still has time, it does nothing
    results = [live_autoplay_task.apply(args=(live_id, old)).get() for _ in range(2)]
    assert results == [{"live": live_id, "acted": False}] * 2
    assert snapshot(live_id) == before

    # and when copies arrive once the next seat's time has run out, the bot plays that seat once
    overdue(live_id)
    results = [live_autoplay_task.apply(args=(live_id, old)).get() for _ in range(2)]
    assert results == [{"live": live_id, "acted": True}, {"live": live_id, "acted": False}]
    after = LiveGame.objects.get(pk=live_id)
    assert after.version == before[0] + 1
    assert after.state["record"]["actions"][-1]["auto"] is True


def test_no_turn_but_a_hosted_one_has_a_timer_and_a_timer_left_over_ends(
        started_with_broker, django_capture_on_commit_callbacks):
    lt, live_id, queued = started_with_broker
    # starting the game queued no timer: its first turn's move time is the sweep's to find
    assert queued == []
    # and acts queue nothing
    with django_capture_on_commit_callbacks(execute=True):
        lg, _game = play_on_server(lt, live_id, until=in_play)
    assert lg.version > 0 and queued == []

    # a timer of an earlier turn (queued before this design, or of a turn in 托管 since
    # played) arriving now ends without acting or queueing another, however many copies
    for _ in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            assert live_autoplay_task.apply(args=(live_id, 0)).get()["acted"] is False
    assert queued == []
    assert snapshot(live_id)[0] == lg.version

    # and when the turn in hand runs out, the sweep plays it, queueing nothing for the next
    overdue(live_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert live.live_autoplay_overdue() == 1
    assert snapshot(live_id)[0] == lg.version + 1 and queued == []

    # and once the game is over, a timer (of a seat that was in 托管) stops, and so does the sweep
    LiveGame.objects.filter(pk=live_id).update(status=LiveGame.Status.FINISHED)
    overdue(live_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert live_autoplay_task.apply(args=(live_id, lg.version + 1)).get()["acted"] is False
        assert live.live_autoplay_overdue() == 0
    assert snapshot(live_id)[0] == lg.version + 1 and queued == []


def test_the_sweep_runs_every_live_sweep_seconds_and_plays_a_seat_once_it_is_due():
    from django.conf import settings

    sweep = settings.CELERY_BEAT_SCHEDULE["live-sweep"]
    assert sweep["schedule"] == settings.LIVE_SWEEP_SECONDS == 1
    assert sweep["options"]["expires"] == 10  # (sweeps a stopped worker missed are dropped)
    lt = make_live_table(move_seconds=60)
    live_id = live.live_start(table=lt.table).pk
    lg, _game = play_on_server(lt, live_id, until=in_play)
    LiveGame.objects.filter(pk=live_id).update(
        turn_deadline=timezone.now() + timezone.timedelta(seconds=1))
    assert live_sweep_task.apply().get() == 0  # not due yet
    LiveGame.objects.filter(pk=live_id).update(
        turn_deadline=timezone.now() - timezone.timedelta(milliseconds=10))
    assert live_sweep_task.apply().get() == 1  # due: played at once
    assert snapshot(live_id)[0] == lg.version + 1


def test_an_autoplay_task_delivered_twice_acts_once():
    lt = make_live_table(move_seconds=60)
    live_id = live.live_start(table=lt.table).pk
    lg, _game = play_on_server(lt, live_id, until=in_play)
    overdue(live_id)
    first = live_autoplay_task.apply(args=(live_id, lg.version)).get()
    once = snapshot(live_id)
    second = live_autoplay_task.apply(args=(live_id, lg.version)).get()
    assert first == {"live": live_id, "acted": True}
    assert second == {"live": live_id, "acted": False}
    assert snapshot(live_id) == once
    assert once[0] == lg.version + 1


def test_an_autoplay_task_for_a_missing_or_finished_game_does_nothing():
    assert live_autoplay_task.apply(args=(10**9, 0)).get() == {"live": 10**9, "acted": False}


def test_a_timer_the_broker_refused_fails_nothing_and_the_sweep_plays_the_seat(
        settings, monkeypatch, django_capture_on_commit_callbacks):
    # given a broker that refuses every message
    settings.CELERY_TASK_ALWAYS_EAGER = False

    def refuse(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(live_autoplay_task, "apply_async", refuse)
    lt = make_live_table(move_seconds=60)
    live_id = live.live_start(table=lt.table).pk
    lg, game = play_on_server(lt, live_id, until=in_play)
    # when the seat to act is put in 托管, its timer cannot be queued, and the switch stands
    seat = game.to_act()["seat"]
    with django_capture_on_commit_callbacks(execute=True):
        live.live_host(live_id=live_id, seat=seat, on=True, user=lt.users[seat])
    assert LiveGame.objects.get(pk=live_id).hosted >> seat & 1
    # then the sweep leaves the seat alone until its deadline, and plays it after
    assert live.live_autoplay_overdue() == 0
    overdue(live_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert live.live_autoplay_overdue() == 1
    after = LiveGame.objects.get(pk=live_id)
    assert after.version == lg.version + 1
    assert after.state["record"]["actions"][-1]["auto"] is True


def test_a_timer_that_fires_before_its_turns_deadline_is_queued_again(
        started_with_broker, django_capture_on_commit_callbacks):
    lt, live_id, queued = started_with_broker
    with django_capture_on_commit_callbacks(execute=True):
        lg, game = play_on_server(lt, live_id, until=in_play)
        seat = game.to_act()["seat"]
        live.live_host(live_id=live_id, seat=seat, on=True, user=lt.users[seat])
    assert queued == [((live_id, lg.version), round(live.HOSTED_SECONDS))]
    # when the turn's timer arrives early (its short deadline not reached: clocks differ), it
    # is queued again: the turn's key says "armed", but this is that timer
    LiveGame.objects.filter(pk=live_id).update(
        turn_deadline=timezone.now() + timezone.timedelta(seconds=5))
    with django_capture_on_commit_callbacks(execute=True):
        assert live_autoplay_task.apply(args=(live_id, lg.version)).get()["acted"] is False
    assert [args for args, _ in queued] == [(live_id, lg.version)] * 2
    assert snapshot(live_id)[0] == lg.version


def test_the_live_tasks_keep_the_names_queued_messages_and_the_beat_schedule_use():
    from django.conf import settings

    from config.celery import app

    assert live_autoplay_task.name == "games.tasks.live_autoplay_task"
    assert live_sweep_task.name == "games.tasks.live_sweep_task"
    assert settings.CELERY_BEAT_SCHEDULE["live-sweep"]["task"] == live_sweep_task.name
    assert live_sweep_task.name in app.tasks and live_autoplay_task.name in app.tasks
