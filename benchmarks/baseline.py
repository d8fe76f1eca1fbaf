"""The ceiling of ``bench_api --baseline``: a bare DRF view that authenticates the token,
parses the JSON body with the project's parser and inserts it as one row, served by the same
gunicorn layout, settings and database as the product (:mod:`benchmarks.wsgi`). Nothing in the
product imports it (``tests/test_layout.py``)."""

from __future__ import annotations

from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from benchmarks.models import BaselineRow

PATH = "bench/baseline/"


class BaselineInsertApi(APIView):
    permission_classes = [IsAuthenticated]

    def post(self, request):
        row = BaselineRow.objects.create(body=request.data)
        return Response({"id": row.pk}, status=status.HTTP_201_CREATED)
