"""Django admin an organizer can run an event from: search, filters, inlines and actions that
call the services (no rule lives here)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.models import GameResult
from tournaments import services, standings
from tournaments.errors import ServiceError
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


def _run(modeladmin, request, fn, done_message):
    try:
        n = fn()
    except ServiceError as exc:
        modeladmin.message_user(request, exc.message, messages.ERROR)
        return
    modeladmin.message_user(request, done_message(n), messages.SUCCESS)


class SelfRegisteredFilter(admin.SimpleListFilter):
    """Players whose number was chosen by whoever holds their login (a CSV import never links
    such a player: ``services.number_claimed_by``; each refused line is in the player's
    history)."""

    title = _("self-registered")
    parameter_name = "self_registered"

    def lookups(self, request, model_admin):
        return [("yes", _("yes, with a login")), ("no", _("no, created by organizers"))]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(user__isnull=self.value() == "no")
        return queryset


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "number", "club", "user")
    search_fields = ("name", "club", "=number")
    list_filter = (SelfRegisteredFilter, "club")
    raw_id_fields = ("user",)


class ShownOnly:
    """An admin (or inline) that shows rows only the services write — 联邦 teams
    (:func:`~tournaments.services.team_register`, over the API), rounds, tables, standings,
    results — and changes none."""

    def has_add_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        hidden = self.get_exclude(request, obj) or ()
        return [f.name for f in self.model._meta.fields if f.name not in hidden] + list(
            self.readonly_fields)


class TeamMemberInline(ShownOnly, admin.TabularInline):
    model = TeamMember
    extra = 0
    fields = ("position", "player", "status")
    can_delete = False


@admin.register(Team)
class TeamAdmin(ShownOnly, admin.ModelAdmin):
    list_display = ("name", "event")
    search_fields = ("name", "members__player__name")
    list_filter = ("event",)
    inlines = [TeamMemberInline]


class ServiceForm(forms.ModelForm):
    """A model form whose object the services save (:meth:`save_through_services`) once the
    form is otherwise valid: a refusal is a form error and changes nothing. The admin's view
    runs in one transaction, so what the services write is committed with the rest of the page
    (e.g. an event's staff lists) or not at all; :class:`ServiceAdmin` saves nothing more."""

    def save_through_services(self, data: dict):
        raise NotImplementedError

    def _post_clean(self):
        super()._post_clean()
        if self.errors:
            return
        try:
            self.instance = self.save_through_services(self.cleaned_data)
        except ServiceError as exc:
            self.add_error(None, exc.message)


class ServiceAdmin(admin.ModelAdmin):
    """The admin of a :class:`ServiceForm`."""

    def save_model(self, request, obj, form, change):
        """Saved already: by the services, when the form was validated."""


class EventAdminForm(ServiceForm):
    """An event's settings, through :func:`~tournaments.services.event_create`,
    :func:`~tournaments.services.event_update` and :func:`~tournaments.services.event_publish`."""

    class Meta:
        model = Event
        fields = "__all__"

    def save_through_services(self, data: dict) -> Event:
        settings = services.EDITABLE_ALWAYS | services.EDITABLE_BEFORE_ROUND_1
        if self.instance._state.adding:
            event = services.event_create(**{k: data[k] for k in settings | {"slug"}})
        else:
            event = services.event_update(event=self.instance, **{
                k: data[k] for k in self.changed_data if k in settings})
        if data["published"] != event.published:
            event = services.event_publish(event=event, published=data["published"])
        return event


@admin.register(Event)
class EventAdmin(ServiceAdmin):
    form = EventAdminForm
    list_display = ("name", "format", "status", "rounds_planned", "games_per_match", "published")
    list_filter = ("format", "status", "published")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    filter_horizontal = ("organizers", "referees")
    actions = ["open_next_round", "recompute_standings", "print_qr_codes"]
    #: what only the services change (the status by the rounds, the versions by results)
    readonly_fields = ("qr_codes", "status", "standings_version", "standings_digest",
                       "results_version", "standings_results_version")

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields + (("slug",) if obj is not None else ())

    def get_prepopulated_fields(self, request, obj=None):
        return {} if obj is not None else self.prepopulated_fields

    @admin.action(description=_("Open the next round and draw it (抽签组邦)"))
    def open_next_round(self, request, queryset):
        def go():
            n = 0
            for event in queryset:
                services.round_open(event=event)
                n += 1
            return n
        _run(self, request, go, lambda n: ngettext(
            "Drew the next round of %d event.", "Drew the next round of %d events.", n) % n)

    @admin.action(description=_("Print QR codes"))
    def print_qr_codes(self, request, queryset):
        """Open the printable page of QR codes (event, leaderboard, every table)."""
        slugs = queryset.order_by("name").values_list("slug", flat=True)
        return redirect(reverse("pages:qr-many") + "?" + urlencode([("event", s) for s in slugs]))

    @admin.display(description=_("QR codes"))
    def qr_codes(self, obj):
        if not obj.pk:
            return "–"
        return format_html('<a href="{}" target="_blank">{}</a>',
                           reverse("pages:qr", kwargs={"slug": obj.slug}), _("Print QR codes"))

    @admin.action(description=_("Recompute standings"))
    def recompute_standings(self, request, queryset):
        why = "an organizer's request"
        if all([standings.standings_queue_recompute(event.pk, why=why, force=True)
                for event in queryset]):
            self.message_user(request, _("Standings recomputation queued."), messages.SUCCESS)
        else:
            self.message_user(request, _("The task queue is unavailable: nothing was queued; "
                                         "try again in a moment."), messages.ERROR)


class EntryAdminForm(ServiceForm):
    """A player's entry in an individual event, through
    :func:`~tournaments.services.entry_register` (a 联邦 team registers with its players through
    the API); its status then changes through the actions."""

    class Meta:
        model = Entry
        fields = ("event", "player")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "player" in self.fields:
            self.fields["player"].required = True

    def save_through_services(self, data: dict) -> Entry:
        return services.entry_register(event=data["event"], player=data["player"])


@admin.register(Entry)
class EntryAdmin(ServiceAdmin):
    form = EntryAdminForm
    list_display = ("__str__", "event", "status", "late", "first_round", "left_after_round")
    list_filter = ("event", "status", "late")
    search_fields = ("player__name", "=player__number", "team__name")
    raw_id_fields = ("player",)
    actions = ["check_in", "withdraw", "print_slips", "reissue_links", "revoke_links"]

    def get_fields(self, request, obj=None):
        return ("event", "player") if obj is None else (
            "event", "player", "team", "status", "late", "first_round", "left_after_round",
            "registered_at", "checked_in_at")

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.get_fields(request, obj)

    @admin.action(description=_("Check in (报到)"))
    def check_in(self, request, queryset):
        _run(self, request, lambda: services.entries_check_in(entries=queryset),
             lambda n: ngettext("%d entry checked in.", "%d entries checked in.", n) % n)

    @admin.action(description=_("Withdraw from the next round"))
    def withdraw(self, request, queryset):
        def go():
            for e in queryset:
                services.entry_withdraw(entry=e)
            return queryset.count()
        _run(self, request, go, lambda n: ngettext("%d entry withdrawn.",
                                                   "%d entries withdrawn.", n) % n)

    @admin.action(description=_("Print result slips (private links)"))
    def print_slips(self, request, queryset):
        """The printable slips of the chosen entries (web/views/table.py: missing links are
        issued, working ones kept)."""
        ids = list(queryset.values_list("pk", flat=True))
        return redirect(reverse("pages:entry-slips") + "?" + urlencode({"entry": ids}, True))

    @admin.action(description=_("Re-issue private links (the old ones stop working)"))
    def reissue_links(self, request, queryset):
        _run(self, request, lambda: sum(len(services.entry_link_issue(entry=e, by=request.user))
                                        for e in queryset),
             lambda n: ngettext("%d private link issued.", "%d private links issued.", n) % n)

    @admin.action(description=_("Revoke private links"))
    def revoke_links(self, request, queryset):
        _run(self, request, lambda: sum(services.entry_link_revoke(entry=e) for e in queryset),
             lambda n: ngettext("%d private link revoked.", "%d private links revoked.", n) % n)


class TableInline(admin.TabularInline):
    model = Table
    extra = 0
    fields = ("number", "team_a", "team_b")
    readonly_fields = fields
    show_change_link = True
    can_delete = False


class ByeInline(admin.TabularInline):
    model = Bye
    extra = 0
    readonly_fields = ("entry", "points")
    can_delete = False


@admin.register(Round)
class RoundAdmin(ShownOnly, admin.ModelAdmin):
    list_display = ("event", "number", "status", "commitment", "drawn_at")
    list_filter = ("event", "status")
    readonly_fields = ("revealed_seed",)
    exclude = ("seed",)
    inlines = [TableInline, ByeInline]
    actions = ["draw", "publish", "verify"]

    @admin.display(description=_("seed"))
    def revealed_seed(self, obj):
        return obj.seed if obj.seed_revealed else _("secret until the draw")

    @admin.action(description=_("Draw (runs on a worker)"))
    def draw(self, request, queryset):
        def go():
            for rnd in queryset:
                services.round_request_draw(round=rnd)
            return queryset.count()
        _run(self, request, go, lambda n: _("Draw queued."))

    @admin.action(description=_("Publish seating"))
    def publish(self, request, queryset):
        def go():
            for rnd in queryset:
                services.round_publish(round=rnd)
            return queryset.count()
        _run(self, request, go, lambda n: _("Seating published."))

    @admin.action(description=_("Verify the draw from its public data"))
    def verify(self, request, queryset):
        for rnd in queryset:
            problems = services.round_verify(round=rnd)
            if problems:
                self.message_user(request, f"{rnd}: " + "; ".join(map(str, problems)),
                                  messages.ERROR)
            else:
                self.message_user(request, _("%(r)s: verified") % {"r": rnd}, messages.SUCCESS)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "player", "entry")
    readonly_fields = fields
    can_delete = False


class GameResultInline(admin.TabularInline):
    model = GameResult
    extra = 0
    fields = ("number", "status", "version", "points_a", "points_b", "places", "confirmed_at")
    readonly_fields = fields
    show_change_link = True
    can_delete = False


@admin.register(Table)
class TableAdmin(ShownOnly, admin.ModelAdmin):
    list_display = ("__str__", "round", "number")
    list_filter = ("round__event", "round__number")
    search_fields = ("=number", "seats__player__name")
    inlines = [SeatInline, GameResultInline]


@admin.register(Penalty)
class PenaltyAdmin(admin.ModelAdmin):
    list_display = ("event", "entry", "kind", "points", "created_by", "created_at")
    list_filter = ("event", "kind")
    search_fields = ("entry__player__name", "reason")
    raw_id_fields = ("entry", "player", "round", "table")
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        try:
            penalty = services.penalty_add(
                event=obj.event, entry=obj.entry, kind=obj.kind, reason=obj.reason,
                points=obj.points, player=obj.player, round=obj.round, table=obj.table,
                game_number=obj.game_number, by=request.user)
        except ServiceError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return
        obj.pk = penalty.pk


@admin.register(Standing)
class StandingAdmin(ShownOnly, admin.ModelAdmin):
    list_display = ("rank", "entry", "points", "match_points", "game_wins", "head_count",
                    "opponents_points", "previous_rank", "through_round")
    list_filter = ("event",)
    search_fields = ("entry__player__name", "entry__team__name")
