"""The world of tests/api_schema/world.py, built in the database of DATABASE_URL for a
Schemathesis CLI run against a real server (tests/api_schema/cli_run.sh runs it with
``manage.py shell``); prints the token and the ids the paths are pinned to, as JSON. Not a test
module (pytest collects test_*.py only)."""
import json

from tests.api_schema.world import build_world

print(json.dumps(build_world()))
