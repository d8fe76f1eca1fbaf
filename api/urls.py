from csp.utils import build_policy
from django.urls import path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from api import live_views as lv
from api import rating_views as rv
from api import views as v
from api.auth_views import TokenObtainApi

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
    path("engine/validate", v.EngineValidateApi.as_view(), name="engine-validate"),
    path("players/", v.PlayerListCreateApi.as_view(), name="players"),
    path("players/me/", v.PlayerMeApi.as_view(), name="player-me"),
    path("players/me/invitations/", v.InvitationListApi.as_view(), name="invitations"),
    path("players/me/invitations/<int:pk>/accept/", v.InvitationAcceptApi.as_view(),
         name="invitation-accept"),
    path("players/me/invitations/<int:pk>/decline/", v.InvitationDeclineApi.as_view(),
         name="invitation-decline"),
    path("ratings/", rv.RatingListApi.as_view(), name="ratings"),
    path("ratings.csv", rv.RatingsCsvApi.as_view(), name="ratings-csv"),
    path("ratings/<int:pk>/", rv.PlayerRatingApi.as_view(), name="player-rating"),
    path("events/", v.EventListCreateApi.as_view(), name="events"),
    path("events/<slug:slug>/", v.EventDetailApi.as_view(), name="event-detail"),
    path("events/<slug:slug>/publish/", v.EventPublishApi.as_view(), name="event-publish"),
    path("events/<slug:slug>/staff/", v.EventStaffApi.as_view(), name="event-staff"),
    path("events/<slug:slug>/entries/", v.EntryListCreateApi.as_view(), name="entries"),
    path("events/<slug:slug>/entries.csv", v.EntriesCsvApi.as_view(), name="entries-csv"),
    path("events/<slug:slug>/entries/import/", v.EntryImportApi.as_view(), name="entries-import"),
    path("events/<slug:slug>/entries/<int:pk>/check-in/", v.EntryCheckInApi.as_view(),
         name="entry-check-in"),
    path("events/<slug:slug>/entries/<int:pk>/withdraw/", v.EntryWithdrawApi.as_view(),
         name="entry-withdraw"),
    path("events/<slug:slug>/teams/", v.TeamCreateApi.as_view(), name="teams"),
    path("events/<slug:slug>/rounds/", v.RoundListCreateApi.as_view(), name="rounds"),
    path("events/<slug:slug>/rounds/<int:number>/", v.RoundDetailApi.as_view(),
         name="round-detail"),
    path("events/<slug:slug>/rounds/<int:number>/publish/", v.RoundPublishApi.as_view(),
         name="round-publish"),
    path("events/<slug:slug>/rounds/<int:number>/confirm/", v.RoundConfirmApi.as_view(),
         name="round-confirm"),
    path("events/<slug:slug>/rounds/<int:number>/tables/", v.RoundTablesApi.as_view(),
         name="round-tables"),
    path("events/<slug:slug>/rounds/<int:number>/seating.csv", v.SeatingCsvApi.as_view(),
         name="round-seating-csv"),
    path("events/<slug:slug>/penalties/", v.PenaltyListCreateApi.as_view(), name="penalties"),
    path("events/<slug:slug>/standings/", v.StandingsApi.as_view(), name="standings"),
    path("events/<slug:slug>/bracket/", v.BracketApi.as_view(), name="bracket"),
    path("events/<slug:slug>/standings.csv", v.StandingsCsvApi.as_view(), name="standings-csv"),
    path("tables/<int:pk>/", v.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<int:pk>/results/", v.TableResultsApi.as_view(), name="table-results"),
    path("tables/<int:pk>/live/", lv.LiveStartApi.as_view(), name="live-start"),
    path("tables/<int:pk>/live/ready/", lv.LiveReadyApi.as_view(), name="live-ready"),
    path("live/<int:pk>/", lv.LiveGameApi.as_view(), name="live-game"),
    path("live/<int:pk>/act/", lv.LiveActApi.as_view(), name="live-act"),
    path("live/<int:pk>/host/", lv.LiveHostApi.as_view(), name="live-host"),
    path("live/<int:pk>/events/", lv.LiveEventsApi.as_view(), name="live-events"),
    path("results/<int:pk>/", v.ResultDetailApi.as_view(), name="result-detail"),
    path("results/<int:pk>/confirm/", v.ResultConfirmApi.as_view(), name="result-confirm"),
    path("results/<int:pk>/dispute/", v.ResultDisputeApi.as_view(), name="result-dispute"),
    path("results/<int:pk>/correct/", v.ResultCorrectApi.as_view(), name="result-correct"),
    path("results/<int:pk>/proposals/<int:proposal>/accept/",
         v.ResultProposalAcceptApi.as_view(), name="result-proposal-accept"),
    path("results/<int:pk>/proposals/<int:proposal>/decline/",
         v.ResultProposalDeclineApi.as_view(), name="result-proposal-decline"),
    path("results/<int:pk>/proposals/<int:proposal>/withdraw/",
         v.ResultProposalWithdrawApi.as_view(), name="result-proposal-withdraw"),
]
