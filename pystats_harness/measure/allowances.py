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

#: The collect leakage check's bound: a share of what the null benchmark's machinery executes (collect/trust.py).
MACHINERY = (
    "the code inside the brackets that is not the benchmark (pyperf's hook, task and loop, the manual runner's; "
    "for coroutines the event loop) runs beside the benchmark's own code and specializes differently there than "
    "in the null benchmark that measures it"
)
DEFERRED = (
    "a specialization.deferred difference that the build's own source explains (the "
    "miss path decrements the next instruction's counter) is allowed what the misses explain"
)


class Kind(enum.StrEnum):
    IGNORE = "not compared"
    TOLERANCE = "tolerance"  # |new - base| <= abs + rel * |base|
    MINUS = "net of another counter"
    SUM = "as a sum with other counters"
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


def allowance_kind(t: Tolerance) -> Kind:
    """What kind of allowance a tolerance is: not compared, a sum (with a counter or over an instruction's
    forms), net of a counter, or a bound on the difference."""
    if t.ignore:
        return Kind.IGNORE
    if t.plus or t.forms:
        return Kind.SUM
    return Kind.MINUS if t.minus else Kind.TOLERANCE


BASELINES_AND_COLLECT = "validate baselines (a recorded baseline may come from another build of the version)"


def _tolerance_words(t: Tolerance) -> str:
    if t.ignore:
        return "ignored"
    net = f"compared net of {t.minus}; " if t.minus else ""
    net = f"compared as the sum over the forms {' + '.join(t.forms)}; " if t.forms else net
    return f"{net}|a - b| <= {t.abs:g} + {t.rel:.0%} of the base"


def registry(
    suite: SuiteConfig, declared: Mapping[str, object] | None = None, machinery: Mapping[str, object] | None = None
) -> tuple[Rule, ...]:
    """Every rule in force: the baselines' tolerances, the leak check's rules and slack, the deferred
    window, collect's machinery bound per kind of timed function (configs/collect.toml [machinery.<kind>])
    and each benchmark's declared allowance."""
    return (*_tolerances(suite), *_leak_check(suite), *_machinery(machinery or {}), *_declared(declared or {}))


def _machinery(shares: Mapping[str, object]) -> list[Rule]:
    rules = []
    for kind, share in sorted(shares.items()):
        counter, executed, measured = (getattr(share, k) for k in ("counter", "executed", "measured"))
        words = (
            f"one counter {counter:.1%}, the instructions executed {executed:.1%} of the null benchmark's instructions"
        )
        why = f"{MACHINERY} (measured: {measured})"
        rules.append(
            Rule(f"machinery.{kind}", Kind.MACHINERY, f"every counter, bench_{kind}", words, "collect leakage", why)
        )
    return rules


def _tolerances(suite: SuiteConfig) -> list[Rule]:
    rules = [
        Rule(f"tolerances.{k}", Kind.TOLERANCE, f"{k} counters", _tolerance_words(t), BASELINES_AND_COLLECT, t.reason)
        for k, t in sorted(suite.kind_tolerances.items())
    ]
    for o in suite.overrides:
        t = o.tolerance
        words = _tolerance_words(t)
        rules.append(
            Rule(f"tolerances.override[{o.match}]", allowance_kind(t), o.match, words, BASELINES_AND_COLLECT, t.reason)
        )
    return rules


#: where the leak check's rules apply: every comparison of two processes of one build
SAME_BUILD = "validate leakage and isolation; collect agreement and leakage"


def _leak_words(t: Tolerance) -> str:
    if t.ignore:
        return "ignored"
    how = f"as the sum with {t.plus}" if t.plus else f"net of {t.minus}" if t.minus else ""
    how = f"as the sum over the forms {' + '.join(t.forms)}" if t.forms else how
    allowed = f"|a - b| <= {_bound_words(t)}, per process" if t.rel or t.abs else "exactly"
    given = f"; only where {t.condition('gc.<gen>.x')} is equal, else not compared" if t.given else ""
    return (f"{how}, {allowed}" if how else allowed) + given


def _bound_words(t: Tolerance) -> str:
    """``4 + 0.5 % of the larger``, ``2``, ``10 % of the larger``."""
    parts = ([f"{t.abs:g}"] if t.abs else []) + ([f"{t.rel * 100:g} % of the larger"] if t.rel else [])
    return " + ".join(parts)


def _leak_check(suite: SuiteConfig) -> list[Rule]:
    rules = []
    for o in suite.leak_rules:
        t = o.tolerance
        why = f"{t.reason} (measured: {t.measured})" if t.measured else t.reason
        rules.append(Rule(f"leak_check.rule[{o.match}]", allowance_kind(t), o.match, _leak_words(t), SAME_BUILD, why))
    slack = Rule(
        "leak_check.fixed_part_slack",
        Kind.SLACK,
        "family.*.execution_count of a manual run's fixed part (2 c(N) - c(2N))",
        f"{suite.fixed_part_slack} executions in total per bracket",
        "validate leakage (outside the bracket)",
        "a workload's run() prologue and epilogue execute a few instructions once per call (measured: up to 58 in all "
        "families of one workload on v3.13.5, 2026-12-02); leaked start-up or imports are thousands",
    )
    deferred = Rule(
        "deferred",
        Kind.DEFERRED,
        "opcode.*.specialization.deferred",
        "what the misses explain",
        "validate and collect leakage",
        DEFERRED,
    )
    return [*rules, slack, deferred]


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
        """The rule, its kind, the counters it covered, the largest difference it let through, and each
        counter's two values (the last comparison that used the rule on it)."""
        values = {c: list(v) for c, v in self.values.items()}
        return {
            "rule": self.rule,
            "kind": self.kind.value,
            "counters": list(self.counters),
            "largest": self.largest,
            "values": values,
        }


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
