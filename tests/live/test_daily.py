"""The daily challenge's services (live/daily.py, 每日挑战): the day's deals made once from
committed seeds, names, one entry a session and one play a deal, the careful bots, the field's
matchpoints and the leaderboard, what is hidden until a deal is finished, and the day's end."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.bots import CarefulBot
from engine.deals import derive_deal, verify
from engine.duplicate import matchpoints, net_points
from engine.game import Game
from live import daily
from live.models import ChallengeDay, ChallengeDeal, ChallengeEntry, ChallengePlay
from tests.pages.helpers import bot_act
from tournaments.errors import ServiceError

pytestmark = pytest.mark.django_db


def enter(name: str, token: str | None = None) -> ChallengeEntry:
    return daily.challenge_enter(day=daily.challenge_day(), name=name,
                                 token=token or f"token-of-{name}-0123456789")


def play_through(entry: ChallengeEntry, number: int) -> ChallengePlay:
    """The entry's play of deal ``number``, the person's acts chosen by 托管's bot."""
    play = daily.challenge_play(entry=entry, number=number)
    for _ in range(500):
        if play.status == ChallengePlay.Status.FINISHED:
            return play
        game = Game.from_state(play.state)
        play = daily.challenge_act(play=play, action=bot_act(game, play.deal.seat),
                                   version=play.version)
    raise AssertionError("the play did not end")


def finished(entry: ChallengeEntry, number: int, points: int) -> ChallengePlay:
    """A finished play of deal ``number`` with ``points`` net points (for the field's sums)."""
    deal = ChallengeDeal.objects.get(day=entry.day, number=number)
    return ChallengePlay.objects.create(entry=entry, deal=deal, state={}, net_points=points,
                                        status=ChallengePlay.Status.FINISHED)


def refusal(call) -> str:
    with pytest.raises(ServiceError) as caught:
        call()
    return caught.value.code


# ----------------------------------------------------------------------------- the day
def test_the_day_is_made_once_with_committed_deals_and_fixed_seats():
    day = daily.challenge_day()
    assert daily.challenge_day().pk == day.pk and ChallengeDay.objects.count() == 1
    deals = list(day.deals.all())
    assert [d.number for d in deals] == list(range(1, daily.DEALS_PER_DAY + 1))
    assert len({d.seed for d in deals}) == daily.DEALS_PER_DAY  # a fresh seed each
    for deal in deals:
        assert deal.label == f"gouji/daily/{day.date.isoformat()}/deal/{deal.number}"
        assert verify(deal.seed, deal.label, deal.commitment) == []
    assert {d.seat % 2 for d in deals} == {0, 1}  # both 联邦 are played


def test_no_challenge_is_made_for_another_day():
    other = daily.today() - timedelta(days=1)
    assert refusal(lambda: daily.challenge_day(other)) == "no_challenge"
    assert refusal(lambda: daily.challenge_day(daily.today() + timedelta(days=1))) == \
        "no_challenge"
    assert ChallengeDay.objects.count() == 0


# ----------------------------------------------------------------------------- names
@pytest.mark.parametrize("raw, shown", [
    ("  张三  ", "张三"), ("Ann   Lee", "Ann Lee"), ("Ｗｅｉ", "Wei"), ("x" * 24, "x" * 24)])
def test_names_are_normalized(raw, shown):
    assert daily.clean_name(raw)[0] == shown


@pytest.mark.parametrize("raw", ["", "   ", "x" * 25, "bell\x07", "zero\u200bwidth",
                                 "evil\u202eright", "tab\tname\x00", None, 12])
def test_bad_names_are_refused(raw):
    assert refusal(lambda: daily.clean_name(raw)) == "bad_name"


def test_one_entry_a_session_and_a_name_once_a_day():
    ann = enter("Ann", "session-a-0123456789")
    # the same name from the same session is the same entry
    assert enter("Ann", "session-a-0123456789").pk == ann.pk
    # another name from the same session is refused
    assert refusal(lambda: enter("Bob", "session-a-0123456789")) == "already_entered"
    # the name (in any case) from another session is taken
    assert refusal(lambda: enter("ANN", "session-b-0123456789")) == "name_taken"
    assert ChallengeEntry.objects.count() == 1
    # only the token's hash is kept
    assert "session-a" not in ChallengeEntry.objects.get().token_hash


# ----------------------------------------------------------------------------- playing
def test_a_deal_is_its_committed_cards_at_its_seat_with_no_tribute():
    play = daily.challenge_play(entry=enter("Ann"), number=2)
    deal = play.deal
    game = Game.from_state(play.state)
    assert [sorted(h) for h in game.deal] == [sorted(h) for h in derive_deal(deal.seed,
                                                                             deal.label)]
    assert game.previous is None and game.first_game  # no tribute carried in
    assert game.whose_turn() == deal.seat  # the bots played up to the person's question
    assert game.rules.spec() == Game(daily.PRESET, game.deal, None).rules.spec()


def test_the_first_lead_is_the_deals_own():
    ann = play_through(enter("Ann"), 1)
    game = Game.from_state(ann.state)
    # 大纲's first game of a table: the opening seat (1号位) leads, the same at every table
    # (unless a revolution took that seat out of the lead)
    assert Game(daily.PRESET, game.deal, None).rules["first_lead"] == "rotate"
    assert game.record()["leader"] == game.opening_seat == 0 or game.result()["revolutions"]


def test_the_bots_are_careful_and_answer_the_same_play_the_same_way(monkeypatch):
    # given: the challenge's bots' choices counted (the person's are 托管's, apart)
    chosen = []

    class Counted(CarefulBot):
        def choose(self, game, seat):
            chosen.append(seat)
            return super().choose(game, seat)

    monkeypatch.setattr(daily, "CarefulBot", Counted)

    # when: two people play deal 3 the same way
    ann, bob = play_through(enter("Ann"), 3), play_through(enter("Bob"), 3)

    # then: every other seat's act was the careful bot's, and both games are the same game
    assert chosen and ann.deal.seat not in chosen
    assert Game.from_state(ann.state).record() == Game.from_state(bob.state).record()
    result = Game.from_state(ann.state).result()
    assert ann.net_points == net_points(result["team_points"], ann.deal.seat % 2)
    assert ann.finished_at is not None


def test_a_deal_is_played_once():
    entry = enter("Ann")
    first = play_through(entry, 1)
    # asking again is the same finished play, never a new deal
    again = daily.challenge_play(entry=entry, number=1)
    assert again.pk == first.pk and again.status == ChallengePlay.Status.FINISHED
    assert refusal(lambda: daily.challenge_act(play=again, action={"act": "pass"},
                                               version=again.version)) == "game_over"
    assert ChallengePlay.objects.filter(entry=entry).count() == 1
    assert refusal(lambda: daily.challenge_play(entry=entry, number=9)) == "not_found"


def test_a_stale_or_illegal_act_changes_nothing():
    play = daily.challenge_play(entry=enter("Ann"), number=1)
    assert refusal(lambda: daily.challenge_act(play=play, action={"act": "pass"},
                                               version=play.version + 1)) == "stale_version"
    with pytest.raises(ServiceError) as caught:
        daily.challenge_act(play=play, action={"act": "play", "cards": ["XX"]},
                            version=play.version)
    assert caught.value.status == 422
    assert ChallengePlay.objects.get(pk=play.pk).version == play.version


def test_when_the_day_is_over_nothing_more_is_played_and_everything_opens(monkeypatch):
    # given: Ann midway through deal 1, Bob not started
    ann = enter("Ann")
    play = daily.challenge_play(entry=ann, number=1)
    bob = enter("Bob")
    deal = play.deal
    assert not daily.may_see(deal, bob)

    # when: the date turns
    monkeypatch.setattr(daily, "today", lambda: deal.day.date + timedelta(days=1))

    # then: no act, no start, no entry; and the deal's field is open to anyone
    assert refusal(lambda: daily.challenge_act(play=play, action={"act": "pass"},
                                               version=play.version)) == "day_over"
    assert refusal(lambda: daily.challenge_play(entry=bob, number=1)) == "day_over"
    assert refusal(lambda: daily.challenge_enter(day=deal.day, name="Cy",
                                                 token="session-c-0123456789")) == "day_over"
    assert daily.may_see(deal, bob) and daily.may_see(deal, None)


# ----------------------------------------------------------------------------- scores
def test_field_matchpoints_are_the_engines_against_everyone_else():
    scores = [4, -2, 4, 0, 12, -12, 4, 0]
    expected = [matchpoints(s, scores[:i] + scores[i + 1:]) for i, s in enumerate(scores)]
    assert daily.field_matchpoints(scores) == expected
    assert daily.field_matchpoints([5]) == [None]
    assert daily.field_matchpoints([]) == []


def test_the_field_of_a_deal_follows_it_as_it_grows():
    ann, bob, cy = enter("Ann"), enter("Bob"), enter("Cy")
    finished(ann, 1, 4)
    assert [(r.name, r.matchpoints) for r in daily.deal_field(ann.day.deals.get(number=1))] \
        == [("Ann", None)]
    finished(bob, 1, -2)
    finished(cy, 1, 4)
    rows = daily.deal_field(ann.day.deals.get(number=1))
    assert [(r.name, r.net_points, r.matchpoints, r.rank) for r in rows] == [
        ("Ann", 4, 0.75, 1), ("Cy", 4, 0.75, 1), ("Bob", -2, 0.0, 3)]
    # a running play is not in the field
    daily.challenge_play(entry=enter("Di"), number=1)
    assert len(daily.deal_field(ann.day.deals.get(number=1))) == 3
    assert daily.finished_counts(ann.day) == {1: 3, 2: 0, 3: 0, 4: 0}


def test_the_leaderboard_adds_matchpoints_with_shared_ranks():
    ann, bob, cy, di = enter("Ann"), enter("Bob"), enter("Cy"), enter("Di")
    finished(ann, 1, 6)   # deal 1: Ann beats Bob and Cy → 1.0; Bob, Cy tie → 0.25 each
    finished(bob, 1, 0)
    finished(cy, 1, 0)
    finished(bob, 2, 2)   # deal 2: Bob beats Ann → 1.0, Ann 0.0
    finished(ann, 2, -2)
    finished(di, 3, 0)    # deal 3: Di alone → half
    rows = daily.leaderboard(ann.day)
    assert [(r.name, r.total, r.played, r.rank) for r in rows] == [
        ("Bob", 1.25, 2, 1), ("Ann", 1.0, 2, 2), ("Di", 0.5, 1, 3), ("Cy", 0.25, 1, 4)]
    assert rows[0].percent == pytest.approx(62.5)
    finished(cy, 2, 2)    # deal 2 grows: Cy ties Bob at 0.75 each, Ann 0.0 → three at 1.0
    rows = daily.leaderboard(ann.day)
    assert [(r.name, r.total, r.played, r.rank) for r in rows] == [
        ("Ann", 1.0, 2, 1), ("Bob", 1.0, 2, 1), ("Cy", 1.0, 2, 1), ("Di", 0.5, 1, 4)]


def test_a_deal_opens_to_an_entrant_once_they_have_finished_it():
    ann, bob = enter("Ann"), enter("Bob")
    finished(ann, 2, 3)
    deal = ann.day.deals.get(number=2)
    assert daily.may_see(deal, ann)
    assert not daily.may_see(deal, bob) and not daily.may_see(deal, None)
    daily.challenge_play(entry=bob, number=2)  # started is not finished
    assert not daily.may_see(deal, bob)
    assert refusal(lambda: daily.check_may_see(deal, bob)) == "not_finished"
    ChallengePlay.objects.filter(entry=bob).update(status=ChallengePlay.Status.FINISHED,
                                                  net_points=0)
    assert daily.may_see(deal, bob)
