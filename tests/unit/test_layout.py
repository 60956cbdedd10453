"""The tree as a maintainer reads it: capabilities over infrastructure, imports pointing one way, no
cycles, and modules and functions small enough to read at a glance."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pystats_harness"

#: The house (docs/architecture.md draws it): who may import whom. A module imports only modules of its
#: own package or of a lower layer; packages on the same layer never import each other, so the four
#: capabilities (validate, collect, bisect, history) stand side by side over the shared layers.
LAYERS = {
    "errors": 0,
    "exit_codes": 0,
    "config": 0,
    "config_values": 0,
    "configure_flags": 0,
    "run_limits": 0,
    "console": 0,
    "resources": 0,
    "paths": 0,
    "infra": 1,
    "reports": 2,
    "cluster": 2,
    "results": 2,
    "stats": 3,
    "builder": 4,
    "dispatch": 5,
    "pyperformance": 5,
    "measure": 6,
    "validate": 7,
    "collect": 7,
    "bisect": 7,
    "history": 7,
    "publish": 7,
    "diff": 8,
    "cli": 9,
}
CAPABILITIES = ("validate", "collect", "bisect", "history", "publish")
MAX_MODULE_LINES = 300
#: tasks.py is a short list of the tasks; each is declared, with its options and their help, in cli/.
MAX_TASKS_LINES = 60
MAX_FUNCTION_LINES = 60


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def harness_imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every pystats_harness module ``path`` imports (at any depth: lazy imports count too)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "pystats_harness":
                for alias in node.names:
                    yield node.lineno, f"pystats_harness.{alias.name}"
            elif node.module.startswith("pystats_harness."):
                for alias in node.names:
                    candidate = f"{node.module}.{alias.name}"
                    is_module = (ROOT / Path(*candidate.split("."))).with_suffix(".py").is_file()
                    yield node.lineno, candidate if is_module else node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("pystats_harness"):
                    yield node.lineno, alias.name


def layer(module: str) -> str:
    return module.split(".")[1] if module.count(".") >= 1 else module


_ALONE = """
import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m == "pystats_harness" or m.startswith("pystats_harness.")]:
        del sys.modules[loaded]
    try:
        module = importlib.import_module(name)
        assert module.__name__ == name and module.__file__, "not the module asked for"
    except BaseException as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps(failed))
"""


def test_every_module_imports_on_its_own() -> None:
    """Each module imports in an interpreter that has none of the harness loaded (a module that works only
    after another imported first, or a cycle that an import order hides, fails), and is the file it names."""
    names = []
    for path in modules():
        name = module_name(path)
        if ".suite." in name and not name.endswith(
            ("canaries", "canary_counts", "canary_expect", "canary_rules", "canary_source", "canary_trace")
        ):
            continue  # workloads and drivers run inside the built interpreter, as scripts
        names.append(name)
    run = subprocess.run(
        [sys.executable, "-c", _ALONE, json.dumps(names)], cwd=ROOT, capture_output=True, text=True, timeout=100
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout) == {}
    assert len(names) > 100 and importlib.import_module(names[0]).__file__ == str(modules()[0])


def test_imports_point_one_way() -> None:
    wrong = []
    for path in modules():
        here = module_name(path)
        if here == "pystats_harness" or layer(here) == "__version__":
            continue
        for lineno, target in harness_imports(path):
            there = layer(target)
            if layer(here) == "suite":
                wrong.append(f"{path.relative_to(ROOT)}:{lineno}: the suite imports {target} (stdlib only)")
            elif there == "suite":
                continue  # pure helpers of the suite, reused by validate
            elif there not in LAYERS:
                continue  # pystats_harness itself (__version__)
            elif LAYERS[there] > LAYERS[layer(here)] or (
                LAYERS[there] == LAYERS[layer(here)] > 0 and there != layer(here)
            ):
                wrong.append(f"{path.relative_to(ROOT)}:{lineno}: {layer(here)} imports {target}")
    assert wrong == []


def test_tasks_import_only_the_cli() -> None:
    targets = [t for _, t in harness_imports(ROOT / "tasks.py")]
    assert targets and all(t.startswith("pystats_harness.cli") for t in targets), targets


def test_no_import_cycles() -> None:
    graph = {module_name(p): {t for _, t in harness_imports(p) if t != module_name(p)} for p in modules()}
    cycles = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


@pytest.mark.parametrize("path", [*modules(), ROOT / "tasks.py"], ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_are_small(path: Path) -> None:
    text = path.read_text()
    assert len(text.splitlines()) <= (MAX_TASKS_LINES if path.name == "tasks.py" else MAX_MODULE_LINES)
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def _readers_of(pattern: str) -> set[str]:
    """The modules of the package whose source matches ``pattern`` (a regular expression)."""
    return {
        str(path.relative_to(ROOT)) for path in modules() if re.search(pattern, path.read_text(), flags=re.MULTILINE)
    }


def test_one_place_decides_here_or_on_the_cluster() -> None:
    """``pystats.cluster`` is read by the dispatcher alone (config.py declares it)."""
    assert _readers_of(r"settings\.cluster\b") == {"pystats_harness/dispatch/dispatcher.py"}


def test_one_door_to_a_build() -> None:
    """Only builder/obtain.py plans (from what it reads) and executes builds; everyone else asks it."""
    assert _readers_of(r"^\s*from pystats_harness\.builder\.execute import") == {"pystats_harness/builder/obtain.py"}
    assert _readers_of(r"\bplan_build\(") == {"pystats_harness/builder/obtain.py", "pystats_harness/builder/plan.py"}


def test_capabilities_stand_side_by_side() -> None:
    """validate, collect, bisect and history never import one another (each has what it shares below it)."""
    wrong = [
        f"{path.relative_to(ROOT)}:{lineno}: imports {target}"
        for path in modules()
        if layer(module_name(path)) in CAPABILITIES
        for lineno, target in harness_imports(path)
        if layer(target) in CAPABILITIES and layer(target) != layer(module_name(path))
    ]
    assert wrong == []


def test_the_cluster_client_is_the_dispatchers_alone() -> None:
    """Outside dispatch/ and cluster/, no module imports the cluster client; ``invoke cluster-local``
    (cli/cluster.py), which starts a local cluster, is the one exception."""
    wrong = [
        f"{path.relative_to(ROOT)}:{lineno}: imports {target}"
        for path in modules()
        if layer(module_name(path)) not in ("dispatch", "cluster") and path.name != "cluster.py"
        for lineno, target in harness_imports(path)
        if target.startswith("pystats_harness.cluster")
    ]
    assert wrong == []


def test_the_cli_only_parses_and_prints() -> None:
    """A task parses its options into a request, calls one capability function and prints: nothing in
    cli/ hands the dispatcher work (only its error type is known there, to print a worker's log tail),
    runs units its own way (``_here``/``_on_cluster``), or writes a report file (cli/tables.py writes the
    generated docs tables, not a report)."""
    wrong = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            dispatch = isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pystats_harness.dispatch")
            if dispatch and [a.name for a in node.names] != ["UnitFailed"]:  # type: ignore[union-attr]
                wrong.append(f"{where}: imports {getattr(node, 'module', '')}")
            if isinstance(node, ast.ImportFrom) and node.module == "pystats_harness.infra.fs":
                wrong.append(f"{where}: imports the file writers")
            if isinstance(node, ast.FunctionDef) and node.name in ("_here", "_on_cluster"):
                wrong.append(f"{where}: {node.name}")
            called = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""
            if called in ("write_text", "write_bytes", "mkdir") and path.name != "tables.py":
                wrong.append(f"{where}: .{called}()")
    assert wrong == []


def test_one_call_that_may_build() -> None:
    """``obtain`` (which builds what is missing) is called by the unit runner and ``invoke build`` alone;
    run, verify and ``stats --rev`` look a build up with ``existing`` (NotBuilt, never a build)."""
    assert _readers_of(r"(?<!def )\bobtain\(") == {
        "pystats_harness/dispatch/runner.py",
        "pystats_harness/cli/build.py",
    }


def test_capabilities_know_the_dispatcher_not_the_cluster() -> None:
    """A capability asks the dispatcher where its units ran (``on_cluster``, ``where``, ``width``,
    ``unfit``); the Cluster object stays inside dispatch/."""
    wrong = [
        f"{path.relative_to(ROOT)}:{node.lineno}: .cluster"
        for path in modules()
        if layer(module_name(path)) in (*CAPABILITIES, "diff", "measure", "cli")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "cluster"
    ]
    assert wrong == []


def test_reports_are_written_in_one_place() -> None:
    """A figure is saved by reports/as_png.py alone, and the modules that show a capability's result
    (report, outputs, plot, heatmap) build :class:`~pystats_harness.reports.Report` values: none of them
    writes a file itself (``check_output_dir``, which writes nothing that stays, excepted)."""
    shows = ("report.py", "outputs.py", "plot.py", "heatmap.py")
    wrong = []
    for path in modules():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            called = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""
            if called == "savefig" and path.relative_to(PACKAGE).as_posix() != "reports/as_png.py":
                wrong.append(f"{where}: .savefig()")
            if path.name in shows and layer(module_name(path)) != "reports":
                if isinstance(node, ast.ImportFrom) and node.module == "pystats_harness.infra.fs":
                    names = [a.name for a in node.names]
                    if names != ["check_output_dir"]:
                        wrong.append(f"{where}: imports {names} from infra.fs")
                if called in ("write_text", "write_bytes", "savefig"):
                    wrong.append(f"{where}: .{called}()")
    assert wrong == []
