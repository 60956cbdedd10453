"""One counter of two processes of one build, judged by the leak check's rules (configs/suite.toml
``[[leak_check.rule]]``): validate's leakage and isolation and collect's agreement and leakage all ask
:func:`compare`, so a counter has one rule wherever two processes of one build are compared."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pystats_harness.measure.allowances import Kind, Uses, allowance_kind
from pystats_harness.measure.suiteconfig import SuiteConfig
from pystats_harness.stats.exact import Rate


@dataclass(frozen=True)
class Compared:
    """One counter of two runs of one build, judged by the leak check's rules (configs/suite.toml
    ``[[leak_check.rule]]``): ``a`` and ``b`` per unit as counted, ``held`` whether they agree (exactly,
    or by ``rule``), ``kind`` how the rule let a difference through (None: nothing to let through), and
    ``compared``: the two counts the rule compares (the sum or net it takes; the raw counts without one)."""

    name: str
    a: Fraction
    b: Fraction
    held: bool
    rule: str = ""  # "" where no rule applies: compared exactly
    kind: Kind | None = None
    compared: tuple[int, int] = (0, 0)
    counts: tuple[int, int] = (0, 0)  # as counted, not per unit

    @property
    def equal(self) -> bool:
        return self.a == self.b

    def record(self, uses: Uses, *, totals: bool = False) -> None:
        """A rule that let something through (or skipped the counter) goes to ``uses``: per unit, or with
        ``totals`` as counted (both sides sum the same units)."""
        if self.kind is not None and self.held:
            a, b = self.counts if totals else (_plain(self.a), _plain(self.b))
            uses.add(self.rule, self.kind, self.name, a, b)


def _plain(x: Fraction) -> float:
    return int(x) if x.denominator == 1 else float(x)


def compare(suite: SuiteConfig, name: str, a: Rate, b: Rate) -> Compared:
    """``name`` of ``a`` and ``b`` (rates of two processes of one build) by its leak-check rule: exactly
    where none applies; a rule may leave it out (ignore; or, with ``given``, where the counter it depends
    on differs), compare it as a sum with or net of another counter (``plus``, ``minus``), and allow
    ``|a - b| <= abs + rel * max(|a|, |b|)`` per unit of what it compares."""
    ra, rb = a.per_unit(name), b.per_unit(name)
    raw = (a.count(name), b.count(name))
    found = suite.leak_rule(name)
    if found is None:
        return Compared(name, ra, rb, ra == rb, compared=raw, counts=raw)
    rule, tolerance = found
    if tolerance.ignore:
        return Compared(name, ra, rb, True, rule, Kind.IGNORE, raw, raw)
    if ra == rb:
        return Compared(name, ra, rb, True, rule, compared=raw, counts=raw)
    if (condition := tolerance.condition(name)) and a.per_unit(condition) != b.per_unit(condition):
        return Compared(name, ra, rb, True, f"{rule} where {condition} differs", Kind.IGNORE, raw, raw)
    counts = (tolerance.value(a.counts, name), tolerance.value(b.counts, name))
    va, vb = Fraction(counts[0], a.units), Fraction(counts[1], b.units)
    if va == vb and tolerance.combines:
        return Compared(name, ra, rb, True, rule, allowance_kind(tolerance), counts, raw)
    return Compared(name, ra, rb, tolerance.within(va, vb), rule, Kind.TOLERANCE, counts, raw)
