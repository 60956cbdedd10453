"""Validation steps 3-5 (leakage, isolation, baselines) on hand-made run results: no engine, no build."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from pystats_harness.errors import ConfigError, RunFailed
from pystats_harness.infra.runner import RunResult
from pystats_harness.measure.deferred import DeferredRule
from pystats_harness.measure.runs import PathRun, RunPath, Shape
from pystats_harness.measure.suiteconfig import SuiteConfig, load_suite
from pystats_harness.stats.collection import Collection, from_dump
from pystats_harness.stats.dumps import parse_text
from pystats_harness.stats.exact import Rate
from pystats_harness.suite import canaries as C
from pystats_harness.suite import canary_rules as R
from pystats_harness.suite import canary_source as S
from pystats_harness.validate import baseline
from pystats_harness.validate.isolation import IsolationPlan, plan_isolation
from pystats_harness.validate.leakage import automated_net, fixed_part, manual_net, step_leakage
from pystats_harness.validate.report import Step, StepResult, StepStatus, ValidationReport, to_markdown
from pystats_harness.validate.runs import Runs
from pystats_harness.validate.steps import step_baselines, step_isolation
from tests.support.ceval_excerpts import MISS_STATS_DEC, MISS_STATS_NO_DEC

W = "nbody"
LOOPS = 10
LF = "opcode.LOAD_FAST.execution_count"
OP = "opcode.BINARY_OP.execution_count"
MC = "objects.method_cache_collisions"  # not compared: the type cache's layout follows ASLR
ALLOC = "objects.allocations"  # the leak check compares it as a sum with the freelist's, within 4
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
    """Automated counts of W whose per-process net equals the manual net (allocations 3 per process off:
    within their rule)."""
    names = set(MAN_W) | set(MAN_NULL) | set(AUTO_NULL)
    got = {n: AUTO_NULL.get(n, 0) + suite.processes * (MAN_W.get(n, 0) - MAN_NULL.get(n, 0)) for n in names}
    got[ALLOC] += 6
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
    together = {w: run(w, MANUAL, {**counters, ALLOC: 12, MC: 70}) for w in PLAN.workloads}  # within, ignored
    result = step_isolation(PLAN, alone, together, suite)
    assert (result.step, result.status, result.findings) == (Step.ISOLATION, StepStatus.PASS, ())
    assert result.summary == (
        f"{W} + {PARTNER} (partner) at once in 2 containers count what each counts alone "
        "(references run one at a time): 4 counters equal; "
        f"1 counter(s) within rule leak_check.rule[{ALLOC}] (largest: {ALLOC} 9 vs 12); "
        f"1 counter(s) not compared (rule leak_check.rule[{MC}]: {MC})"
    )
    assert result.allowances == (  # validation.json: each rule, and each counter's two values
        {
            "rule": f"leak_check.rule[{ALLOC}]",
            "kind": "tolerance",
            "counters": [ALLOC],
            "largest": (ALLOC, 9, 12),
            "values": {ALLOC: [9, 12]},
        },
        {
            "rule": f"leak_check.rule[{MC}]",
            "kind": "not compared",
            "counters": [MC],
            "largest": None,
            "values": {MC: [0, 70]},
        },
    )


def test_exactly_only_where_no_rule_was_used(suite: SuiteConfig) -> None:
    counters = {LF: 120, OP: 40}
    alone = {w: run(w, MANUAL, counters) for w in PLAN.workloads}
    result = step_isolation(PLAN, alone, dict(alone), suite)
    assert result.summary.endswith(
        "count exactly what each counts alone (references run one at a time): 4 counters equal exactly"
    )
    assert result.allowances == ()


def test_isolation_of_runs_that_counted_nothing_is_no_pass(suite: SuiteConfig) -> None:
    empty = {w: run(w, MANUAL, {ALLOC: 3}) for w in PLAN.workloads}
    result = step_isolation(PLAN, empty, dict(empty), suite)
    assert result.status is StepStatus.FAIL
    assert [(f["workload"], f["alone"], f["parallel"]) for f in result.findings] == [(W, 0, 0), (PARTNER, 0, 0)]


def test_isolation_differing_counters_are_named_with_both_values(suite: SuiteConfig) -> None:
    alone = {LF: 120, OP: 40, ALLOC: 9}
    parallel = {LF: 120, OP: 41, ALLOC: 500, "opcode.NOP.execution_count": 3}  # 491 allocations: beyond the rule
    result = step_isolation(
        PLAN,
        {W: run(W, MANUAL, alone), PARTNER: run(PARTNER, MANUAL, alone)},
        {W: run(W, MANUAL, parallel), PARTNER: run(PARTNER, MANUAL, alone)},
        suite,
    )
    assert result.status is StepStatus.FAIL
    assert result.findings == (
        {"workload": W, "counter": ALLOC, "alone": 9, "parallel": 500, "beyond": f"leak_check.rule[{ALLOC}]"},
        {"workload": W, "counter": OP, "alone": 40, "parallel": 41},
        {"workload": W, "counter": "opcode.NOP.execution_count", "alone": 0, "parallel": 3},
    )
    assert result.summary.startswith(f"3 counter(s) differ between {W} + {PARTNER} (partner) at once")


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
    assert manual_net(runs, W, suite, LOOPS) == Rate({LF: 100, OP: 40, ALLOC: 900})
    auto = automated_net(runs, W, suite, LOOPS)
    assert auto.units == suite.processes and auto.per_unit(LF) == 100 and auto.per_unit(OP) == 40
    assert auto.per_unit(ALLOC) == 900 + Fraction(6, suite.processes)
    result = step_leakage(runs, {W: LOOPS}, suite, table)
    assert (result.step, result.status, result.findings) == (Step.LEAKAGE, StepStatus.PASS, ())
    assert result.summary == (
        "no leakage in 1 workloads (automated vs manual, outside the brackets): 2 counters equal; "
        f"1 counter(s) within rule leak_check.rule[{ALLOC}] (largest: {ALLOC} 903 vs 900); "
        "fixed part within 0 of the 64 allowed (rule leak_check.fixed_part_slack)"
    )
    assert [a["rule"] for a in result.allowances] == [f"leak_check.rule[{ALLOC}]"]


def test_leakage_of_runs_that_counted_nothing_is_no_pass(suite: SuiteConfig, table: dict[str, Any]) -> None:
    runs = leakage_runs(suite, {ALLOC: 5})
    runs.results[(MANUAL, W, LOOPS)] = run(W, MANUAL, {ALLOC: 2})
    result = step_leakage(runs, {W: LOOPS}, suite, table)
    assert result.status is StepStatus.FAIL
    empty = [f for f in result.findings if f["a"] == "its runs dumped no counted instruction"]
    assert [f["check"] for f in empty] == ["automated path", "manual path"]


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


def whole(value: Fraction) -> int:
    assert value.denominator == 1, value
    return value.numerator


def record(suite: SuiteConfig, version: str, per_loop: Mapping[str, float], root: Path) -> Path:
    """A baseline whose counts over LOOPS * values loops are `per_loop` per loop."""
    loops = LOOPS * suite.values
    return baseline.record(version, W, {n: whole(Fraction(v) * loops) for n, v in per_loop.items()}, loops, {}, root)


def baseline_runs(suite: SuiteConfig, per_loop: Mapping[str, float], more: Mapping[str, int] | None = None) -> Runs:
    """Automated runs whose (W - null) / processes / (loops * values) is `per_loop` (plus `more` counts)."""
    scale = suite.processes * LOOPS * suite.values
    auto_w = {n: AUTO_NULL.get(n, 0) + whole(Fraction(v) * scale) + (more or {}).get(n, 0) for n, v in per_loop.items()}
    null = suite.null_workload
    return Runs({(AUTO, null, LOOPS): run(null, AUTO, AUTO_NULL), (AUTO, W, LOOPS): run(W, AUTO, auto_w)})


@pytest.mark.parametrize("shape", [{}, {"values": 3, "processes": 3}], ids=["suite.toml", "3 values, 3 processes"])
def test_baselines_within_tolerance_pass(tmp_path: Path, suite: SuiteConfig, shape: dict[str, int]) -> None:
    suite = dataclasses.replace(suite, **shape)
    record(suite, "3.13.5", {**PER_LOOP, "family.LOAD_FAST.execution_count": 1.0}, tmp_path)
    result, deviation = step_baselines(baseline_runs(suite, PER_LOOP), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert (result.step, result.status, result.findings) == (Step.BASELINES, StepStatus.PASS, ())
    assert result.summary == "1 workloads match their baselines: 3 counters equal exactly"
    assert deviation == {W: baseline.AllowanceUse(None, 0.0, 0.0, compared=3)}  # nothing differs: exact (0 of 0)


def test_baselines_name_the_rule_an_object_counter_used(tmp_path: Path, suite: SuiteConfig) -> None:
    record(suite, "3.13.5", PER_LOOP, tmp_path)
    result, _ = step_baselines(baseline_runs(suite, {**PER_LOOP, ALLOC: 105.0}), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert result.status is StepStatus.PASS and "exactly" not in result.summary
    assert result.summary == (
        "1 workloads match their baselines: 2 counters equal; "
        "1 counter(s) within rule tolerances.object (largest: objects.allocations 100 vs 105)"
    )
    assert [a["rule"] for a in result.allowances] == ["tolerances.object"]


def test_baselines_exact_counter_off_by_one_fails(tmp_path: Path, suite: SuiteConfig) -> None:
    record(suite, "3.13.5", PER_LOOP, tmp_path)
    runs = baseline_runs(suite, PER_LOOP, {LF: 1})  # one execution more in all the bracketed loops
    result, deviation = step_baselines(runs, {W: LOOPS}, suite, "3.13.5", tmp_path)
    value = 7.0 + 1 / (suite.processes * LOOPS * suite.values)
    assert result.status is StepStatus.FAIL
    assert result.findings == ({"workload": W, "counter": LF, "baseline": 7.0, "value": value, "allowed": "exact"},)
    assert result.summary == f"1 counter(s) outside tolerance in {W}"
    use = deviation[W]  # an exact counter off: worse than any toleranced one, nothing was allowed
    assert (use.counter, use.deviation, use.allowed, use.used) == (LF, pytest.approx(value - 7.0), 0.0, None)


def test_baselines_missing_file_names_the_version(tmp_path: Path, suite: SuiteConfig) -> None:
    record(suite, "3.12.0", PER_LOOP, tmp_path)  # another version's baseline does not count
    result, deviation = step_baselines(baseline_runs(suite, PER_LOOP), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert (result.status, result.findings, deviation) == (StepStatus.NO_BASELINE, (), {})
    assert result.summary == f"no baseline for Python 3.13.5: {W} (skipped; record one with invoke baseline)"


@pytest.mark.parametrize(
    "name, base, value, allowed",
    [
        (ALLOC, 100.0, 125.0, None),  # objects: ±20 + 10 %
        (ALLOC, 100.0, 70.0, None),
        (ALLOC, 100.0, 131.0, "±20+10%"),
        ("objects.increfs", 1000.0, 1260.0, None),  # override: ±20 + 25 % net of method-cache misses
        ("objects.increfs", 1000.0, 1280.0, "±20+25%"),
        ("objects.method_cache_collisions", 1.0, 900.0, None),  # override: ignored
    ],
)
def test_baselines_object_tolerances(
    tmp_path: Path, suite: SuiteConfig, name: str, base: float, value: float, allowed: str | None
) -> None:
    record(suite, "3.13.5", {**PER_LOOP, name: base}, tmp_path)
    result, _ = step_baselines(baseline_runs(suite, {**PER_LOOP, name: value}), {W: LOOPS}, suite, "3.13.5", tmp_path)
    if allowed is None:
        assert (result.status, result.findings) == (StepStatus.PASS, ())
    else:
        assert result.status is StepStatus.FAIL
        assert result.findings == (
            {"workload": W, "counter": name, "baseline": base, "value": value, "allowed": allowed},
        )


def test_baselines_compare_c_level_increfs_and_decrefs_net_of_method_cache_misses(
    tmp_path: Path, suite: SuiteConfig
) -> None:
    """What CI met (richards, v3.13.5): decrefs 25,223 in the baseline, 34,450 in a new build, every extra
    one a method-cache miss (the type cache's layout differs between builds). Net of the misses: equal."""
    misses = "objects.method_cache_misses"
    base = {**PER_LOOP, "objects.decrefs": 25223.0, "objects.increfs": 107472.0, misses: 3797.0}
    record(suite, "3.13.5", base, tmp_path)
    new = {**PER_LOOP, "objects.decrefs": 34450.0, "objects.increfs": 116699.0, misses: 13024.0}
    result, _ = step_baselines(baseline_runs(suite, new), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert (result.status, result.findings) == (StepStatus.PASS, ())
    extra = {**new, "objects.decrefs": 34450.0 + 6000}  # 6,000 decrefs (28 %) no miss explains
    result, _ = step_baselines(baseline_runs(suite, extra), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert result.status is StepStatus.FAIL
    assert [f["counter"] for f in result.findings] == ["objects.decrefs"]


# --- counts beyond 2**53 and the deferred rule ----------------------------------------------------

BIG = 2**60


def test_leakage_compares_counts_beyond_2_to_the_53_exactly(suite: SuiteConfig, table: dict[str, Any]) -> None:
    """One execution more in all automated processes: lost in (A_w - A_null) / P as a float, not here."""
    auto_w = consistent_auto(suite)
    auto_w[LF] += suite.processes * BIG + 1
    runs = leakage_runs(suite, auto_w)
    runs.results[(MANUAL, W, LOOPS)] = run(W, MANUAL, {**MAN_W, LF: MAN_W[LF] + BIG})
    assert float(auto_w[LF] - AUTO_NULL[LF]) / suite.processes == float(MAN_W[LF] + BIG - MAN_NULL[LF])
    result = step_leakage(runs, {W: LOOPS}, suite, table)
    assert result.status is StepStatus.FAIL
    [finding] = result.findings
    assert finding["counter"] == LF and finding["b"] == BIG + 100 and finding["a"] != finding["b"]


def test_baselines_compare_counts_beyond_2_to_the_53_exactly(tmp_path: Path, suite: SuiteConfig) -> None:
    per_loop = {**PER_LOOP, OP: BIG}
    record(suite, "3.13.5", per_loop, tmp_path)
    doc = json.loads(baseline.path_for("3.13.5", W, tmp_path).read_text())
    assert doc["counts"][OP] == BIG * LOOPS * suite.values and doc["schema"] == baseline.SCHEMA  # ints in JSON
    assert step_baselines(baseline_runs(suite, per_loop), {W: LOOPS}, suite, "3.13.5", tmp_path)[0].ok
    result, _ = step_baselines(baseline_runs(suite, per_loop, {OP: 1}), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert result.status is StepStatus.FAIL and [f["counter"] for f in result.findings] == [OP]


def test_schema_1_baselines_are_still_read(tmp_path: Path, suite: SuiteConfig) -> None:
    path = baseline.path_for("3.13.5", W, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"schema": baseline.SCHEMA_1, "metadata": {}, "per_loop": PER_LOOP}))
    assert step_baselines(baseline_runs(suite, PER_LOOP), {W: LOOPS}, suite, "3.13.5", tmp_path)[0].ok
    result, _ = step_baselines(baseline_runs(suite, PER_LOOP, {LF: 1}), {W: LOOPS}, suite, "3.13.5", tmp_path)
    assert result.status is StepStatus.FAIL


DEFERRED = "opcode.RESUME.specialization.deferred"
MISS = "opcode.RESUME.specialization.miss"  # within a few (RESUME_CHECK misses follow the eval breaker)


def resume_dump(deferred: int, miss: int) -> dict[str, int]:
    """RESUME's counters as main 84b7e9e3fa prints them (a uint64: below zero wraps), read by the parser."""
    text = f"opcode[RESUME].specialization.deferred : {deferred % 2**64}\nopcode[RESUME].specialization.miss : {miss}\n"
    return dict(from_dump(parse_text(text), None, {}).counters)


def deferred_runs(suite: SuiteConfig, auto_deferred: int, auto_miss: int) -> Runs:
    """`classes` on 84b7e9e3fa: the manual run's RESUME deferred went 183 below zero over 190 misses."""
    runs = leakage_runs(suite, consistent_auto(suite))
    runs.results[(MANUAL, W, LOOPS)] = run(W, MANUAL, {**MAN_W, **resume_dump(-183, 190)})
    runs.results[(AUTO, W, LOOPS)] = run(W, AUTO, {**consistent_auto(suite), **resume_dump(auto_deferred, auto_miss)})
    return runs


def rule_table(table: dict[str, Any], macros: str | None) -> dict[str, Any]:
    """The canary table with the deferred rule read from `macros` (None: no source recorded)."""
    source = S.source_facts({"Python/ceval_macros.h": macros}, set()) if macros is not None else None
    return {**table, "deferred_rule": R.deferred_rule(source)}


def report_of(result: StepResult) -> ValidationReport:
    meta = {"revision": "84b7e9e3fa", "sha": "84b7e9e3fa" + "0" * 30, "python_version": "3.13.0a1+", "patches": []}
    return ValidationReport(meta, (result,))


def test_deferred_adjusted_by_a_miss_is_reported_not_leakage(suite: SuiteConfig, table: dict[str, Any]) -> None:
    assert suite.processes == 2 and suite.leak_rule(MISS) is not None and suite.leak_rule(DEFERRED) is None
    runs = deferred_runs(suite, -185, 380)  # two workers: 185 decrements over 380 misses in all
    result = step_leakage(runs, {W: LOOPS}, suite, rule_table(table, MISS_STATS_DEC))
    assert (result.status, result.ok) == (StepStatus.PASS, True)
    # E = (-185 - 0) - 2 * (-183 - 0) = 181 in [-(380 + 2*0), 0 + 2*190]; per process: ±190
    assert result.findings == (
        {
            "workload": W,
            "check": "adjusted across an instruction boundary",
            "counter": DEFERRED,
            "a": -92.5,
            "b": -183,
            "within": 190,
            "note": "within ±190",
        },
    )
    assert result.summary.endswith(
        "; 1 counter(s) adjusted across an instruction boundary (UPDATE_MISS_STATS decrements deferred before "
        f"the instruction increments it): {W}: {DEFERRED} -92.5 vs -183, within ±190"
    )
    assert "adjusted across an instruction boundary" in to_markdown(report_of(result))


@pytest.mark.parametrize("macros", [MISS_STATS_NO_DEC, None], ids=["no STAT_DEC (3.13.5)", "no source recorded"])
def test_deferred_difference_fails_where_the_rule_does_not_apply(
    suite: SuiteConfig, table: dict[str, Any], macros: str | None
) -> None:
    result = step_leakage(deferred_runs(suite, -185, 380), {W: LOOPS}, suite, rule_table(table, macros))
    assert result.status is StepStatus.FAIL
    [finding] = result.findings
    assert (finding["check"], finding["counter"], finding["a"], finding["b"]) == (
        "automated vs manual",
        DEFERRED,
        -92.5,
        -183,
    )
    assert ("deferred rule undetermined: no interpreter source recorded" in result.summary) is (macros is None)


def test_deferred_beyond_the_misses_is_leakage_even_with_the_rule(suite: SuiteConfig, table: dict[str, Any]) -> None:
    runs = deferred_runs(suite, -800, 380)  # E = -800 + 366 = -434 < -380: more than the misses explain
    result = step_leakage(runs, {W: LOOPS}, suite, rule_table(table, MISS_STATS_DEC))
    assert result.status is StepStatus.FAIL
    [finding] = result.findings
    assert finding["check"] == "automated vs manual" and finding["note"].startswith("beyond the ±190 allowed")


def test_deferred_rule_read_on_the_host_from_a_builds_source(tmp_path: Path) -> None:
    assert DeferredRule.from_source(tmp_path).applied is None  # nothing recorded: undetermined
    (tmp_path / "Python").mkdir()
    (tmp_path / "Python" / "ceval_macros.h").write_text(MISS_STATS_DEC)
    assert DeferredRule.from_source(tmp_path) == DeferredRule(
        True, R.deferred_rule(S.source_facts({"Python/ceval_macros.h": MISS_STATS_DEC}, set()))["why"]
    )
    (tmp_path / "Python" / "ceval_macros.h").write_text(MISS_STATS_NO_DEC)
    assert DeferredRule.from_source(tmp_path).applied is False


@pytest.mark.parametrize(
    "extra, used",
    [
        ({}, None),
        ({ALLOC: 6}, f"within rule leak_check.rule[{ALLOC}]"),
        ({MC: 70}, f"not compared (rule leak_check.rule[{MC}]: {MC})"),
    ],
    ids=["nothing allowed", "allowed", "skipped"],
)
def test_exactly_appears_only_where_nothing_was_allowed_or_skipped(
    suite: SuiteConfig, table: dict[str, Any], extra: dict[str, int], used: str | None
) -> None:
    """Each step's summary, rendered from cases with and without an allowed or skipped counter."""
    exact = {n: v - (6 if n == ALLOC else 0) for n, v in consistent_auto(suite).items()}
    auto = {**exact, **{n: exact.get(n, 0) + v for n, v in extra.items()}}
    leak = step_leakage(leakage_runs(suite, auto), {W: LOOPS}, suite, table)
    counters = {LF: 120, OP: 40, ALLOC: 9}
    alone = {w: run(w, MANUAL, counters) for w in PLAN.workloads}
    together = {
        w: run(w, MANUAL, {**counters, **{n: counters.get(n, 0) + v // 2 for n, v in extra.items()}})
        for w in PLAN.workloads
    }
    isolation = step_isolation(PLAN, alone, together, suite)
    for result in (leak, isolation):
        assert result.ok, result.findings
        assert ("exactly" in result.summary) is (used is None), result.summary
        if used is not None:
            assert used in result.summary and result.allowances
        else:
            assert result.allowances == ()
