"""`invoke validate --rev REV`: can the stats that automation collects for this build be trusted?

1 fingerprint  the behaviour probes of the patch issue (fresh containers)
2 canaries     N and 2N loops of small kernels: family counts differ by exactly N x dis(body)
3 leakage      (a) automated (pyperf --hook pystats) vs manual per-loop counts, net of the null
               workload (bracket overhead); (b) what each manual run counts besides its loops
               (2*c(N) - c(2N), corrected family totals) must equal the null run's: anything
               more was collected outside the bracket
4 isolation    4 workloads run in parallel containers count exactly what they count alone
5 baselines    automated per-loop counts vs configs/baselines/<version>/<workload>.json
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.build import probes
from pystats_harness.build.cache import CacheEntry
from pystats_harness.config import Settings
from pystats_harness.errors import (
    BaselineMismatch,
    CanaryMismatch,
    FingerprintFailed,
    LeakageFound,
    NoBaseline,
    RunFailed,
    ValidationFailed,
)
from pystats_harness.suite import canaries as _canaries
from pystats_harness.validate import baseline as _baseline
from pystats_harness.validate import runs as measure
from pystats_harness.validate.suiteconfig import SuiteConfig, compared

STEPS = ("fingerprint", "canaries", "leakage", "isolation", "baselines")
FAILURES: dict[str, type[ValidationFailed]] = {
    "fingerprint": FingerprintFailed,
    "canaries": CanaryMismatch,
    "leakage": LeakageFound,
    "isolation": LeakageFound,
    "baselines": BaselineMismatch,
}


@dataclass(frozen=True)
class StepResult:
    step: str
    status: str  # "pass" | "fail" | "no baseline"
    summary: str
    findings: tuple[dict[str, Any], ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "pass"


@dataclass(frozen=True)
class ValidationReport:
    metadata: dict[str, Any]
    steps: tuple[StepResult, ...]
    deviation: dict[str, float] = field(default_factory=dict)  # workload -> max relative deviation

    def error(self) -> ValidationFailed | None:
        """The first failing step, in the order of STEPS, as the error to exit with."""
        failed = [step for step in self.steps if step.status == "fail"]
        if failed:
            what = "; ".join(f"{step.step}: {step.summary}" for step in failed)
            return FAILURES[failed[0].step](f"validation failed -- {what}")
        for step in self.steps:
            if step.status == "no baseline":
                return NoBaseline(
                    f"{step.summary}; record them with `invoke baseline --rev {self.metadata['revision']}`"
                )
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "pystats-harness/validation/1",
            "metadata": self.metadata,
            "deviation": self.deviation,
            "steps": [
                {"step": s.step, "status": s.status, "summary": s.summary, "findings": list(s.findings)}
                for s in self.steps
            ],
        }


@dataclass
class Runs:
    """Every suite run of one validation, by (path, workload, loops)."""

    results: dict[tuple[str, str, int], measure.PathRun | RunFailed] = field(default_factory=dict)

    def get(self, path: str, workload: str, loops: int) -> measure.PathRun:
        got = self.results[(path, workload, loops)]
        if isinstance(got, RunFailed):
            raise got
        return got


def counters(run: measure.PathRun) -> dict[str, float]:
    return dict(run.collection.counters)


def fixed_part(run_n: measure.PathRun, run_2n: measure.PathRun, table: Mapping[str, Any]) -> dict[str, int]:
    """2*c(N) - c(2N) of the corrected family totals: what a run counts besides its loops."""
    low = _canaries.family_counts(
        _canaries.parse_dump("\n".join(p.read_text() for r in run_n.runs for p in r.stats_files)), table
    )
    high = _canaries.family_counts(
        _canaries.parse_dump("\n".join(p.read_text() for r in run_2n.runs for p in r.stats_files)), table
    )
    return {f: 2 * low.get(f, 0) - high.get(f, 0) for f in set(low) | set(high) if 2 * low.get(f, 0) - high.get(f, 0)}


def step_fingerprint(settings: Settings, entry: CacheEntry) -> StepResult:
    report = probes.collect(settings, entry)
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
    bad = [v.probe.id for v in report.verdicts if not v.ok]
    return StepResult(
        "fingerprint",
        "fail" if bad else "pass",
        f"{len(bad)} probe(s) differ from fixed pystats: {', '.join(bad)}"
        if bad
        else f"all {len(report.verdicts)} probes behave like fixed pystats",
        findings,
    )


def step_canaries(
    settings: Settings,
    entry: CacheEntry,
    suite: SuiteConfig,
    table: dict[str, Any],
    pool: ThreadPoolExecutor,
    tick: Callable[[], None],
) -> StepResult:
    n = suite.canary_n

    def one(name: str) -> list[dict[str, Any]]:
        low = measure.run_canary(settings, entry, name, n)
        high = measure.run_canary(settings, entry, name, 2 * n)
        tick()
        dumps = [_canaries.parse_dump("\n".join(p.read_text() for p in r.stats_files)) for r in (low, high)]
        expected = table["canaries"][name]["per_iteration"]
        return [{"canary": name, **m} for m in _canaries.compare(dumps[0], dumps[1], n, expected, table)]

    found = [m for ms in pool.map(one, suite.canaries) for m in ms]
    names = sorted({m["canary"] for m in found})
    return StepResult(
        "canaries",
        "fail" if found else "pass",
        f"{len(found)} family count(s) differ in {', '.join(names)}"
        if found
        else f"{len(suite.canaries)} canaries exact (N={n}, 2N={2 * n})",
        tuple(found),
    )


def _diff(a: Mapping[str, float], b: Mapping[str, float], suite: SuiteConfig) -> list[tuple[str, float, float]]:
    return [
        (n, a.get(n, 0), b.get(n, 0))
        for n in sorted(set(a) | set(b))
        if compared(n) and not suite.leak_ignored(n) and a.get(n, 0) != b.get(n, 0)
    ]


def automated_net(runs: Runs, w: str, suite: SuiteConfig, loops: int) -> dict[str, float]:
    auto, null = counters(runs.get("automated", w, loops)), counters(runs.get("automated", suite.null_workload, loops))
    return {n: (auto.get(n, 0) - null.get(n, 0)) / suite.processes for n in set(auto) | set(null)}


def manual_net(runs: Runs, w: str, suite: SuiteConfig, loops: int) -> dict[str, float]:
    man, null = counters(runs.get("manual", w, loops)), counters(runs.get("manual", suite.null_workload, loops))
    return {n: man.get(n, 0) - null.get(n, 0) for n in set(man) | set(null)}


def step_leakage(runs: Runs, workloads: dict[str, int], suite: SuiteConfig, table: Mapping[str, Any]) -> StepResult:
    findings: list[dict[str, Any]] = []
    for w, loops in workloads.items():
        try:
            null_fixed = fixed_part(
                runs.get("manual", suite.null_workload, loops),
                runs.get("manual", suite.null_workload, 2 * loops),
                table,
            )
            w_fixed = fixed_part(runs.get("manual", w, loops), runs.get("manual", w, 2 * loops), table)
            differ = {
                f: (w_fixed.get(f, 0), null_fixed.get(f, 0))
                for f in sorted(set(null_fixed) | set(w_fixed))
                if null_fixed.get(f, 0) != w_fixed.get(f, 0)
            }
            if sum(abs(a - b) for a, b in differ.values()) > suite.fixed_part_slack * suite.values:
                findings += [
                    {
                        "workload": w,
                        "check": "outside the bracket (manual)",
                        "counter": f"family.{f}.execution_count",
                        "a": a,
                        "b": b,
                    }
                    for f, (a, b) in sorted(differ.items(), key=lambda kv: -abs(kv[1][0] - kv[1][1]))
                ]
        except RunFailed as exc:
            findings.append({"workload": w, "check": "manual path", "counter": "-", "a": str(exc), "b": ""})
        try:
            auto, man = automated_net(runs, w, suite, loops), manual_net(runs, w, suite, loops)
            findings += [
                {"workload": w, "check": "automated vs manual", "counter": n, "a": a, "b": b}
                for n, a, b in _diff(auto, man, suite)
            ]
        except RunFailed as exc:
            findings.append({"workload": w, "check": "automated path", "counter": "-", "a": str(exc), "b": ""})
    leaky = sorted({f["workload"] for f in findings})
    return StepResult(
        "leakage",
        "fail" if findings else "pass",
        f"{len(findings)} counter(s) leak in {', '.join(leaky)}"
        if findings
        else f"no leakage in {len(workloads)} workloads (automated == manual, nothing outside brackets)",
        tuple(findings),
    )


def step_isolation(runs: Runs, parallel: dict[str, measure.PathRun | RunFailed], suite: SuiteConfig) -> StepResult:
    findings: list[dict[str, Any]] = []
    for w, got in parallel.items():
        if isinstance(got, RunFailed):
            findings.append({"workload": w, "counter": "-", "alone": "", "parallel": str(got)})
            continue
        alone = runs.get("manual", w, got.shape.loops)
        findings += [
            {"workload": w, "counter": n, "alone": a, "parallel": b}
            for n, a, b in _diff(counters(alone), counters(got), suite)
        ]
    return StepResult(
        "isolation",
        "fail" if findings else "pass",
        f"{len(findings)} counter(s) differ when run in parallel"
        if findings
        else f"{len(parallel)} workloads in parallel containers count exactly what they count alone",
        tuple(findings),
    )


def step_baselines(
    runs: Runs, workloads: dict[str, int], suite: SuiteConfig, version: str, root: Path
) -> tuple[StepResult, dict[str, float]]:
    findings: list[dict[str, Any]] = []
    missing, deviation = [], {}
    for w, loops in workloads.items():
        doc = _baseline.load(version, w, root)
        if doc is None:
            missing.append(w)
            continue
        try:
            per_loop = {n: v / (loops * suite.values) for n, v in automated_net(runs, w, suite, loops).items()}
        except RunFailed as exc:
            findings.append({"workload": w, "counter": "-", "baseline": "", "value": str(exc), "allowed": ""})
            continue
        base = doc["per_loop"]
        deviation[w] = _baseline.max_relative_deviation(base, per_loop, suite)
        findings += [
            {"workload": w, "counter": d.name, "baseline": d.baseline, "value": d.value, "allowed": d.allowed}
            for d in _baseline.deviations(base, per_loop, suite)
        ]
    if findings:
        status, summary = (
            "fail",
            f"{len(findings)} counter(s) outside tolerance in {', '.join(sorted({f['workload'] for f in findings}))}",
        )
    elif missing:
        status, summary = "no baseline", f"no baseline for Python {version}: {', '.join(missing)}"
    else:
        status, summary = "pass", f"{len(workloads)} workloads match their baselines within tolerance"
    return StepResult("baselines", status, summary, tuple(findings)), deviation


def collect_runs(
    settings: Settings,
    entry: CacheEntry,
    workloads: dict[str, int],
    suite: SuiteConfig,
    pool: ThreadPoolExecutor,
    tick: Callable[[], None],
    *,
    leak: bool = False,
) -> Runs:
    """Manual runs at N and 2N and automated runs at N, for every workload and the null workload."""
    jobs: list[tuple[str, str, int]] = []
    for w, loops in {**workloads, suite.null_workload: 0}.items():
        for lp in sorted({lp for lp in ([loops] if w != suite.null_workload else list(workloads.values()))}):
            jobs += [("manual", w, lp), ("manual", w, 2 * lp), ("automated", w, lp)]

    def one(job: tuple[str, str, int]) -> measure.PathRun | RunFailed:
        path, w, lp = job
        shape = measure.Shape(lp, suite.values, suite.warmups, suite.processes if path == "automated" else 1)
        try:
            if path == "manual":
                return measure.run_manual(settings, entry, w, shape)
            return measure.run_automated(settings, entry, w, shape, leak=leak and w != suite.null_workload)
        except RunFailed as exc:
            return exc
        finally:
            tick()

    return Runs(dict(zip(jobs, pool.map(one, jobs), strict=False)))


def count_jobs(workloads: dict[str, int], suite: SuiteConfig) -> int:
    return 3 * (len(workloads) + len(set(workloads.values()))) + 2 * len(suite.canaries) + min(4, len(workloads)) + 2


def validate(
    settings: Settings,
    entry: CacheEntry,
    workloads: dict[str, int],
    suite: SuiteConfig,
    *,
    jobs: int,
    tick: Callable[[], None],
    baselines_root: Path = _baseline.BASELINES_DIR,
    leak: bool = False,
) -> ValidationReport:
    manifest = entry.manifest()
    version = manifest["python"]["version"]
    steps = [step_fingerprint(settings, entry)]
    tick()
    table = json.loads(measure.canary_table(settings, entry))
    tick()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        steps.append(step_canaries(settings, entry, suite, table, pool, tick))
        runs = collect_runs(settings, entry, workloads, suite, pool, tick, leak=leak)
    steps.append(step_leakage(runs, workloads, suite, table))
    chosen = dict(list(workloads.items())[:4])
    with ThreadPoolExecutor(max_workers=len(chosen) or 1) as pool:

        def alone(item: tuple[str, int]) -> measure.PathRun | RunFailed:
            try:
                return measure.run_manual(settings, entry, item[0], measure.Shape(item[1], suite.values, suite.warmups))
            except RunFailed as exc:
                return exc
            finally:
                tick()

        parallel = dict(zip(chosen, pool.map(alone, chosen.items()), strict=False))
    steps.append(step_isolation(runs, parallel, suite))
    base_step, deviation = step_baselines(runs, workloads, suite, version, baselines_root)
    steps.append(base_step)
    meta = {
        "revision": manifest["revision"],
        "sha": manifest["sha"],
        "python_version": version,
        "patches": [p["id"] for p in manifest["patches"]],
        "build_key": entry.key,
        "workloads": workloads,
        "processes": suite.processes,
        "values": suite.values,
        "warmups": suite.warmups,
    }
    return ValidationReport(meta, tuple(steps), deviation)
