"""The console's pages for a drawn round: checking its draw, and printing it once published.
``web/urls.py`` includes :data:`console_round_urls` (namespace ``pages``)."""

from django.urls import path

from web.views.console import draw
from web.views.console import print as print_views

console_round_urls = [
    path("e/<slug:slug>/console/rounds/<int:number>/check/", draw.round_check,
         name="console-round-check"),
    path("e/<slug:slug>/console/rounds/<int:number>/print/", print_views.round_print,
         name="console-round-print"),
]
