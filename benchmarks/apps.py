from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    """Its management commands, and the one table of `bench_api --baseline`."""

    name = "benchmarks"
