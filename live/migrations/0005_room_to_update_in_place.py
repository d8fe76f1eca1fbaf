"""Live and practice games' pages filled to half (PostgreSQL's ``fillfactor`` 50), so that the
new version of a row every act writes fits on its own page: a HOT update, which touches no
index and which later reads prune on the page, rather than a row moved to another page and a
new entry in each of the table's four indexes.

A live game's row is 2-2.2 KB (its state compressed with lz4, ``live.0003``), and three or four
of them filled a page: as a game's state grew, its new version often no longer fitted beside
the others, and 10-40 % of the acts' updates moved their rows (``bench_live --streams 10000``,
docs/BENCHMARKS.md "Nineteenth pass"); with no vacuum in between, the table and its indexes
grew by the dead rows and entries, and the reads that scan them with them. 1,667 games updated
120 times each in turn, as a round is played (the states of bot games): 83 % of the updates HOT
and the table 61 MB at 100, every update HOT and 6 MB at 50.

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
