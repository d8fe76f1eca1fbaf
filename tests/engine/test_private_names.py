"""No module of engine/ uses another module's private names (a leading underscore): bots, the
test helpers and sheets go through the public API of the game (issue 14)."""

import ast
from pathlib import Path

ENGINE_DIR = Path(__file__).resolve().parents[2] / "engine"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_private_names(tree: ast.AST) -> set[str]:
    """Private names a module defines itself: its functions, classes and methods, and the
    attributes it sets on ``self`` (``self._x = ...``, ``__slots__`` entries)."""
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            own.add(node.attr)
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            own.update(e.value for e in ast.walk(node.value)
                       if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return {n for n in own if _is_private(n)}


def private_uses(source: str, filename: str) -> list[str]:
    """Uses of private names in ``source`` that cross a module boundary: ``x._name`` on anything
    but ``self``/``cls`` when the module does not define ``_name`` itself, and
    ``from m import _name``."""
    tree = ast.parse(source, filename=filename)
    own = _own_private_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if node.attr in own:
                continue
            found.append(f"{filename}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{filename}:{node.lineno} import {alias.name}")
    return found


def test_the_check_finds_a_private_attribute_and_a_private_import():
    # given: code that reaches into a game, and code that imports a private helper
    source = ("from .game import _helper\n"
              "def f(game):\n"
              "    return game._plays(0)\n")

    # when
    found = private_uses(source, "bad.py")

    # then
    assert sorted(found) == ["bad.py:1 import _helper", "bad.py:3 ._plays"]


def test_the_check_allows_self_and_a_module_s_own_private_names():
    source = ("class A:\n"
              "    __slots__ = ('_opts',)\n"
              "    def __eq__(self, other):\n"
              "        return self._opts == other._opts\n"
              "    def _x(self):\n"
              "        return self.__dict__\n")

    assert private_uses(source, "ok.py") == []


def test_no_engine_module_uses_another_module_s_private_names():
    # given: every module of the engine (its absence is a failure, not a skip)
    sources = sorted(ENGINE_DIR.rglob("*.py"))
    assert len(sources) > 10, f"engine modules not found under {ENGINE_DIR}"

    # when
    found = [hit for path in sources
             for hit in private_uses(path.read_text(encoding="utf-8"),
                                     str(path.relative_to(ENGINE_DIR.parent)))]

    # then
    assert found == [], "private names used across engine modules:\n" + "\n".join(found)
