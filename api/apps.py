from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = _("REST API")

    def ready(self):
        from api import schema  # noqa: F401  (registers the schema extensions)
