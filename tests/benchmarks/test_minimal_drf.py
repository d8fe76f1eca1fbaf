"""The minimal DRF project ``bench_api --baseline`` measures submission against: its own
settings and database, nothing of the product, and it answers as a DRF project does."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.servers import minimal_database_url

REPO_ROOT = Path(__file__).resolve().parents[2]
MINIMAL = REPO_ROOT / "benchmarks" / "minimal_drf"
ALLOWED = {"__future__", "os", "sys", "json", "django", "rest_framework", "dj_database_url",
           "psycopg"}


def test_the_minimal_project_imports_nothing_of_the_product():
    # given: every module of the minimal project
    sources = sorted(MINIMAL.rglob("*.py"))
    assert {"settings.py", "urls.py", "views.py", "wsgi.py"} <= {p.name for p in sources}

    # when
    imported = set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add("." * node.level + (node.module or ""))

    # then
    outside = sorted(m for m in imported if m.split(".")[0] not in ALLOWED
                     and not m.startswith("benchmarks.minimal_drf"))
    assert outside == [], f"the minimal project imports {outside}"


def test_its_database_is_the_runs_with_minimal_after_the_name(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gouji_bench")
    assert minimal_database_url() == "postgres://postgres@127.0.0.1:5432/gouji_bench_minimal"


CLIENT = """
import json, os
os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.minimal_drf.settings"
import django
django.setup()
from django.test import Client
from benchmarks.minimal_drf.models import Row
body = {"number": 1, "record": {"deals": [1, 2, 3]}}
c = Client()
refused = c.post("/rows/", body, content_type="application/json")
form = c.post("/rows/", {"a": "b"}, HTTP_AUTHORIZATION="Token k1")
ok = c.post("/rows/", body, content_type="application/json", HTTP_AUTHORIZATION="Token k1")
print(json.dumps([refused.status_code, form.status_code, ok.status_code,
                  list(Row.objects.values_list("body", flat=True))]))
"""


def test_it_inserts_a_token_holders_json_body_and_refuses_the_rest(tmp_path):
    # given: its database made by its set-up, one user holding the token k1
    env = {**os.environ, "MINIMAL_DATABASE_URL": f"sqlite:///{tmp_path / 'minimal.sqlite3'}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    setup = subprocess.run([sys.executable, "-m", "benchmarks.minimal_drf.setup"],
                           input=json.dumps({"k1": "table-1"}), text=True, capture_output=True,
                           cwd=REPO_ROOT, env=env, check=False, timeout=120)
    assert setup.returncode == 0, setup.stderr
    assert "1 users with tokens" in setup.stdout

    # when: no token; a form body; a JSON body with the token
    done = subprocess.run([sys.executable, "-c", CLIENT], text=True, capture_output=True,
                          cwd=REPO_ROOT, env=env, check=False, timeout=120)

    # then: 401, 415 (JSON only), 201 and the body stored as parsed
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [
        401, 415, 201, [{"number": 1, "record": {"deals": [1, 2, 3]}}]]
