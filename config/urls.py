from django.contrib import admin
from django.urls import include, path

from api import errors
from web.caching import set_language

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("api.urls", namespace="api")),
    # the pages' language switcher: Django's, without a CSRF token (web/caching.py)
    path("i18n/setlang/", set_language, name="set_language"),
    path("", include("web.urls")),  # the pages (web/)
]


def handler404(request, exception=None):
    if request.path.startswith("/api/"):
        return errors.json_404(request, exception)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def handler500(request):
    if request.path.startswith("/api/"):
        return errors.json_500(request)
    import sys

    exc = sys.exc_info()[1]
    if errors.redis_down(exc):  # (a Redis failure that escaped: config/outage.py)
        from web.views import unavailable

        errors.redis_failure_escaped(exc, request.path)
        return unavailable(request)
    from django.views.defaults import server_error

    return server_error(request)


def handler400(request, exception=None):
    if request.path.startswith("/api/"):
        return errors.json_400(request, exception)
    from django.views.defaults import bad_request

    return bad_request(request, exception)
