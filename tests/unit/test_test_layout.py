"""The tests' own layout: test modules and bench scripts share helpers through tests/support only, never
by importing a test module or a conftest.py; the support modules a bench script uses run without pytest."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = "tests.support"
#: Test-only dependencies a bench script must not need (it runs as ``python3 bench/x.py``).
TEST_ONLY = ("pytest", "hypothesis")


def imported(source: str) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of every absolute import in ``source`` (lazy ones too); ``from a import b``
    yields ``a.b``, which names the module ``a.b`` or a name in ``a``. A relative import yields ``.``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                yield node.lineno, "."
            else:
                for alias in node.names:
                    yield node.lineno, f"{node.module}.{alias.name}"


def is_shared(name: str) -> bool:
    """Whether importing ``name`` shares code only through tests/support (or shares no test code)."""
    first = name.split(".")[0]
    if name == "." or first == "conftest" or first.startswith("test_"):
        return False  # a relative import, or a conftest/test module put on sys.path by pytest's rootdir
    if first != "tests":
        return True
    return name == SUPPORT or name.startswith(f"{SUPPORT}.")


def offences(path: Path) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line}: {name}" for line, name in imported(path.read_text()) if not is_shared(name)
    ]


def suite_modules() -> list[Path]:
    return sorted([*ROOT.glob("tests/unit/test_*.py"), *ROOT.glob("tests/integration/test_*.py")])


def support_module(name: str) -> Path | None:
    """The file of the tests.support module ``name`` names (``from tests.support.repo import x``: repo.py)."""
    parts = name.split(".")
    for n in (len(parts), len(parts) - 1):
        path = ROOT.joinpath(*parts[:n]).with_suffix(".py")
        if n > 2 and path.is_file():
            return path
    return None


@pytest.mark.parametrize(
    "source, shared",
    [
        ("from tests.support.repo import commit_files", True),
        ("import tests.support.disk", True),
        ("from pystats_harness.config import load_settings", True),
        ("from tests.unit.test_search import run", False),
        ("from tests.integration.conftest import Harness", False),
        ("from tests.integration import servers", False),
        ("import tests.unit.test_tasks", False),
        ("from conftest import Harness", False),
        ("import test_stats", False),
        ("from .conftest import Harness", False),
        ("def f():\n    from tests.unit.test_build_pure import plan", False),
    ],
)
def test_the_rule_tells_shared_helpers_from_test_modules(source: str, shared: bool) -> None:
    assert all(is_shared(name) for _, name in imported(source)) is shared


def test_no_test_module_imports_another_or_a_conftest() -> None:
    found = suite_modules()
    assert {path.parent.name for path in found} == {"unit", "integration"}  # the globs still find the suite
    bad = [o for path in found for o in offences(path)]
    assert bad == [], "move what is shared to tests/support:\n" + "\n".join(bad)


def test_conftests_and_support_take_helpers_from_support_only() -> None:
    paths = sorted([*ROOT.glob("tests/**/conftest.py"), *ROOT.glob("tests/support/*.py")])
    assert len(paths) >= 4, paths
    bad = [o for path in paths for o in offences(path)]
    assert bad == [], "\n".join(bad)


def test_bench_scripts_import_no_test_module() -> None:
    scripts = sorted(ROOT.glob("bench/*.py"))
    assert scripts, "no bench scripts found"
    bad = [o for path in scripts for o in offences(path)]
    assert bad == [], "bench scripts may use tests.support only:\n" + "\n".join(bad)


def test_support_a_bench_script_uses_needs_no_pytest() -> None:
    """What a bench script imports from tests/support (and what that imports in turn) runs without the
    test-only dependencies."""
    bad = []
    for script in sorted(ROOT.glob("bench/*.py")):
        todo = [name for _, name in imported(script.read_text()) if name.startswith(f"{SUPPORT}.")]
        seen: set[Path] = set()
        while todo:
            path = support_module(todo.pop())
            if path is None or path in seen:
                continue
            seen.add(path)
            for line, name in imported(path.read_text()):
                if name.split(".")[0] in TEST_ONLY:
                    bad.append(f"{script.name} -> {path.relative_to(ROOT)}:{line}: {name}")
                elif name.startswith(f"{SUPPORT}."):
                    todo.append(name)
    assert bad == [], "\n".join(bad)
