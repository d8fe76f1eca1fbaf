"""How many SQL statements a result submission costs (docs/BENCHMARKS.md, "Result submission"),
pinned so that it cannot creep back: the token, the table with the user's seat and role (and, on
PostgreSQL, the table's row lock in the same read), the key's advisory lock (with an
Idempotency-Key, PostgreSQL only), one read of everything the service checks, and the result's
and its version's inserts (one statement on PostgreSQL). The answer is short: the result as
stored, without its history."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from engine.bots import play_match
from tests.api.helpers import client_for, seats_of, sheet

pytestmark = pytest.mark.django_db

#: PostgreSQL: the token, the table with the viewer and its row lock, the one read, the result and
#: its version inserted by one statement
STATEMENTS = 4
#: SQLite (it serialises writers: no lock): the same, with two inserts
STATEMENTS_SQLITE = 5


def statements_of(user, table, body, key=None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    client = client_for(user)
    with CaptureQueriesContext(connection) as ctx:
        r = client.post(f"/api/v1/tables/{table.pk}/results/", body, format="json", **headers)
    # savepoints stand for the transaction's BEGIN and COMMIT inside the test's transaction
    sql = [q["sql"] for q in ctx.captured_queries
           if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    return r, sql


def expected(key) -> int:
    if connection.vendor != "postgresql":
        return STATEMENTS_SQLITE
    return STATEMENTS + (1 if key else 0)


def shown(sql: list[str]) -> str:
    return "\n".join(s[:300] for s in sql)


@pytest.fixture
def match():
    return [g.record() for g in play_match("dagang", 2, random.Random(7))]


@pytest.mark.parametrize("key", [None, "tablet-1"], ids=["unkeyed", "keyed"])
@pytest.mark.parametrize("who", ["player", "referee"])
def test_a_record_of_game_2_costs_the_pinned_statements(table, referee_user, match, key, who):
    seated = [s.player.user for s in seats_of(table)]
    user = seated[0] if who == "player" else referee_user
    assert client_for(seated[1]).post(f"/api/v1/tables/{table.pk}/results/",
                                      {"number": 1, "record": match[0]},
                                      format="json").status_code == 201
    r, sql = statements_of(user, table, {"number": 2, "record": match[1]}, key)
    assert r.status_code == 201, r.content
    assert len(sql) == expected(key), shown(sql)
    body = r.json()
    assert (body["submitted_by"], body["kind"], body["version"]) == (user.username, "record", 1)
    assert body["url"] == f"/api/v1/results/{body['id']}/"


@pytest.mark.parametrize("key", [None, "tablet-1"], ids=["unkeyed", "keyed"])
def test_a_sheet_of_game_1_costs_the_pinned_statements(table, key):
    player = seats_of(table)[0].player.user
    r, sql = statements_of(player, table, {"number": 1, "sheet": sheet([0, 1, 2, 3, 4, 5])}, key)
    assert r.status_code == 201, r.content
    assert len(sql) == expected(key), shown(sql)
    # only one statement reads results, versions or live games (the service's one read)
    reads = [s for s in sql if s.startswith("SELECT") and 'FROM "games_' in s]
    assert len(reads) == 1, shown(reads)


def test_a_confirmation_costs_the_pinned_statements(table):
    # the token, the result's table with the user's seat and role, the table's row lock
    # (PostgreSQL), one read of the result with both sides' seats, its update and the event's
    # results_version
    seated = [s.player.user for s in seats_of(table)]
    r = client_for(seated[0]).post(f"/api/v1/tables/{table.pk}/results/",
                                   {"number": 1, "sheet": sheet([0, 1, 2, 3, 4, 5])},
                                   format="json")
    client = client_for(seated[1])
    with CaptureQueriesContext(connection) as ctx:
        answer = client.post(f"/api/v1/results/{r.json()['id']}/confirm/", {"version": 1},
                             format="json")
    assert answer.status_code == 200, answer.content
    assert (answer.json()["status"], answer.json()["confirmed_by"]) == (
        "confirmed", seated[1].username)
    sql = [q["sql"] for q in ctx.captured_queries
           if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    # (the test client then runs the standings recompute queued on commit, as a worker would)
    bump = next(i for i, q in enumerate(sql) if q.startswith('UPDATE "tournaments_event" SET '
                                                             '"results_version"'))
    assert bump + 1 == (6 if connection.vendor == "postgresql" else 5), shown(sql[:bump + 1])
