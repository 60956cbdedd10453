"""How two sets of counters of one build are compared (pure): exactly, but by the leak check's rules
(configs/suite.toml ``[[leak_check.rule]]``, the same as validate's leakage and isolation), a
benchmark's declared allowance (configs/collect.toml) and, for the leakage check, the deferred window
and the bracket machinery's bound."""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.errors import ConfigError
from pystats_harness.measure.allowances import Kind, Uses
from pystats_harness.measure.deferred import DeferredRule
from pystats_harness.measure.leakrules import compare
from pystats_harness.measure.suiteconfig import SuiteConfig, compared
from pystats_harness.resources import COLLECT_TOML
from pystats_harness.stats.exact import Rate

Counters = Mapping[str, int]


class Status(enum.StrEnum):
    PASS = "pass"  # ran and held exactly (or by the leak check's named rules)
    APPROXIMATE = "approximate"  # ran and held, some counters within the benchmark's declared allowance
    BOUNDED = "bounded"  # ran and held, some counters within the machinery bound (leakage), none beyond
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
    exclusions, the benchmark's declared allowance (None: exact), and the build's deferred rule
    (measure/deferred.py, read from its source; None: not known, the counter stays exact)."""

    suite: SuiteConfig
    allowance: Allowance | None = None
    top: int = 5
    deferred: DeferredRule | None = None


#: ``(counter, a, b) -> True`` where a rule of the leak check's own (the deferred window) explains the
#: difference of one counter
Adjust = Callable[[str, int, int], bool]


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the collect config {path}: {exc}") from None


def load_declared(path: Path = COLLECT_TOML) -> dict[str, Allowance]:
    """configs/collect.toml's ``[variable.<benchmark>]`` tables: ``rel`` and ``reason`` (required),
    ``abs`` and ``measured``."""
    data = _read(path)
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
class MachineryShare:
    """configs/collect.toml ``[machinery.<kind>]``: the leakage residual allowed for timed functions of one
    kind (``func``, ``time_func``, ``async_func``), as shares of the null benchmark's instructions (the
    code inside the brackets that is not the benchmark: it specializes differently beside the benchmark
    than in the null)."""

    kind: str
    counter: float  # one counter may differ by this share of the null's instructions
    executed: float  # the instructions executed may differ by this share
    measured: str


@dataclass(frozen=True)
class Bound:
    """The machinery bound of one benchmark's leakage check, in counts: ``rule`` names it."""

    rule: str
    counter: int
    executed: int
    null: int  # the null benchmark's instructions it is a share of

    def describe(self, used_counter: int, used_executed: int) -> str:
        return (
            f"within rule {self.rule} (the residual of pyperf's code specializing differently beside the benchmark "
            f"than in the null): one counter used {used_counter:,} of {self.counter:,}, the instructions executed "
            f"{used_executed:,} of {self.executed:,} (shares of the null's {self.null:,} instructions)"
        )


def load_machinery(path: Path = COLLECT_TOML) -> dict[str, MachineryShare]:
    """configs/collect.toml's ``[machinery.<kind>]`` tables: ``counter``, ``executed`` (shares, 0..1) and
    ``measured`` (required)."""
    data = _read(path)
    shares = {}
    for kind, raw in data.get("machinery", {}).items():
        if set(raw) != {"counter", "executed", "measured"} or not str(raw["measured"]).strip():
            raise ConfigError(
                f"{path.name}: [machinery.{kind}] needs counter, executed and measured; got {sorted(raw)}"
            )
        counter, executed_share = float(raw["counter"]), float(raw["executed"])
        if not (0 <= counter <= 1 and 0 <= executed_share <= 1):
            raise ConfigError(f"{path.name}: [machinery.{kind}] shares must be between 0 and 1")
        shares[kind] = MachineryShare(kind, counter, executed_share, str(raw["measured"]).strip())
    return shares


def bound_for(kinds: Sequence[str], null: int, shares: Mapping[str, MachineryShare]) -> Bound:
    """The bound of a benchmark whose timed functions are of ``kinds``: the largest share among them (a
    kind without a share: no bound) of the null's ``null`` instructions."""
    known = sorted({k for k in kinds if k in shares})
    if not known:
        return Bound(
            "machinery (no share for " + (",".join(sorted(set(kinds))) or "no timed function") + ")", 0, 0, null
        )
    counter = max(shares[k].counter for k in known)
    executed_share = max(shares[k].executed for k in known)
    rule = "machinery." + "+".join(known)
    return Bound(rule, int(counter * null), int(executed_share * null), null)


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
    bounded: tuple[Difference, ...]  # within the machinery bound (leakage only; by size)
    tolerated: int  # counters within a rule of the leak check
    bound: Bound | None = None
    uses: Uses = field(default_factory=Uses)  # the suite's rules used: tolerances, counters not compared

    def describe(self, rules: Rules, a: str = "a", b: str = "b", executed: int = 0) -> str:
        """The differences beyond every rule, or what each rule let through (``executed``: how far the
        instructions executed differ, for the machinery bound's share)."""
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
        if self.bounded and self.bound is not None:
            worst = self.bounded[0]
            parts.append(
                f"{self.bound.describe(worst.size, executed)}: max in {worst.counter} ({worst.a:,} vs {worst.b:,}; "
                f"{len(self.bounded)} counter(s) differ)"
            )
        if self.uses:
            parts.append(self.uses.describe())
        return "; ".join(parts) if parts else "exactly"


def judge(
    a: Counters,
    b: Counters,
    rules: Rules,
    *,
    bound: Bound | None = None,
    adjust: Adjust | None = None,
    units: int = 1,
) -> Judgement:
    """Every counter of ``a`` and ``b`` (two processes of one build) compared by its rule of the leak
    check (configs/suite.toml ``[[leak_check.rule]]``, measure/leakrules.compare: exactly where none
    applies); beyond that, for a declared benchmark those within its allowance; ``adjust``: what the
    deferred window explains; and, with a ``bound``, those that differ by at most its ``counter`` counts
    (the residual of the code inside the brackets that is not the benchmark). Derived ``family.*`` counters
    are not compared on their own. ``units``: how many processes each side sums (the rules' ``abs`` is
    per process); the declared allowance and the bound apply to what a rule compares (its sum or net)."""
    beyond: list[Difference] = []
    allowed: list[Difference] = []
    bounded: list[Difference] = []
    tolerated, uses = 0, Uses()
    ra, rb = Rate(a, units), Rate(b, units)
    for name in sorted(set(a) | set(b)):
        if not compared(name):
            continue
        c = compare(rules.suite, name, ra, rb)
        if c.held:
            c.record(uses, totals=True)
            tolerated += c.kind is not None and c.kind is not Kind.IGNORE
            continue
        va, vb = c.compared
        difference = Difference(name, va, vb)
        if adjust is not None and adjust(name, va, vb):
            uses.add("deferred", Kind.DEFERRED, name, va, vb)
        elif rules.allowance is not None and rules.allowance.allows(va, vb):
            allowed.append(difference)
        elif bound is not None and difference.size <= bound.counter:
            bounded.append(difference)
        else:
            beyond.append(difference)
    status = Status.FAIL if beyond else Status.APPROXIMATE if allowed else Status.BOUNDED if bounded else Status.PASS
    by_size = tuple(sorted(bounded, key=lambda d: (-d.size, d.counter)))
    return Judgement(status, _ranked(beyond), _ranked(allowed), by_size, tolerated, bound, uses)
