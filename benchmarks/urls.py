"""The product's URLs and the baseline view of ``bench_api --baseline``
(:mod:`benchmarks.baseline`), for :mod:`benchmarks.wsgi`."""

from __future__ import annotations

from django.urls import path

from benchmarks.baseline import PATH, BaselineInsertApi
from config.urls import urlpatterns as product

urlpatterns = [path(PATH, BaselineInsertApi.as_view(), name="bench-baseline"), *product]
