"""Settings package of the 够级 tournament service (one module, driven by the environment)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
