"""Public pages of events, at the site root (``config/urls.py`` includes them)."""

from django.urls import path

from tournaments import views

app_name = "pages"

urlpatterns = [
    path("", views.event_list, name="events"),
    path("e/<slug:slug>/", views.event_detail, name="event"),
    path("e/<slug:slug>/leaderboard/", views.leaderboard, name="leaderboard"),
    path("e/<slug:slug>/seating/", views.seating, name="seating"),
    path("e/<slug:slug>/rounds/<int:number>/", views.seating, name="round-seating"),
    path("e/<slug:slug>/rounds/<int:number>/tables/<int:table>/", views.table_detail,
         name="table"),
    path("e/<slug:slug>/table/<int:table>/", views.table_current, name="table-current"),
    path("e/<slug:slug>/projector/", views.projector, name="projector"),
    path("e/<slug:slug>/qr/", views.qr_codes, name="qr"),
    path("qr/", views.qr_codes, name="qr-many"),
]
