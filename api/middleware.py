"""What every API request's query string must be before any view reads it.

A NUL character (``%00``) in a query parameter reached the database in a filter
(``GET /api/v1/events/<e>/rounds/1/tables/?player=%00``: PostgreSQL refuses NUL in text, a
psycopg DataError, a 500). Every filter, search box and paging parameter of every API view is
covered here, in one place, before the view: a 400 in the API's error shape, naming the
parameter. The body's NUL characters are the JSON reader's (config/jsonbody.py).

The test is a substring search of the raw query string for ``%00`` (a NUL cannot arrive
otherwise: a server refuses a raw one), so a request without one costs nothing more; the
middleware is sync and async, so the event loop's views (api/live_views.py) stay on the loop.
"""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import JsonResponse

from api.errors import error_body

API_PREFIX = "/api/"
NUL_MESSAGE = "holds a NUL character (\\u0000), which is not allowed"


def nul_in_query(request) -> JsonResponse | None:
    """The 400 of an API request whose query string holds a NUL character, or None."""
    if not request.path.startswith(API_PREFIX) or "%00" not in request.META.get(
            "QUERY_STRING", ""):
        return None
    for name, values in request.GET.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            shown = name.replace("\x00", "\\u0000")
            return JsonResponse(error_body(
                "invalid", f"{shown}: the query parameter {NUL_MESSAGE}",
                fields={shown: [f"the query parameter {NUL_MESSAGE}"]}), status=400)
    return None


class QueryNulMiddleware:
    """Refuse an API request whose query string holds a NUL character (:func:`nul_in_query`)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(self.get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self.__acall__(request)
        return nul_in_query(request) or self.get_response(request)

    async def __acall__(self, request):
        return nul_in_query(request) or await self.get_response(request)
