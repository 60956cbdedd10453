"""One registry of exit codes: every code declared once, every error class naming its member, each code
set by one class (a narrower case inherits it), and the README's tables generated from the code."""

from __future__ import annotations

import importlib
from collections import defaultdict
from pathlib import Path

from pystats_harness.errors import HarnessError
from pystats_harness.exit_codes import BisectRunCode, ExitCode

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pystats_harness"


def harness_errors() -> list[type[HarnessError]]:
    """HarnessError and every subclass the package defines, after importing all of it but the suite."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "suite" not in parts:
            importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    found, todo = [], [HarnessError]
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith("pystats_harness.") and cls not in found:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return sorted(found, key=lambda cls: cls.__qualname__)


def test_every_code_is_declared_once() -> None:
    for registry in (ExitCode, BisectRunCode):
        values = [member.value for member in registry]
        assert len(values) == len(set(values)) == len(registry.__members__), registry
        assert all(member.meaning for member in registry), registry


def test_every_error_names_a_registry_member() -> None:
    bare = [cls.__qualname__ for cls in harness_errors() if not isinstance(cls.exit_code, ExitCode)]
    assert bare == [], "set exit_code = ExitCode.<NAME> (pystats_harness/exit_codes.py), not a number"


def test_each_code_is_set_by_one_class_and_inherited_by_narrower_cases() -> None:
    """A code is set in one class's body; a class that shares it inherits it (NoUsableWorker from
    ClusterUnavailable), so two unrelated classes never mean the same exit."""
    setters: dict[ExitCode, list[str]] = defaultdict(list)
    for cls in harness_errors():
        if "exit_code" in vars(cls):
            setters[ExitCode(cls.exit_code)].append(cls.__qualname__)
    shared = {code.name: names for code, names in setters.items() if len(names) > 1}
    assert shared == {}
    unused = [code.name for code in ExitCode if code not in setters and code is not ExitCode.SUCCESS]
    assert unused == [], "a code no error class sets: remove it from the registry or give it its class"


def test_bisect_run_codes_follow_git_bisect_run() -> None:
    """0 good; 1–127 but 125 bad; 125 skip; 128 and above abort (git-bisect(1), "bisect run")."""
    assert BisectRunCode.GOOD == 0 and BisectRunCode.SKIP == 125
    assert 1 <= BisectRunCode.BAD <= 127 and BisectRunCode.BAD != 125
    assert BisectRunCode.ABORT >= 128 and BisectRunCode.INTERRUPTED >= 128
