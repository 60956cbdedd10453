"""`invoke validate --rev REV`: can the stats that automation collects for this build be trusted?

1 fingerprint  the behaviour probes of the patch issue (fresh containers)
2 canaries     N and 2N loops of small kernels: family counts differ by exactly N x dis(body)
3 threads      T threads of a canary kernel in one bracket: T x one thread's counts (validate/threads.py)
4 leakage      automated vs manual net of the null workload, nothing outside the bracket (validate/leakage.py)
5 isolation    2-4 workloads (partners added from the suite) at once count what each counts alone
6 baselines    automated per-loop counts vs configs/baselines/<version>/<workload>.json
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any

from pystats_harness.builder import probes
from pystats_harness.builder.cache import CacheEntry
from pystats_harness.errors import RunFailed
from pystats_harness.infra.context import Context
from pystats_harness.measure.allowances import Uses, exactly_or
from pystats_harness.measure.leakrules import compare
from pystats_harness.measure.runs import PathRun, run_canary
from pystats_harness.measure.suiteconfig import SuiteConfig, compared
from pystats_harness.stats.exact import Rate, display, executed
from pystats_harness.suite import canaries as _canaries
from pystats_harness.suite import canary_trace as _trace
from pystats_harness.validate import baseline as _baseline
from pystats_harness.validate import tier2 as _tier2
from pystats_harness.validate.isolation import IsolationPlan
from pystats_harness.validate.leakage import automated_net
from pystats_harness.validate.report import Step, StepResult, StepStatus
from pystats_harness.validate.runs import Finding, Runs, counters


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


def _diff(a: Mapping[str, int], b: Mapping[str, int], suite: SuiteConfig, uses: Uses) -> tuple[list[Finding], int]:
    """(alone, together) differences of every compared counter beyond its leak-check rule, and how many
    were equal; what a rule let through or left out goes to ``uses``."""
    rows, equal = [], 0
    ra, rb = Rate(a), Rate(b)
    for n in sorted(set(a) | set(b)):
        if not compared(n):
            continue
        c = compare(suite, n, ra, rb)
        if c.held:
            c.record(uses)
            equal += c.equal
        else:
            rows.append(
                {"counter": n, "alone": a.get(n, 0), "parallel": b.get(n, 0), **({"beyond": c.rule} if c.rule else {})}
            )
    return rows, equal


def step_isolation(
    plan: IsolationPlan,
    alone: Mapping[str, PathRun | RunFailed],
    together: Mapping[str, PathRun | RunFailed],
    suite: SuiteConfig,
) -> StepResult:
    """Each workload of ``plan`` run at once with the others counts what it counts alone: every counter
    equal but those a leak-check rule leaves out (named); runs that counted nothing are no pass."""
    findings: list[Finding] = []
    uses, equal = Uses(), 0
    for w in plan.workloads:
        a, b = alone[w], together[w]
        if isinstance(a, RunFailed) or isinstance(b, RunFailed):
            findings.append({"workload": w, "counter": "-", "alone": _failure(a), "parallel": _failure(b)})
            continue
        ca, cb = counters(a), counters(b)
        if not executed(ca) or not executed(cb):
            findings.append({"workload": w, "counter": "-", "alone": executed(ca), "parallel": executed(cb)})
            continue
        rows, same = _diff(ca, cb, suite, uses)
        findings, equal = findings + [{"workload": w, **r} for r in rows], equal + same
    n, label = len(plan.workloads), plan.label
    where = f"{label} at once in {n} containers"
    if findings:
        failed = f"{len(findings)} counter(s) differ between {where} and each alone (references run one at a time)"
        return StepResult(Step.ISOLATION, StepStatus.FAIL, failed, tuple(findings), tuple(uses.to_list()))
    what = "count exactly what each counts alone" if not uses else "count what each counts alone"
    passed = f"{where} {what} (references run one at a time): {exactly_or(uses, equal)}"
    return StepResult(Step.ISOLATION, StepStatus.PASS, passed, (), tuple(uses.to_list()))


def _failure(run: PathRun | RunFailed) -> str:
    return str(run) if isinstance(run, RunFailed) else ""


def step_baselines(
    runs: Runs, workloads: dict[str, int], suite: SuiteConfig, version: str, root: Path, configuration: str = "default"
) -> tuple[StepResult, dict[str, _baseline.AllowanceUse]]:
    findings: list[dict[str, Any]] = []
    missing, deviation, uses, equal = [], {}, Uses(), 0
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
        equal += _baseline.uses(base, per_loop, suite, uses, places)
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
        status, summary = (
            StepStatus.PASS,
            f"{len(workloads)} workloads match their baselines: {exactly_or(uses, equal)}",
        )
    return StepResult(Step.BASELINES, status, summary, tuple(findings), tuple(uses.to_list())), deviation
