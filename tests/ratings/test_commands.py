"""The ratings' commands: recompute (here or on a worker) and the prediction figures."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from ratings.models import PlayerRating
from tests.factories import PlayerFactory, UserFactory
from tests.ratings.test_services import _event, _play_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    event = _event([PlayerFactory() for _ in range(12)])
    referee = UserFactory(is_staff=True)
    for k in range(3):
        _play_round(event, referee, k)
    return event


@pytest.mark.parametrize("args", [[], ["--worker"]])
def test_ratings_recompute_rates_every_confirmed_game(played, args):
    # the worker runs in-process here (no broker): queued or not, the ratings are there after
    out = StringIO()
    call_command("ratings_recompute", *args, stdout=out)
    assert PlayerRating.objects.count() == 12
    assert all(r.games == 6 for r in PlayerRating.objects.all())
    assert ("12 games rated" in out.getvalue()) or ("queued" in out.getvalue())


def test_ratings_predict_on_an_events_own_history(played):
    out = StringIO()
    call_command("ratings_predict", "--event", played.slug, "--json", stdout=out)
    figures = json.loads(out.getvalue())
    assert [f["predictor"] for f in figures] == [
        "rating", "coin flip", "higher points so far", "rating without places"]
    assert figures[1]["accuracy"] == 0.5 and figures[0]["games"] > 0


def test_ratings_predict_refuses_an_unknown_bot():
    with pytest.raises(Exception, match="unknown bot 'nobody'"):
        call_command("ratings_predict", "--bots", "nobody=6", stdout=StringIO())
