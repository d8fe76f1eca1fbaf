"""Django admin for organizers: every page loads, the actions call the services (报到 check-in,
opening and drawing a round — 抽签组邦, publishing, verifying, confirming results), and a round's
seed stays secret until its draw."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import services as game_services
from games.models import GameResult, ResultProposal
from tests.factories import EventFactory, PlayerFactory
from tournaments import standings
from tournaments.models import (
    Bye,
    Entry,
    Event,
    Penalty,
    Player,
    Round,
    Seat,
    Standing,
    Table,
    Team,
    TeamMember,
)
from tournaments.services.draws import round_draw, round_verify
from tournaments.services.entries import entry_check_in, entry_register
from tournaments.services.penalties import penalty_add
from tournaments.services.rounds import round_create
from tournaments.services.teams import team_register

pytestmark = pytest.mark.django_db

ORDERS = [[0, 1, 2, 3, 4, 5], [1, 2, 0, 5, 3, 4], [0, 4, 1, 3, 2, 5], [3, 0, 2, 5, 1, 4]]


def sheet(order):
    """A result sheet (dagang rules): finishing order from 头科 and 开点 flags."""
    return {"order": list(order), "kaidian": [True] * 6}


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser(username="organizer", password="pw",
                                                     email="organizer@example.com")


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


def _individual_event(players: int, **kwargs) -> Event:
    event = EventFactory(**kwargs)
    for _ in range(players):
        entry = entry_register(event=event, player=PlayerFactory())
        entry_check_in(entry=entry)
    return event


@pytest.fixture
def running_event(referee):
    """An individual event with round 1 drawn (two tables, two byes, 轮空), results confirmed and
    one left submitted, a penalty and standings; round 2 committed; and a 联邦 team event."""
    event = _individual_event(14)
    rnd = round_create(event=event)
    round_draw(round_id=rnd.pk)
    results = []
    for table in Table.objects.filter(round=rnd).order_by("number"):
        for number in (1, 2):
            results.append(game_services.result_submit(
                table=table, number=number, sheet=sheet(ORDERS[(table.number + number) % len(ORDERS)]),
                by=referee))
    for result in results[:-1]:
        game_services.result_confirm(result=result, by=referee, as_referee=True)
    seat = Seat.objects.filter(round=rnd).first()
    penalty_add(event=event, entry=seat.entry, kind=Penalty.Kind.WARNING,
                         reason="slow play", round=rnd, by=referee)
    standings.standings_recompute(event_id=event.pk)

    team_event = EventFactory(format=Event.Format.TEAM, games_per_match=1)
    for k in range(2):
        entry = team_register(event=team_event, name=f"Team {k}",
                                       players=PlayerFactory.create_batch(3))
        entry_check_in(entry=entry)
    team_round = round_create(event=team_event)
    round_draw(round_id=team_round.pk)
    return event


def _admin_url(model, view, *args):
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)


def _registered():
    return sorted(admin.site._registry, key=lambda m: m._meta.label)


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def _run_action(client, model, action, objects):
    return client.post(_admin_url(model, "changelist"), {
        "action": action, "_selected_action": [str(o.pk) for o in objects]}, follow=True)


# ----------------------------------------------------------------------------- pages
def test_the_tournament_models_are_registered():
    registered = set(_registered())
    for model in (Player, Team, Event, Entry, Round, Table, Penalty, Standing, GameResult):
        assert model in registered


@pytest.mark.parametrize("model", _registered(), ids=lambda m: m._meta.label)
def test_every_changelist_loads(admin_client, running_event, model):
    response = admin_client.get(_admin_url(model, "changelist"))
    assert response.status_code == 200


@pytest.mark.parametrize("model", _registered(), ids=lambda m: m._meta.label)
def test_every_change_page_loads(admin_client, running_event, superuser, model):
    objects = list(model._default_manager.order_by("pk"))
    if model._meta.app_label in ("tournaments", "games"):
        assert objects, f"the fixture has no {model._meta.label}"
    for obj in objects[:3]:
        response = admin_client.get(_admin_url(model, "change", obj.pk))
        assert response.status_code == 200, f"{model._meta.label} {obj.pk}"


def test_changelist_search_and_filters_load(admin_client, running_event):
    """Search boxes and filters of the busiest lists work (no broken lookups)."""
    pages = [
        (Entry, {"q": "Player", "event__id__exact": running_event.pk, "status": "checked_in"}),
        (Player, {"q": "1001"}),
        (Table, {"q": "1", "round__event__id__exact": running_event.pk}),
        (Team, {"q": "Team"}),
        (Penalty, {"q": "slow"}),
        (Standing, {"q": "Player", "event__id__exact": running_event.pk}),
        (GameResult, {"q": "1", "status": "submitted"}),
        (Round, {"status": "drawn"}),
        (Event, {"q": "Cup", "format": "team"}),
    ]
    for model, params in pages:
        response = admin_client.get(_admin_url(model, "changelist"), params)
        assert response.status_code == 200, model._meta.label


def test_round_change_page_keeps_the_seed_secret_until_the_draw(admin_client):
    """Before the draw only the commitment is public; the seed shows once drawn."""
    event = _individual_event(6)
    rnd = round_create(event=event)

    before = admin_client.get(_admin_url(Round, "change", rnd.pk))

    assert before.status_code == 200
    html = before.content.decode()
    assert rnd.seed not in html
    assert rnd.seed[:16] not in html
    assert "secret until the draw" in html
    assert rnd.commitment in html

    round_draw(round_id=rnd.pk)
    after = admin_client.get(_admin_url(Round, "change", rnd.pk))
    assert rnd.seed in after.content.decode()


def test_round_changelist_does_not_show_the_seed(admin_client):
    event = _individual_event(6)
    rnd = round_create(event=event)
    response = admin_client.get(_admin_url(Round, "changelist"))
    assert rnd.seed not in response.content.decode()


# ----------------------------------------------------------------------------- actions
def test_entry_check_in_action_checks_entries_in(admin_client):
    """报到 from the entry list."""
    event = EventFactory()
    entries = [entry_register(event=event, player=PlayerFactory()) for _ in range(3)]

    response = _run_action(admin_client, Entry, "check_in", entries[:2])

    assert response.status_code == 200
    assert "2 entries checked in." in _messages(response)
    statuses = dict(Entry.objects.values_list("pk", "status"))
    assert statuses == {entries[0].pk: "checked_in", entries[1].pk: "checked_in",
                        entries[2].pk: "registered"}


def test_entry_check_in_action_reports_a_refusal(admin_client):
    event = EventFactory()
    entry = entry_register(event=event, player=PlayerFactory())
    Event.objects.filter(pk=event.pk).update(status=Event.Status.FINISHED)

    response = _run_action(admin_client, Entry, "check_in", [entry])

    assert any("finished" in m for m in _messages(response))
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_entry_withdraw_action_withdraws(admin_client):
    event = EventFactory()
    entry = entry_register(event=event, player=PlayerFactory())
    response = _run_action(admin_client, Entry, "withdraw", [entry])
    assert "1 entry withdrawn." in _messages(response)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN


def test_event_open_next_round_action_draws(admin_client, django_capture_on_commit_callbacks):
    """The organizer opens the next round: commitment, then the draw (抽签组邦) on commit."""
    event = _individual_event(14)

    with django_capture_on_commit_callbacks(execute=True):
        response = _run_action(admin_client, Event, "open_next_round", [event])

    assert "Drew the next round of 1 event." in _messages(response)
    rnd = Round.objects.get(event=event)
    assert rnd.number == 1 and rnd.status == Round.Status.DRAWN
    assert Seat.objects.filter(round=rnd).count() == 12 and rnd.byes.count() == 2
    assert round_verify(round=rnd) == []


def test_event_open_next_round_action_reports_a_refusal(admin_client):
    event = _individual_event(5)
    response = _run_action(admin_client, Event, "open_next_round", [event])
    assert any("at least 6" in m for m in _messages(response))
    assert not Round.objects.filter(event=event).exists()


def test_event_recompute_standings_action(admin_client, running_event):
    Standing.objects.all().delete()
    Event.objects.filter(pk=running_event.pk).update(standings_digest="")
    response = _run_action(admin_client, Event, "recompute_standings", [running_event])
    assert response.status_code == 200
    assert Standing.objects.filter(event=running_event).count() == 14


def test_event_recompute_standings_action_says_when_the_queue_refuses(admin_client,
                                                                      running_event,
                                                                      monkeypatch):
    from kombu.exceptions import OperationalError as BrokerError

    from tournaments.tasks import standings_recompute_task

    def refuse(*args, **kwargs):
        raise BrokerError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(standings_recompute_task, "delay", refuse)
    response = _run_action(admin_client, Event, "recompute_standings", [running_event])
    assert response.status_code == 200
    assert any("task queue is unavailable" in m for m in _messages(response))


def test_round_publish_action_publishes_the_seating(admin_client, running_event):
    rnd = Round.objects.get(event=running_event, number=1)

    response = _run_action(admin_client, Round, "publish", [rnd])

    assert "Seating published." in _messages(response)
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.PUBLISHED and rnd.published_at is not None


def test_round_publish_action_refuses_an_undrawn_round(admin_client):
    rnd = round_create(event=_individual_event(6))
    response = _run_action(admin_client, Round, "publish", [rnd])
    assert any("not drawn" in m for m in _messages(response))
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.COMMITTED


def test_round_draw_action_draws_on_commit(admin_client, django_capture_on_commit_callbacks):
    rnd = round_create(event=_individual_event(7))
    with django_capture_on_commit_callbacks(execute=True):
        response = _run_action(admin_client, Round, "draw", [rnd])
    assert "Draw queued." in _messages(response)
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.DRAWN and rnd.byes.count() == 1


def test_round_verify_action_verifies_and_reports_tampering(admin_client, running_event):
    rnd = Round.objects.get(event=running_event, number=1)

    response = _run_action(admin_client, Round, "verify", [rnd])
    assert any(m.endswith(": verified") for m in _messages(response))

    Round.objects.filter(pk=rnd.pk).update(commitment="0" * 64)
    response = _run_action(admin_client, Round, "verify", [rnd])
    messages = _messages(response)
    assert not any(m.endswith(": verified") for m in messages)
    assert any("commitment does not match" in m for m in messages)


def test_game_result_confirm_action_confirms_as_referee(admin_client, running_event, superuser):
    """Two-person rule: a referee's confirmation from the admin."""
    pending = list(GameResult.objects.filter(status=GameResult.Status.SUBMITTED))
    assert len(pending) == 1

    response = _run_action(admin_client, GameResult, "confirm", GameResult.objects.all())

    assert "1 result confirmed." in _messages(response)
    result = GameResult.objects.get(pk=pending[0].pk)
    assert result.status == GameResult.Status.CONFIRMED
    assert result.confirmed_by == superuser and result.confirmed_at is not None
    assert not GameResult.objects.filter(status=GameResult.Status.SUBMITTED).exists()


def test_a_results_proposed_corrections_show_read_only(admin_client, running_event):
    """A player's proposed correction is listed on its result's page; the admin cannot add
    one (the API checks who may propose, accept or decline)."""
    result = GameResult.objects.filter(status=GameResult.Status.CONFIRMED).first()
    player = Seat.objects.filter(table=result.table).first().player
    player.user = get_user_model().objects.create_user(username="seat-player")
    player.save(update_fields=["user"])
    game_services.result_correct(result=result, sheet=sheet([5, 4, 3, 2, 1, 0]),
                                 reason="we wrote the order backwards", by=player.user)

    response = admin_client.get(_admin_url(GameResult, "change", result.pk))

    assert response.status_code == 200
    assert "we wrote the order backwards" in response.content.decode()
    inline, = [f for f in response.context["inline_admin_formsets"]
               if f.opts.model is ResultProposal]
    assert not inline.has_add_permission and not inline.formset.can_delete


def test_fixture_covers_byes_and_team_members(running_event):
    """The page tests above see every kind of row: byes, team members, standings."""
    assert Bye.objects.count() == 2
    assert TeamMember.objects.count() == 6
    assert Standing.objects.filter(event=running_event).count() == 14


# ----------------------------------------------------------------------------- the event form
def _form_data(client, url) -> dict:
    """What the admin's form at ``url`` posts back unchanged."""
    form = client.get(url).context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if isinstance(value, list | tuple):
            data[name] = [str(v) for v in value]
        elif value is True:
            data[name] = "on"
        elif value is not None and value is not False:
            data[name] = value
    return data


def _round_one_event() -> Event:
    event = _individual_event(6, games_per_match=2)
    round_create(event=event)
    return event


def test_event_form_refuses_what_event_update_refuses_and_changes_nothing(admin_client):
    """A round-1 event's games per match is fixed: the admin shows the service's refusal as a
    form error instead of saving it."""
    # given an event whose round 1 exists, played two games a match
    event = _round_one_event()
    url = _admin_url(Event, "change", event.pk)
    data = _form_data(admin_client, url)

    # when the organizer makes it four in the admin
    response = admin_client.post(url, {**data, "games_per_match": 4, "name": "Renamed"})

    # then the form comes back with the refusal, and nothing changed
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert errors == ["games_per_match cannot change once round 1 exists"]
    before = event.name
    event.refresh_from_db()
    assert (event.games_per_match, event.name) == (2, before)


def test_event_form_saves_through_the_services(admin_client, superuser):
    # given a round-1 event
    event = _round_one_event()
    url = _admin_url(Event, "change", event.pk)
    data = _form_data(admin_client, url)

    # when the organizer renames it, publishes it and adds a referee
    response = admin_client.post(url, {**data, "name": "Spring cup", "published": "on",
                                       "referees": [str(superuser.pk)]})

    # then it is saved, the settings fixed by round 1 untouched
    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.name, event.published, event.games_per_match) == ("Spring cup", True, 2)
    assert list(event.referees.all()) == [superuser]


def test_event_form_creates_through_event_create(admin_client):
    # given the add form, its rules a preset and one field per option
    url = _admin_url(Event, "add")
    data = {**_form_data(admin_client, url), "name": "New cup", "slug": "new-cup"}

    # when the options are ones the engine refuses together (会3 with 憋3), nothing is created
    refused = admin_client.post(url, {**data, "rule_hui3": "on", "rule_bie3": "on"})
    assert refused.status_code == 200
    assert "cannot be used with" in str(refused.context["adminform"].form.non_field_errors())
    assert not Event.objects.filter(slug="new-cup").exists()

    # when they are accepted, the event stores the preset and only the options set
    created = admin_client.post(url, {**data, "rules_preset": "basic",
                                      "rule_fanche_double": "on", "rule_revolution_gousiji": 2,
                                      "tie_break_0": "game_wins", "tie_break_1": "points"})
    assert created.status_code == 302
    event = Event.objects.get(slug="new-cup")
    assert event.rules == {"preset": "basic",
                           "options": {"fanche_double": True, "revolution_gousiji": 2}}
    assert event.tie_breaks == ["game_wins", "points"]

    # and its page shows them as they were chosen
    form = admin_client.get(_admin_url(Event, "change", event.pk)).context["adminform"].form
    assert (form["rules_preset"].value(), form["rule_fanche_double"].value(),
            form["rule_bie3"].value(), form["tie_break_1"].value()) == ("basic", "on", None,
                                                                        "points")


def test_event_form_refuses_a_tie_break_twice_and_out_of_bounds_values(admin_client):
    url = _admin_url(Event, "add")
    data = {**_form_data(admin_client, url), "name": "New cup", "slug": "new-cup"}
    response = admin_client.post(url, {**data, "tie_break_0": "points", "tie_break_2": "points",
                                       "rule_revolution_gousiji": 10, "games_per_match": 25})
    errors = response.context["adminform"].form.errors
    assert set(errors) == {"tie_break_0", "rule_revolution_gousiji", "games_per_match"}
    assert not Event.objects.filter(slug="new-cup").exists()


def test_a_chinese_event_name_gets_a_pinyin_slug_unique_with_a_suffix(admin_client):
    url = _admin_url(Event, "add")
    data = {**_form_data(admin_client, url), "name": "2026 青岛够级公开赛", "slug": ""}
    assert admin_client.post(url, data).status_code == 302
    assert admin_client.post(url, data).status_code == 302
    assert sorted(Event.objects.values_list("slug", flat=True)) == [
        "2026-qing-dao-gou-ji-gong-kai-sai", "2026-qing-dao-gou-ji-gong-kai-sai-2"]
    # an organizer's own slug is kept
    assert admin_client.post(url, {**data, "slug": "qingdao-2026"}).status_code == 302
    assert Event.objects.filter(slug="qingdao-2026").exists()


def test_event_form_leaves_the_status_and_versions_to_the_services(admin_client):
    event = _round_one_event()
    url = _admin_url(Event, "change", event.pk)
    form = admin_client.get(url).context["adminform"].form
    assert not {"status", "results_version", "standings_version", "standings_digest",
                "standings_results_version", "slug"} & set(form.fields)


def test_entry_form_registers_through_entry_register(admin_client):
    # given an individual event after round 1, and a player already in it
    event = _round_one_event()
    taken = Entry.objects.filter(event=event).first().player
    late = PlayerFactory()
    url = _admin_url(Entry, "add")

    # when the organizer registers the player again, then the service's refusal is shown
    refused = admin_client.post(url, {"event": event.pk, "player": taken.pk})
    assert refused.status_code == 200
    assert refused.context["adminform"].form.non_field_errors()
    assert Entry.objects.filter(event=event, player=taken).count() == 1

    # when a new player is registered, it is a late entry from round 2 (as the service says)
    assert admin_client.post(url, {"event": event.pk, "player": late.pk}).status_code == 302
    entry = Entry.objects.get(event=event, player=late)
    assert (entry.late, entry.first_round, entry.status) == (True, 2, Entry.Status.REGISTERED)


@pytest.mark.parametrize("model", [Round, Table, Standing, GameResult],
                         ids=lambda m: m._meta.label)
def test_rows_the_services_write_are_not_added_or_changed_in_the_admin(admin_client, model):
    assert admin_client.get(_admin_url(model, "add")).status_code == 403
    # every field is shown read-only: the admin's form for the model has none to edit
    assert list(admin.site._registry[model].get_form(None).base_fields) == []


def test_every_rules_option_has_a_labelled_field_explained_in_both_languages(admin_client):
    """One field per option of engine/rules.py, with the rule book's short explanation, in
    English and in the zh-hans catalogue."""

    from engine.rules import OPTION_CHOICES
    from tests.pages.test_locale import CATALOGUE, read_po
    from tournaments.rule_texts import RULE_OPTIONS, VALUE_LABELS

    form = admin_client.get(_admin_url(Event, "add")).context["adminform"].form
    assert {f"rule_{name}" for name in OPTION_CHOICES} <= set(form.fields)
    catalogue = {e["msgid"]: e["msgstr"][0] for e in read_po(CATALOGUE / "django.po")}
    texts = [str(t) for label, help_text in RULE_OPTIONS.values() for t in (label, help_text)]
    texts += [str(v) for v in VALUE_LABELS.values()]
    assert all(form.fields[f"rule_{n}"].help_text for n in OPTION_CHOICES)
    assert [t for t in texts if not catalogue.get(t)] == []


def test_the_settings_form_shows_in_chinese(admin_client):
    page = admin_client.get(_admin_url(Event, "add"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "规则预设" in page.content.decode() and "按预设" in page.content.decode()


def test_an_event_or_entry_with_results_cannot_be_deleted_one_by_one_or_in_bulk(admin_client,
                                                                              running_event):
    # given: an event with a drawn round and results, one of its entries that sat at a table,
    # and an event with no round yet
    seated = Seat.objects.filter(round__event=running_event).first().entry
    empty = EventFactory()
    counts = (Event.objects.count(), Entry.objects.count(), GameResult.objects.count())

    # when: the admin's delete page, and its bulk action "delete selected" (confirmed)
    one = admin_client.post(_admin_url(Event, "delete", running_event.pk), {"post": "yes"})
    bulk = admin_client.post(_admin_url(Event, "changelist"), {
        "action": "delete_selected", "post": "yes",
        "_selected_action": [str(running_event.pk), str(empty.pk)]})
    entry_bulk = admin_client.post(_admin_url(Entry, "changelist"), {
        "action": "delete_selected", "post": "yes", "_selected_action": [str(seated.pk)]})

    # then: refused every time (results, standings and ratings depend on them) — the delete
    # page forbidden, the bulk action's confirmation page saying it cannot delete them (Django
    # asks each object's admin) — and nothing deleted
    assert one.status_code == 403
    assert bulk.status_code == 200 and "Cannot delete events" in bulk.content.decode()
    assert entry_bulk.status_code == 200 and "Cannot delete entry" in entry_bulk.content.decode()
    assert (Event.objects.count(), Entry.objects.count(), GameResult.objects.count()) == counts

    # and an event with no round is deleted as usual
    response = admin_client.post(_admin_url(Event, "delete", empty.pk), {"post": "yes"})
    assert response.status_code == 302 and not Event.objects.filter(pk=empty.pk).exists()


def test_the_event_name_is_labelled_as_the_events_not_a_persons(admin_client):
    """In Chinese the model's bare "name" reads 姓名 (a person's name): the event's form says
    赛事名称."""
    page = admin_client.get(_admin_url(Event, "add"), HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert '<label class="required" for="id_name">赛事名称:</label>' in page.content.decode()
