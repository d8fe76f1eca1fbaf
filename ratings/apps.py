from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self):
        from ratings.services import rated_changed_received
        from tournaments.signals import rated_changed

        # (an event that starts or stops counting is re-rated: tournaments tells, ratings acts)
        rated_changed.connect(rated_changed_received, dispatch_uid="ratings_rated_changed")
