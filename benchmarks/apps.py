from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    """An app only so that Django finds its management commands; it has no models."""

    name = "benchmarks"
