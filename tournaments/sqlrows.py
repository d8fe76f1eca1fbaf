"""Model instances from hand-written SQL, for the hot path of result submission
(docs/BENCHMARKS.md, "Result submission"): building a query with subqueries through the ORM
costs milliseconds of CPU per request, more than the database takes to answer it. The columns
and their converters come from the models, so a field added to a model is read here too, and
the values are converted as the ORM converts them (JSON, booleans and times on SQLite)."""

from __future__ import annotations

from django.db import connection
from django.db.backends.utils import CursorDebugWrapper


class Columns:
    """The concrete columns of ``model`` under the SQL alias ``alias`` (but ``skip``, or only
    ``only``; the others are left deferred), and how to turn a row's values into an
    instance."""

    def __init__(self, model, alias: str, skip: tuple[str, ...] = (),
                 only: tuple[str, ...] = ()):
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if f.attname not in skip and
                       (not only or f.attname in only)]
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


def prepared_cursor():
    """A cursor for the hot path's hand-written statements: on PostgreSQL one whose statements
    are prepared on the server, once per connection (its parameters bound there), for
    PostgreSQL took longer to plan each of them than to run it (0.5 ms against 0.1 ms: most
    of a submission's database time, ``bench_api``). Django's own cursors bind parameters in
    the client and prepare nothing; this one goes through Django's wrapper all the same
    (error translation, query logging, ``execute_wrapper``). Elsewhere, Django's cursor."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    # as Django's own cursor() does: a connection that died while idle (a database restart) is
    # replaced before use, not found dead by the request (tests/faults/test_db_restart.py)
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:  # Django's default: prepare nothing
        # only cursors binding on the server prepare: Django's client-binding ones never do
        raw.prepare_threshold = 0
    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        cursor = ServerBindingCursor(raw)
    if connection.queries_logged:
        return _LoggedAsWritten(cursor, connection)
    return connection.make_cursor(cursor)


class _LoggedAsWritten(CursorDebugWrapper):
    """Django's query log for :func:`prepared_cursor`: the statement as written (Django asks
    psycopg for the statement it sent, which a prepared one does not have)."""

    def debug_sql(self, sql=None, params=None, use_last_executed_query=False, many=False):
        return super().debug_sql(sql, params, use_last_executed_query=False, many=many)


def fetch_one(sql: str, params) -> tuple | None:
    """The first row of a hand-written statement, prepared (:func:`prepared_cursor`)."""
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _insert_values(obj) -> tuple[list, list]:
    """The concrete fields of ``obj`` but its key, and their values as an insert saves them
    (defaults and ``auto_now`` applied)."""
    fields = [f for f in obj._meta.concrete_fields if not f.primary_key]
    return fields, [f.get_db_prep_save(f.pre_save(obj, add=True), connection) for f in fields]


def insert_with_child(parent, child, link: str) -> None:
    """Insert ``parent`` and ``child``, whose foreign key ``link`` points to it, as
    ``save(force_insert=True)`` would, one after the other. On PostgreSQL in one statement (an
    ``INSERT`` in a ``WITH``): a result and its first version were two ORM inserts, each a round
    trip and a compiled query, a tenth of a submission (``bench_api``). Both instances get their
    keys. On PostgreSQL no ``pre_save``/``post_save`` signal is sent: the models given here have
    no receivers."""
    if connection.vendor != "postgresql":
        parent.save(force_insert=True)
        setattr(child, link, parent)
        child.save(force_insert=True)
        return
    link_field = child._meta.get_field(link)
    setattr(child, link, parent)
    p_fields, p_values = _insert_values(parent)
    c_fields, c_values = _insert_values(child)
    c_values = [v for f, v in zip(c_fields, c_values, strict=True) if f is not link_field]
    c_fields = [f for f in c_fields if f is not link_field]
    quote = connection.ops.quote_name
    p_table, c_table = quote(parent._meta.db_table), quote(child._meta.db_table)
    p_key, c_key = quote(parent._meta.pk.column), quote(child._meta.pk.column)
    sql = (f"WITH p AS (INSERT INTO {p_table} ({', '.join(quote(f.column) for f in p_fields)}) "
           f"VALUES ({', '.join(['%s'] * len(p_fields))}) RETURNING {p_key}) "
           f"INSERT INTO {c_table} ({quote(link_field.column)}, "
           f"{', '.join(quote(f.column) for f in c_fields)}) "
           f"VALUES ((SELECT {p_key} FROM p), {', '.join(['%s'] * len(c_fields))}) "
           f"RETURNING {c_key}, {quote(link_field.column)}")
    with prepared_cursor() as cursor:
        cursor.execute(sql, [*p_values, *c_values])
        child_pk, parent_pk = cursor.fetchone()
    parent.pk, child.pk = parent_pk, child_pk
    setattr(child, link_field.attname, parent_pk)
    for obj in (parent, child):
        obj._state.adding, obj._state.db = False, connection.alias


def array_literal(values) -> str | list:
    """``values`` (integers, ``None`` or ASCII letters and digits, such as hex digests) as one
    PostgreSQL array literal, for a statement that casts it (``%s::integer[]``): psycopg adapts
    a list's values one by one, 0.1 s for the ~6,000 rows a standings update rewrites
    (PostgreSQL's own update of them: 0.03 s). Anything else is given back as a list, for
    psycopg to adapt."""
    parts = []
    for value in values:
        if value is None:
            parts.append("NULL")
        elif type(value) is int or (type(value) is str and value.isalnum() and value.isascii()):
            parts.append(str(value))
        else:
            return list(values)
    return "{" + ",".join(parts) + "}"
