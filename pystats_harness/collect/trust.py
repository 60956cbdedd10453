"""A trust verdict per benchmark (pure): the reference suite's questions, asked of a pyperformance run.

dumps      exactly one non-empty dump per worker process (processes x timed functions); one more
           means the parent (pyperf's manager) counted something
agreement  the workers of one timed function agree counter by counter: exactly for execution, pair
           and specialization counters, or within configs/suite.toml's tolerances -- or, for a
           benchmark whose own work varies between processes (threads, event loops, time-dependent
           loops), within ``agreement_rel`` of the counter or below ``agreement_floor`` of the
           instructions the worker executed (scheduling noise in a counter that hardly matters);
           a worker that counts more is named with the counters that differ
wrapper    a ``bench_command`` benchmark times a subprocess: the hook brackets the wrapper
empty      no dump, or only all-zero dumps
leakage    where the timed function can be called directly, the manual path
           (``_stats_on(); f(loops); _stats_off()``) and the automated one agree per loop on
           the instructions executed, within ``[collect] leak_rel`` (pyperf's own loop and
           bracket code run inside the automated bracket: a few instructions per loop)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pystats_harness.collect.benchmarks import Benchmark, Timing
from pystats_harness.validate.suiteconfig import SuiteConfig, compared

Counters = Mapping[str, float]


class Check(enum.StrEnum):
    DUMPS = "dumps"
    AGREEMENT = "agreement"
    WRAPPER = "wrapper"
    EMPTY = "empty"
    LEAKAGE = "leakage"


class Status(enum.StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "n/a"


class Verdict(enum.StrEnum):
    TRUSTED = "trusted"
    UNRELIABLE = "unreliable"  # ran, but what the stats measure is not the benchmark
    UNTRUSTED = "untrusted"  # a check failed
    FAILED = "failed"  # did not run
    SKIPPED = "skipped"  # could not run here (a requirement), said why


@dataclass(frozen=True)
class CheckResult:
    check: Check
    status: Status
    detail: str
    findings: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Tolerances:
    agreement_rel: float = 0.02
    agreement_floor: float = 1e-4
    leak_rel: float = 0.02
    top: int = 5


def executed(counters: Counters) -> float:
    """Instructions executed: the sum of every opcode's execution count."""
    return sum(v for k, v in counters.items() if k.startswith("opcode.") and k.endswith(".execution_count"))


def check_dumps(nonempty: int, expected: int) -> CheckResult:
    if nonempty == expected:
        return CheckResult(Check.DUMPS, Status.PASS, f"{nonempty} non-empty dumps, one per worker")
    if nonempty > expected:
        why = f"{nonempty} non-empty dumps for {expected} workers: the parent or another process counted"
    else:
        why = f"{nonempty} non-empty dumps for {expected} workers: a worker dumped nothing"
    return CheckResult(Check.DUMPS, Status.FAIL, why)


def _differences(a: Counters, b: Counters, suite: SuiteConfig, tol: Tolerances) -> tuple[list[dict[str, Any]], int]:
    out, exact_diffs = [], 0
    floor = tol.agreement_floor * max(executed(a), executed(b))
    for name in sorted(set(a) | set(b)):
        va, vb = a.get(name, 0), b.get(name, 0)
        if va == vb or not compared(name):
            continue
        tolerance = suite.tolerance_for(name)
        if tolerance.ignore or tolerance.allows(va, vb):
            continue
        exact_diffs += 1
        if abs(va - vb) > max(tol.agreement_rel * max(abs(va), abs(vb)), floor):
            out.append({"counter": name, "worker_a": va, "worker_b": vb})
    return out, exact_diffs


def check_agreement(groups: Sequence[Sequence[Counters]], suite: SuiteConfig, tol: Tolerances) -> CheckResult:
    """``groups``: per timed function, the per-worker counters (same loops each)."""
    if all(len(g) < 2 for g in groups):
        return CheckResult(Check.AGREEMENT, Status.NOT_APPLICABLE, "one worker per timed function (--processes 1)")
    findings: list[dict[str, Any]] = []
    inexact = 0
    for index, workers in enumerate(groups):
        for w, other in enumerate(workers[1:], start=1):
            diffs, n = _differences(workers[0], other, suite, tol)
            inexact += n
            more = "worker 1" if executed(workers[0]) >= executed(other) else f"worker {w + 1}"
            findings += [{"function": index, "worker": w + 1, "counts_more": more, **d} for d in diffs]
    if findings:
        ranked = sorted(findings, key=lambda f: -abs(f["worker_a"] - f["worker_b"]))
        top = ", ".join(f"{f['counter']} {f['worker_a']:g} vs {f['worker_b']:g}" for f in ranked[: tol.top])
        return CheckResult(
            Check.AGREEMENT,
            Status.FAIL,
            f"workers disagree ({ranked[0]['counts_more']} counts more): {top}",
            tuple(ranked),
        )
    if inexact:
        what = f"within {tol.agreement_rel:.0%} or {tol.agreement_floor:.2%} of the instructions"
        return CheckResult(Check.AGREEMENT, Status.PASS, f"workers agree {what} ({inexact} counters not exact)")
    return CheckResult(Check.AGREEMENT, Status.PASS, "workers agree exactly")


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
    return CheckResult(Check.EMPTY, Status.PASS, f"{executed(total):,.0f} instructions counted")


def check_leakage(
    automated_per_loop: Counters | None, manual_per_loop: Counters | None, why_not: str, tol: Tolerances
) -> CheckResult:
    if automated_per_loop is None or manual_per_loop is None:
        return CheckResult(Check.LEAKAGE, Status.NOT_APPLICABLE, why_not)
    auto, man = executed(automated_per_loop), executed(manual_per_loop)
    off = abs(auto - man) / max(man, 1.0)
    detail = f"instructions per loop: automated {auto:,.0f}, manual {man:,.0f} ({off:+.2%})"
    if off > tol.leak_rel:
        families = _family_gaps(automated_per_loop, manual_per_loop, tol.top)
        return CheckResult(Check.LEAKAGE, Status.FAIL, f"{detail}; largest gaps: {families}")
    return CheckResult(Check.LEAKAGE, Status.PASS, detail)


def _family_gaps(a: Counters, b: Counters, top: int) -> str:
    names = [n for n in set(a) | set(b) if n.startswith("family.") and n.endswith(".execution_count")]
    ranked = sorted(names, key=lambda n: -abs(a.get(n, 0) - b.get(n, 0)))[:top]
    return ", ".join(f"{n.split('.')[1]} {a.get(n, 0):,.0f} vs {b.get(n, 0):,.0f}" for n in ranked)


def verdict(checks: Sequence[CheckResult]) -> Verdict:
    failed = {c.check for c in checks if c.status is Status.FAIL}
    if Check.WRAPPER in failed:
        return Verdict.UNRELIABLE  # whatever the other checks say, the numbers are the wrapper's
    return Verdict.UNTRUSTED if failed else Verdict.TRUSTED
