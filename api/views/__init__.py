"""API views: translate HTTP to service calls and back (no business rule here), a module a
subject: ``events``, ``players`` (and invitations), ``entries``, ``rounds``, ``results`` (tables
and results), ``penalties``, ``standings``, ``exports`` (CSV), ``validate`` (the engine's
check), and ``common`` (the lookups they share). Live play's views are in ``api.live_views``,
the ratings' in ``api.rating_views``, the token's in ``api.auth_views``."""
