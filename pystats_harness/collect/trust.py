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

A check either ran (``pass``, ``approximate``, ``fail``) or did not (``not checked``, with the reason);
a benchmark with a check that did not run is ``partial``, never ``trusted``.
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pystats_harness.collect.benchmarks import Benchmark, Timing
from pystats_harness.errors import ConfigError
from pystats_harness.resources import COLLECT_TOML
from pystats_harness.validate.suiteconfig import SuiteConfig, compared

Counters = Mapping[str, int]


class Check(enum.StrEnum):
    DUMPS = "dumps"
    AGREEMENT = "agreement"
    WRAPPER = "wrapper"
    EMPTY = "empty"
    LEAKAGE = "leakage"


class Status(enum.StrEnum):
    PASS = "pass"  # ran and held exactly (or within configs/suite.toml's tolerances for its kinds)
    APPROXIMATE = "approximate"  # ran and held within the benchmark's declared allowance
    FAIL = "fail"
    NOT_CHECKED = "not checked"  # could not run; the detail says why


class Verdict(enum.StrEnum):
    TRUSTED = "trusted"  # every check ran and held exactly
    APPROXIMATE = "approximate"  # every check ran and held, some within the benchmark's declared allowance
    PARTIAL = "partial"  # what ran held, but a check could not run (named, with why)
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
class Allowance:
    """A benchmark whose work varies between processes: how far its counters may differ, and why.
    A counter passes when ``|a - b| <= abs + rel * max(|a|, |b|)`` (``abs`` in counts, never relative
    to all instructions: a small counter cannot change 90x unnoticed)."""

    rel: float
    reason: str
    abs: int = 0

    def allows(self, a: int, b: int) -> bool:
        return abs(a - b) <= self.abs + self.rel * max(abs(a), abs(b))

    def __str__(self) -> str:
        return f"{self.rel:.0%}" + (f" + {self.abs}" if self.abs else "")


@dataclass(frozen=True)
class Rules:
    """How one benchmark's counters are compared: the suite's per-kind tolerances and leak-check
    exclusions, and the benchmark's declared allowance (None: exact)."""

    suite: SuiteConfig
    allowance: Allowance | None = None
    top: int = 5


def load_declared(path: Path = COLLECT_TOML) -> dict[str, Allowance]:
    """configs/collect.toml's ``[variable.<benchmark>]`` tables: ``rel`` and ``reason`` (required),
    ``abs`` and ``measured``."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the collect config {path}: {exc}") from None
    declared = {}
    for name, raw in data.get("variable", {}).items():
        unknown = set(raw) - {"rel", "abs", "reason", "measured"}
        if unknown or "rel" not in raw or not str(raw.get("reason", "")).strip():
            raise ConfigError(
                f"{path.name}: [variable.{name}] needs rel and reason (and may have abs, measured); got {sorted(raw)}"
            )
        rel, absolute = float(raw["rel"]), int(raw.get("abs", 0))
        if not 0 < rel < 1 or absolute < 0:
            raise ConfigError(
                f"{path.name}: [variable.{name}] rel must be between 0 and 1 and abs a count >= 0 (got {rel}, {absolute})"
            )
        declared[name] = Allowance(rel, str(raw["reason"]).strip(), absolute)
    return declared


def executed(counters: Counters) -> int:
    """Instructions executed: the sum of every opcode's execution count."""
    return sum(v for k, v in counters.items() if k.startswith("opcode.") and k.endswith(".execution_count"))


@dataclass(frozen=True)
class Difference:
    counter: str
    a: int
    b: int

    @property
    def relative(self) -> float:
        return abs(self.a - self.b) / max(abs(self.a), abs(self.b))

    @property
    def size(self) -> int:
        return abs(self.a - self.b)


def _ranked(differences: list[Difference]) -> tuple[Difference, ...]:
    return tuple(sorted(differences, key=lambda d: (-d.relative, -d.size, d.counter)))


@dataclass(frozen=True)
class Judgement:
    """Counters of two runs compared by a benchmark's rules."""

    status: Status  # PASS, APPROXIMATE or FAIL
    beyond: tuple[Difference, ...]  # differences no rule allows (ranked, largest first)
    allowed: tuple[Difference, ...]  # within the benchmark's declared allowance (ranked)
    bounded: tuple[Difference, ...]  # within the bracket machinery's own size (leakage only; by size)
    tolerated: int  # counters within configs/suite.toml's per-kind tolerances
    bound: int = 0

    def describe(self, rules: Rules, a: str = "a", b: str = "b") -> str:
        if self.beyond:
            top = ", ".join(f"{d.counter} {d.a:,} vs {d.b:,}" for d in self.beyond[: rules.top])
            more = f" (+{len(self.beyond) - rules.top} more)" if len(self.beyond) > rules.top else ""
            return f"{len(self.beyond)} counter(s) differ between {a} and {b}: {top}{more}"
        parts = []
        if self.allowed and rules.allowance is not None:
            worst = self.allowed[0]
            parts.append(
                f"within the declared allowance: max {worst.relative:.1%} in {worst.counter} "
                f"({len(self.allowed)} counter(s) differ; allowed {rules.allowance}: {rules.allowance.reason})"
            )
        if self.bounded:
            worst = self.bounded[0]
            parts.append(
                f"within the bracket machinery's own {self.bound:,} instructions (its code ran with another "
                f"history in the null benchmark): max {worst.size:,} in {worst.counter} "
                f"({worst.a:,} vs {worst.b:,}; {len(self.bounded)} counter(s) differ)"
            )
        if self.tolerated:
            parts.append(f"{self.tolerated} object counter(s) within configs/suite.toml's tolerances")
        return "; ".join(parts if self.allowed or self.bounded else ["exactly", *parts])


def judge(a: Counters, b: Counters, rules: Rules, *, leak_check: bool = False, bound: int = 0) -> Judgement:
    """Every counter of ``a`` and ``b`` compared exactly, except those configs/suite.toml tolerates
    (per kind) or ignores (``leak_check``: also its [leak_check] exclusions), for a declared benchmark
    those within its allowance, and, with a ``bound``, those that differ by at most that many counts
    (what the code inside the brackets that is not the benchmark executes). Derived ``family.*``
    counters are not compared on their own."""
    beyond: list[Difference] = []
    allowed: list[Difference] = []
    bounded: list[Difference] = []
    tolerated = 0
    for name in sorted(set(a) | set(b)):
        va, vb = a.get(name, 0), b.get(name, 0)
        if va == vb or not compared(name) or (leak_check and rules.suite.leak_ignored(name)):
            continue
        tolerance = rules.suite.tolerance_for(name)
        if tolerance.ignore:
            continue
        difference = Difference(name, va, vb)
        if tolerance.rel or tolerance.abs:
            if tolerance.allows(va, vb):
                tolerated += 1
            else:
                beyond.append(difference)
        elif rules.allowance is not None and rules.allowance.allows(va, vb):
            allowed.append(difference)
        elif difference.size <= bound:
            bounded.append(difference)
        else:
            beyond.append(difference)
    status = Status.FAIL if beyond else Status.APPROXIMATE if allowed or bounded else Status.PASS
    by_size = tuple(sorted(bounded, key=lambda d: (-d.size, d.counter)))
    return Judgement(status, _ranked(beyond), _ranked(allowed), by_size, tolerated, bound)


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
    if not groups or all(len(g) < 2 for g in groups):
        return CheckResult(
            Check.AGREEMENT, Status.NOT_CHECKED, why_not or "one worker per timed function (--processes 1)"
        )
    judged = [
        (index, w, judge(workers[0], other, rules))
        for index, workers in enumerate(groups)
        for w, other in enumerate(workers[1:], start=2)
    ]
    worst = max(judged, key=lambda j: (list(Status).index(j[2].status), len(j[2].beyond) + len(j[2].allowed)))
    index, w, judgement = worst
    findings = tuple(
        _finding(d, function=i, worker=v, within=_within(d, j)) for i, v, j in judged for d in (*j.beyond, *j.allowed)
    )
    detail = judgement.describe(rules, "worker 1", f"worker {w}")
    if judgement.status is Status.FAIL:
        more = "worker 1" if executed(groups[index][0]) >= executed(groups[index][w - 1]) else f"worker {w}"
        detail = f"workers disagree ({more} counts more): {detail}"
    else:
        detail = f"workers agree {detail}"
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


def check_leakage(counts: LeakCounts | None, why_not: str, rules: Rules) -> CheckResult:
    if counts is None:
        return CheckResult(Check.LEAKAGE, Status.NOT_CHECKED, why_not)
    judgement = judge(counts.automated, counts.predicted, rules, leak_check=True, bound=counts.machinery)
    total = Difference("instructions executed", executed(counts.automated), executed(counts.predicted))
    if judgement.bounded and total.size > counts.machinery:  # each within, but more than it in all
        judgement = replace(judgement, status=Status.FAIL, beyond=(total, *judgement.beyond))
    shown = f"{total.a:,} vs {total.b:,} instructions"
    what = f"automated vs manual + pyperf's overhead from the null benchmark ({shown}, {counts.processes} worker(s))"
    findings = tuple(
        _finding(d, within=_within(d, judgement)) for d in (*judgement.beyond, *judgement.allowed, *judgement.bounded)
    )
    if judgement.status is Status.FAIL:
        detail = f"{what}: {judgement.describe(rules, 'automated', 'manual')}"
    else:
        detail = f"{what}: agree {judgement.describe(rules)}"
    return CheckResult(Check.LEAKAGE, judgement.status, detail, findings)


def _within(d: Difference, judgement: Judgement) -> str:
    """Which rule a difference is within ("" for none)."""
    return "allowance" if d in judgement.allowed else "machinery" if d in judgement.bounded else ""


def not_checked(check: Check, why: str) -> CheckResult:
    return CheckResult(check, Status.NOT_CHECKED, why)


def verdict(checks: Sequence[CheckResult]) -> Verdict:
    statuses = {c.check: c.status for c in checks}
    if statuses.get(Check.WRAPPER) is Status.FAIL:
        return Verdict.UNRELIABLE  # whatever the other checks say, the numbers are the wrapper's
    found = set(statuses.values())
    if Status.FAIL in found:
        return Verdict.UNTRUSTED
    if Status.NOT_CHECKED in found or set(Check) - set(statuses):
        return Verdict.PARTIAL
    return Verdict.APPROXIMATE if Status.APPROXIMATE in found else Verdict.TRUSTED
