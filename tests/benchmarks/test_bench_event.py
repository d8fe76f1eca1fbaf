"""``bench_event``: a large individual event through the real services, timed round by round
(:class:`benchmarks.event_bench.EventBench`), and the nearest-rank percentile of the figures."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from benchmarks.figures import percentile
from games.models import GameResult
from tournaments.models import Entry, Event, Player, Round, Standing


@pytest.mark.django_db
def test_bench_event_times_every_round_and_deletes_its_event():
    # given: a database without events
    out = StringIO()

    # when
    call_command("bench_event", players=36, rounds=2, games=1, stdout=out)

    # then: a line per round, the redrawn last round verified, and nothing left behind
    text = out.getvalue()
    rows = [line.split() for line in text.splitlines() if line.split()[:1] in (["1"], ["2"])]
    assert [row[:3] for row in rows] == [["1", "6", "0"], ["2", "6", "0"]]
    # one confirmation through the services and the standings update after it, then the same
    # standings computed from scratch (checked equal)
    assert all(len(row) == 11 and row[-2].endswith("s") and row[-1].endswith("s") for row in rows)
    assert "after one confirmation" in text
    assert "round 2 re-drawn from its public data" in text and "verified" in text
    assert "NOT verified" not in text
    assert "standings rows: 36" in text
    assert not Event.objects.exists() and not Round.objects.exists()
    assert not Entry.objects.exists() and not Player.objects.exists()
    assert not get_user_model().objects.exists()
    assert not GameResult.objects.exists() and not Standing.objects.exists()


@pytest.mark.django_db
def test_bench_event_keeps_its_event_when_asked():
    # when
    call_command("bench_event", players=12, rounds=1, games=2, keep=True, stdout=StringIO())

    # then: one round of two tables with two confirmed results each
    event = Event.objects.get()
    assert event.rounds.count() == 1
    assert GameResult.objects.filter(table__round__event=event,
                                     status=GameResult.Status.CONFIRMED).count() == 4
    assert Standing.objects.filter(event=event).count() == 12


@pytest.mark.parametrize(("pct", "expected"), [(50, 2.0), (90, 4.0), (99, 4.0), (25, 1.0),
                                                (0, 1.0), (100, 4.0)])
def test_percentile_is_the_nearest_rank(pct, expected):
    assert percentile([1.0, 2.0, 3.0, 4.0], pct) == expected


def test_percentile_of_nothing_is_nan():
    assert percentile([], 50) != percentile([], 50)
