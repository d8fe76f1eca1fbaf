"""Standings that a lost recompute left behind heal themselves.

Every change bumps ``Event.results_version`` and queues ``standings_recompute_task`` when it
commits. That message can be lost: the broker refuses it, or the worker dies between a draw's
commit and its publish (the redelivered draw finds the round drawn and queues nothing). The
standings then stay behind (``standings_results_version < results_version``) until a read queues a
recompute (debounced per event, :func:`tournaments.standings.standings_heal`) or a sweep does
(``manage.py standings_sweep``, ``standings_sweep_task``). A broker error at publish time is a
warning, never an error for the request whose change is committed.

Celery is eager here (no ``CELERY_BROKER_URL``): a queued task runs in-process. Inside a test's
transaction the ``on_commit`` callbacks never run unless captured, so a service call made without
capturing them is exactly "the change committed, its publish was lost".
"""

from __future__ import annotations

import logging

import pytest
from django.core.cache import cache
from django.core.management import call_command
from kombu.exceptions import OperationalError as BrokerError

from tests.factories import EventFactory, PlayerFactory
from tournaments import standings
from tournaments.models import Event, Penalty, Standing
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.penalties import penalty_add
from tournaments.services.rounds import round_create
from tournaments.tasks import standings_recompute_task, standings_sweep_task

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    """The debounce marks live in the cache (and ids may be reused between tests)."""
    cache.clear()
    yield
    cache.clear()


def _event_with_byes() -> Event:
    """An event of 14 checked-in players, round 1 drawn: two tables and two byes (bye score
    2), so the draw changed the standings, but its recompute was never queued (the on-commit
    publish does not run inside the test's transaction): stale standings."""
    event = EventFactory()
    for _ in range(14):
        entry_check_in(entry=entry_register(event=event,
                                                              player=PlayerFactory()))
    round_draw(round_id=round_create(event=event).pk)
    event.refresh_from_db()
    return event


@pytest.fixture
def stale_event() -> Event:
    event = _event_with_byes()
    assert standings.standings_are_stale(event)
    assert not Standing.objects.filter(event=event).exists()
    return event


@pytest.fixture
def fresh_event() -> Event:
    event = _event_with_byes()
    assert standings.standings_recompute(event_id=event.pk) is True
    event.refresh_from_db()
    assert not standings.standings_are_stale(event)
    return event


@pytest.fixture
def queued(monkeypatch):
    """Count the recomputes queued (by event id) without running them."""
    calls: list[int] = []
    monkeypatch.setattr(standings_recompute_task, "delay",
                        lambda event_id, *args, **kwargs: calls.append(event_id))
    return calls


@pytest.fixture
def broker_down(monkeypatch):
    """The broker refuses every message, as kombu reports a refused connection."""
    def refuse(*args, **kwargs):
        raise BrokerError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(standings_recompute_task, "delay", refuse)


def _assert_fresh(event: Event) -> None:
    event.refresh_from_db()
    assert not standings.standings_are_stale(event)
    rows = {st.entry_id: st for st in Standing.objects.filter(event=event)}
    expected = {r.entry_id: r for r in standings.compute(event)}
    assert set(rows) == set(expected)
    assert all((rows[k].rank, rows[k].points) == (r.rank, r.points) for k, r in expected.items())


def _warnings(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.name == "tournaments.standings" and r.levelno == logging.WARNING]


# ----------------------------------------------------------------------------- heal on read
def test_a_read_of_stale_standings_queues_a_recompute_that_heals_them(stale_event):
    assert standings.standings_heal(stale_event) is True  # eager: it ran
    _assert_fresh(stale_event)
    byes = Standing.objects.filter(event=stale_event, byes=1)
    assert byes.count() == 2 and all(st.points == 2 for st in byes)


def test_a_read_of_fresh_standings_queues_nothing(fresh_event, queued):
    assert standings.standings_heal(fresh_event) is False
    assert queued == []


def test_many_reads_queue_one_recompute_until_the_debounce_expires(stale_event, queued):
    assert [standings.standings_heal(stale_event) for _ in range(20)] == [True] + [False] * 19
    assert queued == [stale_event.pk]
    cache.delete(standings._debounce_key(stale_event.pk))  # the debounce window has passed
    assert standings.standings_heal(stale_event) is True
    assert queued == [stale_event.pk] * 2


def test_the_debounce_is_per_event(stale_event, queued):
    other = _event_with_byes()
    for _ in range(3):
        standings.standings_heal(stale_event)
        standings.standings_heal(other)
    assert sorted(queued) == sorted([stale_event.pk, other.pk])


def test_a_recompute_queued_on_commit_debounces_the_reads(stale_event, queued,
                                                          django_capture_on_commit_callbacks):
    """Reads right after a change need not queue a second recompute: one is on its way."""
    with django_capture_on_commit_callbacks(execute=True):
        penalty_add(event=stale_event, entry=stale_event.entries.first(),
                             kind=Penalty.Kind.POINT_DEDUCTION, points=1, reason="late")
    assert queued == [stale_event.pk]
    stale_event.refresh_from_db()
    assert standings.standings_heal(stale_event) is False
    assert queued == [stale_event.pk]


def test_a_read_with_the_broker_down_answers_and_the_next_read_tries_again(
        stale_event, monkeypatch, caplog):
    def refuse(*args, **kwargs):
        raise BrokerError("Connection refused.")

    monkeypatch.setattr(standings_recompute_task, "delay", refuse)
    with caplog.at_level(logging.WARNING, logger="tournaments.standings"):
        assert standings.standings_heal(stale_event) is False
    assert len(_warnings(caplog)) == 1
    monkeypatch.undo()  # the broker is back: no debounce window left by the failed publish
    assert standings.standings_heal(stale_event) is True
    _assert_fresh(stale_event)


# ----------------------------------------------------------------------------- sweep
def test_the_sweep_command_heals_stale_events_and_leaves_fresh_ones_alone(
        stale_event, fresh_event, monkeypatch, capsys):
    before = Event.objects.get(pk=fresh_event.pk)
    computed_at = {st.entry_id: st.computed_at for st in Standing.objects.filter(event=before)}
    ran: list[int] = []
    real_delay = standings_recompute_task.delay
    monkeypatch.setattr(standings_recompute_task, "delay",
                        lambda event_id, *a, **kw: ran.append(event_id) or real_delay(event_id))
    call_command("standings_sweep")
    assert ran == [stale_event.pk]
    assert f"of 1 event(s): {stale_event.pk}" in capsys.readouterr().out
    _assert_fresh(stale_event)
    after = Event.objects.get(pk=fresh_event.pk)
    assert (after.standings_version, after.standings_digest, after.standings_results_version) == (
        before.standings_version, before.standings_digest, before.standings_results_version)
    assert {st.entry_id: st.computed_at
            for st in Standing.objects.filter(event=after)} == computed_at
    call_command("standings_sweep")
    assert ran == [stale_event.pk]  # nothing stale any more
    assert "no event has stale standings" in capsys.readouterr().out


def test_the_sweep_can_run_the_recomputes_itself_without_a_broker(stale_event, broker_down):
    call_command("standings_sweep", "--run")
    _assert_fresh(stale_event)


def test_a_sweep_with_the_broker_down_reports_the_event_and_leaves_it_for_the_next(
        stale_event, broker_down, capsys, caplog):
    with caplog.at_level(logging.WARNING, logger="tournaments.standings"):
        call_command("standings_sweep")
    assert f"not queued (broker unavailable): {stale_event.pk}" in capsys.readouterr().err
    assert len(_warnings(caplog)) == 1
    stale_event.refresh_from_db()
    assert standings.standings_are_stale(stale_event)


def test_the_sweep_task_heals_stale_events(stale_event, fresh_event):
    outcome = standings_sweep_task.delay().get()
    assert outcome == {"done": [stale_event.pk], "failed": []}
    _assert_fresh(stale_event)


# ----------------------------------------------------------------------------- publish failure
def test_a_broker_error_at_publish_is_a_warning_and_the_change_stays_committed(
        fresh_event, broker_down, caplog, django_capture_on_commit_callbacks):
    entry = fresh_event.entries.first()
    version = fresh_event.results_version
    with caplog.at_level(logging.WARNING, logger="tournaments.standings"):
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            penalty = penalty_add(event=fresh_event, entry=entry, reason="late",
                                           kind=Penalty.Kind.POINT_DEDUCTION, points=3)
    assert len(callbacks) == 1  # the publish ran, and failed quietly
    warnings = _warnings(caplog)
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert f"event {fresh_event.pk}" in message and "BrokerError" not in message
    assert "OperationalError" in message and "\n" not in message
    assert Penalty.objects.filter(pk=penalty.pk).exists()
    fresh_event.refresh_from_db()
    assert fresh_event.results_version == version + 1
    assert standings.standings_are_stale(fresh_event)
    assert Standing.objects.get(event=fresh_event, entry=entry).penalty_points == 0


def test_after_a_failed_publish_the_next_read_heals(fresh_event, monkeypatch,
                                                    django_capture_on_commit_callbacks):
    entry = fresh_event.entries.first()
    real_delay = standings_recompute_task.delay

    def refuse(*args, **kwargs):
        raise BrokerError("Connection refused.")

    monkeypatch.setattr(standings_recompute_task, "delay", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        penalty_add(event=fresh_event, entry=entry, reason="late",
                             kind=Penalty.Kind.POINT_DEDUCTION, points=3)
    monkeypatch.setattr(standings_recompute_task, "delay", real_delay)
    fresh_event.refresh_from_db()
    assert standings.standings_heal(fresh_event) is True
    _assert_fresh(fresh_event)
    assert Standing.objects.get(event=fresh_event, entry=entry).penalty_points == 3
