"""`invoke collect` on real builds: a few fast pyperformance benchmarks, their trust verdicts, the
loops file reused across revisions, the suite comparison, a bisect on a benchmark, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pystats_harness.stats.collection import Collection, load
from tests.support.builds import built
from tests.support.invoke_runner import Harness
from tests.support.rendered import check_rendered, count, html_tables, rendered

pytestmark = pytest.mark.usefixtures("benchmark_wheelhouse")

#: Fast ones: a bench_time_func (nbody), a bench_func script timing three functions (logging), and
#: a bench_command one (python_startup: the hook brackets the wrapper).
FAST = "nbody,logging,python_startup"


def _collect(harness: Harness, out: Path, *args: str):
    result = harness.invoke("collect", "--benchmarks", FAST, "--out", str(out), *args)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").is_file() else None
    return result, report


@pytest.fixture(scope="module")
def outputs(harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("collect")
    head, base = root / "v3.13.5", root / "v3.11.2"
    result, _ = _collect(harness, head, "--rev", "v3.13.5")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    result, _ = _collect(harness, base, "--rev", "v3.11.2", "--loops-file", str(head / "loops.json"))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return {"head": head, "base": base}


@pytest.mark.parametrize("which", ["head", "base"])
def test_collect_verdicts_and_outputs(outputs: dict[str, Path], which: str) -> None:
    out = outputs[which]
    report = json.loads((out / "report.json").read_text())
    verdicts = {b["name"]: b["verdict"] for b in report["benchmarks"]}
    # logging is declared in configs/collect.toml (its work depends on the clock): exact, approximate, or
    # within the machinery bound only
    assert verdicts["logging"] in {"trusted", "approximate", "bounded"}
    assert {**verdicts, "logging": "-"} == {"nbody": "trusted", "logging": "-", "python_startup": "unreliable"}
    rows = {b["name"]: {c["check"]: c for c in b["checks"]} for b in report["benchmarks"]}
    # exact but for the rules of the registry, each named with what it covered (measure/allowances.py)
    agreement = rows["nbody"]["agreement"]
    assert agreement["status"] == "pass" and agreement["detail"].startswith("workers agree")
    used = {f["rule"] for f in agreement["findings"] if "rule" in f}
    assert ("exactly" in agreement["detail"]) == (not used)
    assert all(f"rule {rule}" in agreement["detail"] for rule in used)
    assert rows["nbody"]["leakage"]["status"] == "pass"  # manual == automated per loop
    by_name = {b["name"]: b for b in report["benchmarks"]}
    assert len(by_name["logging"]["functions"]) == 3  # logging times three functions, 2 workers each
    assert rows["logging"]["dumps"]["detail"] == "6 non-empty dumps, one per worker"
    assert "measures the wrapper" in rows["python_startup"]["wrapper"]["detail"]
    nbody = json.loads((out / "benchmarks" / "nbody" / "collection.json").read_text())
    assert nbody["metadata"]["loops"] == 2 * by_name["nbody"]["loops"]  # 2 workers x loops
    assert nbody["counters"]["family.BINARY_OP.execution_count"] > 1000
    assert len(list((out / "benchmarks" / "nbody" / "dumps").iterdir())) == 2
    assert (out / "trust.md").read_text().count("| `") == 3
    assert (out / "all" / "collection.json").is_file()
    assert not list(out.parent.glob("*.partial-*"))


def test_loops_file_is_reused(outputs: dict[str, Path]) -> None:
    head = json.loads((outputs["head"] / "loops.json").read_text())
    base = json.loads((outputs["base"] / "loops.json").read_text())
    assert head["loops"] == base["loops"] and set(head["loops"]) == set(FAST.split(","))


def test_compare_flags_specialization_changes(harness: Harness, outputs: dict[str, Path], tmp_path: Path) -> None:
    md, js, png = tmp_path / "cmp.md", tmp_path / "cmp.json", tmp_path / "heat.png"
    result = harness.invoke(
        "compare",
        str(outputs["base"]),
        str(outputs["head"]),
        "--markdown",
        str(md),
        "--json",
        str(js),
        "--plot",
        str(png),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    changes = json.loads(js.read_text())["changes"]
    flagged = {(c["benchmark"], c["family"], c["metric"]) for c in changes if c["interesting"]}
    # 3.12 added FOR_ITER's specializations (FOR_ITER_LIST/RANGE...) and removed PRECALL: both flagged
    assert ("nbody", "FOR_ITER", "hit_ratio") in flagged
    assert ("logging", "PRECALL", "hit_ratio") in flagged
    assert "| `nbody` | `FOR_ITER` | hit_ratio |" in md.read_text()
    assert png.stat().st_size > 5000


def test_bad_input(harness: Harness, outputs: dict[str, Path], tmp_path: Path) -> None:
    result = harness.invoke("collect", "--benchmarks", "nbdy", "--out", str(tmp_path / "x"))
    assert result.returncode == 2 and "unknown benchmark nbdy" in result.stderr and "nbody" in result.stderr
    other = tmp_path / "loops.json"
    other.write_text(json.dumps({"schema": "pystats-harness-loops/1", "loops": {"go": 3}}))
    result = harness.invoke(
        "collect", "--benchmarks", "nbody", "--loops-file", str(other), "--out", str(tmp_path / "y")
    )
    assert result.returncode == 2 and "has no loops for nbody (it was made for: go)" in result.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_bisect_run_on_a_benchmark(harness: Harness) -> None:
    metric = "family.BINARY_OP.specialization.hit"
    result = harness.invoke(
        "bisect-run", "--workload", "pyperformance:nbody", "--metric", metric, "--threshold", "1", "--rev", "v3.13.5"
    )
    # nbody specializes BINARY_OP: beyond 1 is "bad" (exit 1 alone could be invoke refusing an option)
    assert result.returncode == 1, result.stderr[-2000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("bisect-run "))
    value = float(line.split(" → ")[0].rsplit(": ", 1)[1])
    assert value > 1 and " → bad (" in line and line.endswith("exit 1"), line


def test_313_summarize_stats_renders_the_exports(harness: Harness, outputs: dict[str, Path], tmp_path: Path) -> None:
    """The 3.13.5 summarize_stats.py renders a patched 3.11.2 collect's export, and compares it with
    the 3.13.5 one; its tables carry the harness's numbers."""
    exports = tmp_path / "exports"
    exports.mkdir(mode=0o755)
    exports.chmod(0o755)  # read by the container's user nobody
    for which in ("base", "head"):
        shutil.copyfile(outputs[which] / "benchmarks" / "logging" / "summarize.json", exports / f"{which}.json")
        (exports / f"{which}.json").chmod(0o644)
        assert (outputs[which] / "all" / "summarize.json").is_file()
    head_entry = built(harness, "v3.13.5")
    base_collection = load(outputs["base"] / "benchmarks" / "logging" / "collection.json")
    check_rendered(rendered(harness, head_entry, tmp_path, "base.json"), base_collection)
    head_collection = load(outputs["head"] / "benchmarks" / "logging" / "collection.json")
    check_compared_counts(
        rendered(harness, head_entry, tmp_path, "base.json", "head.json"), base_collection, head_collection
    )


def check_compared_counts(markdown: str, base: Collection, head: Collection) -> None:
    rows = {row[0]: row for row in html_tables(markdown)[("Execution counts", "")][0]}
    counts = [c.counters["opcode.BINARY_OP.execution_count"] for c in (base, head)]
    assert [count(rows["BINARY_OP"][1]), count(rows["BINARY_OP"][2])] == counts
