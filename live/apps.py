from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = _("Live play")

    def ready(self):
        from live import access

        access.connect()  # (the changes that end open streams: live.access)
