"""A trust verdict per benchmark (pure): the reference suite's questions, asked of a pyperformance run.

dumps      exactly one non-empty dump per worker process (processes x timed functions); one more
           means the parent (pyperf's manager) counted something
agreement  the workers of one timed function agree counter by counter, exactly -- but for the kinds
           configs/suite.toml gives a tolerance (object counters) or ignores (method cache, GC); a
           benchmark whose own work varies between processes is declared in configs/collect.toml
           with its measured reason, and only its counters may then differ, each within the declared
           relative allowance (verdict ``approximate``, naming the largest difference)
wrapper    a ``bench_command`` benchmark times a subprocess: the hook brackets the wrapper
empty      no dump, or only all-zero dumps
leakage    the automated path's counts equal the manual path's (``_stats_on(); f(loops);
           _stats_off()``, one process per timed function) times the workers plus pyperf's own code
           inside the brackets, measured by a null benchmark of the same shapes run both ways --
           counter by counter, by the same rules
threads    whether more than one thread ran code inside the brackets, and whether this build's counters
           hold when they do (collect/threads.py; ``lossy`` where they do not)

A check either ran (``pass``, ``approximate``, ``fail``) or did not (``not checked``, with the reason);
a benchmark with a check that did not run is ``partial``, never ``trusted``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pystats_harness.collect.exactness import Adjust, Bound, Counters, Difference, Judgement, Rules, Status, judge
from pystats_harness.measure.deferred import DeferredRule
from pystats_harness.measure.deferred import window as deferred_window
from pystats_harness.pyperformance.benchmarks import Benchmark, Timing
from pystats_harness.stats.exact import executed


class Check(enum.StrEnum):
    DUMPS = "dumps"
    AGREEMENT = "agreement"
    WRAPPER = "wrapper"
    EMPTY = "empty"
    LEAKAGE = "leakage"
    THREADS = "threads"


class Verdict(enum.StrEnum):
    TRUSTED = "trusted"  # every check ran and held (exactly but for the named rules)
    APPROXIMATE = "approximate"  # held, some counters within the benchmark's declared allowance (named)
    BOUNDED = "bounded"  # held, some leakage counters within the machinery bound (named, with how much of it)
    PARTIAL = "partial"  # what ran held, but a check could not run (named, with why)
    UNRELIABLE = "unreliable"  # ran, but what the stats measure is not the benchmark
    LOSSY = "lossy"  # ran threads on a build whose counters lose updates under threads (collect/threads.py)
    UNTRUSTED = "untrusted"  # a check failed
    FAILED = "failed"  # did not run
    SKIPPED = "skipped"  # could not run here (a requirement), said why


@dataclass(frozen=True)
class CheckResult:
    check: Check
    status: Status
    detail: str
    findings: tuple[dict[str, Any], ...] = ()


def _finding(d: Difference, **where: Any) -> dict[str, Any]:
    return {**where, "counter": d.counter, "a": d.a, "b": d.b, "relative": round(d.relative, 6)}


def check_dumps(nonempty: int, expected: int, why_missing: str = "") -> CheckResult:
    """``why_missing``: what the build's fingerprint says about dumps (an interpreter that never dumps
    stats counted while collection is off), added when a worker dumped nothing."""
    if nonempty == expected:
        return CheckResult(Check.DUMPS, Status.PASS, f"{nonempty} non-empty dumps, one per worker")
    if nonempty > expected:
        why = f"{nonempty} non-empty dumps for {expected} workers: the parent or another process counted"
    else:
        why = f"{nonempty} non-empty dumps for {expected} workers: a worker dumped nothing"
        why += f" ({why_missing})" if why_missing else ""
    return CheckResult(Check.DUMPS, Status.FAIL, why)


def check_agreement(groups: Sequence[Sequence[Counters]], rules: Rules, why_not: str = "") -> CheckResult:
    """``groups``: per timed function, the per-worker counters (same loops each); every worker is
    compared with the function's first one."""
    if why_not or not groups or all(len(g) < 2 for g in groups):
        why = why_not or "not checked: one worker per timed function (--processes 1)"
        return CheckResult(Check.AGREEMENT, Status.NOT_CHECKED, why)
    judged = [
        (index, w, judge(workers[0], other, rules))
        for index, workers in enumerate(groups)
        for w, other in enumerate(workers[1:], start=2)
    ]
    worst = max(judged, key=lambda j: (list(Status).index(j[2].status), len(j[2].beyond) + len(j[2].allowed)))
    index, w, judgement = worst
    findings = tuple(
        _finding(d, function=i, worker=v, within=_within(d, j)) for i, v, j in judged for d in (*j.beyond, *j.allowed)
    ) + tuple({"function": i, "worker": v, **row} for i, v, j in judged for row in j.uses.rows())
    detail = judgement.describe(rules, "worker 1", f"worker {w}")
    if judgement.status is Status.FAIL:
        more = "worker 1" if executed(groups[index][0]) >= executed(groups[index][w - 1]) else f"worker {w}"
        detail = f"workers disagree ({more} counts more): {detail}"
    else:
        detail = f"workers agree {_agree(detail)}"
    return CheckResult(Check.AGREEMENT, judgement.status, detail, findings)


def check_wrapper(benchmark: Benchmark) -> CheckResult:
    if benchmark.timing is Timing.COMMAND:
        return CheckResult(
            Check.WRAPPER, Status.FAIL, "unreliable: measures the wrapper (pyperf bench_command times a subprocess)"
        )
    return CheckResult(Check.WRAPPER, Status.PASS, f"times code in the worker ({benchmark.timing.value})")


def check_empty(total: Counters, ndumps: int) -> CheckResult:
    if ndumps == 0:
        return CheckResult(Check.EMPTY, Status.FAIL, "no stats dump at all")
    if executed(total) == 0:
        return CheckResult(Check.EMPTY, Status.FAIL, "all-zero stats: nothing was counted inside the brackets")
    return CheckResult(Check.EMPTY, Status.PASS, f"{executed(total):,} instructions counted")


@dataclass(frozen=True)
class LeakCounts:
    """The automated path's counts (its workers summed), and what the manual path predicts for them:
    ``processes`` x the manual counts, plus pyperf's own code inside the brackets (the null benchmark's
    automated counts less ``processes`` x its manual ones)."""

    automated: Counters
    predicted: Counters
    processes: int
    #: instructions the code inside the brackets that is not the benchmark executes (pyperf's hook,
    #: task and loop over every worker, the manual runner's over ``processes`` runs): the null's count
    machinery: int = 0
    #: what ``predicted`` is made of, for the deferred window: (automated(null) over every worker,
    #: processes x manual(benchmark), processes x manual(null)); None: not kept
    parts: tuple[Counters, Counters, Counters] | None = None
    #: how far pyperf's code may specialize differently beside the benchmark (configs/collect.toml
    #: [machinery.<kind>] of the timed functions' kinds); None: no bound, every counter exact
    bound: Bound | None = None
    #: timed functions: each side sums processes x functions processes (the rules' ``abs`` is per process)
    functions: int = 1

    def adjust(self, rule: DeferredRule | None) -> Adjust | None:
        """The deferred rule's window (measure/deferred.py) over these counts, where the build's source
        shows the decrement; None where it does not apply or is not known."""
        if rule is None or rule.applied is not True or self.parts is None:
            return None
        auto_null, by_hand, runner = self.parts

        def explains(name: str, a: int, b: int) -> bool:
            if not rule.covers(name):
                return False
            return deferred_window(name, (self.automated, auto_null), (by_hand, runner), 1).allows(a - b)

        return explains


def check_leakage(counts: LeakCounts | None, why_not: str, rules: Rules) -> CheckResult:
    if counts is None:
        return CheckResult(Check.LEAKAGE, Status.NOT_CHECKED, why_not)
    adjust = counts.adjust(rules.deferred)
    units = counts.processes * counts.functions
    judgement = judge(counts.automated, counts.predicted, rules, bound=counts.bound, adjust=adjust, units=units)
    total = Difference("instructions executed", executed(counts.automated), executed(counts.predicted))
    declared = rules.allowance is not None and rules.allowance.allows(total.a, total.b)
    within_bound = counts.bound is not None and total.size <= counts.bound.executed
    if total.size and not within_bound and not declared and judgement.status is not Status.FAIL:
        judgement = replace(judgement, status=Status.FAIL, beyond=(total, *judgement.beyond))
    shown = f"{total.a:,} vs {total.b:,} instructions" + _uops(counts)
    what = f"automated vs manual + pyperf's overhead from the null benchmark ({shown}, {counts.processes} worker(s))"
    findings = tuple(
        _finding(d, within=_within(d, judgement)) for d in (*judgement.beyond, *judgement.allowed, *judgement.bounded)
    ) + tuple(judgement.uses.rows())
    if counts.bound is not None and judgement.bounded:
        worst = judgement.bounded[0].size
        used = {"rule": counts.bound.rule, "counter": [worst, counts.bound.counter]}
        findings += ({**used, "executed": [total.size, counts.bound.executed], "null": counts.bound.null},)
    if judgement.status is Status.FAIL:
        detail = f"{what}: {judgement.describe(rules, 'automated', 'manual', total.size)}"
    else:
        detail = f"{what}: agree {_agree(judgement.describe(rules, executed=total.size))}"
    return CheckResult(Check.LEAKAGE, judgement.status, detail, findings)


def _agree(described: str) -> str:
    """``exactly``, or what the rules let through, in brackets."""
    return described if described == "exactly" else f"({described})"


def _uops(counts: LeakCounts) -> str:
    """The tier-2 share of what was compared: uops executed, where the build traces (every counter,
    ``optimizer.*`` and ``uops.*`` included, is judged either way)."""
    a, b = (int(c.get("optimizer.uops_executed", 0)) for c in (counts.automated, counts.predicted))
    return f", {a:,} vs {b:,} tier-2 uops" if a or b else ""


def _within(d: Difference, judgement: Judgement) -> str:
    """Which rule a difference is within ("" for none)."""
    return "allowance" if d in judgement.allowed else "machinery" if d in judgement.bounded else ""


def verdict(checks: Sequence[CheckResult]) -> Verdict:
    statuses = {c.check: c.status for c in checks}
    if statuses.get(Check.WRAPPER) is Status.FAIL:
        return Verdict.UNRELIABLE  # whatever the other checks say, the numbers are the wrapper's
    if statuses.get(Check.THREADS) is Status.FAIL:
        return Verdict.LOSSY  # whatever the other checks say, threads' counts were lost
    found = set(statuses.values())
    if Status.FAIL in found:
        return Verdict.UNTRUSTED
    if Status.NOT_CHECKED in found or set(Check) - set(statuses):
        return Verdict.PARTIAL
    if Status.APPROXIMATE in found:
        return Verdict.APPROXIMATE
    return Verdict.BOUNDED if Status.BOUNDED in found else Verdict.TRUSTED
