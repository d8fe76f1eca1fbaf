"""Draws that use the ratings (issue 22): an individual draw that keeps the two 联邦 of each
table close in summed rating without giving up the repeat rules, published with the round so it
stays verifiable; and a rating-seeded knockout bracket."""

from __future__ import annotations

import pytest

from ratings.models import PlayerRating
from tests.factories import (
    EventFactory,
    PlayerFactory,
    ResultFactory,
    RoundFactory,
    TeamFactory,
)
from tournaments import draw, standings
from tournaments.models import Round
from tournaments.services.draws import round_draw, round_verify
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.events import event_publish
from tournaments.services.rounds import round_create

pytestmark = pytest.mark.django_db

TEAM0_WINS = {"order": [0, 2, 4, 1, 3, 5], "kaidian": [True] * 6}
TEAM1_WINS = {"order": [1, 3, 5, 0, 2, 4], "kaidian": [True] * 6}


def _players(n):
    return [draw.DrawPlayer(id=i) for i in range(1, n + 1)]


def _spread_ratings(n):
    # a field from 10 to 40: a lopsided table is easy to draw by chance
    return {i: round(10 + 30 * ((i * 37) % n) / n, 2) for i in range(1, n + 1)}


def _mean_gap(tables, ratings):
    return sum(draw.rating_gap(t, ratings) for t in tables) / len(tables)


def test_balance_narrows_the_gap_between_the_two_teams_of_a_table():
    # given: 60 players over three rounds of history
    ratings = _spread_ratings(60)
    history = draw.History()
    for r in range(3):
        for t in draw.draw_individual(_players(60), history, f"h{r}").tables:
            history.add_table(t)

    # when: round 4 drawn with and without balance from the same seed
    plain = draw.draw_individual(_players(60), history, "r4")
    balanced = draw.draw_individual(_players(60), history, "r4", ratings=ratings)

    # then: the same tables, each seated at its least repeat cost, and the gap much smaller
    assert [sorted(t) for t in plain.tables] == [sorted(t) for t in balanced.tables]
    for seated in balanced.tables:
        assert draw.table_cost(seated, history) == _realised_cost(seated, history)
    assert _mean_gap(balanced.tables, ratings) < 0.5 * _mean_gap(plain.tables, ratings)


def _realised_cost(table, history):
    """The repeat cost of the seating as seated (draw.WEIGHTS per earlier meeting)."""
    cost = 0
    for i in range(6):
        for j in range(i + 1, 6):
            o, p, t = history.count(table[i], table[j])
            d = (i - j) % 6
            cost += (draw.WEIGHTS[0] * o if d == 3 else draw.WEIGHTS[1] * p if d % 2 == 0
                     else draw.WEIGHTS[2] * t)
    return cost


def test_a_balanced_draw_re_runs_from_its_published_data():
    ratings = _spread_ratings(18)
    first = draw.draw_individual(_players(18), draw.History(), "s", ratings=ratings)
    again = draw.draw_individual(list(reversed(_players(18))), draw.History(), "s",
                                 ratings=dict(reversed(ratings.items())))
    assert first == again


@pytest.fixture
def balanced_event():
    event = EventFactory(rating_balance=True, games_per_match=1)
    players = [PlayerFactory() for _ in range(12)]
    for k, p in enumerate(players):
        PlayerRating.objects.create(player=p, mu=15 + 2 * k, sigma=3, ordinal=6 + 2 * k,
                                    games=10)
        entry_check_in(entry=entry_register(event=event, player=p))
    return event


def test_the_round_publishes_the_ratings_its_draw_used_and_verifies(balanced_event):
    # when
    rnd = RoundFactory(event=balanced_event)

    # then: entry id -> the player's rating strength, as the round's public draw input
    ratings = rnd.draw_input["ratings"]
    assert sorted(ratings.values()) == [float(15 + 2 * k) for k in range(12)]
    assert round_verify(round=rnd) == []


def test_verification_fails_when_the_published_ratings_are_not_the_ones_used(
        balanced_event, monkeypatch):
    # given: a drawn round (a fixed seed, so that the test is the same on every run)
    monkeypatch.setattr(draw, "new_seed", lambda: "f" * 64)
    rnd = RoundFactory(event=balanced_event)
    assert round_verify(round=rnd) == []

    # when: the published ratings are changed after the draw (a partner of table 1's seat 0
    # is said to be far stronger than anyone: the draw would have split them)
    partner = rnd.tables.get(number=1).seats.get(seat=2).entry_id
    rnd.draw_input["ratings"][str(partner)] = 1000.0
    Round.objects.filter(pk=rnd.pk).update(draw_input=rnd.draw_input)
    rnd.refresh_from_db()

    # then
    assert round_verify(round=rnd) != []


def test_knockout_bracket_seeded_by_rating():
    # given: a team event seeding its finals by rating; the two best-rated teams finish 3rd
    # and 4th of the Swiss rounds
    event = EventFactory(format="team", games_per_match=1, rounds_planned=1, knockout_teams=4,
                         bye_points=0, knockout_seeding="rating")
    TeamFactory.create_batch(4, event=event)
    for table in RoundFactory(event=event).tables.all():
        ResultFactory(table=table, sheet=TEAM0_WINS)
    ranked = [r.entry_id for r in standings.compute(event)]
    from tournaments.models import Entry

    for strength, entry_id in zip((20, 22, 40, 30), ranked, strict=True):
        for m in Entry.objects.get(pk=entry_id).team.members.all():
            PlayerRating.objects.create(player=m.player, mu=strength, sigma=2,
                                        ordinal=strength - 6, games=5)

    # when
    ko = round_draw(round_id=round_create(event=event, knockout=True).pk)

    # then: seeds by rating are ranked[2], ranked[3], ranked[1], ranked[0]: 1 v 4, 2 v 3
    pairs = [(t.team_a.entry.pk, t.team_b.entry.pk) for t in ko.tables.order_by("number")]
    assert pairs == [(ranked[2], ranked[0]), (ranked[3], ranked[1])]
    assert ko.draw_input["seeding"]["qualifiers"] == ranked
    assert round_verify(round=ko) == []
    # a bracket that does not follow the published ratings is caught
    ko.draw_input["seeding"]["ratings"][str(ranked[0])] = 99.0
    Round.objects.filter(pk=ko.pk).update(draw_input=ko.draw_input)
    ko.refresh_from_db()
    assert round_verify(round=ko) != []


def test_anyone_re_runs_a_balanced_draw_from_the_published_round(balanced_event, client,
                                                                 capsys, tmp_path):
    """Verifiable draws with ratings: the round's public data (the API's round detail: seed,
    entries, draw input with the ratings used) re-run by ``python -m tournaments.draw draw``
    give the stored seating, and the commitment matches."""
    import json

    from tournaments.models import Table

    # given: round 1 drawn with balance and published
    event_publish(event=balanced_event)
    rnd = RoundFactory(event=balanced_event, published=True)
    public = client.get(f"/api/v1/events/{balanced_event.slug}/rounds/1/").json()
    inputs = public["draw_input"]
    data = {"seed": public["seed"], "event": balanced_event.pk, "round": 1,
            "commitment": public["commitment"], "brackets": public["brackets"],
            "ratings": inputs["ratings"],
            "players": [{"id": e, "score": inputs["scores"].get(str(e), 0),
                         "byes": inputs["byes"].get(str(e), 0)} for e in public["draw_entries"]]}
    path = tmp_path / "draw.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    # when
    assert draw.main(["draw", "--input", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)

    # then
    stored = [[s.entry_id for s in t.seats.order_by("seat")]
              for t in Table.objects.filter(round=rnd).order_by("number")]
    assert out["tables"] == stored
    assert out["commitment_ok"] is True
