"""Django admin an organizer can run an event from: search, filters, inlines and actions that
call the services (no rule lives here)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.models import GameResult
from tournaments import standings
from tournaments.errors import ServiceError
from tournaments.forms import (
    TIE_BREAK_SLOTS,
    EntryAdminForm,
    EventAdminForm,
    ImportForm,
    PenaltyAdminForm,
    TeamAdminForm,
    TeamMemberFormSet,
)
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
from tournaments.rule_texts import RULE_OPTIONS
from tournaments.services.draws import round_verify
from tournaments.services.entries import entries_check_in, entry_withdraw
from tournaments.services.imports import entries_import
from tournaments.services.links import entry_link_issue, entry_link_revoke
from tournaments.services.rounds import round_open, round_publish, round_request_draw


def _run(modeladmin, request, fn, done_message):
    try:
        n = fn()
    except ServiceError as exc:
        modeladmin.message_user(request, exc.message, messages.ERROR)
        return
    modeladmin.message_user(request, done_message(n), messages.SUCCESS)


#: a bulk registration's preview carries its rows signed for this purpose, valid for an hour
IMPORT_SALT, IMPORT_MAX_AGE = "tournaments.admin.import", 3600


class SelfRegisteredFilter(admin.SimpleListFilter):
    """Players whose number was chosen by whoever holds their login (a CSV import never links
    such a player: ``number_claimed_by``; each refused line is in the player's
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
    """An admin (or inline) that shows rows only the services write — rounds, tables,
    standings, results — and neither adds, changes nor deletes any (results depend on them)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        hidden = self.get_exclude(request, obj) or ()
        return [f.name for f in self.model._meta.fields if f.name not in hidden] + list(
            self.readonly_fields)


class ServiceAdmin(admin.ModelAdmin):
    """The admin of a :class:`~tournaments.forms.ServiceForm`."""

    def save_model(self, request, obj, form, change):
        """Saved already: by the services, when the form was validated."""


class TeamMemberInline(admin.TabularInline):
    """A team's players: three to choose when adding it, read only after."""

    model = TeamMember
    formset = TeamMemberFormSet
    extra, min_num, max_num = 0, 3, 3
    can_delete = False
    autocomplete_fields = ("player",)

    def get_fields(self, request, obj=None):
        return ("player",) if obj is None else ("position", "player", "status")

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else ("position", "player", "status")

    def has_add_permission(self, request, obj=None):
        return obj is None


@admin.register(Team)
class TeamAdmin(ServiceAdmin):
    """联邦 teams: added with their three players (:class:`TeamMemberFormSet`), then shown."""

    form = TeamAdminForm
    list_display = ("name", "event")
    search_fields = ("name", "members__player__name")
    list_filter = ("event",)
    inlines = [TeamMemberInline]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_related(self, request, form, formsets, change):
        """Saved already, with the team, by the services (the change message lists none)."""
        for formset in formsets:
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []


@admin.register(Event)
class EventAdmin(ServiceAdmin):
    form = EventAdminForm
    list_display = ("name", "format", "status", "rounds_planned", "games_per_match", "published")
    list_filter = ("format", "status", "published")
    search_fields = ("name", "slug")
    filter_horizontal = ("organizers", "referees")
    actions = ["open_next_round", "recompute_standings", "print_qr_codes"]
    #: what only the services change (the status by the rounds, the versions by results)
    readonly_fields = ("bulk_registration", "qr_codes", "status", "standings_version",
                       "standings_digest", "results_version", "standings_results_version")
    #: kept by the services, shown folded away
    internal_fields = ("status", "standings_version", "standings_digest", "results_version",
                       "standings_results_version")

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields + (("slug",) if obj is not None else ())

    def get_fieldsets(self, request, obj=None):
        """The settings in sections: the event, its rules (a preset, then every option), the
        tie-break order, its staff, then what only the services change. A field not named
        here (another part's new setting) goes to the first section."""
        rules = ["rules_preset"] + [f"rule_{name}" for name in RULE_OPTIONS]
        tie_breaks = [f"tie_break_{k}" for k in range(TIE_BREAK_SLOTS)]
        staff = ["organizers", "referees"]
        internal = list(self.internal_fields)
        named = set(rules) | set(tie_breaks) | set(staff) | set(internal)
        event = [f for f in self.get_fields(request, obj) if f not in named]
        return [
            (None, {"fields": event}),
            (_("Rules (RULES.md)"), {"fields": rules, "description": _(
                "Choose a preset; set an option only where the event plays differently.")}),
            (_("Tie-breaks"), {"fields": tie_breaks, "description": _(
                "Standings are ordered by the first tie-break, then the second, …")}),
            (_("Staff"), {"fields": staff}),
            (_("Kept by the service"), {"fields": internal, "classes": ["collapse"]}),
        ]

    def has_delete_permission(self, request, obj=None):
        """An event with rounds keeps them: results and standings depend on them."""
        return super().has_delete_permission(request, obj) and not (
            obj is not None and obj.rounds.exists())

    @admin.action(description=_("Open the next round and draw it (抽签组邦)"))
    def open_next_round(self, request, queryset):
        def go():
            n = 0
            for event in queryset:
                round_open(event=event)
                n += 1
            return n
        _run(self, request, go, lambda n: ngettext(
            "Drew the next round of %d event.", "Drew the next round of %d events.", n) % n)

    @admin.action(description=_("Print QR codes"))
    def print_qr_codes(self, request, queryset):
        """Open the printable page of QR codes (event, leaderboard, every table)."""
        slugs = queryset.order_by("name").values_list("slug", flat=True)
        return redirect(reverse("pages:qr-many") + "?" + urlencode([("event", s) for s in slugs]))

    @admin.display(description=_("bulk registration"))
    def bulk_registration(self, obj):
        if not obj.pk:
            return _("Save the event first.")
        return format_html('<a href="{}">{}</a>', reverse(
            "admin:tournaments_event_import", args=[obj.pk]), _(
            "Import players or 联邦 teams (CSV, XLSX or a list of names)"))

    def get_urls(self):
        return [path("<path:object_id>/import/", self.admin_site.admin_view(self.import_view),
                     name="tournaments_event_import")] + super().get_urls()

    def import_view(self, request, object_id):
        """Bulk registration in two steps: the upload (a CSV or XLSX file, or pasted names)
        is checked line by line and shown — nothing stored — with its rows signed into the
        page; confirming imports exactly those rows (:func:`entries_import`)."""
        event = self.get_object(request, unquote(object_id))
        if event is None or not self.has_change_permission(request, event):
            raise PermissionDenied
        team = event.format == Event.Format.TEAM
        context = {**self.admin_site.each_context(request), "opts": Event._meta,
                   "original": event, "event": event, "team": team,
                   "title": _("Bulk registration: %(e)s") % {"e": event}}
        form = ImportForm()
        if request.method == "POST" and "payload" in request.POST:
            return self._import_confirm(request, event)
        if request.method == "POST":
            form = ImportForm(request.POST, request.FILES)
            if form.is_valid():
                try:
                    rows, source = form.rows(team=team)
                    preview = entries_import(event=event, rows=rows,
                                                      organizer=request.user, dry_run=True)
                except ServiceError as exc:
                    form.add_error(None, exc.message)
                else:
                    context.update(preview=preview, source=source, rows=rows,
                                   errors=sum("error" in line for line in preview["lines"]),
                                   payload=signing.dumps({"event": event.pk, "rows": rows},
                                                         salt=IMPORT_SALT, compress=True))
        context["form"] = form
        return TemplateResponse(request, "admin/tournaments/event/import.html", context)

    def _import_confirm(self, request, event):
        again = redirect("admin:tournaments_event_import", event.pk)
        try:
            signed = signing.loads(request.POST["payload"], salt=IMPORT_SALT,
                                   max_age=IMPORT_MAX_AGE)
        except signing.BadSignature:
            self.message_user(request, _("The preview has expired or was altered: upload the "
                                         "file again."), messages.ERROR)
            return again
        if signed["event"] != event.pk:
            raise PermissionDenied
        try:
            done = entries_import(event=event, rows=signed["rows"],
                                           organizer=request.user)
        except ServiceError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return again
        self.message_user(request, _(
            "Imported: %(registered)s registered (%(players_created)s new players), "
            "%(checked_in)s checked in, %(unchanged)s unchanged.") % done, messages.SUCCESS)
        return redirect(reverse("admin:tournaments_entry_changelist") + "?" + urlencode(
            {"event__id__exact": event.pk}))

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
class EntryAdmin(ServiceAdmin):
    form = EntryAdminForm
    list_display = ("__str__", "event", "status", "late", "first_round", "left_after_round")
    list_filter = ("event", "status", "late")
    search_fields = ("player__name", "=player__number", "team__name")
    autocomplete_fields = ("player",)
    actions = ["check_in", "withdraw", "print_slips", "reissue_links", "revoke_links"]

    def get_fields(self, request, obj=None):
        return ("event", "player") if obj is None else (
            "event", "player", "team", "status", "late", "first_round", "left_after_round",
            "registered_at", "checked_in_at")

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.get_fields(request, obj)

    def has_delete_permission(self, request, obj=None):
        """An entry that sat at a table or had a bye keeps its results: withdraw it instead."""
        return super().has_delete_permission(request, obj) and not (
            obj is not None and (obj.seats.exists() or obj.byes.exists()))

    @admin.action(description=_("Check in (报到)"))
    def check_in(self, request, queryset):
        _run(self, request, lambda: entries_check_in(entries=queryset),
             lambda n: ngettext("%d entry checked in.", "%d entries checked in.", n) % n)

    @admin.action(description=_("Withdraw from the next round"))
    def withdraw(self, request, queryset):
        def go():
            for e in queryset:
                entry_withdraw(entry=e)
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
        _run(self, request, lambda: sum(len(entry_link_issue(entry=e, by=request.user))
                                        for e in queryset),
             lambda n: ngettext("%d private link issued.", "%d private links issued.", n) % n)

    @admin.action(description=_("Revoke private links"))
    def revoke_links(self, request, queryset):
        _run(self, request, lambda: sum(entry_link_revoke(entry=e) for e in queryset),
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
                round_request_draw(round=rnd)
            return queryset.count()
        _run(self, request, go, lambda n: _("Draw queued."))

    @admin.action(description=_("Publish seating"))
    def publish(self, request, queryset):
        def go():
            for rnd in queryset:
                round_publish(round=rnd)
            return queryset.count()
        _run(self, request, go, lambda n: _("Seating published."))

    @admin.action(description=_("Verify the draw from its public data"))
    def verify(self, request, queryset):
        for rnd in queryset:
            problems = round_verify(round=rnd)
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
class PenaltyAdmin(ServiceAdmin):
    """Penalties, added through :func:`~tournaments.services.penalty_add` and then kept as
    recorded (their effects — a deduction, a forced 大落 — are in the results)."""

    form = PenaltyAdminForm
    list_display = ("__str__", "event", "player", "entry", "kind", "points", "created_by",
                    "created_at")
    list_filter = ("event", "kind")
    search_fields = ("entry__player__name", "player__name", "entry__team__name", "reason")
    autocomplete_fields = ("entry", "player")
    raw_id_fields = ("round", "table")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        return type(form.__name__, (form,), {"by": request.user}) if obj is None else form

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Standing)
class StandingAdmin(ShownOnly, admin.ModelAdmin):
    list_display = ("rank", "entry", "points", "match_points", "game_wins", "head_count",
                    "opponents_points", "previous_rank", "through_round")
    list_filter = ("event",)
    search_fields = ("entry__player__name", "entry__team__name")
