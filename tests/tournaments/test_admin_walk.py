# ruff: noqa: F811 (the fixtures are test_admin.py's)
"""The organizer's admin never answers a server error (issue 17): every registered admin's
list, add and change pages load with rows of every model, and every add form posted with
valid and with invalid data answers a page or a redirect. A 联邦 team is added with its three
players through the services; a penalty names its player and kind; nothing that results depend
on can be deleted."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import NoReverseMatch, reverse

from tests.factories import EventFactory, PlayerFactory
from tests.tournaments.test_admin import (  # noqa: F401 (fixtures)
    admin_client,
    running_event,
    superuser,
)
from tournaments.models import (
    Entry,
    Event,
    Penalty,
    Player,
    Round,
    Seat,
    Table,
    Team,
    TeamMember,
)
from tournaments.services.entries import entry_register
from tournaments.services.teams import team_register

pytestmark = pytest.mark.django_db


def _url(model, view, *args):
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)


def _models():
    return sorted(admin.site._registry, key=lambda m: m._meta.label)


def _posted_back(response) -> dict:
    """What an add page posts back as it was shown: its form's and inlines' initial values."""
    data = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        forms += [formset.management_form, *formset.forms]
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if isinstance(value, list | tuple):
                data[form.add_prefix(name)] = [str(v) for v in value]
            elif value is True:
                data[form.add_prefix(name)] = "on"
            elif value not in (None, False):
                data[form.add_prefix(name)] = str(value)
    return data


def _valid_add_data(model, event: Event) -> dict | None:
    """Data a correct add form of ``model`` holds (None: the generic walk covers it)."""
    team_event = Event.objects.filter(format=Event.Format.TEAM).first()
    if model is Player:
        return {"name": "张三", "club": "青岛", "number": "777"}
    if model is Event:
        return None  # test_admin.py posts the event form (rules fields, pinyin slug)
    if model is Entry:
        return {"event": event.pk, "player": PlayerFactory().pk}
    if model is Team:
        players = PlayerFactory.create_batch(3)
        return {"event": team_event.pk, "name": "青岛一队", **_members(players)}
    if model is Penalty:
        entry = Entry.objects.filter(event=event).first()
        return {"event": event.pk, "entry": entry.pk, "player": entry.player_id,
                "kind": "point_deduction", "points": "2", "reason": "talking at the table"}
    if model is get_user_model():
        return {"username": "helper", "password1": "a-long-pass-phrase-7",
                "password2": "a-long-pass-phrase-7", "usable_password": "true"}
    return None


def _members(players) -> dict:
    data = {"members-TOTAL_FORMS": "3", "members-INITIAL_FORMS": "0",
            "members-MIN_NUM_FORMS": "3", "members-MAX_NUM_FORMS": "3"}
    for k, player in enumerate(players):
        data[f"members-{k}-player"] = str(player.pk)
    return data


@pytest.mark.parametrize("model", _models(), ids=lambda m: m._meta.label)
def test_no_admin_page_answers_a_server_error(admin_client, running_event, model):
    model_admin = admin.site._registry[model]
    client = Client(raise_request_exception=False)
    client.force_login(get_user_model().objects.get(username="organizer"))
    pages = [_url(model, "changelist")]
    pages += [_url(model, "change", obj.pk) for obj in model._default_manager.order_by("pk")[:3]]
    pages += [_url(model, "delete", obj.pk) for obj in model._default_manager.order_by("pk")[:2]]
    for page in pages:
        assert client.get(page).status_code < 500, page
    try:
        add = _url(model, "add")
    except NoReverseMatch:
        return
    shown = client.get(add)
    assert shown.status_code < 500, add
    if shown.status_code != 200 or not model_admin.has_add_permission(shown.wsgi_request):
        return
    # the add form as shown (invalid: required fields empty) and garbage in every field
    empty = _posted_back(shown)
    assert client.post(add, empty).status_code == 200, add
    garbage = {k: "x" * 300 if not k.endswith("FORMS") else v for k, v in empty.items()}
    assert client.post(add, garbage).status_code < 500, add
    assert client.post(add, {}).status_code < 500, add
    valid = _valid_add_data(model, running_event)
    if valid is not None:
        count = model._default_manager.count()
        response = client.post(add, {**empty, **valid})
        assert response.status_code == 302, response.context and [
            response.context["adminform"].form.errors,
            [f.formset.non_form_errors() for f in response.context["inline_admin_formsets"]]]
        assert model._default_manager.count() == count + 1


def test_a_team_is_added_with_its_three_players_who_join_at_once(admin_client):
    event = EventFactory(format=Event.Format.TEAM)
    players = PlayerFactory.create_batch(3)

    response = admin_client.post(_url(Team, "add"), {
        "event": event.pk, "name": "青岛一队", **_members(players)})

    assert response.status_code == 302
    team = Team.objects.get(event=event)
    assert team.name == "青岛一队" and Entry.objects.filter(team=team).exists()
    assert list(TeamMember.objects.filter(team=team).values_list("player", "status")) == [
        (p.pk, TeamMember.Status.ACCEPTED) for p in players]
    assert admin_client.get(_url(Team, "change", team.pk)).status_code == 200


def test_adding_a_team_the_service_refuses_shows_why_and_changes_nothing(admin_client):
    event = EventFactory(format=Event.Format.TEAM)
    first = PlayerFactory.create_batch(3)
    team_register(event=event, name="A", players=first)

    # a player of another team, and the same player twice
    for players in ([first[0], *PlayerFactory.create_batch(2)],
                    [PlayerFactory()] * 2 + [PlayerFactory()]):
        response = admin_client.post(_url(Team, "add"), {
            "event": event.pk, "name": "B", **_members(players)})
        assert response.status_code == 200
        inline, = response.context["inline_admin_formsets"]
        assert inline.formset.non_form_errors() or inline.formset.errors
    assert list(Team.objects.values_list("name", flat=True)) == ["A"]


def test_a_team_needs_a_team_event(admin_client):
    individual = EventFactory()
    response = admin_client.post(_url(Team, "add"), {
        "event": individual.pk, "name": "B", **_members(PlayerFactory.create_batch(3))})
    assert "event" in response.context["adminform"].form.errors
    assert not Team.objects.exists()


def test_a_penalty_is_added_through_the_service_and_names_its_player_and_kind(
        admin_client, running_event, superuser):
    seat = Seat.objects.filter(round__event=running_event).first()
    data = {"event": running_event.pk, "entry": seat.entry_id, "player": seat.player_id,
            "kind": "point_deduction", "points": "3", "reason": "talking"}

    response = admin_client.post(_url(Penalty, "add"), data)

    assert response.status_code == 302
    penalty = Penalty.objects.get(reason="talking")
    assert (penalty.points, penalty.created_by) == (3, superuser)
    assert str(penalty) == f"point deduction (罚分): {seat.player}"
    listing = admin_client.get(_url(Penalty, "changelist")).content.decode()
    assert "point deduction (罚分): " + seat.player.name in listing
    assert "Penalty object" not in listing


def test_a_penalty_for_another_events_entry_is_refused(admin_client, running_event):
    other = EventFactory()
    entry = entry_register(event=other, player=PlayerFactory())
    response = admin_client.post(_url(Penalty, "add"), {
        "event": running_event.pk, "entry": entry.pk, "kind": "warning", "reason": "x"})
    assert response.status_code == 200
    assert "not in this event" in str(response.context["adminform"].form.errors)
    assert not Penalty.objects.filter(entry=entry).exists()


def test_nothing_results_depend_on_can_be_deleted(admin_client, running_event):
    rnd = Round.objects.filter(event=running_event).first()
    table = Table.objects.filter(round=rnd).first()
    seated = Seat.objects.filter(round=rnd).first().entry
    for model, obj in ((Event, running_event), (Round, rnd), (Table, table), (Entry, seated)):
        assert admin_client.get(_url(model, "delete", obj.pk)).status_code == 403
        assert admin_client.post(_url(model, "delete", obj.pk), {"post": "yes"}).status_code \
            == 403
    assert model._default_manager.filter(pk=seated.pk).exists()
    # an event with no round yet can still be deleted
    empty = EventFactory()
    assert admin_client.post(_url(Event, "delete", empty.pk), {"post": "yes"}).status_code == 302


def test_internal_fields_are_read_only(admin_client, running_event):
    page = admin_client.get(_url(Event, "change", running_event.pk))
    form = page.context["adminform"].form
    assert not {"status", "standings_version", "standings_digest", "results_version",
                "standings_results_version", "slug", "rules", "tie_breaks"} & set(form.fields)
    rnd = Round.objects.filter(event=running_event).first()
    assert list(admin.site._registry[Round].get_form(None, rnd).base_fields) == []
    assert admin_client.get(_url(Event, "add")).context["adminform"].form.fields["slug"]
