"""The commands the docs tell a reader to run exist, with the options they are given: every
``manage.py <command> --option``, ``python -m engine <sub> --option``, ``python -m
tournaments.draw <sub> --option`` and ``make <target>`` in the README and the docs it sends a
newcomer to. A command renamed or an option dropped fails here, not in a reader's terminal."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "docs/API.md", "docs/LIVE.md", "docs/EVENT-DAY.md", "docs/BENCHMARKS.md",
        "docs/DEPLOY.md", "docs/DEALS.md", "docs/DAILY.md", "docs/DUPLICATE.md",
        "engine/README.md"]
#: a command and what follows it up to the end of its code span, line, table cell, the next
#: command (`&&`, `;`) or a comment
MANAGE = re.compile(r"manage\.py ([a-z_]+)([^`\n|&;#]*)")
MODULE = re.compile(r"python -m (engine|tournaments\.draw) ([a-z]+)([^`\n|&;#]*)")
MAKE = re.compile(r"(?:^|`)make ([a-z][a-z-]*)", re.MULTILINE)
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")


def _text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _uses(pattern: re.Pattern) -> list[tuple[str, tuple[str, ...]]]:
    found = {(name, m.groups()) for name in DOCS for m in pattern.finditer(_text(name))}
    return sorted(found)


@cache
def _module_help(module: str, sub: str) -> str:
    out = subprocess.run([sys.executable, "-m", module, sub, "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"python -m {module} {sub}: {out.stderr[-500:]}"
    return out.stdout


def test_the_docs_name_commands_at_all():
    # the patterns below find something: a test that checks nothing would pass for ever
    assert len(_uses(MANAGE)) >= 20 and len(_uses(MODULE)) >= 4 and len(_uses(MAKE)) >= 4


@pytest.mark.parametrize(("doc", "use"), _uses(MANAGE))
def test_each_manage_py_command_exists_with_its_options(doc, use):
    command, rest = use
    # given the command the doc names
    app = get_commands().get(command)
    assert app is not None, f"{doc}: no management command {command!r}"
    # when its parser is built as manage.py builds it
    parser = load_command_class(app, command).create_parser("manage.py", command)
    # then every option the doc gives it is one of the parser's
    unknown = [o for o in OPTION.findall(rest) if o not in parser._option_string_actions]
    assert not unknown, f"{doc}: manage.py {command} has no option {unknown}"


@pytest.mark.parametrize(("doc", "use"), _uses(MODULE))
def test_each_python_m_command_exists_with_its_options(doc, use):
    module, sub, rest = use
    shown = set(OPTION.findall(_module_help(module, sub)))
    unknown = [o for o in OPTION.findall(rest) if o not in shown]
    assert not unknown, f"{doc}: python -m {module} {sub} has no option {unknown}"


def test_each_make_target_the_docs_name_is_in_the_makefile():
    targets = set(re.findall(r"^([a-z][a-z-]*):", _text("Makefile"), re.MULTILINE))
    named = {use[0] for _, use in _uses(MAKE)}
    assert {"demo", "serve", "test"} <= named
    assert named <= targets, f"not Makefile targets: {sorted(named - targets)}"


def test_the_readme_stays_a_newcomers_page():
    # issue 56: what it is, the quick start, the event day, where to go next — at most ~250 lines
    readme = _text("README.md")
    assert len(readme.splitlines()) <= 250
    for heading in ("## Quick start", "## The event day in five steps", "## Where to go next"):
        assert heading in readme



#: a Markdown link or an image's ``src`` to a file of the tree (not a web address or an anchor)
LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)#\s]+)[^)]*\)|src=\"(?!https?:)([^\"]+)\"")


def test_every_file_the_docs_link_to_is_in_the_tree():
    links = [(name, a or b) for name in DOCS + ["ARCHITECTURE.md", "docs/SECURITY.md"]
             for a, b in LINK.findall(_text(name))]
    assert len(links) >= 20
    missing = [(name, target) for name, target in links
               if not ((ROOT / name).parent / target).exists()]
    assert missing == []
