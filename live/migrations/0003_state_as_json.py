"""The engine's state of live and practice games stored in PostgreSQL as ``json`` (its text),
not ``jsonb``, and compressed with lz4.

Every act rewrites its game's whole state, 5-9 KB of JSON. As ``jsonb`` PostgreSQL parses it
into its binary form at every write and compresses it with pglz; as ``json`` compressed with
lz4 an update costs the backend about half the CPU. Nothing searches inside a state in the
database (:class:`tournaments.fields.JSONTextField`).

lz4 applies to values written from now on (pglz ones still read). PostgreSQL before 14, or
built without lz4, offers none (``default_toast_compression`` does not list it): the state is
then compressed as before. Elsewhere (SQLite) the state is text already.
"""

from django.db import migrations

import tournaments.fields

TABLES = ("games_livegame", "live_practicegame")  # (LiveGame's table kept its old name)


def _lz4_offered(cursor) -> bool:
    cursor.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings "
                   "WHERE name = 'default_toast_compression'")
    row = cursor.fetchone()
    return bool(row and row[0])


def _compress_with(method: str):
    def compress(apps, schema_editor):
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            if not _lz4_offered(cursor):
                return
            for table in TABLES:
                cursor.execute(f"ALTER TABLE {connection.ops.quote_name(table)} "
                               f"ALTER COLUMN state SET COMPRESSION {method}")
    return compress


class Migration(migrations.Migration):

    dependencies = [
        ("live", "0002_practicegame"),
    ]

    operations = [
        migrations.AlterField(
            model_name="livegame",
            name="state",
            field=tournaments.fields.JSONTextField(verbose_name="engine state"),
        ),
        migrations.AlterField(
            model_name="practicegame",
            name="state",
            field=tournaments.fields.JSONTextField(verbose_name="engine state"),
        ),
        migrations.RunPython(_compress_with("lz4"), _compress_with("default")),
    ]
