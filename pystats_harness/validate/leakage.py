"""The ``leakage`` step: (a) automated (pyperf --hook pystats) vs manual counts net of the null workload,
counter by counter as integers; (b) 2*c(N) - c(2N) of a manual run's family totals == the null run's
(nothing counted outside the bracket; not on a tracing build: validate/tier2.py).

Every rule it uses is named in its summary and listed in ``allowances`` (measure/allowances.py): the
``[[leak_check.rule]]`` allowances with the largest difference each let through, the counters a rule
leaves out, and how much of the fixed part's slack the workloads used; "exactly" only where no rule was
used.  A workload whose runs counted nothing fails:
an empty comparison is no pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pystats_harness.errors import RunFailed
from pystats_harness.measure import deferred as _deferred
from pystats_harness.measure.allowances import Uses, exactly_or
from pystats_harness.measure.leakrules import compare
from pystats_harness.measure.runs import PathRun, RunPath
from pystats_harness.measure.suiteconfig import SuiteConfig, compared
from pystats_harness.stats.exact import Difference, Rate, display, excess, executed, net
from pystats_harness.suite import canaries as _canaries
from pystats_harness.validate import tier2 as _tier2
from pystats_harness.validate.report import Step, StepResult, StepStatus
from pystats_harness.validate.runs import Finding, Runs, counters


def fixed_part(run_n: PathRun, run_2n: PathRun, table: Mapping[str, Any]) -> dict[str, int]:
    """2*c(N) - c(2N) of the corrected family totals: what a run counts besides its loops."""
    low, high = (
        _canaries.family_counts(
            _canaries.parse_dump("\n".join(p.read_text() for r in x.runs for p in r.stats_files)), table
        )
        for x in (run_n, run_2n)
    )
    return {f: 2 * low.get(f, 0) - high.get(f, 0) for f in set(low) | set(high) if 2 * low.get(f, 0) - high.get(f, 0)}


def _both(runs: Runs, path: RunPath, w: str, suite: SuiteConfig, loops: int) -> tuple[dict[str, int], dict[str, int]]:
    """(workload, null workload) counts of one path."""
    return counters(runs.get(path, w, loops)), counters(runs.get(path, suite.null_workload, loops))


def automated_net(runs: Runs, w: str, suite: SuiteConfig, loops: int) -> Rate:
    """automated(w) - automated(null), summed over the worker processes: a rate per process."""
    return Rate(net(*_both(runs, RunPath.AUTOMATED, w, suite, loops)), suite.processes)


def manual_net(runs: Runs, w: str, suite: SuiteConfig, loops: int) -> Rate:
    return Rate(net(*_both(runs, RunPath.MANUAL, w, suite, loops)))


def _outside_bracket(
    runs: Runs, w: str, suite: SuiteConfig, loops: int, table: Mapping[str, Any]
) -> tuple[list[Finding], int]:
    """The fixed part's differences from the null's, when they exceed the slack; and their total (the
    slack used)."""
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
    used = sum(abs(a - b) for a, b in differ.values())
    if used <= suite.fixed_part_slack * suite.values:
        return [], used
    return [
        {
            "workload": w,
            "check": "outside the bracket (manual)",
            "counter": f"family.{f}.execution_count",
            "a": a,
            "b": b,
        }
        for f, (a, b) in sorted(differ.items(), key=lambda kv: -abs(kv[1][0] - kv[1][1]))
    ], used


def _automated_vs_manual(
    runs: Runs, w: str, suite: SuiteConfig, loops: int, rule: _deferred.DeferredRule, uses: Uses
) -> tuple[list[Finding], int]:
    """Every counter whose per-process automated net differs from the manual net (compared as
    integers: A_w - A_null == P * (M_w - M_null)); a ``deferred`` count the rule allows is marked. Also
    how many counters were equal; those a leak-check rule leaves out go to ``uses``."""
    automated, manual = _both(runs, RunPath.AUTOMATED, w, suite, loops), _both(runs, RunPath.MANUAL, w, suite, loops)
    a, b = Rate(net(*automated), suite.processes), Rate(net(*manual))
    rows, equal = [], 0
    for name in sorted(set(a.counts) | set(b.counts)):
        if not compared(name):
            continue
        c = compare(suite, name, a, b)
        if c.held:
            c.record(uses)
            equal += c.equal
            continue
        d = Difference(name, a.per_unit(name), b.per_unit(name), excess(a, b, name))
        row = {"workload": w, "check": "automated vs manual", "counter": name, "a": display(d.a), "b": display(d.b)}
        if c.rule:
            row["beyond"] = c.rule
        rows.append({**row, **({} if c.rule else rule.judge(d, automated, manual, suite.processes))})
    return rows, equal


def _empty(runs: Runs, w: str, loops: int) -> list[Finding]:
    """A workload whose runs counted no instruction: nothing was compared (no pass)."""
    empty = [p for p in (RunPath.AUTOMATED, RunPath.MANUAL) if not executed(counters(runs.get(p, w, loops)))]
    return [
        {"workload": w, "check": f"{p} path", "counter": "-", "a": "its runs dumped no counted instruction", "b": ""}
        for p in empty
    ]


def step_leakage(
    runs: Runs, workloads: dict[str, int], suite: SuiteConfig, table: Mapping[str, Any], tracing: bool = False
) -> StepResult:
    """FAIL on any leaked counter (or a workload that counted nothing); a ``deferred`` difference the
    build's source explains (measure/deferred.py) is listed and does not fail; on a ``tracing`` build
    (b) is not made: PARTIAL."""
    rule = _deferred.DeferredRule.from_table(table)
    findings: list[Finding] = []
    uses, equal, slack = Uses(), 0, 0
    for w, loops in workloads.items():
        try:
            outside, used = ([], 0) if tracing else _outside_bracket(runs, w, suite, loops, table)
            findings, slack = findings + outside, max(slack, used)
        except RunFailed as exc:
            findings.append({"workload": w, "check": "manual path", "counter": "-", "a": str(exc), "b": ""})
        try:
            found, same = _automated_vs_manual(runs, w, suite, loops, rule, uses)
            findings, equal = findings + found + _empty(runs, w, loops), equal + same
        except RunFailed as exc:
            findings.append({"workload": w, "check": "automated path", "counter": "-", "a": str(exc), "b": ""})
    adjusted = [f for f in findings if f["check"] == _deferred.KIND]
    leaks = [f for f in findings if f["check"] != _deferred.KIND]
    undetermined = rule.applied is None and any(rule.covers(f["counter"]) for f in leaks)
    notes = ([_deferred.summary(adjusted)] if adjusted else []) + ([rule.describe()] if undetermined else [])
    allowances = tuple(uses.to_list())
    if leaks:
        leaky = ", ".join(sorted({f["workload"] for f in leaks}))
        summary = "; ".join([f"{len(leaks)} counter(s) leak in {leaky}", *notes])
        return StepResult(Step.LEAKAGE, StepStatus.FAIL, summary, tuple(findings), allowances)
    compared_words = exactly_or(uses, equal)
    if not tracing:
        allowed = suite.fixed_part_slack * suite.values
        compared_words += f"; fixed part within {slack} of the {allowed} allowed (rule leak_check.fixed_part_slack)"
    status, passed = _tier2.leak_verdict(len(workloads), tracing, compared_words)
    return StepResult(Step.LEAKAGE, status, "; ".join([passed, *notes]), tuple(findings), allowances)
