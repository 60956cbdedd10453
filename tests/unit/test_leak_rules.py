"""Validate's leakage step on real v3.13.5 runs (tests/data/leakage): the counters it once left out
(objects, gc, RESUME misses) are compared by their measured rules, so an allocation leak, a 900x gc
difference and empty runs are caught, and the summary names every rule it used."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pystats_harness.measure.runs import RunPath
from pystats_harness.measure.suiteconfig import SuiteConfig, load_suite
from pystats_harness.validate.isolation import IsolationPlan
from pystats_harness.validate.leakage import automated_net, manual_net, step_leakage
from pystats_harness.validate.report import StepStatus
from pystats_harness.validate.runs import Runs
from pystats_harness.validate.steps import step_isolation
from tests.support import leakage_runs

BUILD = "3.13.5-default"
PLAIN = {w: leakage_runs.LOOPS for w in ("nbody", "json_roundtrip", "classes", "strings")}
AUTO, MANUAL = RunPath.AUTOMATED, RunPath.MANUAL


@pytest.fixture(scope="module")
def suite() -> SuiteConfig:
    return load_suite()


def load(tmp_path: Path, edits: leakage_runs.Edits | None = None) -> tuple[Runs, dict[str, Any]]:
    return leakage_runs.load(BUILD, tmp_path, edits)


def test_the_real_runs_pass_and_the_summary_names_each_rule_it_used(suite: SuiteConfig, tmp_path: Path) -> None:
    runs, table = load(tmp_path)
    result = step_leakage(runs, PLAIN, suite, table)
    assert result.status is StepStatus.PASS, result.findings
    assert "exactly" not in result.summary  # rules were used, so never "exactly"
    used = {a["rule"] for a in result.allowances}
    # the freelist split moved (strings), the collections inside the bracket visited other heaps
    assert {"leak_check.rule[objects.allocations]", "leak_check.rule[gc.*.object_visits]"} <= used
    for rule in used:
        assert f"rule {rule}" in result.summary
    # the sums the rules compare are equal on these runs: objects made, method-cache lookups
    for w, loops in PLAIN.items():
        a, b = automated_net(runs, w, suite, loops), manual_net(runs, w, suite, loops)
        made = [x.per_unit("objects.allocations") + x.per_unit("objects.allocations_from_freelist") for x in (a, b)]
        assert made[0] == made[1], w


def test_a_planted_allocation_leak_is_caught_by_the_object_counters(suite: SuiteConfig, tmp_path: Path) -> None:
    """leaky_alloc's setup() makes 10,000 floats (and range's ints) inside the automated bracket and runs
    a handful of instructions: the object counters' rules catch it, not only those instructions."""
    runs, table = load(tmp_path)
    result = step_leakage(runs, {"leaky_alloc": leakage_runs.LOOPS}, suite, table)
    assert result.status is StepStatus.FAIL
    by_counter = {f["counter"]: f for f in result.findings}
    alloc = by_counter["objects.allocations"]
    assert alloc["beyond"] == "leak_check.rule[objects.allocations]"
    assert alloc["a"] - alloc["b"] >= 10_000  # per process
    executions = [f for f in result.findings if f["counter"].endswith(".execution_count")]
    assert sum(abs(f["a"] - f["b"]) for f in executions) < 100  # the leak is allocations, not instructions


def test_the_instruction_leak_is_still_caught(suite: SuiteConfig, tmp_path: Path) -> None:
    runs, table = load(tmp_path)
    result = step_leakage(runs, {"nbody": 10, "leaky": leakage_runs.LOOPS}, suite, table)
    assert result.status is StepStatus.FAIL
    assert {f["workload"] for f in result.findings} == {"leaky"}


def _times(counter: str, factor: int):
    line = re.compile(rf"^({re.escape(counter)}): (\d+)$", re.M)
    return lambda text: line.sub(lambda m: f"{m.group(1)}: {int(m.group(2)) * factor}", text)


@pytest.mark.parametrize("counter", ["GC[0] collections", "GC[0] object visits", "GC[1] objects collected"])
def test_a_gc_difference_of_900x_is_caught(suite: SuiteConfig, tmp_path: Path, counter: str) -> None:
    runs, table = load(tmp_path, {(AUTO, "json_roundtrip", 10): _times(counter, 900)})
    result = step_leakage(runs, {"json_roundtrip": 10}, suite, table)
    assert result.status is StepStatus.FAIL
    (finding,) = result.findings
    assert finding["counter"].startswith("gc.") and finding["beyond"].startswith("leak_check.rule[gc.")


def test_runs_that_dumped_no_counted_instruction_fail(suite: SuiteConfig, tmp_path: Path) -> None:
    empty = {(MANUAL, "nbody", 10): lambda text: "", (AUTO, "nbody", 10): lambda text: ""}
    runs, table = load(tmp_path, empty)
    result = step_leakage(runs, {"nbody": 10}, suite, table)
    assert result.status is StepStatus.FAIL
    assert any(f["a"] == "its runs dumped no counted instruction" for f in result.findings)
    plan = IsolationPlan({"nbody": 10, "strings": 10}, ())
    alone = {w: runs.get(MANUAL, w, 10) for w in plan.workloads}
    assert step_isolation(plan, alone, dict(alone), suite).status is StepStatus.FAIL
