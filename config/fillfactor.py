"""PostgreSQL's ``fillfactor`` for the tables whose rows are rewritten over and over (a live
game's at every act, the standings at every run), as a migration's operation: pages filled to
``percent`` leave room for a row's new version beside it — a HOT update, which touches no index
and which later reads prune on the page. It applies to the pages filled from then on; SQLite
has no such setting, and the operation does nothing there."""

from __future__ import annotations

from django.db import migrations


def fillfactor(tables: tuple[str, ...], percent: int) -> migrations.RunPython:
    """The operation that sets ``tables``' fillfactor to ``percent``, and resets it backwards."""
    def set_to(value: int | None):
        def apply(apps, schema_editor):
            connection = schema_editor.connection
            if connection.vendor != "postgresql":
                return
            with connection.cursor() as cursor:
                for table in tables:
                    name = connection.ops.quote_name(table)
                    cursor.execute(f"ALTER TABLE {name} SET (fillfactor = {value})" if value
                                   else f"ALTER TABLE {name} RESET (fillfactor)")
        return apply
    return migrations.RunPython(set_to(percent), set_to(None), elidable=False)
