"""One registry of exit codes: every code declared once, every error class naming its member, each code
set by one class (a narrower case inherits it), and the README's tables generated from the code."""

from __future__ import annotations

import importlib
from collections import defaultdict
from pathlib import Path

import pytest

from pystats_harness.cli import tables
from pystats_harness.config import DEFAULTS, SETTINGS
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
    # nothing else: any other code under 128 would tell git bisect run "bad"
    assert {code.name for code in BisectRunCode} == {"GOOD", "BAD", "SKIP", "ABORT", "INTERRUPTED"}


def test_the_allowances_table_of_the_docs_is_generated_from_the_registry() -> None:
    path = ROOT / "docs" / "validate.md"
    stale = tables.stale(path.read_text(), tables.tables_of(path))
    assert stale == [], (
        f"docs/validate.md's allowances table differs from the registry: run `{tables.PROG} --write {path}`"
    )
    assert "`leak_check.rule[objects.allocations]`" in path.read_text() and "`variable.logging`" in path.read_text()


def test_the_readme_tables_are_generated_from_the_code() -> None:
    stale = tables.stale((ROOT / "README.md").read_text())
    assert stale == [], (
        f"README.md's {', '.join(stale)} table differs from the code: run `{tables.PROG} --write README.md`"
    )


def test_the_settings_table_covers_every_setting() -> None:
    rows = tables.settings_table().splitlines()[2:]
    assert [row.split(" | ")[0].strip("|` ") for row in rows] == list(DEFAULTS)
    assert all(setting.meaning for setting in SETTINGS.values())


def test_the_exit_code_table_has_one_row_per_code() -> None:
    rows = tables.exit_codes_table().splitlines()[2:]
    assert [int(row.split(" | ")[0].strip("| ")) for row in rows] == [code.value for code in ExitCode]


def test_check_names_the_stale_table_and_write_fixes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(tables.rendered((ROOT / "README.md").read_text()).replace("| 13 | the task", "| 31 | the task"))
    assert tables.main(["--check", str(readme)]) == 1
    err = capsys.readouterr().err
    assert "the exit-codes table is stale" in err and "settings" not in err and "--write" in err
    assert tables.main(["--write", str(readme)]) == 0
    assert tables.main(["--check", str(readme)]) == 0
    assert tables.rendered(readme.read_text()) == readme.read_text()


def test_write_refuses_a_readme_without_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# a README without generated tables\n")
    assert tables.main(["--write", str(readme)]) == 2
    assert readme.read_text() == "# a README without generated tables\n"
    assert tables.stale(readme.read_text()) == ["exit-codes", "settings"]
