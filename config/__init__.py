"""Settings package of the 够级 tournament service (one module, driven by the environment)."""

from . import checks  # noqa: F401  (registers the deployment checks: config/checks.py)
from .celery import app as celery_app

__all__ = ["celery_app"]
