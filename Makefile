# Build / test entry points. Everything runs inside .venv, created on demand.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: venv test lint bench demo clean FORCE

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

test: venv
	$(PY) -m pytest $(PYTEST_ARGS)
	$(VENV)/bin/ruff check .

lint: venv
	$(VENV)/bin/ruff check .

bench: venv
	$(PY) -m engine bench

demo: venv
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py demo_event

FORCE:

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis out *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
