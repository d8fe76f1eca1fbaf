"""The engine knows nothing of Django (STYLE.md, rule 5)."""

import ast
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
ENGINE_DIR = REPO_ROOT / "engine"


def _django_imports(path: Path) -> list[str]:
    """Return "file:line module" for every import of a django* module in one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            continue
        for module in modules:
            if module.startswith("django"):
                found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {module}")
    return found


def test_engine_source_does_not_import_django():
    # given: the engine package (its absence is a failure, not a skip)
    assert ENGINE_DIR.is_dir(), f"{ENGINE_DIR} does not exist"
    sources = sorted(ENGINE_DIR.rglob("*.py"))
    assert sources, "engine/ contains no .py files"

    # when
    offending = [hit for path in sources for hit in _django_imports(path)]

    # then
    assert offending == [], "engine/ imports Django:\n" + "\n".join(offending)


def test_importing_engine_loads_no_django_module():
    # given: a fresh interpreter, so nothing else has imported django already
    code = (
        "import sys, engine\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('django'))))\n"
    )

    # when
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    # then
    assert result.returncode == 0, f"import engine failed:\n{result.stderr}"
    loaded = result.stdout.split()
    assert loaded == [], f"import engine loaded Django modules: {loaded}"



def _lines_with(words: tuple[str, ...], *, outside: set[str], not_named: str) -> list[str]:
    """"file:line text" for each line of a product module (tests, the virtualenv and
    migrations aside; nor the files ``outside``, nor any file named ``not_named``) that holds
    one of ``words``."""
    skipped_dirs = {"tests", ".venv", "node_modules", "migrations", ".git"}
    sources = [path for path in sorted(REPO_ROOT.rglob("*.py"))
               if not skipped_dirs.intersection(path.relative_to(REPO_ROOT).parts)
               and path.name != not_named
               and path.relative_to(REPO_ROOT).as_posix() not in outside]
    assert any(p.relative_to(REPO_ROOT).as_posix() == "tournaments/admin.py" for p in sources)
    return [f"{path.relative_to(REPO_ROOT)}:{number} {line.strip()}"
            for path in sources
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if any(word in line for word in words)]


def test_row_and_advisory_locks_are_taken_only_in_locks_modules():
    """Every row lock and advisory lock lives in an app's ``locks.py``, where their order is
    documented (event → round → table → live game → advisory)."""
    # games/live.py and api/live_views.py are left out until the live/ app lands (it brings
    # live/locks.py): the lead removes this exclusion after merging it
    offending = _lines_with(("select_for_update", "FOR UPDATE", "pg_advisory"),
                            outside={"games/live.py", "api/live_views.py"},
                            not_named="locks.py")
    assert offending == [], "locks taken outside a locks.py:\n" + "\n".join(offending)


def test_only_services_enqueue_tasks():
    """Tasks are queued by the services (on commit), never by views, admin or commands."""
    # games/live.py is the live services until the live/ app lands (live/services.py): the lead
    # removes it from here after merging that
    offending = _lines_with((".delay(", ".apply_async("),
                            outside={"tournaments/standings.py", "games/live.py"},
                            not_named="services.py")
    assert offending == [], "tasks queued outside the services:\n" + "\n".join(offending)
