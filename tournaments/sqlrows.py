"""Model instances from hand-written SQL, for the hot path of result submission
(docs/BENCHMARKS.md, "Result submission"): building a query with subqueries through the ORM
costs milliseconds of CPU per request, more than the database takes to answer it. The columns
and their converters come from the models, so a field added to a model is read here too, and
the values are converted as the ORM converts them (JSON, booleans and times on SQLite)."""

from __future__ import annotations

from django.db import connection


class Columns:
    """The concrete columns of ``model`` under the SQL alias ``alias`` (but ``skip``, which are
    left deferred), and how to turn a row's values into an instance."""

    def __init__(self, model, alias: str, skip: tuple[str, ...] = ()):
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if f.attname not in skip]
        self.names = [f.attname for f in self.fields]
        self.sql = ", ".join(f'{alias}."{f.column}"' for f in self.fields)
        self._converters: dict[str, list] = {}

    def __len__(self) -> int:
        return len(self.fields)

    def _for(self, conn) -> list:
        if conn.vendor not in self._converters:
            found = []
            for f in self.fields:
                col = f.get_col(self.model._meta.db_table)
                found.append((col, conn.ops.get_db_converters(col) + f.get_db_converters(conn)))
            self._converters[conn.vendor] = found
        return self._converters[conn.vendor]

    def build(self, values):
        """An instance from the row's values for these columns, in order."""
        converted = []
        for value, (col, converters) in zip(values, self._for(connection), strict=True):
            for convert in converters:
                value = convert(value, col, connection)
            converted.append(value)
        return self.model.from_db(connection.alias, self.names, converted)


def fetch_one(sql: str, params) -> tuple | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()
