"""Ratings across events (issue 22): every confirmed game of an event that counts is rated in
a fixed order (round, table, game), so the same results give the same ratings whatever the
order of confirmation; corrections and late confirmations re-rate from the round they change."""

from __future__ import annotations

import pytest

from games.models import GameResult
from games.services import result_confirm, result_correct, result_submit
from ratings import services as ratings
from ratings.models import PlayerRating, RatedResult, RatingPoint
from tests.factories import EventFactory, PlayerFactory, UserFactory
from tournaments.models import Event
from tournaments.services.draws import round_draw
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_update
from tournaments.services.rounds import round_create, round_publish

pytestmark = pytest.mark.django_db

KAIDIAN = [True] * 6
#: finishing orders by seat: 联邦 0 sweeps, 联邦 1 sweeps, mixed
ORDERS = ([0, 2, 4, 1, 3, 5], [1, 3, 5, 0, 2, 4], [0, 1, 2, 3, 4, 5], [5, 3, 0, 1, 2, 4])


def _event(players, *, rated=True, games=2) -> Event:
    event = EventFactory(rated=rated, games_per_match=games)
    for p in players:
        entry_check_in(entry=entry_register(event=event, player=p))
    return event


def _play_round(event, referee, k, *, confirm=True):
    rnd = round_create(event=event)
    rnd = round_draw(round_id=rnd.pk)
    results = []
    for table in rnd.tables.order_by("number"):
        for number in range(1, event.games_per_match + 1):
            order = ORDERS[(k + table.number + number) % len(ORDERS)]
            results.append(result_submit(table=table, number=number,
                                         sheet={"order": order, "kaidian": KAIDIAN}, by=referee))
    if confirm:
        for r in results:
            result_confirm(result=r, by=referee, as_referee=True)
    round_publish(round=rnd)
    return rnd, results


def _snapshot():
    return sorted((r.player_id, round(r.mu, 9), round(r.sigma, 9), r.games, r.wins)
                  for r in PlayerRating.objects.all())


@pytest.fixture
def referee():
    return UserFactory(is_staff=True)


@pytest.fixture
def players():
    return [PlayerFactory() for _ in range(12)]


def test_confirmed_games_of_a_rated_event_move_ratings(players, referee):
    # given: a rated event, one round of two tables, two games each, confirmed
    event = _event(players)
    _play_round(event, referee, 0)

    # when
    rated = ratings.ratings_update(event_id=event.pk)

    # then: four games rated; every player has a rating and a point after the round
    assert rated == 4
    assert PlayerRating.objects.count() == 12
    assert RatingPoint.objects.count() == 12
    assert all(r.games == 2 for r in PlayerRating.objects.all())
    assert RatedResult.objects.count() == 4
    # a second run finds nothing changed
    assert ratings.ratings_update(event_id=event.pk) == 0


def test_an_event_that_does_not_count_changes_no_rating(players, referee):
    event = _event(players, rated=False)
    _play_round(event, referee, 0)

    assert ratings.ratings_update(event_id=event.pk) == 0
    assert not PlayerRating.objects.exists()


def test_submitted_games_are_not_rated_until_confirmed(players, referee):
    event = _event(players)
    _rnd, results = _play_round(event, referee, 0, confirm=False)
    assert ratings.ratings_update(event_id=event.pk) == 0

    result_confirm(result=results[2], by=referee, as_referee=True)

    assert ratings.ratings_update(event_id=event.pk) == 1
    assert PlayerRating.objects.count() == 6


def test_the_order_of_confirmation_does_not_change_the_ratings(players, referee):
    # given: two rounds whose results are confirmed in reverse order, re-rating after each
    event = _event(players)
    for k in range(2):
        _rnd, results = _play_round(event, referee, k, confirm=False)
        for r in reversed(results):
            result_confirm(result=r, by=referee, as_referee=True)
            ratings.ratings_update(event_id=event.pk)
    incremental = _snapshot()

    # when: the same results rated from scratch
    assert ratings.ratings_recompute() == 8
    from_scratch = _snapshot()

    # then
    assert incremental == from_scratch
    assert len(from_scratch) == 12


def test_a_correction_of_an_early_round_re_rates_the_later_rounds(players, referee):
    # given: three rated rounds
    event = _event(players)
    first = [_play_round(event, referee, k)[1] for k in range(3)][0]
    ratings.ratings_update(event_id=event.pk)
    before = _snapshot()
    points_before = RatingPoint.objects.count()

    # when: round 1's first game is corrected (the other 联邦 won it) and re-rated
    result_correct(result=first[0], reason="wrong order", by=referee, as_referee=True,
                   sheet={"order": [1, 3, 5, 0, 2, 4], "kaidian": KAIDIAN})
    rerated = ratings.ratings_update(event_id=event.pk)

    # then: the corrected table, and the later tables of its players, are re-rated (an
    # untouched table keeps its stored values), matching a recompute from scratch
    assert 2 <= rerated <= 12
    after = _snapshot()
    assert after != before
    assert RatingPoint.objects.count() == points_before
    ratings.ratings_recompute()
    assert _snapshot() == after


def test_a_late_confirmation_re_rates_the_later_rounds_of_other_events(players, referee):
    # given: event A's round, drawn first, waits for one game; event B's round (six of the same
    # players), drawn later, is confirmed and rated
    event_a = _event(players)
    _rnd, results = _play_round(event_a, referee, 0, confirm=False)
    for r in results[1:]:
        result_confirm(result=r, by=referee, as_referee=True)
    ratings.ratings_update(event_id=event_a.pk)
    event_b = _event(players[:6])
    _play_round(event_b, referee, 1)
    ratings.ratings_update(event_id=event_b.pk)

    # when: A's late game is confirmed
    result_confirm(result=results[0], by=referee, as_referee=True)
    rerated = ratings.ratings_update(event_id=event_a.pk)

    # then: the late game's table and B's later table (the same players) are re-rated, as a
    # recompute from scratch rates them
    assert rerated == 2 + 2
    after = _snapshot()
    ratings.ratings_recompute()
    assert _snapshot() == after


def test_a_correction_in_the_last_round_re_rates_one_table(players, referee):
    # given: two rated rounds
    event = _event(players)
    last = [_play_round(event, referee, k)[1] for k in range(2)][-1]
    ratings.ratings_update(event_id=event.pk)
    before = {r.pk: (r.mu, r.sigma) for r in RatingPoint.objects.all()}

    # when: a game of round 2 is corrected
    result_correct(result=last[0], reason="wrong order", by=referee, as_referee=True,
                   sheet={"order": [1, 3, 5, 0, 2, 4], "kaidian": KAIDIAN})
    rerated = ratings.ratings_update(event_id=event.pk)

    # then: that table's two games only; the other table's points are the same rows
    assert rerated == 2
    after = {r.pk: (r.mu, r.sigma) for r in RatingPoint.objects.all()}
    kept = set(before) & set(after)
    assert len(kept) == len(before) - 6
    assert all(before[pk] == after[pk] for pk in kept)
    snapshot = _snapshot()
    ratings.ratings_recompute()
    assert _snapshot() == snapshot


def test_confirmation_queues_the_update_after_commit(players, referee,
                                                     django_capture_on_commit_callbacks):
    # given
    event = _event(players)
    _rnd, results = _play_round(event, referee, 0, confirm=False)

    # when: a confirmation commits (the eager task runs in-process)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result_confirm(result=results[0], by=referee, as_referee=True)

    # then
    assert callbacks
    assert PlayerRating.objects.count() == 6
    assert GameResult.objects.filter(status="confirmed").count() == 1


def test_switching_an_event_to_count_or_not_re_rates_it(players, referee,
                                                        django_capture_on_commit_callbacks):
    # given: an event that does not count, with a round played
    event = _event(players, rated=False)
    _play_round(event, referee, 0)
    assert not PlayerRating.objects.exists()

    # when: the organizer makes it count, then not
    with django_capture_on_commit_callbacks(execute=True):
        event_update(event=event, rated=True)
    counted = PlayerRating.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        event_update(event=event, rated=False)

    # then
    assert counted == 12
    assert not PlayerRating.objects.exists()
    assert not RatingPoint.objects.exists() and not RatedResult.objects.exists()
