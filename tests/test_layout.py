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
