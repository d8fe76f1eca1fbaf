"""The organizer's console (issue 52, items 7 and 8), through Django's test client: each page
for the event's organizers, a 404 for anyone else, and every refused input changing nothing."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.pages.helpers import play_table
from tournaments.models import Entry, Event, Player, Round
from tournaments.services.events import event_create, event_publish
from tournaments.services.links import entry_link_issue, entry_link_revoke

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def organizer(event):
    user = User.objects.create_user("console-organizer", password="pw-console-1")
    event.organizers.add(user)
    return user


def _client(user=None, lang="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    if user is not None:
        client.force_login(user)
    return client


def _url(name, event=None, **kwargs):
    if event is not None:
        kwargs["slug"] = event.slug
    return reverse(f"pages:{name}", kwargs=kwargs)


EVENT_PAGES = [("console-event", {}), ("console-settings", {}), ("console-referees", {}),
               ("console-import", {}), ("console-check-in", {}), ("console-status", {}),
               ("console-round", {"number": 1})]


# ----------------------------------------------------------------------------- who may
@pytest.mark.parametrize("name,kwargs", EVENT_PAGES)
def test_console_pages_answer_their_organizers_in_both_languages(event, organizer, name,
                                                                 kwargs):
    for lang in ("en", "zh-hans"):
        response = _client(organizer, lang).get(_url(name, event, **kwargs))
        assert response.status_code == 200, (name, lang)


@pytest.mark.parametrize("name,kwargs", EVENT_PAGES)
def test_console_pages_are_404_to_all_but_the_organizers(event, referee_user, name, kwargs):
    staff = User.objects.create_user("staff-person", is_staff=True)
    for user in (referee_user, staff, User.objects.create_user("stranger")):
        assert _client(user).get(_url(name, event, **kwargs)).status_code == 404


def test_anonymous_visitors_sign_in_on_the_sites_page(event):
    response = _client().get(_url("console-event", event))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("pages:login"))
    assert _client().get(_url("console"))["Location"].startswith(reverse("pages:login"))


def test_a_non_organizer_posting_changes_nothing(event, referee_user):
    client = _client(referee_user)
    entry = event.entries.order_by("pk").first()
    posts = [(_url("console-action", event, action="open"), {}),
             (_url("console-action", event, action="release"), {"round": "0"}),
             (_url("console-publish", event), {"published": "0"}),
             (_url("console-settings", event), {"name": "taken over"}),
             (_url("console-entry-action", event, entry_id=entry.pk, action="withdraw"), {}),
             (_url("console-referees", event), {"user": str(referee_user.pk), "remove": "1"})]
    for url, data in posts:
        assert client.post(url, data).status_code == 404, url
    event.refresh_from_db()
    entry.refresh_from_db()
    assert event.rounds.count() == 1 and event.published and event.name == "青岛够级公开赛"
    assert event.standings_released_round is None and entry.status == Entry.Status.CHECKED_IN
    assert event.referees.filter(pk=referee_user.pk).exists()


# ----------------------------------------------------------------------------- home, new
def test_sign_in_takes_an_organizer_to_the_console(event, organizer):
    client = Client()
    response = client.post(reverse("pages:login"), {"username": "console-organizer",
                                                    "password": "pw-console-1"})

    assert response.status_code == 302 and response["Location"] == _url("console")
    page = client.get(_url("console")).content.decode()
    assert event.name in page and _url("console-event", event) in page
    assert _url("console-event-new") not in page  # a plain organizer creates no event


def test_new_event_from_the_form(db):
    creator = User.objects.create_user("creator", is_staff=True)
    client = _client(creator, "zh-hans")
    page = client.get(_url("console-event-new")).content.decode()
    assert '<label for="id_name">赛事名称</label>' in page

    response = client.post(_url("console-event-new"), {
        "name": "2026 青岛够级公开赛", "slug": "", "format": "individual", "rounds_planned": 5,
        "games_per_match": 2, "bye_points": 3, "move_seconds": 60, "spectator_delay": 0,
        "knockout_teams": 0, "knockout_seeding": "standings", "rules_preset": "dagang",
        "rule_bie3": "off", "tie_break_0": "points", "tie_break_1": "head_count"})

    event = Event.objects.get()
    assert response["Location"] == _url("console-event", event)
    assert event.slug == "2026-qing-dao-gou-ji-gong-kai-sai"
    assert event.rules == {"preset": "dagang", "options": {"bie3": False}}
    assert event.tie_breaks == ["points", "head_count"] and event.bye_points == 3
    assert list(event.organizers.all()) == [creator] and not event.published


def _settings(event, **changes) -> dict:
    form = {"name": event.name, "slug": event.slug, "format": event.format,
            "rounds_planned": event.rounds_planned, "games_per_match": event.games_per_match,
            "bye_points": event.bye_points, "move_seconds": event.move_seconds,
            "spectator_delay": event.spectator_delay, "knockout_teams": event.knockout_teams,
            "knockout_seeding": event.knockout_seeding, "rules_preset": "dagang"}
    return {**form, **changes}


@pytest.mark.parametrize("changes,field,text", [
    ({"rounds_planned": 99}, "rounds_planned", "小于或等于50"),
    ({"rules_preset": "dagang", "rule_hui3": "on"}, "rules_preset", "会3"),
    ({"tie_break_0": "points", "tie_break_1": "points"}, "tie_break_0", "每个"),
    ({"name": ""}, "name", "必填项"),
])
def test_bad_settings_are_errors_on_their_field_in_the_pages_language(db, changes, field, text):
    creator = User.objects.create_superuser("root", "r@example.org", "pw")
    event = event_create(name="杯", slug="cup", organizer=creator)
    response = _client(creator, "zh-hans").post(_url("console-settings", event),
                                                _settings(event, **changes))

    assert response.status_code == 200
    errors = " ".join(response.context["form"].errors.get(field, []))
    assert text in errors, response.context["form"].errors
    stored = Event.objects.get(pk=event.pk)
    assert (stored.rounds_planned, stored.rules, stored.tie_breaks, stored.name) == (
        7, "dagang", [], "杯")


def test_the_slug_is_edited_until_the_event_is_public(db):
    creator = User.objects.create_superuser("root", "r@example.org", "pw")
    event = event_create(name="杯", slug="cup", organizer=creator)
    client = _client(creator)

    response = client.post(_url("console-settings", event), _settings(event, slug="new-cup"))
    assert response["Location"] == reverse("pages:console-settings", kwargs={"slug": "new-cup"})
    event.refresh_from_db()
    event_publish(event=event)

    page = client.get(_url("console-settings", event))
    assert page.context["form"].fields["slug"].disabled
    assert "the event is published" in page.content.decode()
    client.post(_url("console-settings", event), _settings(event, slug="third"))
    event.refresh_from_db()
    assert event.slug == "new-cup"


def test_rules_are_fixed_once_round_1_exists(event, organizer):
    response = _client(organizer).post(_url("console-settings", event), _settings(
        event, rule_bie3="off", games_per_match=4, name="改名"))

    assert response.status_code == 302
    event.refresh_from_db()
    assert event.name == "改名" and event.rules == "dagang" and event.games_per_match == 2


def test_the_console_publishes_and_hides_the_event(event, organizer):
    client = _client(organizer)
    client.post(_url("console-publish", event), {"published": "0"})
    event.refresh_from_db()
    assert not event.published
    assert Client().get(_url("event", event)).status_code == 404
    page = client.get(_url("console-event", event)).content.decode()
    assert 'id="seating-hidden"' in page  # round 1's seating is published, the event is not

    client.post(_url("console-publish", event), {"published": "1"})
    event.refresh_from_db()
    assert event.published and Client().get(_url("event", event)).status_code == 200
    assert 'id="seating-hidden"' not in client.get(_url("console-event", event)).content.decode()


# ----------------------------------------------------------------------------- import
def _gbk_csv(lines: list[str]) -> io.BytesIO:
    upload = io.BytesIO("\n".join(lines).encode("gbk"))
    upload.name = "报名.csv"
    return upload


def test_import_previews_a_gbk_file_then_imports_it(make_event):
    event = make_event(slug="import-cup", players=0, published=False)
    user = User.objects.create_user("imp")
    event.organizers.add(user)
    client = _client(user, "zh-hans")

    preview = client.post(_url("console-import", event), {"file": _gbk_csv(
        ["姓名,俱乐部,编号,报到", "张三,崂山,501,是", "李四,市南,502,"])})

    page = preview.content.decode()
    assert "处理结果" in page and "成绩" not in page.split('id="import-preview"')[1][:400]
    assert "GBK" in page and preview.context["errors"] == 0
    assert not Player.objects.filter(name="张三").exists()  # nothing stored yet
    payload = preview.context["payload"]
    done = client.post(_url("console-import", event), {"payload": payload})
    assert done["Location"] == _url("console-check-in", event)
    assert sorted(event.entries.values_list("player__name", "status")) == [
        ("张三", "checked_in"), ("李四", "registered")]


def test_import_shows_each_bad_line_and_stores_nothing(make_event):
    event = make_event(slug="import-cup", players=0, published=False)
    user = User.objects.create_user("imp")
    event.organizers.add(user)

    preview = _client(user).post(_url("console-import", event), {"file": _gbk_csv(
        ["name,number", "张三,abc", ",7", "王五,8"])})

    lines = {line["line"]: line for line in preview.context["preview"]["lines"]}
    assert "not a whole number" in lines[2]["error"] and "needs a name" in lines[3]["error"]
    assert "error" not in lines[4] and preview.context["errors"] == 2
    assert 'id="import-confirm"' not in preview.content.decode()
    assert not event.entries.exists()


def test_a_forged_import_payload_changes_nothing(make_event):
    event = make_event(slug="import-cup", players=0, published=False)
    user = User.objects.create_user("imp")
    event.organizers.add(user)

    response = _client(user).post(_url("console-import", event), {"payload": "forged"},
                                  follow=True)
    assert "expired or was altered" in response.content.decode()
    assert not event.entries.exists()


# ----------------------------------------------------------------------------- check-in
@pytest.fixture
def door(make_event):
    """An event before round 1: 7 players registered, none checked in yet."""
    event = make_event(slug="door-cup", players=7, published=False)
    Entry.objects.filter(event=event).update(status=Entry.Status.REGISTERED,
                                             checked_in_at=None)
    user = User.objects.create_user("door")
    event.organizers.add(user)
    return event, user


def test_check_in_search_finds_by_pinyin_and_the_list_follows(door):
    event, user = door
    page = _client(user).get(_url("console-check-in", event), {"q": "zw"})

    assert [r["name"] for r in page.context["rows"]] == ["张伟"]
    partial = _client(user).get(_url("console-check-in", event), {"q": "101", "partial": "1"})
    assert partial.content.decode().count('class="entry ') == 1
    assert "<html" not in partial.content.decode()


def test_one_tap_checks_in_and_undoes_without_javascript(door):
    event, user = door
    entry = event.entries.order_by("pk").first()
    client = _client(user)
    back = _url("console-check-in", event) + "?q=zw"

    response = client.post(_url("console-entry-action", event, entry_id=entry.pk,
                                action="check-in"), {"back": back})
    assert response["Location"] == back
    entry.refresh_from_db()
    assert entry.status == Entry.Status.CHECKED_IN
    client.post(_url("console-entry-action", event, entry_id=entry.pk, action="undo"))
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_a_tap_from_the_script_answers_the_new_row(door):
    event, user = door
    entry = event.entries.order_by("pk").first()

    answer = _client(user).post(
        _url("console-entry-action", event, entry_id=entry.pk, action="check-in"),
        HTTP_ACCEPT="application/json").json()

    assert answer["ok"] and answer["entry"] == entry.pk
    assert "status-checked_in" in answer["html"] and "/undo/" in answer["html"]


def test_an_entry_of_another_event_or_an_unknown_action_is_404(door, event):
    door_event, user = door
    other = event.entries.order_by("pk").first()
    client = _client(user)
    assert client.post(_url("console-entry-action", door_event, entry_id=other.pk,
                            action="withdraw")).status_code == 404
    own = door_event.entries.order_by("pk").first()
    assert client.post(_url("console-entry-action", door_event, entry_id=own.pk,
                            action="delete")).status_code == 404
    assert client.get(_url("console-entry-action", door_event, entry_id=own.pk,
                           action="check-in")).status_code == 405
    other.refresh_from_db()
    assert other.status == Entry.Status.CHECKED_IN


def test_undo_after_the_draw_is_refused_and_says_withdraw(event, organizer):
    entry = event.entries.order_by("pk").first()
    answer = _client(organizer).post(
        _url("console-entry-action", event, entry_id=entry.pk, action="undo"),
        HTTP_ACCEPT="application/json")

    assert answer.status_code == 400 and "withdraw" in answer.json()["message"]
    entry.refresh_from_db()
    assert entry.status == Entry.Status.CHECKED_IN


def test_a_withdrawal_leaves_from_the_next_round(event, organizer):
    entry = event.entries.order_by("pk").first()
    _client(organizer).post(_url("console-entry-action", event, entry_id=entry.pk,
                                 action="withdraw"))
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN and entry.left_after_round == 1


def _token(entry) -> str:
    return entry_link_issue(entry=entry)[0].token()


def test_scanning_a_slip_checks_its_player_in(door):
    event, user = door
    entry = event.entries.order_by("pk").first()
    code = "http://testserver" + reverse("pages:link", kwargs={"token": _token(entry)})

    answer = _client(user).post(_url("console-scan", event), {"code": code},
                                HTTP_ACCEPT="application/json").json()
    assert answer["ok"] and entry.player.name in answer["message"]
    entry.refresh_from_db()
    assert entry.status == Entry.Status.CHECKED_IN
    again = _client(user).post(_url("console-scan", event), {"code": code},
                               HTTP_ACCEPT="application/json").json()
    assert again["ok"] and "already" in again["message"]


def test_a_slip_of_another_event_or_a_revoked_one_checks_no_one_in(door, make_event):
    event, user = door
    other = make_event(slug="elsewhere", players=1, published=False)
    foreign = _token(other.entries.get())
    own = event.entries.order_by("pk").first()
    revoked = _token(own)
    entry_link_revoke(entry=own)
    client = _client(user)

    for code in (foreign, revoked, "not-a-code", ""):
        response = client.post(_url("console-scan", event), {"code": code}, follow=True)
        assert "not a slip of this event" in response.content.decode()
    assert not event.entries.filter(status=Entry.Status.CHECKED_IN).exists()


def test_a_late_entry_from_the_desk_joins_from_the_next_round(event, organizer):
    response = _client(organizer).post(_url("console-entry-add", event),
                                       {"name": "迟到", "check_in": "on"}, follow=True)

    entry = event.entries.get(player__name="迟到")
    assert entry.late and entry.first_round == 2 and entry.status == Entry.Status.CHECKED_IN
    assert "round 2" in response.content.decode()


def test_a_late_entry_without_a_name_changes_nothing(event, organizer):
    before = Entry.objects.count()
    response = _client(organizer).post(_url("console-entry-add", event), {"name": " "},
                                       follow=True)
    assert Entry.objects.count() == before and 'notice error' in response.content.decode()


# ----------------------------------------------------------------------------- referees
def test_referees_are_picked_from_people_by_name(event, organizer):
    person = Player.objects.get(name="王芳")
    person.user = User.objects.create_user("wang", password="pw-w")
    person.save()
    entry_link_issue(entry=event.entries.get(player__name="张伟"))
    client = _client(organizer)

    page = client.get(_url("console-referees", event))
    names = [p["name"] for p in page.context["candidates"]]
    assert str(person) in names and not any("player-" in n for n in names)
    client.post(_url("console-referees", event), {"user": str(person.user.pk)})
    assert event.referees.filter(pk=person.user.pk).exists()
    page = client.get(_url("console-referees", event)).content.decode()
    assert "王芳" in page

    client.post(_url("console-referees", event), {"user": str(person.user.pk), "remove": "1"})
    assert not event.referees.filter(pk=person.user.pk).exists()


def test_a_link_login_cannot_be_made_a_referee(event, organizer):
    login = entry_link_issue(entry=event.entries.get(player__name="张伟"))[0] \
        .player.user
    response = _client(organizer).post(_url("console-referees", event),
                                       {"username": login.username}, follow=True)

    assert "no password" in response.content.decode()
    assert not event.referees.filter(pk=login.pk).exists()
    response = _client(organizer).post(_url("console-referees", event), {"username": "ghost"},
                                       follow=True)
    assert "ghost" in response.content.decode()


# ----------------------------------------------------------------------------- rounds
def test_the_round_page_shows_seats_1_to_6_names_and_the_two_sides(event, organizer):
    table = event.rounds.get().tables.get(number=1)
    names = list(table.seats.order_by("seat").values_list("player__name", flat=True))

    zh = _client(organizer, "zh-hans").get(_url("console-round", event, number=1))
    page = zh.content.decode()
    assert "红方" in page and "黑方" in page
    for k, name in enumerate(names, start=1):
        assert f"{k}号位</span> <span class=\"pname\">{name}</span>" in page
    assert "–" not in page.split('id="tables"')[1].split("</article>")[0]


def test_the_console_opens_draws_and_publishes_a_round(event, organizer, referee_user,
                                                        django_capture_on_commit_callbacks):
    play_table(table=event.rounds.get().tables.get(number=2), referee=referee_user)
    client = _client(organizer)

    with django_capture_on_commit_callbacks() as queued:
        assert client.post(_url("console-action", event, action="open")).status_code == 302
    rnd = event.rounds.get(number=2)
    assert rnd.status == Round.Status.COMMITTED
    assert 'id="draw-progress"' in client.get(_url("console-event", event)).content.decode()
    queued[0]()  # the worker
    status = client.get(_url("console-status", event)).json()
    assert status["status"] == "drawn" and status["round"] == 2
    page = client.get(_url("console-event", event)).content.decode()
    assert 'id="check-draw"' in page and 'id="publish-round"' in page

    client.post(_url("console-action", event, action="publish"))
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.PUBLISHED


def test_a_refused_action_is_shown_and_changes_nothing(event, organizer):
    response = _client(organizer).post(_url("console-action", event, action="open"),
                                       follow=True)
    assert event.rounds.count() == 1 and b'class="notice error"' in response.content
    assert _client(organizer).post(_url("console-action", event,
                                        action="explode")).status_code == 404


def test_release_offers_the_complete_round_and_warns_of_an_incomplete_one(event, organizer):
    client = _client(organizer)
    page = client.get(_url("console-event", event))
    assert page.context["release"]["default"] == 0  # round 1 misses two results

    response = client.post(_url("console-action", event, action="release"), {"round": "1"})
    assert response["Location"].endswith("?release=1#release")
    event.refresh_from_db()
    assert event.standings_released_round is None
    warning = client.get(response["Location"]).content.decode()
    assert 'id="release-anyway"' in warning and "2 confirmed results" in warning

    client.post(_url("console-action", event, action="release"), {"round": "1", "anyway": "1"})
    event.refresh_from_db()
    assert event.standings_released_round == 1


def test_release_form_refuses_a_bad_round(event, organizer):
    response = _client(organizer).post(_url("console-action", event, action="release"),
                                       {"round": "x"}, follow=True)
    assert b"round: choose a round to release" in response.content
    event.refresh_from_db()
    assert event.standings_released_round is None


def test_the_old_dashboard_address_leads_to_the_console(event, organizer):
    response = _client(organizer).get(_url("dashboard", event))
    assert response.status_code == 301 and response["Location"] == _url("console-event", event)


def test_the_event_form_refuses_an_odd_duplicate_group_at_the_field(db):
    creator = User.objects.create_user("dup-creator", is_staff=True)
    client = _client(creator, "en")
    response = client.post(_url("console-event-new"), {
        "name": "Duplicate cup", "slug": "", "format": "individual", "rounds_planned": 5,
        "games_per_match": 2, "bye_points": 0, "move_seconds": 60, "spectator_delay": 0,
        "knockout_teams": 0, "knockout_seeding": "standings", "rules_preset": "dagang",
        "duplicate": "mp", "duplicate_group": 3})
    assert response.status_code == 200 and not Event.objects.exists()
    form = response.context["form"]
    assert "even number" in form.errors["duplicate_group"][0]
