"""The standings' pages filled to half (PostgreSQL's ``fillfactor`` 50), so that the new version
of a row a standings run writes fits on its own page: a HOT update, which touches none of the
table's four indexes and which later reads prune on the page, rather than a row moved to
another page and a new entry in each index.

A game's end moves the ranks of most entries: at 10,002 players the first games' results
shift nearly every row by a place or more, and each coalesced run writes them all
(``tournaments.standings._update_rows``), in a burst that the live tables' acts share the cores
with. Half-full pages halve what those writes cost PostgreSQL; 10,002 entries' rows fill some
4 MB of pages at 50.

The setting applies to the pages filled from now on (a new event's standings); SQLite has none.
"""

from django.db import migrations

from config.fillfactor import fillfactor

TABLES = ("tournaments_standing",)
FILLFACTOR = 50


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0011_round_standings_and_dirty_from"),
    ]

    operations = [
        fillfactor(TABLES, FILLFACTOR),
    ]
