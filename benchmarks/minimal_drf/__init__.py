"""A minimal Django + DRF project, outside the product: the ceiling ``bench_api --baseline``
measures result submission against. Token authentication, DRF's JSON parser and renderer, one
view that inserts the parsed body as one row; no middleware, no throttle, no session.

It imports nothing of the product (its settings are its own, its database is its own:
``<the run's database>_minimal``) and nothing of the product imports it. ``bench_api`` starts it
under the same gunicorn settings as the product (:class:`benchmarks.servers.Gunicorn`) and
fills its tables through :mod:`benchmarks.minimal_drf.setup`.
"""
