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


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "number", "club", "user")
    search_fields = ("name", "club", "=number")
    list_filter = ("club",)
    raw_id_fields = ("user",)


class TeamMemberInline(admin.TabularInline):
    model = TeamMember
    extra = 0
    raw_id_fields = ("player",)
    fields = ("position", "player")


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "event")
    search_fields = ("name", "members__player__name")
    list_filter = ("event",)
    inlines = [TeamMemberInline]


class EventAdminForm(forms.ModelForm):
    """An event's settings, saved through the services (:func:`~tournaments.services.event_create`,
    :func:`~tournaments.services.event_update`, :func:`~tournaments.services.event_publish`)
    once the form is otherwise valid: a refusal is a form error and changes nothing. The admin's
    view runs in one transaction, so what the services write is committed with the rest of the
    page (staff lists) or not at all."""

    class Meta:
        model = Event
        fields = "__all__"

    def _post_clean(self):
        super()._post_clean()
        if self.errors:
            return
        data = self.cleaned_data
        try:
            if self.instance._state.adding:
                event = services.event_create(**{
                    k: data[k] for k in services.EDITABLE_ALWAYS | services.EDITABLE_BEFORE_ROUND_1
                    | {"slug"}})
            else:
                event = services.event_update(event=self.instance, **{
                    k: data[k] for k in self.changed_data
                    if k in services.EDITABLE_ALWAYS | services.EDITABLE_BEFORE_ROUND_1})
            if data["published"] != event.published:
                event = services.event_publish(event=event, published=data["published"])
        except ServiceError as exc:
            self.add_error(None, exc.message)
            return
        self.instance = event


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
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

    def save_model(self, request, obj, form, change):
        """Saved already: by the services, when the form was validated (``EventAdminForm``)."""

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


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("__str__", "event", "status", "late", "first_round", "left_after_round")
    list_filter = ("event", "status", "late")
    search_fields = ("player__name", "=player__number", "team__name")
    raw_id_fields = ("player", "team")
    actions = ["check_in", "withdraw"]

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
class RoundAdmin(admin.ModelAdmin):
    list_display = ("event", "number", "status", "commitment", "drawn_at")
    list_filter = ("event", "status")
    readonly_fields = ("commitment", "revealed_seed", "draw_entries", "draw_input", "drawn_at",
                       "published_at")
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
class TableAdmin(admin.ModelAdmin):
    list_display = ("__str__", "round", "number")
    list_filter = ("round__event", "round__number")
    search_fields = ("=number", "seats__player__name")
    inlines = [SeatInline, GameResultInline]
    readonly_fields = ("round", "number", "team_a", "team_b")


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
class StandingAdmin(admin.ModelAdmin):
    list_display = ("rank", "entry", "points", "match_points", "game_wins", "head_count",
                    "opponents_points", "previous_rank", "through_round")
    list_filter = ("event",)
    search_fields = ("entry__player__name", "entry__team__name")
    readonly_fields = [f.name for f in Standing._meta.fields]
