"""Every allowance, named once: each rule that lets a difference through or leaves a counter out of a
comparison, with where it applies and why.  Validate and collect read their rules from here (through
:class:`~pystats_harness.measure.suiteconfig.SuiteConfig` and configs/collect.toml), and the docs'
table of rules is rendered from :func:`registry` (docs/validate.md, ``python3 -m
pystats_harness.cli.tables --write docs/validate.md``), so the words cannot drift from the code.

A comparison that used a rule reports it (:class:`Use`): the rule, the counters it covered, and the
largest difference it let through (skipped counters: how many and which).  The word "exactly" is
for a comparison that used none.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pystats_harness.measure.suiteconfig import SuiteConfig, Tolerance

#: The collect leakage check's bound: what the null benchmark's machinery executes (see collect/trust.py).
MACHINERY = (
    "collect leakage: a counter may differ by at most the instructions the bracket machinery itself "
    "executes (pyperf's hook, task and loop, the manual runner's), measured by the null benchmark in the "
    "same collect; that code is shared with what else the process ran, so it specializes differently"
)
DEFERRED = (
    "validate leakage: a specialization.deferred difference that the build's own source explains (the "
    "miss path decrements the next instruction's counter) is allowed what the misses explain"
)


class Kind(enum.StrEnum):
    IGNORE = "not compared"
    TOLERANCE = "tolerance"  # |new - base| <= abs + rel * |base|
    MINUS = "net of another counter"
    SLACK = "fixed slack"
    DEFERRED = "deferred window"
    MACHINERY = "machinery bound"
    DECLARED = "declared allowance"


@dataclass(frozen=True)
class Rule:
    id: str  # where it is declared: configs/suite.toml or collect.toml key, or the code's name
    kind: Kind
    covers: str  # the counters (patterns) it is about
    allows: str  # what it lets through, in words
    where: str  # which comparisons use it
    reason: str


BASELINES_AND_COLLECT = "validate baselines; collect agreement and leakage"


def _tolerance_words(t: Tolerance) -> str:
    if t.ignore:
        return "ignored"
    net = f"compared net of {t.minus}; " if t.minus else ""
    return f"{net}|a - b| <= {t.abs:g} + {t.rel:.0%} of the base"


def registry(suite: SuiteConfig, declared: Mapping[str, object] | None = None) -> tuple[Rule, ...]:
    """Every rule in force: the suite's tolerances and overrides, the leak check's exclusions and slack,
    the deferred window, collect's machinery bound, and each benchmark's declared allowance."""
    return (*_tolerances(suite), *_leak_check(suite), *_declared(declared or {}))


def _tolerances(suite: SuiteConfig) -> list[Rule]:
    rules = [
        Rule(f"tolerances.{k}", Kind.TOLERANCE, f"{k} counters", _tolerance_words(t), BASELINES_AND_COLLECT, t.reason)
        for k, t in sorted(suite.kind_tolerances.items())
    ]
    for o in suite.overrides:
        t = o.tolerance
        kind = Kind.IGNORE if t.ignore else Kind.MINUS if t.minus else Kind.TOLERANCE
        words = _tolerance_words(t)
        rules.append(Rule(f"tolerances.override[{o.match}]", kind, o.match, words, BASELINES_AND_COLLECT, t.reason))
    return rules


def _leak_check(suite: SuiteConfig) -> list[Rule]:
    where = "validate leakage and isolation; collect leakage"
    rules = [
        Rule(f"leak_check.ignore[{p}]", Kind.IGNORE, p, "ignored", where, suite.leak_ignore_reasons.get(p, ""))
        for p in suite.leak_ignore
    ]
    slack = Rule(
        "leak_check.fixed_part_slack",
        Kind.SLACK,
        "family.*.execution_count of a manual run's fixed part (2 c(N) - c(2N))",
        f"{suite.fixed_part_slack} executions in total per bracket",
        "validate leakage (outside the bracket)",
        "a workload's run() prologue and epilogue execute a handful of instructions once per call (measured 9-30 "
        "on 3.13.5); leaked start-up or imports are thousands",
    )
    deferred = Rule(
        "deferred",
        Kind.DEFERRED,
        "opcode.*.specialization.deferred",
        "what the misses explain",
        "validate leakage",
        DEFERRED,
    )
    machinery = Rule(
        "machinery", Kind.MACHINERY, "every counter", "the null benchmark's instructions", "collect leakage", MACHINERY
    )
    return [*rules, slack, deferred, machinery]


def _declared(declared: Mapping[str, object]) -> list[Rule]:
    rules = []
    for name, allowance in sorted(declared.items()):
        rel, absolute, reason = (getattr(allowance, k) for k in ("rel", "abs", "reason"))
        words = f"|a - b| <= {absolute} + {rel:.0%} of the larger"
        where = "collect agreement and leakage"
        rules.append(Rule(f"variable.{name}", Kind.DECLARED, f"every counter of {name}", words, where, reason))
    return rules


@dataclass
class Use:
    """What one rule let through in one comparison: the counters, and the largest difference (a, b)."""

    rule: str
    kind: Kind
    counters: list[str] = field(default_factory=list)
    largest: tuple[str, float, float] | None = None  # (counter, a, b); None for a rule that skips
    values: dict[str, tuple[float, float]] = field(default_factory=dict)  # counter -> (a, b), the last seen

    def add(self, counter: str, a: float = 0, b: float = 0) -> None:
        if counter not in self.counters:  # one name once, however many workloads it was left out of
            self.counters.append(counter)
        self.values[counter] = (a, b)
        if self.kind is not Kind.IGNORE and (
            self.largest is None or abs(a - b) > abs(self.largest[1] - self.largest[2])
        ):
            self.largest = (counter, a, b)

    def describe(self) -> str:
        n = len(self.counters)
        if self.kind is Kind.IGNORE:
            shown = ", ".join(self.counters[:3]) + (f" (+{n - 3} more)" if n > 3 else "")
            return f"{n} counter(s) not compared (rule {self.rule}: {shown})"
        assert self.largest is not None
        name, a, b = self.largest
        return f"{n} counter(s) within rule {self.rule} (largest: {name} {_number(a)} vs {_number(b)})"

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "kind": self.kind.value, "counters": list(self.counters), "largest": self.largest}


def _number(x: float) -> str:
    """A count with thousands separators; a per-loop value to two decimals."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.2f}"


class Uses:
    """The rules one comparison used, by rule id, in the order first used."""

    def __init__(self) -> None:
        self.by_rule: dict[str, Use] = {}

    def add(self, rule: str, kind: Kind, counter: str, a: float = 0, b: float = 0) -> None:
        self.by_rule.setdefault(rule, Use(rule, kind)).add(counter, a, b)

    def __bool__(self) -> bool:
        return bool(self.by_rule)

    def describe(self) -> str:
        return "; ".join(u.describe() for u in self.by_rule.values())

    def to_list(self) -> list[dict[str, object]]:
        return [u.to_dict() for u in self.by_rule.values()]

    def rows(self) -> list[dict[str, object]]:
        """One row per counter a rule covered: the counter, the rule, its kind and both values."""
        return [
            {"counter": c, "rule": u.rule, "kind": u.kind.value, "a": a, "b": b}
            for u in self.by_rule.values()
            for c, (a, b) in u.values.items()
        ]


def exactly_or(uses: Uses, equal: int) -> str:
    """``N counters equal exactly`` when no rule was used, else ``N counters equal; <each use>``."""
    return f"{equal:,} counters equal exactly" if not uses else f"{equal:,} counters equal; {uses.describe()}"


def table(rules: Iterable[Rule]) -> str:
    """The docs' table of rules (docs/validate.md), one row per rule."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rows = [
        f"| `{cell(r.id)}` | {r.kind.value} | {cell(r.covers)} | {cell(r.allows)} | {r.where} | {cell(r.reason)} |"
        for r in rules
    ]
    return "\n".join(["| rule | kind | counters | lets through | used by | why |", "|---|---|---|---|---|---|", *rows])
