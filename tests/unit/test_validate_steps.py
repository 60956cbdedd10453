"""Validation steps 3-5 (leakage, isolation, baselines) on hand-made run results: no engine, no build."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pystats_harness.errors import ConfigError, RunFailed
from pystats_harness.infra.runner import RunResult
from pystats_harness.stats.collection import Collection
from pystats_harness.suite import canaries as C
from pystats_harness.validate import baseline
from pystats_harness.validate.isolation import IsolationPlan, plan_isolation
from pystats_harness.validate.report import Step, StepStatus
from pystats_harness.validate.runs import PathRun, RunPath, Shape
from pystats_harness.validate.steps import (
    Runs,
    automated_net,
    fixed_part,
    manual_net,
    step_baselines,
    step_isolation,
    step_leakage,
)
from pystats_harness.validate.suiteconfig import SuiteConfig, load_suite

W = "nbody"
LOOPS = 10
LF = "opcode.LOAD_FAST.execution_count"
OP = "opcode.BINARY_OP.execution_count"
ALLOC = "objects.allocations"  # objects.* are leak-ignored and compared with a tolerance
MANUAL, AUTO = RunPath.MANUAL, RunPath.AUTOMATED

MAN_NULL = {LF: 10, ALLOC: 5}
MAN_W = {LF: 110, OP: 40, ALLOC: 905}
AUTO_NULL = {LF: 30, ALLOC: 70}


@pytest.fixture(scope="module")
def suite() -> SuiteConfig:
    return load_suite()


@pytest.fixture(scope="module")
def table() -> dict[str, Any]:
    """The canary table of the host interpreter, as `canaries.py expect` prints it (string keys)."""
    got = json.loads(json.dumps(C.expect_table(source_root=None)))
    assert got["families"]["LOAD_ATTR_SLOT"] == "LOAD_ATTR"  # the dumps below rely on it
    return got


def run(
    w: str, path: RunPath, counters: Mapping[str, float], loops: int = LOOPS, files: tuple[Path, ...] = ()
) -> PathRun:
    result = RunResult(0, "", "", Path("/nonexistent/run"), files, 0.0)
    return PathRun(w, path, Shape(loops), Collection({}, dict(counters)), (result,))


def dump(path: Path, counts: Mapping[str, int]) -> Path:
    path.write_text("".join(f"opcode[{op}].execution_count : {n}\n" for op, n in counts.items()))
    return path


def consistent_auto(suite: SuiteConfig) -> dict[str, float]:
    """Automated counts of W whose per-process net equals the manual net (objects.* deliberately off)."""
    names = set(MAN_W) | set(MAN_NULL) | set(AUTO_NULL)
    got = {n: AUTO_NULL.get(n, 0) + suite.processes * (MAN_W.get(n, 0) - MAN_NULL.get(n, 0)) for n in names}
    got[ALLOC] += 333
    return got


def leakage_runs(
    suite: SuiteConfig, auto_w: Mapping[str, float], files: Mapping[Any, tuple[Path, ...]] | None = None
) -> Runs:
    files = files or {}
    results: dict[tuple[RunPath, str, int], PathRun | RunFailed] = {}
    for w, man in ((suite.null_workload, MAN_NULL), (W, MAN_W)):
        for loops in (LOOPS, 2 * LOOPS):
            results[(MANUAL, w, loops)] = run(w, MANUAL, man, loops, files.get((w, loops), ()))
    results[(AUTO, suite.null_workload, LOOPS)] = run(suite.null_workload, AUTO, AUTO_NULL)
    results[(AUTO, W, LOOPS)] = run(W, AUTO, auto_w)
    return Runs(results)


# --- step 4: isolation ----------------------------------------------------------------------------


PARTNER = "richards"
PLAN = IsolationPlan({W: LOOPS, PARTNER: LOOPS}, (PARTNER,))


def test_isolation_identical_counters_pass(suite: SuiteConfig) -> None:
    counters = {LF: 120, OP: 40, ALLOC: 9}
    alone = {w: run(w, MANUAL, counters) for w in PLAN.workloads}
    together = {w: run(w, MANUAL, {**counters, ALLOC: 500}) for w in PLAN.workloads}  # objects.* not compared
    result = step_isolation(PLAN, alone, together, suite)
    assert (result.step, result.status, result.findings) == (Step.ISOLATION, StepStatus.PASS, ())
    assert result.summary == (
        f"{W} + {PARTNER} (partner) at once in 2 containers count exactly what each counts alone "
        "(references run one at a time)"
    )


def test_isolation_differing_counters_are_named_with_both_values(suite: SuiteConfig) -> None:
    alone = {LF: 120, OP: 40, ALLOC: 9}
    parallel = {LF: 120, OP: 41, ALLOC: 500, "opcode.NOP.execution_count": 3}  # objects.* not compared
    result = step_isolation(
        PLAN,
        {W: run(W, MANUAL, alone), PARTNER: run(PARTNER, MANUAL, alone)},
        {W: run(W, MANUAL, parallel), PARTNER: run(PARTNER, MANUAL, alone)},
        suite,
    )
    assert result.status is StepStatus.FAIL
    assert result.findings == (
        {"workload": W, "counter": OP, "alone": 40, "parallel": 41},
        {"workload": W, "counter": "opcode.NOP.execution_count", "alone": 0, "parallel": 3},
    )
    assert result.summary.startswith(f"2 counter(s) differ between {W} + {PARTNER} (partner) at once")


def test_isolation_failed_run_alone_or_at_once_is_a_finding(suite: SuiteConfig) -> None:
    exc = RunFailed("manual run of nbody exited 137: Killed")
    ok = {w: run(w, MANUAL, {LF: 1}) for w in PLAN.workloads}
    for alone, together in (({**ok, W: exc}, ok), (ok, {**ok, W: exc})):
        result = step_isolation(PLAN, alone, together, suite)
        assert result.status is StepStatus.FAIL
        (finding,) = result.findings
        assert finding["workload"] == W and str(exc) in (finding["alone"], finding["parallel"])


@pytest.mark.parametrize(
    "chosen, at_once, partners",
    [
        ({"nbody": 10}, ["nbody", "richards"], ["richards"]),
        ({"strings": 10}, ["strings", "nbody"], ["nbody"]),  # the next one in suite.toml order, wrapping
        ({"leaky": 10}, ["leaky", "nbody"], ["nbody"]),  # not a suite workload: the first one
        ({"nbody": 10, "leaky": 10}, ["nbody", "leaky"], []),
        (
            {w: 10 for w in ("regex", "nbody", "classes", "strings", "richards")},
            ["regex", "nbody", "classes", "strings"],
            [],
        ),
    ],
    ids=["one workload", "the last one", "a script", "two chosen", "at most four"],
)
def test_isolation_always_runs_two_different_workloads(
    suite: SuiteConfig, chosen: dict[str, int], at_once: list[str], partners: list[str]
) -> None:
    plan = plan_isolation(chosen, suite)
    assert (list(plan.workloads), list(plan.partners)) == (at_once, partners)
    assert all(plan.workloads[p] == suite.workloads[p] for p in partners)


def test_isolation_without_a_partner_is_a_config_error(suite: SuiteConfig) -> None:
    lonely = dataclasses.replace(suite, workloads={"nbody": 10})
    with pytest.raises(ConfigError, match="two different workloads") as info:
        plan_isolation({"nbody": 10}, lonely)
    assert info.value.exit_code == 2


# --- step 3: leakage, automated vs manual ---------------------------------------------------------


def test_leakage_automated_per_process_equal_to_manual_passes(suite: SuiteConfig, table: dict[str, Any]) -> None:
    runs = leakage_runs(suite, consistent_auto(suite))
    assert manual_net(runs, W, suite, LOOPS) == {LF: 100, OP: 40, ALLOC: 900}
    assert automated_net(runs, W, suite, LOOPS) == {LF: 100, OP: 40, ALLOC: 900 + 333 / suite.processes}
    result = step_leakage(runs, {W: LOOPS}, suite, table)
    assert (result.step, result.status, result.findings) == (Step.LEAKAGE, StepStatus.PASS, ())
    assert result.summary.startswith("no leakage in 1 workloads")


def test_leakage_of_one_counter_is_found(suite: SuiteConfig, table: dict[str, Any]) -> None:
    auto_w = consistent_auto(suite)
    auto_w[OP] += 7 * suite.processes  # each worker counts 7 executions more than the manual run
    result = step_leakage(leakage_runs(suite, auto_w), {W: LOOPS}, suite, table)
    assert result.status is StepStatus.FAIL
    assert result.findings == ({"workload": W, "check": "automated vs manual", "counter": OP, "a": 47, "b": 40},)
    assert result.summary == f"1 counter(s) leak in {W}"


def test_leakage_failed_automated_run_is_a_finding(suite: SuiteConfig, table: dict[str, Any]) -> None:
    runs = leakage_runs(suite, consistent_auto(suite))
    runs.results[(AUTO, W, LOOPS)] = RunFailed("pyperf run of nbody exited 1: HookError")
    result = step_leakage(runs, {W: LOOPS}, suite, table)
    assert result.status is StepStatus.FAIL
    assert [(f["check"], f["counter"], f["a"]) for f in result.findings] == [
        ("automated path", "-", "pyperf run of nbody exited 1: HookError")
    ]


# --- step 3: leakage, outside the bracket (2*c(N) - c(2N) of the manual dumps) --------------------


def fixed_dumps(tmp_path: Path, suite: SuiteConfig, extra: Mapping[str, int]) -> dict[Any, tuple[Path, ...]]:
    """Dumps whose fixed part is LOAD_ATTR 50 + LOAD_FAST 7 for null and W, plus `extra` in W's runs."""
    null = {"LOAD_ATTR": 50, "LOAD_FAST": 7}

    def work(loops: int) -> dict[str, int]:  # LOAD_ATTR_SLOT is in the LOAD_ATTR family
        return {"LOAD_ATTR": 50, "LOAD_ATTR_SLOT": 10 * loops, "LOAD_FAST": 7 + 3 * loops, **extra}

    n = suite.null_workload
    return {
        (n, LOOPS): (
            dump(tmp_path / "n1a.txt", {"LOAD_ATTR": 30}),
            dump(tmp_path / "n1b.txt", {**null, "LOAD_ATTR": 20}),
        ),
        (n, 2 * LOOPS): (dump(tmp_path / "n2.txt", null),),
        (W, LOOPS): (dump(tmp_path / "w1.txt", work(LOOPS)),),
        (W, 2 * LOOPS): (dump(tmp_path / "w2.txt", work(2 * LOOPS)),),
    }


def test_fixed_part_counts_families_over_all_dump_files(tmp_path: Path, suite: SuiteConfig, table: Any) -> None:
    runs = leakage_runs(suite, consistent_auto(suite), fixed_dumps(tmp_path, suite, {}))
    for w in (suite.null_workload, W):
        got = fixed_part(runs.get(MANUAL, w, LOOPS), runs.get(MANUAL, w, 2 * LOOPS), table)
        assert got == {"LOAD_ATTR": 50, "LOAD_FAST": 7}


@pytest.mark.parametrize("over", [None, 0, 1], ids=["equal to null", "at the slack", "one over the slack"])
def test_outside_the_bracket_beyond_the_slack(tmp_path: Path, suite: SuiteConfig, table: Any, over: int | None) -> None:
    extra = {} if over is None else {"BINARY_OP": suite.fixed_part_slack * suite.values + over}
    runs = leakage_runs(suite, consistent_auto(suite), fixed_dumps(tmp_path, suite, extra))
    result = step_leakage(runs, {W: LOOPS}, suite, table)
    if over != 1:
        assert (result.status, result.findings) == (StepStatus.PASS, ())
        return
    assert result.status is StepStatus.FAIL
    assert result.findings == (
        {
            "workload": W,
            "check": "outside the bracket (manual)",
            "counter": "family.BINARY_OP.execution_count",
            "a": extra["BINARY_OP"],
            "b": 0,
        },
    )


def test_outside_the_bracket_lists_every_family_largest_first(tmp_path: Path, suite: SuiteConfig, table: Any) -> None:
    files = fixed_dumps(tmp_path, suite, {"BINARY_OP": 5000, "LOAD_CONST": 3})
    result = step_leakage(leakage_runs(suite, consistent_auto(suite), files), {W: LOOPS}, suite, table)
    assert [(f["counter"], f["a"], f["b"]) for f in result.findings] == [
        ("family.BINARY_OP.execution_count", 5000, 0),
        ("family.LOAD_CONST.execution_count", 3, 0),
    ]


# --- step 5: baselines ------------------------------------------------------------------------------

PER_LOOP = {LF: 7.0, OP: 3.5, ALLOC: 100.0}


def baseline_runs(suite: SuiteConfig, per_loop: Mapping[str, float], more: Mapping[str, int] | None = None) -> Runs:
    """Automated runs whose (W - null) / processes / (loops * values) is `per_loop` (plus `more` counts)."""
    scale = suite.processes * LOOPS * suite.values
    auto_w = {n: AUTO_NULL.get(n, 0) + v * scale + (more or {}).get(n, 0) for n, v in per_loop.items()}
    null = suite.null_workload
    return Runs({(AUTO, null, LOOPS): run(null, AUTO, AUTO_NULL), (AUTO, W, LOOPS): run(W, AUTO, auto_w)})


@pytest.mark.parametrize("shape", [{}, {"values": 3, "processes": 3}], ids=["suite.toml", "3 values, 3 processes"])
def test_baselines_within_tolerance_pass(tmp_path: Path, suite: SuiteConfig, shape: dict[str, int]) -> None:
    suite = dataclasses.replace(suite, **shape)
    baseline.record("3.13.5", W, {**PER_LOOP, "family.LOAD_FAST.execution_count": 1.0}, {}, tmp_path)
    result, deviation = step_baselines(baseline_runs(suite, PER_LOOP), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert (result.step, result.status, result.findings) == (Step.BASELINES, StepStatus.PASS, ())
    assert result.summary == "1 workloads match their baselines within tolerance"
    assert deviation == {W: baseline.AllowanceUse(None, 0.0, 0.0, compared=3)}  # nothing differs: exact (0 of 0)


def test_baselines_exact_counter_off_by_one_fails(tmp_path: Path, suite: SuiteConfig) -> None:
    baseline.record("3.13.5", W, PER_LOOP, {}, tmp_path)
    runs = baseline_runs(suite, PER_LOOP, {LF: 1})  # one execution more in all the bracketed loops
    result, deviation = step_baselines(runs, {W: LOOPS}, suite, "3.13.5", tmp_path)
    value = 7.0 + 1 / (suite.processes * LOOPS * suite.values)
    assert result.status is StepStatus.FAIL
    assert result.findings == ({"workload": W, "counter": LF, "baseline": 7.0, "value": value, "allowed": "exact"},)
    assert result.summary == f"1 counter(s) outside tolerance in {W}"
    use = deviation[W]  # an exact counter off: worse than any toleranced one, nothing was allowed
    assert (use.counter, use.deviation, use.allowed, use.used) == (LF, pytest.approx(value - 7.0), 0.0, None)


def test_baselines_missing_file_names_the_version(tmp_path: Path, suite: SuiteConfig) -> None:
    baseline.record("3.12.0", W, PER_LOOP, {}, tmp_path)  # another version's baseline does not count
    result, deviation = step_baselines(baseline_runs(suite, PER_LOOP), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert (result.status, result.findings, deviation) == (StepStatus.NO_BASELINE, (), {})
    assert result.summary == f"no baseline for Python 3.13.5: {W} (skipped; record one with invoke baseline)"


@pytest.mark.parametrize(
    "name, base, value, allowed",
    [
        (ALLOC, 100.0, 125.0, None),  # objects: ±20 + 10 %
        (ALLOC, 100.0, 70.0, None),
        (ALLOC, 100.0, 131.0, "±20+10%"),
        ("objects.increfs", 1000.0, 1260.0, None),  # override: ±20 + 25 %
        ("objects.method_cache_collisions", 1.0, 900.0, None),  # override: ignored
    ],
)
def test_baselines_object_tolerances(
    tmp_path: Path, suite: SuiteConfig, name: str, base: float, value: float, allowed: str | None
) -> None:
    baseline.record("3.13.5", W, {**PER_LOOP, name: base}, {}, tmp_path)
    result, _ = step_baselines(baseline_runs(suite, {**PER_LOOP, name: value}), {W: LOOPS}, suite, "3.13.5", tmp_path)
    if allowed is None:
        assert (result.status, result.findings) == (StepStatus.PASS, ())
    else:
        assert result.status is StepStatus.FAIL
        assert result.findings == (
            {"workload": W, "counter": name, "baseline": base, "value": value, "allowed": allowed},
        )
