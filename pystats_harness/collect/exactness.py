"""How two sets of counters are compared (pure): exactly, but for the kinds configs/suite.toml tolerates
or ignores, a benchmark's declared allowance (configs/collect.toml) and, for the leakage check, the
bracket machinery's own size."""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.errors import ConfigError
from pystats_harness.measure.allowances import Kind, Uses
from pystats_harness.measure.suiteconfig import SuiteConfig, compared
from pystats_harness.resources import COLLECT_TOML

Counters = Mapping[str, int]


class Status(enum.StrEnum):
    PASS = "pass"  # ran and held exactly (or within configs/suite.toml's tolerances for its kinds)
    APPROXIMATE = "approximate"  # ran and held within the benchmark's declared allowance or the machinery bound
    FAIL = "fail"
    NOT_CHECKED = "not checked"  # could not run; the detail says why


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
    uses: Uses = field(default_factory=Uses)  # the suite's rules used: tolerances, counters not compared

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
        if self.uses:
            parts.append(self.uses.describe())
        return "; ".join(parts) if parts else "exactly"


def judge(a: Counters, b: Counters, rules: Rules, *, leak_check: bool = False, bound: int = 0) -> Judgement:
    """Every counter of ``a`` and ``b`` compared exactly, except those configs/suite.toml tolerates
    (per kind) or ignores (``leak_check``: also its [leak_check] exclusions), for a declared benchmark
    those within its allowance, and, with a ``bound``, those that differ by at most that many counts
    (what the code inside the brackets that is not the benchmark executes). Derived ``family.*``
    counters are not compared on their own."""
    beyond: list[Difference] = []
    allowed: list[Difference] = []
    bounded: list[Difference] = []
    tolerated, uses = 0, Uses()
    for name in sorted(set(a) | set(b)):
        va, vb = a.get(name, 0), b.get(name, 0)
        if not compared(name):
            continue
        rule, tolerance = rules.suite.rule_for(name)
        skip = rules.suite.leak_rule(name) if leak_check else None
        if skip is not None or tolerance.ignore:
            uses.add(skip or rule, Kind.IGNORE, name, va, vb)
            continue
        if tolerance.minus and va != vb:  # compared net of another counter, as validate's baselines compare it
            va, vb = va - a.get(tolerance.minus, 0), vb - b.get(tolerance.minus, 0)
            if va == vb:  # the raw difference is all the other counter's: the rule let it through
                uses.add(rule, Kind.MINUS, name, a.get(name, 0), b.get(name, 0))
        if va == vb:
            continue
        difference = Difference(name, va, vb)
        if tolerance.rel or tolerance.abs:
            if tolerance.allows(va, vb):
                tolerated += 1
                uses.add(rule, Kind.MINUS if tolerance.minus else Kind.TOLERANCE, name, va, vb)
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
    return Judgement(status, _ranked(beyond), _ranked(allowed), by_size, tolerated, bound, uses)
