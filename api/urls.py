from csp.utils import build_policy
from django.urls import path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from api import live_views as lv
from api import rating_views as rv
from api.auth_views import TokenObtainApi
from api.views import (
    entries,
    events,
    exports,
    penalties,
    players,
    results,
    rounds,
    standings,
    validate,
)

app_name = "api"


def _under_policy(view, **needs):
    """A docs page under the site's Content-Security-Policy (config/settings.py leaves the
    JSON API under /api/ out of it), plus what the page needs: Redoc writes its styles into
    <style> elements and searches in a worker it makes from a blob."""
    def page(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["Content-Security-Policy"] = build_policy(update=needs or None)
        return response
    return page



urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # offline docs: the sidecar's static files, start-up code in a file of its own
    path("docs/", _under_policy(SpectacularSwaggerSplitView.as_view(
        url_name="api:schema", template_name="api/swagger_ui.html")), name="docs"),
    path("redoc/", _under_policy(SpectacularRedocView.as_view(
        url_name="api:schema", template_name="api/redoc.html"),
        **{"style-src": ["'unsafe-inline'"], "worker-src": ["blob:"]}), name="redoc"),
    path("auth/token/", TokenObtainApi.as_view(), name="token"),
    path("engine/validate", validate.EngineValidateApi.as_view(), name="engine-validate"),
    path("players/", players.PlayerListCreateApi.as_view(), name="players"),
    path("players/me/", players.PlayerMeApi.as_view(), name="player-me"),
    path("players/me/invitations/", players.InvitationListApi.as_view(), name="invitations"),
    path("players/me/invitations/<int:pk>/accept/", players.InvitationAcceptApi.as_view(),
         name="invitation-accept"),
    path("players/me/invitations/<int:pk>/decline/", players.InvitationDeclineApi.as_view(),
         name="invitation-decline"),
    path("ratings/", rv.RatingListApi.as_view(), name="ratings"),
    path("ratings.csv", rv.RatingsCsvApi.as_view(), name="ratings-csv"),
    path("ratings/<int:pk>/", rv.PlayerRatingApi.as_view(), name="player-rating"),
    path("events/", events.EventListCreateApi.as_view(), name="events"),
    path("events/<slug:slug>/", events.EventDetailApi.as_view(), name="event-detail"),
    path("events/<slug:slug>/publish/", events.EventPublishApi.as_view(), name="event-publish"),
    path("events/<slug:slug>/staff/", events.EventStaffApi.as_view(), name="event-staff"),
    path("events/<slug:slug>/entries/", entries.EntryListCreateApi.as_view(), name="entries"),
    path("events/<slug:slug>/entries.csv", exports.EntriesCsvApi.as_view(), name="entries-csv"),
    path("events/<slug:slug>/entries/import/", entries.EntryImportApi.as_view(), name="entries-import"),
    path("events/<slug:slug>/entries/<int:pk>/check-in/", entries.EntryCheckInApi.as_view(),
         name="entry-check-in"),
    path("events/<slug:slug>/entries/<int:pk>/withdraw/", entries.EntryWithdrawApi.as_view(),
         name="entry-withdraw"),
    path("events/<slug:slug>/teams/", entries.TeamCreateApi.as_view(), name="teams"),
    path("events/<slug:slug>/rounds/", rounds.RoundListCreateApi.as_view(), name="rounds"),
    path("events/<slug:slug>/rounds/<int:number>/", rounds.RoundDetailApi.as_view(),
         name="round-detail"),
    path("events/<slug:slug>/rounds/<int:number>/publish/", rounds.RoundPublishApi.as_view(),
         name="round-publish"),
    path("events/<slug:slug>/rounds/<int:number>/confirm/", rounds.RoundConfirmApi.as_view(),
         name="round-confirm"),
    path("events/<slug:slug>/rounds/<int:number>/tables/", rounds.RoundTablesApi.as_view(),
         name="round-tables"),
    path("events/<slug:slug>/rounds/<int:number>/seating.csv", exports.SeatingCsvApi.as_view(),
         name="round-seating-csv"),
    path("events/<slug:slug>/penalties/", penalties.PenaltyListCreateApi.as_view(), name="penalties"),
    path("events/<slug:slug>/standings/", standings.StandingsApi.as_view(), name="standings"),
    path("events/<slug:slug>/bracket/", rounds.BracketApi.as_view(), name="bracket"),
    path("events/<slug:slug>/standings.csv", exports.StandingsCsvApi.as_view(), name="standings-csv"),
    path("tables/<int:pk>/", results.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<int:pk>/results/", results.TableResultsApi.as_view(), name="table-results"),
    path("tables/<int:pk>/live/", lv.LiveStartApi.as_view(), name="live-start"),
    path("tables/<int:pk>/live/ready/", lv.LiveReadyApi.as_view(), name="live-ready"),
    path("live/<int:pk>/", lv.LiveGameApi.as_view(), name="live-game"),
    path("live/<int:pk>/act/", lv.LiveActApi.as_view(), name="live-act"),
    path("live/<int:pk>/host/", lv.LiveHostApi.as_view(), name="live-host"),
    path("live/<int:pk>/events/", lv.LiveEventsApi.as_view(), name="live-events"),
    path("results/<int:pk>/", results.ResultDetailApi.as_view(), name="result-detail"),
    path("results/<int:pk>/confirm/", results.ResultConfirmApi.as_view(), name="result-confirm"),
    path("results/<int:pk>/dispute/", results.ResultDisputeApi.as_view(), name="result-dispute"),
    path("results/<int:pk>/correct/", results.ResultCorrectApi.as_view(), name="result-correct"),
    path("results/<int:pk>/proposals/<int:proposal>/accept/",
         results.ResultProposalAcceptApi.as_view(), name="result-proposal-accept"),
    path("results/<int:pk>/proposals/<int:proposal>/decline/",
         results.ResultProposalDeclineApi.as_view(), name="result-proposal-decline"),
    path("results/<int:pk>/proposals/<int:proposal>/withdraw/",
         results.ResultProposalWithdrawApi.as_view(), name="result-proposal-withdraw"),
]
