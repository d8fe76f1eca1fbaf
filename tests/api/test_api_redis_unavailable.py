"""Redis down (issue 51, item 3): the API answers without it wherever it can — reads, token
logins, result submissions, live acts — and where a request truly needs it (opening a round,
whose draw runs on a worker) with a 503 ``queue_unavailable`` and ``Retry-After`` in the one
error shape, storing nothing. Every test here runs with the cache, the broker and live pub/sub
pointed at a port where Redis is not (``redis_down``, tests/conftest.py), as in production;
before config/outage.py each of these requests answered 500. (Redis killed and restarted under
live play: tests/faults/test_redis_restart.py.)
"""

from __future__ import annotations

import logging
import time

import pytest
import yaml

from config import outage
from games.models import GameResult
from live.models import LiveGame
from tests.api.helpers import client_for, error_of, seats_of, sheet
from tests.live.helpers import all_ready, make_live_table, play_through_api, start_url
from tests.live.test_live_api import check_result
from tournaments import standings
from tournaments.models import Event, Round

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"


def test_reads_answer_with_redis_down(redis_down, event, table, anon):
    for path in ("/api/v1/events/", f"/api/v1/events/{event.slug}/",
                 f"/api/v1/events/{event.slug}/rounds/", f"/api/v1/tables/{table.pk}/",
                 f"/api/v1/tables/{table.pk}/results/", f"/api/v1/events/{event.slug}/standings/",
                 f"/api/v1/events/{event.slug}/rounds/1/tables/"):
        r = anon.get(path)
        assert r.status_code == 200, (path, r.status_code, r.content[:300])


def test_a_token_login_works_with_redis_down_and_axes_still_locks_out(redis_down, settings,
                                                                     organizer):
    """Logins are guarded by django-axes, whose failures are counted in the database: with
    the throttles' counters in the process, a guesser is still locked out at the limit."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    organizer.set_password("the-right-password")
    organizer.save()
    anon = client_for(None)
    r = anon.post(TOKEN, {"username": "organizer", "password": "the-right-password"},
                  format="json")
    assert r.status_code == 200 and r.json()["token"], r.content
    answers = [anon.post(TOKEN, {"username": "organizer", "password": f"guess-{i}"},
                         format="json").status_code for i in range(settings.AXES_FAILURE_LIMIT)]
    assert answers[-1] == 429 and set(answers[:-1]) == {400}
    assert error_of(anon.post(TOKEN, {"username": "organizer", "password": "the-right-password"},
                              format="json"), 429)["code"] == "locked_out"


def test_a_result_is_stored_and_confirmed_and_the_sweep_recomputes_later(redis_down, settings,
                                                                         table):
    """The standings recompute a confirmation queues cannot reach the broker: the result is
    stored and the answer is the usual one, and the standings, stale meanwhile, are recomputed
    by the beat's sweep once the broker is back."""
    seats = seats_of(table)
    r = client_for(seats[0].player.user).post(
        f"/api/v1/tables/{table.pk}/results/", {"number": 1, "sheet": sheet([0, 1, 2, 3, 4, 5])},
        format="json", HTTP_IDEMPOTENCY_KEY="redis-down-1")
    assert r.status_code == 201, r.content
    result_id = r.json()["id"]
    r = client_for(seats[1].player.user).post(f"/api/v1/results/{result_id}/confirm/")
    assert r.status_code == 200, r.content
    assert GameResult.objects.get(pk=result_id).status == GameResult.Status.CONFIRMED
    event = Event.objects.get(pk=table.round.event_id)
    assert standings.standings_are_stale(event)

    # when the broker is back (tasks in-process here), the sweep of Celery beat finds them
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert standings.standings_sweep()["done"] == [event.pk]
    event.refresh_from_db()
    assert not standings.standings_are_stale(event)


def test_a_live_game_is_played_to_its_end_and_its_result_stored(redis_down):
    """Starting a game arms 托管 timers and every act is announced on pub/sub: neither can
    reach Redis, and the game is played all the same (the seats' views are read, not woken;
    an overdue seat is played by the 托管 sweep of beat once Redis is back)."""
    lt = make_live_table()
    all_ready(lt)  # (its marks are rows in the database: no Redis needed)
    r = lt.clients[0].post(start_url(lt.table.pk), {}, format="json")
    assert r.status_code == 201, r.content
    live_id = r.json()["id"]
    play_through_api(lt, live_id, all_views=False)
    lg = LiveGame.objects.get(pk=live_id)
    assert lg.status == LiveGame.Status.FINISHED
    check_result(lt, live_id, 1)


def test_opening_a_round_needs_the_queue_and_is_a_503_that_changes_nothing(
        redis_down, event, entries, organizer):
    before = Round.objects.filter(event=event).count()
    r = client_for(organizer).post(f"/api/v1/events/{event.slug}/rounds/", {"knockout": False},
                                   format="json")
    err = error_of(r, 503)
    assert err["code"] == "queue_unavailable" and "try again" in err["message"]
    assert err["detail"] == {"retry_after": outage.RETRY_SECONDS}
    assert r["Retry-After"] == str(outage.RETRY_SECONDS)
    assert Round.objects.filter(event=event).count() == before
    assert "6379" not in err["message"] and str(redis_down.port) not in err["message"]


def test_throttles_count_in_the_process_while_redis_is_down(redis_down, monkeypatch, anon,
                                                           caplog):
    """The limits still hold, per process; the outage is logged once, not per request."""
    from api.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "5/min"})
    with caplog.at_level(logging.WARNING, logger="config.outage"):
        answers = [anon.get("/api/v1/events/").status_code for _ in range(8)]
    assert answers == [200] * 5 + [429] * 3
    said = [r for r in caplog.records if r.name == "config.outage"]
    assert len(said) == 1 and "Redis (cache) unavailable" in said[0].getMessage()


@pytest.mark.parametrize("redis_down", ["hung"], indirect=True)
def test_a_redis_that_does_not_answer_costs_one_request_half_a_second_not_every_request(
        redis_down, event, anon):
    """A Redis that takes connections and never answers: the first request waits for the
    connection's timeout; the next ones do not try it again until the breaker's interval is
    over."""
    t0 = time.monotonic()
    assert anon.get("/api/v1/events/").status_code == 200
    first = time.monotonic() - t0
    t0 = time.monotonic()
    for _ in range(20):
        assert anon.get(f"/api/v1/events/{event.slug}/").status_code == 200
    rest = time.monotonic() - t0
    assert 0.4 <= first < 2.5, first
    assert rest < 1.0, rest


def test_the_schema_documents_the_queues_503(anon):
    schema = yaml.safe_load(anon.get("/api/v1/schema/").content)
    described = schema["paths"]["/api/v1/events/{slug}/rounds/"]["post"]["responses"]["503"]
    assert "queue_unavailable" in described["description"]
    assert "database_unavailable" in described["description"]
