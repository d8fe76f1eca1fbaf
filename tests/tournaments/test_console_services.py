# ruff: noqa: F811 -- the fixtures of tests/pages/conftest.py, imported
"""The services and selectors the organizer's console stands on (issue 52): the standings
release's rule (only complete rounds, or anyway with the count), undoing a check-in, a player
registered at the desk, the slug editable until the event is public, staff removal, the
entry search with pinyin, and who may create events."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from games.models import GameResult
from tests.pages.conftest import event, make_event, referee_user  # noqa: F401
from tests.pages.helpers import draw_round, play_table
from tournaments import selectors
from tournaments.errors import ServiceError
from tournaments.models import Entry, Player, ReleasedStanding
from tournaments.names import person_name
from tournaments.services.entries import (
    entry_check_in,
    entry_check_in_undo,
    entry_register_by_name,
    entry_withdraw,
)
from tournaments.services.events import (
    event_finish,
    event_publish,
    event_staff_remove,
    event_update,
    slug_fixed,
)
from tournaments.services.links import entry_link_issue
from tournaments.services.releases import (
    standings_release,
    standings_release_missing,
    standings_release_rounds,
)

pytestmark = pytest.mark.django_db
User = get_user_model()


# ----------------------------------------------------------------------------- release
def test_a_round_with_missing_results_is_not_released(event):
    """Round 1: table 1 confirmed, table 2 without results (2 games missing)."""
    with pytest.raises(ServiceError) as refused:
        standings_release(event=event, round_number=1)

    assert refused.value.code == "results_missing"
    assert refused.value.detail == {"round": 1, "missing": 2}
    event.refresh_from_db()
    assert event.standings_released_round is None
    assert not ReleasedStanding.objects.exists()


def test_a_round_with_missing_results_is_released_when_asked_anyway(event):
    standings_release(event=event, round_number=1, anyway=True)

    event.refresh_from_db()
    assert event.standings_released_round == 1
    assert ReleasedStanding.objects.filter(event=event, through_round=1).exists()


def test_a_complete_round_is_released_and_listed_as_complete(event, referee_user):
    assert standings_release_rounds(event=event) == [{"number": 1, "missing": 2}]
    play_table(table=event.rounds.get().tables.get(number=2), referee=referee_user)

    assert standings_release_rounds(event=event) == [{"number": 1, "missing": 0}]
    standings_release(event=event, round_number=1)
    event.refresh_from_db()
    assert event.standings_released_round == 1


def test_an_unconfirmed_result_counts_as_missing(event, referee_user):
    play_table(table=event.rounds.get().tables.get(number=2), referee=referee_user,
               confirm=False)
    assert GameResult.objects.filter(status=GameResult.Status.SUBMITTED).count() == 2

    assert standings_release_missing(event=event, round_number=1) == 2


def test_hiding_and_going_live_need_no_complete_round(event):
    standings_release(event=event, round_number=0)
    event.refresh_from_db()
    assert event.standings_released_round == 0
    standings_release(event=event, round_number=None)
    event.refresh_from_db()
    assert event.standings_released_round is None


# ----------------------------------------------------------------------------- check-in
def test_a_check_in_is_undone_until_a_draw_holds_the_entry(make_event):
    event = make_event(slug="undo-cup", players=7, published=False)
    entry = event.entries.order_by("pk").first()

    entry_check_in_undo(entry=entry)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED and entry.checked_in_at is None
    entry_check_in(entry=entry)
    draw_round(event, publish=False)
    with pytest.raises(ServiceError) as refused:
        entry_check_in_undo(entry=entry)
    assert refused.value.code == "in_a_draw"
    entry.refresh_from_db()
    assert entry.status == Entry.Status.CHECKED_IN


def test_a_withdrawn_entry_cannot_be_undone_into_registered(event):
    entry = entry_withdraw(entry=event.entries.order_by("pk").first())
    with pytest.raises(ServiceError) as refused:
        entry_check_in_undo(entry=entry)
    assert refused.value.code == "cannot_undo"


def test_a_player_registered_at_the_desk_after_round_1_is_a_late_entry(event):
    entry = entry_register_by_name(event=event, name="  迟到者 ", club="崂山",
                                            number=777, check_in=True)

    assert entry.late and entry.first_round == 2
    assert entry.status == Entry.Status.CHECKED_IN
    assert (entry.player.name, entry.player.club, entry.player.number) == ("迟到者", "崂山", 777)


def test_a_number_names_its_player_and_a_wrong_name_changes_nothing(event, make_event):
    other = make_event(slug="other-cup", players=0, published=False)
    holder = event.entries.order_by("pk").first().player
    count = Player.objects.count()

    with pytest.raises(ServiceError) as refused:
        entry_register_by_name(event=other, name="别人", number=holder.number)
    assert refused.value.code == "number_taken" and refused.value.detail["field"] == "number"
    assert not other.entries.exists() and Player.objects.count() == count

    entry = entry_register_by_name(event=other, name=holder.name,
                                            number=holder.number)
    assert entry.player == holder and Player.objects.count() == count


def test_a_refused_check_in_leaves_no_entry(event):
    event_finish(event=event)
    with pytest.raises(ServiceError):
        entry_register_by_name(event=event, name="太晚", check_in=True)
    assert not Player.objects.filter(name="太晚").exists()


# ----------------------------------------------------------------------------- settings
def test_the_slug_changes_until_the_event_is_published(make_event):
    event = make_event(slug="first-name", published=False, players=0)

    event = event_update(event=event, slug="second-name")
    assert event.slug == "second-name"
    event_publish(event=event)
    with pytest.raises(ServiceError) as refused:
        event_update(event=event, slug="third-name")
    assert refused.value.code == "slug_fixed" and refused.value.detail == {"field": "slug"}
    event.refresh_from_db()
    assert event.slug == "second-name"


def test_the_slug_is_fixed_once_a_round_exists(make_event):
    event = make_event(slug="drawn-cup", published=False)
    draw_round(event, publish=False)

    assert slug_fixed(event)
    with pytest.raises(ServiceError):
        event_update(event=event, slug="renamed")


@pytest.mark.parametrize("slug,code", [("taken-cup", "slug_taken"), ("not a slug", "bad_event")])
def test_a_taken_or_malformed_slug_is_refused(make_event, slug, code):
    make_event(slug="taken-cup", published=False, players=0)
    event = make_event(slug="mine", published=False, players=0)

    with pytest.raises(ServiceError) as refused:
        event_update(event=event, slug=slug)
    assert refused.value.code == code
    event.refresh_from_db()
    assert event.slug == "mine"


def test_an_event_keeps_one_organizer(event, referee_user):
    boss = User.objects.create_user("boss")
    event.organizers.add(boss)

    with pytest.raises(ServiceError):
        event_staff_remove(event=event, user=boss, role="organizer")
    event_staff_remove(event=event, user=referee_user, role="referee")
    assert list(event.organizers.all()) == [boss] and not event.referees.exists()


# ----------------------------------------------------------------------------- selectors
@pytest.mark.parametrize("query,names", [
    ("张", ["张伟"]), ("zhangwei", ["张伟"]), ("zw", ["张伟"]), ("ZHANG", ["张伟"]),
    ("101", ["张伟"]), ("崂山", ["王芳"]), ("", None)])
def test_entries_are_found_by_name_number_club_and_pinyin(event, query, names):
    Player.objects.filter(name="王芳").update(club="崂山俱乐部")

    found = [e.player.name for e in selectors.entry_search(event, query)]

    assert found == (names if names is not None else
                     [e.player.name for e in event.entries.order_by("pk")])


def test_who_may_create_events():
    plain = User.objects.create_user("plain")
    allowed = User.objects.create_user("allowed")
    allowed.user_permissions.add(Permission.objects.get(codename="add_event"))
    staff = User.objects.create_user("staff", is_staff=True)
    root = User.objects.create_superuser("root", "r@example.org", "pw")

    assert [selectors.can_create_event(User.objects.get(pk=u.pk))
            for u in (plain, allowed, staff, root)] == [False, True, True, True]


def test_staff_candidates_are_people_who_sign_in_not_link_logins(event):
    organizer = User.objects.create_user("org", password="pw-1")
    event.organizers.add(organizer)
    entry = event.entries.order_by("pk").first()
    entry_link_issue(entry=entry)  # a login without a password: not offered
    player = event.entries.order_by("pk")[1].player
    player.user = User.objects.create_user("wangfang", password="pw-2")
    player.save()
    User.objects.create_user("desk-staff", password="pw-3", is_staff=True,
                             first_name="老", last_name="李")
    User.objects.create_user("nobody", password="pw-4")

    names = [person_name(u) for u in selectors.staff_candidates(event, organizer)]

    assert player.name in names and "老 李" in names
    assert "nobody" not in names and not any(n.startswith("player-") for n in names)
