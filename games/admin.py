from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games import services
from games.models import GameResult, GameResultVersion, ResultProposal
from tournaments.admin import ShownOnly
from tournaments.errors import ServiceError


class VersionInline(admin.TabularInline):
    model = GameResultVersion
    extra = 0
    fields = ("version", "kind", "points_a", "points_b", "submitted_by", "submitted_at", "reason")
    readonly_fields = fields
    can_delete = False


class ProposalInline(admin.TabularInline):
    """Players' proposed corrections and how each was closed (read only: they are accepted,
    declined or withdrawn through the API, which checks who may)."""

    model = ResultProposal
    extra = 0
    fields = ("status", "base_version", "points_a", "points_b", "reason", "proposed_by",
              "proposed_at", "decided_by", "decided_at", "decision_reason", "version")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(GameResult)
class GameResultAdmin(ShownOnly, admin.ModelAdmin):
    list_display = ("__str__", "status", "version", "points_a", "points_b", "system_recorded")
    list_filter = ("status", "table__round__event", "table__round__number", "system_recorded")
    search_fields = ("=table__number", "table__seats__player__name")
    inlines = [VersionInline, ProposalInline]
    actions = ["confirm"]

    @admin.action(description=_("Confirm as referee"))
    def confirm(self, request, queryset):
        try:
            n = services.results_confirm(results=queryset, by=request.user, as_referee=True)
        except ServiceError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return
        self.message_user(request, ngettext("%d result confirmed.", "%d results confirmed.",
                                            n) % n, messages.SUCCESS)
