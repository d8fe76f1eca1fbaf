import gc
import os
from importlib import import_module

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()


def _freeze_what_loading_made() -> None:
    """What loading the app made (Django, DRF, every view module and its URL patterns) lives as
    long as the process: keep it out of the cyclic garbage collector's full sweeps. Those walked
    it all three or four times a minute in each worker, 45–120 ms each, while the requests at
    hand waited (docs/BENCHMARKS.md, "Live moves")."""
    from django.conf import settings

    import_module(settings.ROOT_URLCONF)  # the views now, rather than on the first request
    gc.collect()
    gc.freeze()


_freeze_what_loading_made()
