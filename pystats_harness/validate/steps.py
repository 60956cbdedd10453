"""`invoke validate --rev REV`: can the stats that automation collects for this build be trusted?

1 fingerprint  the behaviour probes of the patch issue (fresh containers)
2 canaries     N and 2N loops of small kernels: family counts differ by exactly N x dis(body)
3 leakage      (a) automated (pyperf --hook pystats) vs manual counts net of the null workload; (b) 2*c(N) -
               c(2N) of a manual run's family totals == the null run's (not if tracing: validate/tier2.py)
4 isolation    2-4 workloads (partners added from the suite) at once count exactly what each counts alone
5 baselines    automated per-loop counts vs configs/baselines/<version>/<workload>.json
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

from pystats_harness.builder import probes
from pystats_harness.builder.cache import CacheEntry
from pystats_harness.errors import RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.measure.runs import PathRun, RunPath, run_canary
from pystats_harness.measure.suiteconfig import SuiteConfig, compared
from pystats_harness.stats.exact import Rate, as_counts, differences, display, net
from pystats_harness.suite import canaries as _canaries
from pystats_harness.suite import canary_trace as _trace
from pystats_harness.validate import baseline as _baseline
from pystats_harness.validate import deferred as _deferred
from pystats_harness.validate import tier2 as _tier2
from pystats_harness.validate.isolation import IsolationPlan
from pystats_harness.validate.report import Step, StepResult, StepStatus

Finding = dict[str, Any]


@dataclass
class Runs:
    """Every suite run of one validation, by (path, workload, loops)."""

    results: dict[tuple[RunPath, str, int], PathRun | RunFailed] = field(default_factory=dict)

    def get(self, path: RunPath, workload: str, loops: int) -> PathRun:
        got = self.results[(path, workload, loops)]
        if isinstance(got, RunFailed):
            raise got
        return got


def counters(run: PathRun) -> dict[str, int]:
    """The run's counts, exact (a per-loop collection here is an error, not a float)."""
    return as_counts(run.collection.counters, f"{run.path} run of {run.workload}")


def fixed_part(run_n: PathRun, run_2n: PathRun, table: Mapping[str, Any]) -> dict[str, int]:
    """2*c(N) - c(2N) of the corrected family totals: what a run counts besides its loops."""
    low, high = (
        _canaries.family_counts(
            _canaries.parse_dump("\n".join(p.read_text() for r in x.runs for p in r.stats_files)), table
        )
        for x in (run_n, run_2n)
    )
    return {f: 2 * low.get(f, 0) - high.get(f, 0) for f in set(low) | set(high) if 2 * low.get(f, 0) - high.get(f, 0)}


def step_fingerprint(ctx: Context, entry: CacheEntry) -> StepResult:
    report = probes.collect(ctx, entry)
    findings = tuple(
        {
            "probe": v.probe.id,
            "expect": v.probe.expect,
            "observed": v.observed,
            "ok": v.ok,
            "problems": list(v.problems),
        }
        for v in report.verdicts
    )
    bad = report.failed_probes
    if bad:
        summary = f"{len(bad)} probe(s) differ from fixed pystats: {', '.join(bad)}"
        return StepResult(Step.FINGERPRINT, StepStatus.FAIL, summary, findings)
    if report.exempted:  # a probe the configuration exempts is not checked: partial, with the reason
        checked = len(report.verdicts) - len(report.exempted)
        summary = f"{checked} probes behave like fixed pystats; {probes.exempt_line(report)}"
        return StepResult(Step.FINGERPRINT, StepStatus.PARTIAL, summary, findings)
    which = "" if report.configuration == "default" else f" (configuration {report.configuration}, with its switch)"
    summary = f"all {len(report.verdicts)} probes behave like fixed pystats{which}"
    return StepResult(Step.FINGERPRINT, StepStatus.PASS, summary, findings)


def step_canaries(
    ctx: Context,
    entry: CacheEntry,
    suite: SuiteConfig,
    table: dict[str, Any],
    pool: ThreadPoolExecutor,
    tick: Callable[[], None],
    tracing: bool = False,
) -> StepResult:
    """FAIL on a wrong count; PARTIAL when what could be counted is exact but something cannot be."""
    n = suite.canary_n

    def one(name: str) -> list[dict[str, Any]]:
        canary = table["canaries"][name]
        if "cannot_count" in canary:
            tick()
            return [{"canary": name, "family": "*", "cannot_count": canary["cannot_count"]}]
        low = run_canary(ctx, entry, name, n)
        high = run_canary(ctx, entry, name, 2 * n)
        tick()
        texts = ["\n".join(p.read_text() for p in r.stats_files) for r in (low, high)]
        dumps = [_canaries.parse_dump(t) for t in texts]
        expected = canary["per_iteration"]
        found = [{"canary": name, **m} for m in _canaries.compare(dumps[0], dumps[1], n, expected, table)]
        return _tier2.tier2_accounting(name, n, texts, found, _trace.parse(high.stdout)) if tracing else found

    exact, found, note = _tier2.proven(m for ms in pool.map(one, suite.canaries) for m in ms)
    wrong = [m for m in found if "cannot_count" not in m]
    if wrong:
        names = ", ".join(sorted({m["canary"] for m in wrong}))
        return StepResult(
            Step.CANARIES, StepStatus.FAIL, f"{len(wrong)} family count(s) differ in {names}", tuple(found)
        )
    if found:
        what = ", ".join(sorted({f"{m['canary']}: {m['family']}" for m in found}))
        summary = f"exact where countable (N={n}, 2N={2 * n}); cannot count statically on this revision: {what}"
        return StepResult(Step.CANARIES, StepStatus.PARTIAL, summary + note, tuple(exact + found))
    summary = f"{len(suite.canaries)} canaries exact (N={n}, 2N={2 * n}){note}"
    return StepResult(Step.CANARIES, StepStatus.PASS, summary, tuple(exact))


def _diff(a: Mapping[str, int], b: Mapping[str, int], suite: SuiteConfig) -> list[tuple[str, int, int]]:
    return [
        (n, a.get(n, 0), b.get(n, 0))
        for n in sorted(set(a) | set(b))
        if _leak_checked(suite, n) and a.get(n, 0) != b.get(n, 0)
    ]


def _both(runs: Runs, path: RunPath, w: str, suite: SuiteConfig, loops: int) -> tuple[dict[str, int], dict[str, int]]:
    """(workload, null workload) counts of one path."""
    return counters(runs.get(path, w, loops)), counters(runs.get(path, suite.null_workload, loops))


def automated_net(runs: Runs, w: str, suite: SuiteConfig, loops: int) -> Rate:
    """automated(w) - automated(null), summed over the worker processes: a rate per process."""
    return Rate(net(*_both(runs, RunPath.AUTOMATED, w, suite, loops)), suite.processes)


def manual_net(runs: Runs, w: str, suite: SuiteConfig, loops: int) -> Rate:
    return Rate(net(*_both(runs, RunPath.MANUAL, w, suite, loops)))


def _outside_bracket(runs: Runs, w: str, suite: SuiteConfig, loops: int, table: Mapping[str, Any]) -> list[Finding]:
    null_fixed = fixed_part(
        runs.get(RunPath.MANUAL, suite.null_workload, loops),
        runs.get(RunPath.MANUAL, suite.null_workload, 2 * loops),
        table,
    )
    w_fixed = fixed_part(runs.get(RunPath.MANUAL, w, loops), runs.get(RunPath.MANUAL, w, 2 * loops), table)
    differ = {
        f: (w_fixed.get(f, 0), null_fixed.get(f, 0))
        for f in sorted(set(null_fixed) | set(w_fixed))
        if null_fixed.get(f, 0) != w_fixed.get(f, 0)
    }
    if sum(abs(a - b) for a, b in differ.values()) <= suite.fixed_part_slack * suite.values:
        return []
    return [
        {
            "workload": w,
            "check": "outside the bracket (manual)",
            "counter": f"family.{f}.execution_count",
            "a": a,
            "b": b,
        }
        for f, (a, b) in sorted(differ.items(), key=lambda kv: -abs(kv[1][0] - kv[1][1]))
    ]


def _leak_checked(suite: SuiteConfig, name: str) -> bool:
    return compared(name) and not suite.leak_ignored(name)


def _automated_vs_manual(
    runs: Runs, w: str, suite: SuiteConfig, loops: int, rule: _deferred.DeferredRule
) -> list[Finding]:
    """Every counter whose per-process automated net differs from the manual net (compared as
    integers: A_w - A_null == P * (M_w - M_null)); a ``deferred`` count the rule allows is marked."""
    automated, manual = _both(runs, RunPath.AUTOMATED, w, suite, loops), _both(runs, RunPath.MANUAL, w, suite, loops)
    rows = []
    for d in differences(Rate(net(*automated), suite.processes), Rate(net(*manual)), partial(_leak_checked, suite)):
        row = {"workload": w, "check": "automated vs manual", "counter": d.name, "a": display(d.a), "b": display(d.b)}
        rows.append({**row, **rule.judge(d, automated, manual, suite.processes)})
    return rows


def step_leakage(
    runs: Runs, workloads: dict[str, int], suite: SuiteConfig, table: Mapping[str, Any], tracing: bool = False
) -> StepResult:
    """FAIL on any leaked counter; a ``deferred`` difference the build's source explains (see
    validate/deferred.py) is listed and does not fail; on a ``tracing`` build (b) is not made: PARTIAL."""
    rule = _deferred.DeferredRule.from_table(table)
    findings: list[Finding] = []
    for w, loops in workloads.items():
        try:
            findings += [] if tracing else _outside_bracket(runs, w, suite, loops, table)
        except RunFailed as exc:
            findings.append({"workload": w, "check": "manual path", "counter": "-", "a": str(exc), "b": ""})
        try:
            findings += _automated_vs_manual(runs, w, suite, loops, rule)
        except RunFailed as exc:
            findings.append({"workload": w, "check": "automated path", "counter": "-", "a": str(exc), "b": ""})
    adjusted = [f for f in findings if f["check"] == _deferred.KIND]
    leaks = [f for f in findings if f["check"] != _deferred.KIND]
    undetermined = rule.applied is None and any(rule.covers(f["counter"]) for f in leaks)
    notes = ([_deferred.summary(adjusted)] if adjusted else []) + ([rule.describe()] if undetermined else [])
    if leaks:
        leaky = ", ".join(sorted({f["workload"] for f in leaks}))
        summary = "; ".join([f"{len(leaks)} counter(s) leak in {leaky}", *notes])
        return StepResult(Step.LEAKAGE, StepStatus.FAIL, summary, tuple(findings))
    status, passed = _tier2.leak_verdict(len(workloads), tracing)
    return StepResult(Step.LEAKAGE, status, "; ".join([passed, *notes]), tuple(findings))


def step_isolation(
    plan: IsolationPlan,
    alone: Mapping[str, PathRun | RunFailed],
    together: Mapping[str, PathRun | RunFailed],
    suite: SuiteConfig,
) -> StepResult:
    """Each workload of ``plan`` run at once with the others counts exactly what it counts alone."""
    findings: list[dict[str, Any]] = []
    for w in plan.workloads:
        a, b = alone[w], together[w]
        if isinstance(a, RunFailed) or isinstance(b, RunFailed):
            findings.append({"workload": w, "counter": "-", "alone": _failure(a), "parallel": _failure(b)})
            continue
        findings += [
            {"workload": w, "counter": n, "alone": x, "parallel": y}
            for n, x, y in _diff(counters(a), counters(b), suite)
        ]
    n = len(plan.workloads)
    return StepResult.judged(
        Step.ISOLATION,
        findings,
        failed=f"{len(findings)} counter(s) differ between {plan.label} at once in {n} containers and each alone "
        "(references run one at a time)",
        passed=f"{plan.label} at once in {n} containers count exactly what each counts alone "
        "(references run one at a time)",
    )


def _failure(run: PathRun | RunFailed) -> str:
    return str(run) if isinstance(run, RunFailed) else ""


def step_baselines(
    runs: Runs, workloads: dict[str, int], suite: SuiteConfig, version: str, root: Path, configuration: str = "default"
) -> tuple[StepResult, dict[str, _baseline.AllowanceUse]]:
    findings: list[dict[str, Any]] = []
    missing, deviation = [], {}
    for w, loops in workloads.items():
        doc = _baseline.load(version, w, root, configuration)
        if doc is None:
            missing.append(w)
            continue
        try:
            auto = automated_net(runs, w, suite, loops)
        except RunFailed as exc:
            findings.append({"workload": w, "counter": "-", "baseline": "", "value": str(exc), "allowed": ""})
            continue
        per_loop = {n: Fraction(v, auto.units * loops * suite.values) for n, v in auto.counts.items()}
        base, places = _baseline.per_loop(doc)
        deviation[w] = _baseline.worst_use(base, per_loop, suite, places)
        findings += [
            {
                "workload": w,
                "counter": d.name,
                "baseline": display(d.baseline),
                "value": display(d.value),
                "allowed": d.allowed,
            }
            for d in _baseline.deviations(base, per_loop, suite, places)
        ]
    if findings:
        status, summary = (
            StepStatus.FAIL,
            f"{len(findings)} counter(s) outside tolerance in {', '.join(sorted({f['workload'] for f in findings}))}",
        )
    elif missing:
        status, summary = (
            StepStatus.NO_BASELINE,
            f"no baseline for Python {_baseline.directory(version, configuration)}: {', '.join(missing)} "
            "(skipped; record one with invoke baseline)",
        )
    else:
        status, summary = StepStatus.PASS, f"{len(workloads)} workloads match their baselines within tolerance"
    return StepResult(Step.BASELINES, status, summary, tuple(findings)), deviation
