"""The house's layout: the engine knows nothing of Django (STYLE.md, rule 5), the rooms' arrows
(import-linter's contracts in pyproject.toml), no import circles, and where locks and task
queuing live."""

import ast
import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


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
    migrations aside; nor the files ``outside``, nor any file named ``not_named`` or in a
    package of that name, as ``tournaments/services/``) that holds one of ``words``."""
    skipped_dirs = {"tests", ".venv", "node_modules", "migrations", ".git"}
    sources = [path for path in sorted(REPO_ROOT.rglob("*.py"))
               if not skipped_dirs.intersection(path.relative_to(REPO_ROOT).parts)
               and path.name != not_named and path.parent.name != not_named.removesuffix(".py")
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
# The layers are import-linter's contracts in pyproject.toml ([tool.importlinter]): engine
# imports no Django and nothing of the project; engine ← tournaments, games, ratings ← live ←
# api, web (ARCHITECTURE.md, "The arrows"); nothing of the product imports benchmarks.


def _lint_imports(project: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` on the project at ``project``, with its pyproject.toml. The project
    comes first on the path: the virtualenv's editable install may map the rooms to another
    checkout."""
    env = {**os.environ, "PYTHONPATH": str(project)}
    code = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache", str(project / "pyproject.toml")],
        cwd=project, env=env, capture_output=True, text=True, check=False, timeout=120)


def _import_linter_config() -> dict:
    with (REPO_ROOT / "pyproject.toml").open("rb") as config:
        return tomllib.load(config)["tool"]["importlinter"]


def test_imports_keep_the_contracts():
    """engine ← tournaments/games/ratings ← live ← api, web; engine pure; benchmarks unused."""
    # when
    result = _lint_imports(REPO_ROOT)

    # then
    assert result.returncode == 0, result.stdout + result.stderr
    kept = [line for line in result.stdout.splitlines() if line.endswith(" KEPT")]
    assert len(kept) == len(_import_linter_config()["contracts"]) == 3, result.stdout


def test_the_contracts_refuse_imports_against_the_arrows(tmp_path):
    # given: the project's contracts over throwaway rooms, where games imports live (inside a
    # function), api imports web, engine imports Django and config imports benchmarks
    for room in _import_linter_config()["root_packages"]:
        (tmp_path / room).mkdir()
        (tmp_path / room / "__init__.py").write_text("")
    (tmp_path / "games" / "services.py").write_text(
        "def submit():\n    from live.models import LiveGame\n")
    (tmp_path / "api" / "views.py").write_text("import web.views\nfrom games import services\n")
    (tmp_path / "web" / "views.py").write_text("")
    (tmp_path / "live" / "models.py").write_text("")
    (tmp_path / "engine" / "cards.py").write_text("from django.db import models\n")
    (tmp_path / "config" / "urls.py").write_text("import benchmarks\n")
    (tmp_path / "pyproject.toml").write_bytes((REPO_ROOT / "pyproject.toml").read_bytes())

    # when
    result = _lint_imports(tmp_path)

    # then: each contract is broken, naming the import that breaks it
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 3 broken." in result.stdout, result.stdout
    for hit in ("games.services -> live.models", "api.views -> web.views",
                "engine.cards -> django ", "config.urls -> benchmarks"):
        assert hit in result.stdout, f"{hit} not reported:\n{result.stdout}"


# ----------------------------------------------------------------------------- circles
#: the import circles the project still has, each the set of modules it joins, with why it
#: closes: no other is allowed, no module may join one, and one that is cut leaves this list.
#: None is left (issue 56): a service queues the task that calls it back by the task's name
#: (``config.celery.task_named``, checked below); the later rounds' re-draw is a draw's
#: (``services.draws.later_draws``), and the live stream's routes are the stream's.
KNOWN_CIRCLES: dict[frozenset[str], str] = {}


def _circles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """The graph's import circles: its strongly connected sets of more than one module."""
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = set()
    for root in sorted(imports):  # (Tarjan's algorithm, without recursion)
        if root in order:
            continue
        work = [(root, iter(sorted(imports[root])))]
        order[root] = low[root] = len(order)
        stack.append(root)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    work.append((target, iter(sorted(imports.get(target, ())))))
                elif target in stack:
                    low[module] = min(low[module], order[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == order[module]:
                member, circle = None, set()
                while member != module:
                    member = stack.pop()
                    circle.add(member)
                if len(circle) > 1:
                    circles.add(frozenset(circle))
    return circles


def _project_graph(root: Path = REPO_ROOT) -> grimp.ImportGraph:
    """Every import among the project's modules, those inside functions too (an import only
    for type checkers closes no circle at run time)."""
    for package in _import_linter_config()["root_packages"]:
        origin = Path(importlib.util.find_spec(package).origin)
        assert origin.is_relative_to(root), f"{package} is read from {origin}, not {root}"
    return grimp.build_graph(*_import_linter_config()["root_packages"], cache_dir=None,
                             exclude_type_checking_imports=True)


def test_no_new_import_circles():
    # given
    graph = _project_graph()
    assert graph.find_modules_directly_imported_by("games.services"), "the graph is empty"

    # when
    circles = _circles(graph)

    # then
    new = [sorted(circle) for circle in circles - KNOWN_CIRCLES.keys()]
    assert new == [], "new import circles (cut each: a small module both use, or a " \
        "dependency turned around):\n" + "\n".join(" ↔ ".join(c) for c in new)
    gone = [sorted(circle) for circle in KNOWN_CIRCLES.keys() - circles]
    assert gone == [], "circles cut: take them off KNOWN_CIRCLES:\n" + "\n".join(map(str, gone))


def test_the_circle_check_finds_a_circle_and_only_circles():
    # given: a → b → c → a, c → d, d → e → d, f alone
    graph = grimp.ImportGraph()
    for module in "abcdef":
        graph.add_module(module)
    for importer, imported in ("ab", "bc", "ca", "cd", "de", "ed"):
        graph.add_import(importer=importer, imported=imported)

    # when
    circles = _circles(graph)

    # then
    assert circles == {frozenset("abc"), frozenset("de")}


# ----------------------------------------------------------------------------- tasks by name
def _task_named_calls(sources: list[Path]) -> list[tuple[str, object]]:
    """("file:line", name) of every call of ``task_named`` in ``sources``; the name is the
    call's string argument, or its source text when it is not a string literal."""
    calls = []
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "task_named"
                    and node.args):
                arg = node.args[0]
                name = arg.value if isinstance(arg, ast.Constant) else ast.unparse(arg)
                calls.append((f"{path.relative_to(REPO_ROOT)}:{node.lineno}", name))
    return calls


def test_every_task_queued_by_name_is_registered():
    """A service queues the task that calls it back by name (``config.celery.task_named``): each
    name is a string literal that Celery's registry holds, so that renaming a task cannot break
    its queueing silently."""
    from config.celery import app, task_named

    # given: every call of task_named in the product (the 托管 timer, the re-ratings, the
    # draw, the standings)
    sources = [path for path in _first_party_sources()
               if path.relative_to(REPO_ROOT).parts[0] != "tests"]
    calls = _task_named_calls(sources)
    assert len(calls) >= 5, calls

    # when
    unknown = []
    for where, name in calls:
        try:
            task = task_named(name)
        except (LookupError, TypeError):
            unknown.append(f"{where} {name}")
        else:
            assert app.tasks[name] is task

    # then
    assert unknown == [], "tasks queued by a name the registry lacks:\n" + "\n".join(unknown)


def test_task_named_refuses_a_name_no_task_has():
    from config.celery import task_named

    with pytest.raises(LookupError, match="'tournaments.tasks.no_such_task'"):
        task_named("tournaments.tasks.no_such_task")
