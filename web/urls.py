"""The pages, at the site root (``config/urls.py`` includes them); their namespace is ``pages``."""

from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from web.views import (
    boards,
    daily,
    desk,
    live_stream,
    live_table,
    practice,
    public,
    ratings,
    table,
    watch,
)
from web.views.console import entries as console_entries
from web.views.console import event as console_event
from web.views.console import home as console_home
from web.views.console import rounds as console_rounds
from web.views.console.report import report_urls
from web.views.console.urls_draw import console_round_urls

app_name = "pages"

urlpatterns = [
    path("", public.event_list, name="events"),
    # what browsers ask for by themselves (the pages link web/favicon.svg)
    path("favicon.ico", RedirectView.as_view(url=static("web/favicon.ico"), permanent=True)),
    path("ratings/", ratings.rating_list, name="ratings"),
    path("players/<int:pk>/", ratings.player_page, name="player"),
    path("e/<slug:slug>/", public.event_detail, name="event"),
    path("e/<slug:slug>/leaderboard/", public.leaderboard, name="leaderboard"),
    path("e/<slug:slug>/seating/", public.seating, name="seating"),
    path("e/<slug:slug>/rounds/<int:number>/", public.seating, name="round-seating"),
    path("e/<slug:slug>/rounds/<int:number>/find.json", public.round_find, name="round-find"),
    path("e/<slug:slug>/rounds/<int:number>/status.json", public.round_status,
         name="round-status"),
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
    path("e/<slug:slug>/rounds/<int:number>/tables/<int:table>/games/<int:game>/record.json",
         watch.record_download, name="record-download"),
    path("e/<slug:slug>/rounds/<int:number>/boards/", boards.round_boards, name="round-boards"),
    path("e/<slug:slug>/rounds/<int:number>/boards/<int:group>/<int:board>/",
         boards.board_detail, name="board"),
    path("e/<slug:slug>/rounds/<int:number>/results/", watch.round_results,
         name="round-results"),
    path("e/<slug:slug>/players/<int:player>/", watch.player_history, name="player-history"),
    path("e/<slug:slug>/teams/<int:team>/", watch.team_history, name="team-history"),
    path("e/<slug:slug>/entries/<int:entry>/", watch.entry_history, name="entry-history"),
    path("e/<slug:slug>/projector/", public.projector, name="projector"),
    path("e/<slug:slug>/bracket/", public.bracket, name="bracket"),
    path("e/<slug:slug>/final/", public.final_standings, name="final-standings"),
    path("e/<slug:slug>/qr/", public.qr_codes, name="qr"),
    # the organizer's console (issue 52): the events, a new one, then each event's day
    path("console/", console_home.console_home, name="console"),
    path("console/new/", console_home.event_new, name="console-event-new"),
    path("e/<slug:slug>/console/", console_rounds.console_event, name="console-event"),
    path("e/<slug:slug>/console/status.json", console_rounds.console_status,
         name="console-status"),
    path("e/<slug:slug>/console/rounds/<int:number>/", console_rounds.console_round,
         name="console-round"),
    path("e/<slug:slug>/console/do/<slug:action>/", console_rounds.console_action,
         name="console-action"),
    path("e/<slug:slug>/console/settings/", console_event.event_settings,
         name="console-settings"),
    path("e/<slug:slug>/console/publish/", console_event.event_publish, name="console-publish"),
    path("e/<slug:slug>/console/referees/", console_event.event_referees,
         name="console-referees"),
    path("e/<slug:slug>/console/import/", console_entries.entries_import, name="console-import"),
    path("e/<slug:slug>/console/check-in/", console_entries.check_in, name="console-check-in"),
    path("e/<slug:slug>/console/check-in/scan/", console_entries.scan, name="console-scan"),
    path("e/<slug:slug>/console/entries/new/", console_entries.entry_add,
         name="console-entry-add"),
    path("e/<slug:slug>/console/entries/<int:entry_id>/<slug:action>/",
         console_entries.entry_action, name="console-entry-action"),
    path("e/<slug:slug>/dashboard/", console_rounds.dashboard_redirect, name="dashboard"),
    # the end of an event (issue 52): the organizers' report and exports
    path("", include(report_urls)),
    path("qr/", public.qr_codes, name="qr-many"),
    # a seated player's table (issue 16): by private link, or signed in
    path("p/<str:token>/", include(table.player_urls("link"))),
    path("me/", include(table.player_urls("me"))),
    # the live table of a seated player, and practice against bots (issue 18)
    path("p/<str:token>/live/",
         include(live_table.player_urls("link") + live_stream.player_urls("link"))),
    path("me/live/", include(live_table.player_urls("me") + live_stream.player_urls("me"))),
    path("practice/", practice.practice_start, name="practice"),
    path("practice/<str:token>/", practice.practice_page, name="practice-game"),
    path("practice/<str:token>/state/", practice.practice_state, name="practice-state"),
    path("practice/<str:token>/act/", practice.practice_act, name="practice-act"),
    # the daily challenge (每日挑战, issue 55)
    path("daily/", daily.daily_today, name="daily"),
    path("daily/enter/", daily.daily_enter, name="daily-enter"),
    path("daily/<str:date>/", daily.daily_day, name="daily-day"),
    path("daily/<str:date>/leaderboard/", daily.daily_leaderboard, name="daily-leaderboard"),
    path("daily/<str:date>/deals/<int:number>/", daily.daily_results, name="daily-results"),
    path("daily/<str:date>/deals/<int:number>/start/", daily.daily_start, name="daily-start"),
    path("daily/<str:date>/deals/<int:number>/play/", daily.daily_play, name="daily-play"),
    path("daily/<str:date>/deals/<int:number>/play/state/", daily.daily_state,
         name="daily-state"),
    path("daily/<str:date>/deals/<int:number>/play/act/", daily.daily_act, name="daily-act"),
    path("daily/<str:date>/deals/<int:number>/replays/<int:play>/", daily.daily_replay,
         name="daily-replay"),
    path("daily/<str:date>/deals/<int:number>/replays/<int:play>/replay.json",
         daily.daily_replay_data, name="daily-replay-data"),
    path("accounts/login/", table.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="pages:login"),
         name="logout"),
    path("e/<slug:slug>/rounds/<int:number>/slips/", table.round_slips, name="round-slips"),
    path("slips/", table.entry_slips, name="entry-slips"),
    path("e/<slug:slug>/desk/", desk.desk, name="desk"),
    path("e/<slug:slug>/desk/tables/<int:table_id>/", desk.desk_table, name="desk-table"),
    path("e/<slug:slug>/desk/rounds/<int:number>/confirm/", desk.desk_round_confirm,
         name="desk-round-confirm"),
    # the organizer's console: checking a draw, printing a round (issue 52)
    path("", include(console_round_urls)),
]
