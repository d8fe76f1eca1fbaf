"""``bench_ratings``: synthetic confirmed results stored in bulk, a recomputation and two
re-ratings timed, and nothing left behind."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from games.models import GameResult
from ratings.models import PlayerRating, RatedResult, RatingPoint
from tournaments.models import Event, Player


@pytest.mark.django_db
def test_bench_ratings_times_a_recompute_and_a_re_rating_and_cleans_up():
    out = StringIO()

    call_command("bench_ratings", players=60, games=200, events=2, stdout=out)

    text = out.getvalue()
    assert "built 60 players, 200 confirmed games in 5 rounds of 2 events" in text
    assert re.search(r"recompute from scratch: 200 games in [\d.]+ s", text)
    # the last round's correction re-rates one table's match (four games), not the round
    assert re.search(r"a correction in the last round: 4 games re-rated", text)
    assert not (Event.objects.exists() or Player.objects.exists() or GameResult.objects.exists()
                or PlayerRating.objects.exists() or RatingPoint.objects.exists()
                or RatedResult.objects.exists())
