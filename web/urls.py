"""The pages, at the site root (``config/urls.py`` includes them); their namespace is ``pages``."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from web.views import dashboard, desk, live_table, practice, public, ratings, table, watch

app_name = "pages"

urlpatterns = [
    path("", public.event_list, name="events"),
    path("ratings/", ratings.rating_list, name="ratings"),
    path("players/<int:pk>/", ratings.player_page, name="player"),
    path("e/<slug:slug>/", public.event_detail, name="event"),
    path("e/<slug:slug>/leaderboard/", public.leaderboard, name="leaderboard"),
    path("e/<slug:slug>/seating/", public.seating, name="seating"),
    path("e/<slug:slug>/rounds/<int:number>/", public.seating, name="round-seating"),
    path("e/<slug:slug>/rounds/<int:number>/byes.json", public.round_byes, name="round-byes"),
    path("e/<slug:slug>/rounds/<int:number>/tables/<int:table>/", public.table_detail,
         name="table"),
    path("e/<slug:slug>/table/<int:table>/", public.table_current, name="table-current"),
    # watching and looking back (issue 19): spectators, replays, histories
    path("e/<slug:slug>/rounds/<int:number>/tables/<int:table>/watch/", watch.watch,
         name="watch"),
    path("e/<slug:slug>/rounds/<int:number>/tables/<int:table>/watch.json", watch.watch_data,
         name="watch-data"),
    path("e/<slug:slug>/rounds/<int:number>/tables/<int:table>/games/<int:game>/replay/",
         watch.replay, name="replay"),
    path("e/<slug:slug>/rounds/<int:number>/tables/<int:table>/games/<int:game>/replay.json",
         watch.replay_data, name="replay-data"),
    path("e/<slug:slug>/rounds/<int:number>/results/", watch.round_results,
         name="round-results"),
    path("e/<slug:slug>/players/<int:player>/", watch.player_history, name="player-history"),
    path("e/<slug:slug>/teams/<int:team>/", watch.team_history, name="team-history"),
    path("e/<slug:slug>/entries/<int:entry>/", watch.entry_history, name="entry-history"),
    path("e/<slug:slug>/projector/", public.projector, name="projector"),
    path("e/<slug:slug>/bracket/", public.bracket, name="bracket"),
    path("e/<slug:slug>/qr/", public.qr_codes, name="qr"),
    path("e/<slug:slug>/dashboard/", dashboard.dashboard, name="dashboard"),
    path("e/<slug:slug>/dashboard/status.json", dashboard.dashboard_status,
         name="dashboard-status"),
    path("e/<slug:slug>/dashboard/<slug:action>/", dashboard.dashboard_action,
         name="dashboard-action"),
    path("qr/", public.qr_codes, name="qr-many"),
    # a seated player's table (issue 16): by private link, or signed in
    path("p/<str:token>/", include(table.player_urls("link"))),
    path("me/", include(table.player_urls("me"))),
    # the live table of a seated player, and practice against bots (issue 18)
    path("p/<str:token>/live/", include(live_table.player_urls("link"))),
    path("me/live/", include(live_table.player_urls("me"))),
    path("practice/", practice.practice_start, name="practice"),
    path("practice/<str:token>/", practice.practice_page, name="practice-game"),
    path("practice/<str:token>/state/", practice.practice_state, name="practice-state"),
    path("practice/<str:token>/act/", practice.practice_act, name="practice-act"),
    path("accounts/login/", table.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="pages:login"),
         name="logout"),
    path("e/<slug:slug>/rounds/<int:number>/slips/", table.round_slips, name="round-slips"),
    path("slips/", table.entry_slips, name="entry-slips"),
    path("e/<slug:slug>/desk/", desk.desk, name="desk"),
    path("e/<slug:slug>/desk/tables/<int:table_id>/", desk.desk_table, name="desk-table"),
    path("e/<slug:slug>/desk/rounds/<int:number>/confirm/", desk.desk_round_confirm,
         name="desk-round-confirm"),
]
