# Build / test entry points. Everything runs inside .venv, created on demand.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: venv test test-fast lint bench demo serve clean FORCE

venv: $(STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

# Top-level packages present now. The editable install maps only the packages that existed
# when it ran, so a package appearing (e.g. engine/ after the first `make venv`) must re-install.
PACKAGES := $(sort $(dir $(wildcard */__init__.py)))

# Rewritten (new mtime) only when the package list changes.
$(VENV)/.packages: FORCE | $(PY)
	@echo '$(PACKAGES)' | cmp -s - $@ || echo '$(PACKAGES)' > $@

# Re-install only when pyproject.toml (or the package list) is newer than the stamp.
$(STAMP): pyproject.toml $(VENV)/.packages | $(PY)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[dev]'
	touch $@

# Everything (CI's and the README's command): the markers below only choose, never skip.
test: venv
	$(PY) -m pytest $(PYTEST_ARGS)
	$(VENV)/bin/ruff check .

# The developer's lane: no browser, fault or slow tests (markers: pyproject.toml,
# tests/conftest.py). PostgreSQL and Redis tests run where those servers are.
FAST_MARKERS ?= not browser and not fault and not slow
test-fast: venv
	$(PY) -m pytest -m "$(FAST_MARKERS)" $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check .
	PYTHONPATH=. $(VENV)/bin/lint-imports --no-cache

# Engine replay/simulation figures, then a 10,000-player event through the services (on the
# database DATABASE_URL names; SQLite by default). Takes a few minutes.
BENCH_ARGS ?= --players 10000 --rounds 7
bench: venv
	@echo "machine: $$(uname -m), $$(nproc) cores; $$(date '+%Y-%m-%d %H:%M:%S %z')"
	$(PY) -m engine bench
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py bench_event $(BENCH_ARGS)

# The CI entry point (starts PostgreSQL and Redis if they are down; see .ci/run).
.PHONY: ci
ci: venv
	.ci/run

demo: venv
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py demo_event

# The pages on the demo data (or whatever the database holds) at http://127.0.0.1:8000/.
# DJANGO_DEBUG=1: runserver serves the static files itself, and the public development key is
# accepted; a development server only, never for production (docs/DEPLOY.md). With no broker
# it runs the sweeps beat would send (托管, standings) itself: live/sweeps.py.
serve: venv
	$(PY) manage.py migrate --noinput -v0
	DJANGO_DEBUG=1 $(PY) manage.py runserver 127.0.0.1:8000

# The production layout on this machine (nginx with TLS on a high port, gunicorn, uvicorn per
# core, worker, beat, Redis, PostgreSQL, under supervisord): deploy/prod-local, docs/DEPLOY.md.
# PROD_LOCAL_PORT=8480 by default; `deploy/prod-local stop` stops it.
.PHONY: prod-local
prod-local: venv
	deploy/prod-local start

FORCE:

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis out *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
