"""The minimal project's one view."""

from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmarks.minimal_drf.models import Row

#: where it is served, and what ``bench_api`` posts to
PATH = "rows/"


class InsertApi(APIView):
    """Insert the request's JSON body, as parsed, as one row (a token holder only)."""

    def post(self, request):
        row = Row.objects.create(body=request.data)
        return Response({"id": row.pk}, status=status.HTTP_201_CREATED)
