"""Every collect check can fail: faults planted in the interpreter's environment (a ``sitecustomize``
on the path of every process of the run, next to pyperf in a copy of the wheelhouse), never in the
harness, while the real pyperf runs pyperformance's real nbody. Each fault must turn the verdict
``untrusted`` or ``partial`` and name the counters or the reason; the same run without a fault is
``trusted``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.history import mirror_real_history, needs_real_history
from tests.support.invoke_runner import Harness
from tests.support.planted_site import planted_wheelhouse

pytestmark = pytest.mark.usefixtures("benchmark_wheelhouse")

#: The faults, selected by the file planted next to it (/wheels/site/plant.txt). Only processes of
#: the benchmark (its run script under /bench) are touched, so the null benchmark stays clean.
SITECUSTOMIZE = r"""
import os, sys

FAULT = open(os.path.join(os.path.dirname(__file__), "plant.txt")).read().strip()
SCRIPT = sys.argv[0] if sys.argv else ""
BENCH = SCRIPT.startswith("/bench/")
WORKER = "--worker" in sys.argv
MANUAL = SCRIPT.endswith("pyperformance_manual.py") and len(sys.argv) > 2 and sys.argv[2].startswith("/bench/")


def extra_work():
    total = 0
    for i in range(500):
        total += i * i
    return total


if FAULT == "parent-counts" and BENCH and not WORKER:
    sys._stats_on()
elif FAULT == "worker-diverges" and BENCH and WORKER:
    try:
        os.close(os.open("/tmp/planted-first-worker", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        pass
    else:
        on = sys._stats_on

        def stats_on():
            on()
            extra_work()

        sys._stats_on = stats_on
elif FAULT == "outside-bracket" and BENCH and WORKER:
    sys._stats_on()
    sys._stats_clear = lambda: None
    sys._stats_off = lambda: None
elif FAULT == "manual-fails" and MANUAL:
    raise SystemExit("planted: the manual path cannot run here")
"""


@pytest.fixture(scope="module")
def loops(harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """nbody's loops from a clean collect (whose verdict is trusted), so the planted runs skip calibration."""
    out = tmp_path_factory.mktemp("clean") / "out"
    result = harness.invoke("collect", "--rev", "v3.13.5", "--benchmarks", "nbody", "--out", str(out))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    report = json.loads((out / "report.json").read_text())
    assert report["benchmarks"][0]["verdict"] == "trusted", report["benchmarks"][0]
    return out / "loops.json"


def _planted(harness: Harness, tmp_path: Path, loops: Path, fault: str, *args: str) -> tuple[int, dict, str]:
    wheelhouse = planted_wheelhouse(harness.settings.wheelhouse_dir, tmp_path / "wheelhouse", SITECUSTOMIZE, fault)
    out = tmp_path / "out"
    result = harness.invoke(
        "collect",
        "--rev",
        "v3.13.5",
        "--benchmarks",
        "nbody",
        "--loops-file",
        str(loops),
        "--out",
        str(out),
        *args,
        INVOKE_PYSTATS_WHEELHOUSE_DIR=str(wheelhouse),
    )
    report = json.loads((out / "report.json").read_text())
    return result.returncode, report["benchmarks"][0], result.stdout + result.stderr


def _check(row: dict, name: str) -> dict:
    return next(c for c in row["checks"] if c["check"] == name)


def test_the_parent_counting_is_caught(harness: Harness, tmp_path: Path, loops: Path) -> None:
    code, row, _ = _planted(harness, tmp_path, loops, "parent-counts")
    assert (code, row["verdict"]) == (26, "untrusted")
    dumps = _check(row, "dumps")
    assert dumps["status"] == "fail" and "3 non-empty dumps for 2 workers: the parent" in dumps["detail"]


def test_a_diverging_worker_is_caught_and_its_counters_named(harness: Harness, tmp_path: Path, loops: Path) -> None:
    code, row, _ = _planted(harness, tmp_path, loops, "worker-diverges")
    assert (code, row["verdict"]) == (26, "untrusted")
    agreement = _check(row, "agreement")
    assert agreement["status"] == "fail" and "workers disagree" in agreement["detail"]
    named = {f["counter"] for f in agreement["findings"]}
    assert "opcode.FOR_ITER_RANGE.execution_count" in named or "family.FOR_ITER.execution_count" in named, named


def test_counting_outside_the_bracket_is_caught(harness: Harness, tmp_path: Path, loops: Path) -> None:
    code, row, _ = _planted(harness, tmp_path, loops, "outside-bracket")
    assert (code, row["verdict"]) == (26, "untrusted")
    assert _check(row, "agreement")["status"] == "pass"  # both workers leak alike
    leakage = _check(row, "leakage")
    assert leakage["status"] == "fail" and "differ between automated and manual" in leakage["detail"]
    assert any(f["a"] > f["b"] for f in leakage["findings"])  # the automated path counts more


def test_a_manual_path_that_cannot_run_is_partial(harness: Harness, tmp_path: Path, loops: Path) -> None:
    code, row, _ = _planted(harness, tmp_path, loops, "manual-fails")
    assert (code, row["verdict"]) == (0, "partial")
    leakage = _check(row, "leakage")
    assert leakage["status"] == "not checked" and "the manual path failed" in leakage["detail"]
    assert "planted: the manual path cannot run here" in leakage["detail"]
    strict, again, _ = _planted(harness, tmp_path / "strict", loops, "manual-fails", "--strict")
    assert (strict, again["verdict"]) == (27, "partial")


def test_no_on_off_api_is_one_line_per_benchmark(harness: Harness, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = harness.invoke(
        "collect", "--rev", "v3.11.2", "--patches", "none", "--benchmarks", "nbody,logging", "--out", str(out)
    )
    assert result.returncode == 25, result.stdout[-3000:] + result.stderr[-2000:]
    rows = json.loads((out / "report.json").read_text())["benchmarks"]
    assert [r["verdict"] for r in rows] == ["failed", "failed"]
    assert all("has no sys._stats_on/_stats_off" in r["reason"] and not r["log_tail"] for r in rows)
    assert "RuntimeError" not in result.stdout


@needs_real_history
def test_the_pre_fix_window_unpatched_says_why_nothing_was_dumped(harness: Harness, tmp_path: Path) -> None:
    """The seed's own bug, as the automated job met it in Dec 2022: before GH-100144 an interpreter
    never dumps what it counted while collection is off, and pyperf's hook ends every bracket with it
    off; counting also began at start-up. Every benchmark is untrusted, and the reason says so."""
    mirror_real_history(harness)
    out = tmp_path / "out"
    args = ("--rev", "1583c6e326~1", "--patches", "none", "--benchmarks", "nbody", "--out", str(out))
    result = harness.invoke("collect", *args)
    assert result.returncode == 26, result.stdout[-3000:] + result.stderr[-2000:]
    row = json.loads((out / "report.json").read_text())["benchmarks"][0]
    dumps = _check(row, "dumps")
    assert row["verdict"] == "untrusted" and dumps["status"] == "fail"
    assert "a worker dumped nothing" in dumps["detail"]
    assert "does not dump stats at exit while collection is off" in dumps["detail"]
    assert "counting begins at start-up" in dumps["detail"]
