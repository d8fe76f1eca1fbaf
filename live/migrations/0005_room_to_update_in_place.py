"""Live and practice games' pages filled to half (PostgreSQL's ``fillfactor`` 50), so that the
new version of a row every act writes fits on its own page: a HOT update, which touches no
index and which later reads prune on the page, rather than a row moved to another page and a
new entry in each of the table's four indexes.

A live game's row is 2-2.2 KB (its state compressed with lz4, ``live.0003``), three or four to
a full page: as a game's state grows, its new version often no longer fits beside the others,
and without a vacuum in between the table and its indexes grow by the dead rows and entries.
At 50, 1,667 games updated 120 times each in turn had every update HOT.

The setting applies to the pages filled from now on (a new game's row); SQLite has none.
"""

from django.db import migrations

from config.fillfactor import fillfactor

TABLES = ("games_livegame", "live_practicegame")  # (LiveGame's table kept its old name)
FILLFACTOR = 50


class Migration(migrations.Migration):

    dependencies = [
        ("live", "0004_running_games_index"),
    ]

    operations = [
        fillfactor(TABLES, FILLFACTOR),
    ]
