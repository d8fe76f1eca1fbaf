from django.apps import AppConfig


class WebConfig(AppConfig):
    """The pages: server-rendered HTML over the tournament core (see the package docstring)."""

    name = "web"
