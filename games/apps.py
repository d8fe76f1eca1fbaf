from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Game results")

    def ready(self):
        from games.services import forced_last_received
        from tournaments.signals import forced_last

        # (a referee's 罚为大落 rewrites a result: tournaments asks, games writes)
        forced_last.connect(forced_last_received, dispatch_uid="games_forced_last")
