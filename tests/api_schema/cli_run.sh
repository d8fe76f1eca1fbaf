#!/bin/bash
# Schemathesis's CLI, every phase (examples, coverage, fuzzing, stateful) and every check,
# against gunicorn with production settings (DEBUG off) on a PostgreSQL database of its own,
# built afresh with the world of test_schemathesis.py (cli_world.py). Not part of CI: the
# in-process test (test_schemathesis.py) is. Run from the repository's root:
#
#   tests/api_schema/cli_run.sh OUT_DIR        (ST_MAX examples per operation, default 25)
#
# DB_NAME (gouji_schema_cli) is dropped and created on the server of PG_URL
# (postgresql://postgres@127.0.0.1:5432); the server listens on 127.0.0.1:$PORT (8765).
# ST_EXCLUDE names checks to leave out (see the note in test_schemathesis.py for why
# positive_data_acceptance is).
set -euo pipefail
OUT=$(realpath -m "${1:?usage: cli_run.sh OUT_DIR}")
PG_URL=${PG_URL:-postgresql://postgres@127.0.0.1:5432}
DB_NAME=${DB_NAME:-gouji_schema_cli}
PORT=${PORT:-8765}
export DATABASE_URL="$PG_URL/$DB_NAME"
export DJANGO_SECRET_KEY="schemathesis-cli-run-$RANDOM$RANDOM$RANDOM-not-a-real-secret-key"
for scope in ANON USER WRITES RESULTS ENGINE LIVE LINKS LINK_MISSES PRACTICE LOGIN; do
    export "THROTTLE_$scope=1000000/min"
done
mkdir -p "$OUT"
.venv/bin/python - "$PG_URL" "$DB_NAME" <<'PY'
import sys
import psycopg
with psycopg.connect(f"{sys.argv[1]}/postgres", autocommit=True) as c:
    c.execute(f'DROP DATABASE IF EXISTS "{sys.argv[2]}"')
    c.execute(f'CREATE DATABASE "{sys.argv[2]}"')
PY
.venv/bin/python manage.py migrate -v0
.venv/bin/python manage.py shell < tests/api_schema/cli_world.py | tail -1 > "$OUT/world.json"
.venv/bin/python - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
w = json.load(open(f"{out}/world.json"))
pins = {"^/api/v1/events/": f'"path.id" = {w["entry"]}',
        "^/api/v1/tables/": f'"path.id" = {w["table"]}',
        "^/api/v1/results/": f'"path.id" = {w["result"]}',
        # the long-poll and the stream would hold a request for 25 s and minutes
        "^/api/v1/live/": f'"path.id" = {w["live"]}, "query.wait" = 0.2, "query.seconds" = 0.2'}
toml = f'[parameters]\n"path.slug" = "{w["slug"]}"\n"path.number" = {w["number"]}\n'
for regex, params in pins.items():
    toml += f'\n[[operations]]\ninclude-path-regex = "{regex}"\nparameters = {{ {params} }}\n'
open(f"{out}/schemathesis.toml", "w").write(toml)
PY
.venv/bin/gunicorn config.wsgi -w 2 --threads 2 -b "127.0.0.1:$PORT" --timeout 60 \
    --access-logfile /dev/null --error-logfile "$OUT/gunicorn.log" &
SERVER=$!
trap 'kill $SERVER' EXIT
TOKEN=$(.venv/bin/python -c "import json; print(json.load(open('$OUT/world.json'))['token'])")
EXCLUDE=()
[ -n "${ST_EXCLUDE:-}" ] && EXCLUDE=(--exclude-checks "$ST_EXCLUDE")
set +e
cd "$OUT"  # its cache of failures (.schemathesis/) goes there
"$OLDPWD/.venv/bin/schemathesis" --no-color --config-file "$OUT/schemathesis.toml" run \
    "http://127.0.0.1:$PORT/api/v1/schema/" --wait-for-schema 30 \
    --phases examples,coverage,fuzzing,stateful --checks all "${EXCLUDE[@]}" \
    -H "Authorization: Token $TOKEN" --max-examples "${ST_MAX:-25}" --seed "${ST_SEED:-1}" \
    --workers 1 --request-timeout 30 --report junit,ndjson --report-dir "$OUT/report" \
    > "$OUT/schemathesis.txt" 2>&1
STATUS=$?
sed -n '/=== SUMMARY ===/,$p' "$OUT/schemathesis.txt"
exit $STATUS
