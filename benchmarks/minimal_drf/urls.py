"""The minimal project's URLs: its one view."""

from __future__ import annotations

from django.urls import path

from benchmarks.minimal_drf.views import PATH, InsertApi

urlpatterns = [path(PATH, InsertApi.as_view())]
