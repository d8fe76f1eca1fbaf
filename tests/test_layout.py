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


# ----------------------------------------------------------------------------- benchmarks
# benchmarks/ uses every room and no room uses it; nothing reaches into a management command:
# what two commands, or a command and a test, share lives in a plain module (ISSUE 14).
SKIPPED_DIRS = {".venv", ".git", "node_modules", "__pycache__", "build", "dist"}


def _first_party_sources() -> list[Path]:
    """Every .py file of the project (not the virtualenv or build output)."""
    return sorted(
        path for path in REPO_ROOT.rglob("*.py")
        if not SKIPPED_DIRS.intersection(path.relative_to(REPO_ROOT).parts[:-1])
    )


def _imported_modules(path: Path, root: Path = REPO_ROOT) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in one file of the project at ``root``;
    relative imports are resolved against the file's package, and ``from a import b`` also
    yields ``a.b`` (b may be a module)."""
    package = list(path.relative_to(root).with_suffix("").parts[:-1])
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def _offending(sources: list[Path], bad) -> list[str]:
    """"file:line module" for each import statement that names a module ``bad`` refuses."""
    hits: dict[tuple[str, int], str] = {}
    for path in sources:
        for line, module in _imported_modules(path):
            where = (str(path.relative_to(REPO_ROOT)), line)
            if bad(module) and len(module) < len(hits.get(where, module + ".")):
                hits[where] = module
    return [f"{name}:{line} {module}" for (name, line), module in sorted(hits.items())]


def test_no_product_module_imports_benchmarks():
    # given: every module outside benchmarks/ but the tests (a test of a bench may import
    # benchmarks' plain modules)
    sources = [path for path in _first_party_sources()
               if path.relative_to(REPO_ROOT).parts[0] not in {"benchmarks", "tests"}]
    assert any(path.parts[-2:] == ("config", "settings.py") for path in sources), \
        "the scan missed config/settings.py"

    # when
    offending = _offending(sources, lambda m: m == "benchmarks" or m.startswith("benchmarks."))

    # then
    assert offending == [], "product modules import benchmarks:\n" + "\n".join(offending)


def test_nothing_outside_benchmarks_imports_a_management_command():
    # given: the product apps, the settings and the tests (benchmarks' commands may import
    # the product's commands; nothing may import theirs)
    sources = [path for path in _first_party_sources()
               if path.relative_to(REPO_ROOT).parts[0] != "benchmarks"]
    roots = {path.relative_to(REPO_ROOT).parts[0] for path in sources}
    assert {"engine", "tournaments", "games", "api", "config", "tests"} <= roots

    # when (Django's own commands are the framework's to extend, as live's runserver extends
    # staticfiles': the rule is about the project's commands)
    offending = _offending(sources, lambda m: ".management.commands." in f".{m}."
                           and not m.startswith("django."))

    # then
    assert offending == [], "modules import from management commands:\n" + "\n".join(offending)


def test_the_import_scan_sees_relative_and_from_imports(tmp_path):
    # given: a throwaway package that imports a command relatively and benchmarks by name
    package = tmp_path / "app"
    package.mkdir()
    source = package / "views.py"
    source.write_text("from .management.commands import seed\nfrom benchmarks import figures\n")

    # when
    modules = [module for _line, module in _imported_modules(source, root=tmp_path)]

    # then
    assert "app.management.commands.seed" in modules
    assert "benchmarks.figures" in modules

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
    offending = _lines_with(("select_for_update", "FOR UPDATE", "pg_advisory"),
                            outside=set(), not_named="locks.py")
    assert offending == [], "locks taken outside a locks.py:\n" + "\n".join(offending)


def test_only_services_enqueue_tasks():
    """Tasks are queued by the services (on commit), never by views, admin or commands."""
    # tournaments/standings.py is the standings' service module; config/celery.py is where
    # every task's apply_async goes through the broker's breaker (it queues nothing itself)
    offending = _lines_with((".delay(", ".apply_async("),
                            outside={"tournaments/standings.py", "config/celery.py"},
                            not_named="services.py")
    assert offending == [], "tasks queued outside the services:\n" + "\n".join(offending)


# ----------------------------------------------------------------------------- the arrows
#: the rooms of ARCHITECTURE.md by layer: a room imports only rooms of a lower layer (and
#: tournaments, games and ratings, one layer, each other); config/ names every app,
#: benchmarks/ uses them all and is checked above
LAYERS = {"engine": 0, "tournaments": 1, "games": 1, "ratings": 1, "live": 2, "api": 3, "web": 3}


def _upward_imports(root: Path = REPO_ROOT) -> list[str]:
    """"file:line room -> module" for each import of a room of the same or a higher layer."""
    found: dict[tuple[str, int], str] = {}  # the first module each statement names
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if parts[0] not in LAYERS or SKIPPED_DIRS.intersection(parts):
            continue
        room = parts[0]
        for line, module in _imported_modules(path, root):
            target = module.split(".")[0]
            if target in LAYERS and target != room and LAYERS[target] >= LAYERS[room] and not (
                    LAYERS[target] == LAYERS[room] == 1):
                found.setdefault((str(path.relative_to(root)), line), f"{room} -> {module}")
    return [f"{name}:{line} {what}" for (name, line), what in sorted(found.items())]


def test_imports_point_down_the_layers():
    """engine ← tournaments/games ← live ← api, web (ARCHITECTURE.md, "The arrows")."""
    # given: every room is there
    assert all((REPO_ROOT / room / "__init__.py").is_file() for room in LAYERS)

    # when
    offending = _upward_imports()

    # then
    assert offending == [], "imports against the arrows:\n" + "\n".join(offending)


def test_the_arrows_check_sees_an_upward_import(tmp_path):
    # given: a games module importing live, and an api module importing web
    for room in LAYERS:
        (tmp_path / room).mkdir()
        (tmp_path / room / "__init__.py").write_text("")
    (tmp_path / "games" / "services.py").write_text("from live.models import LiveGame\n")
    (tmp_path / "api" / "views.py").write_text("import web.views\nfrom games import services\n")

    # when
    offending = _upward_imports(tmp_path)

    # then
    assert [hit.split(" ", 1)[1] for hit in offending] == [
        "api -> web.views", "games -> live.models"]
