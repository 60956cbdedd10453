"""Counts as exact integers: nets, rates and their comparison without a float in between.

A dump's counters are Python ints (a uint64 that wrapped below zero is read as a negative number,
see :mod:`pystats_harness.stats.dumps`), and their sums exceed 2**53, where a float stops counting
by ones.  So counts stay ints; counts over different numbers of loops or processes are compared by
cross-multiplying (``a / m == b / n`` as ``a * n == b * m``); where a ratio is really needed it is
a :class:`~fractions.Fraction`; a float appears only for display (:func:`display`).

Pure functions, shared by validate and collect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from pystats_harness.errors import ConfigError, StatsParseError


def as_counts(counters: Mapping[str, int | float], where: str) -> dict[str, int]:
    """``counters`` as ints; a float (a per-loop collection, say) is an error naming ``where``."""
    bad = sorted(name for name, value in counters.items() if not isinstance(value, int) or isinstance(value, bool))
    if bad:
        raise StatsParseError(
            f"{where}: counter {bad[0]} is {counters[bad[0]]!r}, not a count ({len(bad)} such); "
            "exact comparisons need the raw counts, not per-loop values"
        )
    return dict(counters)  # type: ignore[arg-type]


def executed(counters: Mapping[str, int]) -> int:
    """Instructions executed: the sum of every opcode's execution count."""
    return sum(v for k, v in counters.items() if k.startswith("opcode.") and k.endswith(".execution_count"))


def net(work: Mapping[str, int], null: Mapping[str, int]) -> dict[str, int]:
    """``work - null`` for every counter of either (missing counts as 0)."""
    return {n: work.get(n, 0) - null.get(n, 0) for n in set(work) | set(null)}


@dataclass(frozen=True)
class Rate:
    """Integer ``counts`` over ``units`` (loops, processes, brackets): ``counts[n] / units`` each."""

    counts: Mapping[str, int]
    units: int = 1

    def __post_init__(self) -> None:
        if type(self.units) is not int or self.units < 1:  # not a bool, not a float
            raise ConfigError(f"a rate needs a positive whole number of units (got {self.units!r})")

    def count(self, name: str) -> int:
        return self.counts.get(name, 0)

    def per_unit(self, name: str) -> Fraction:
        return Fraction(self.count(name), self.units)


@dataclass(frozen=True)
class Difference:
    """One counter whose rates differ: ``a`` and ``b`` per unit, and ``excess`` = ``a - b`` in units
    of ``a.units * b.units`` (an int: ``count_a * units_b - count_b * units_a``)."""

    name: str
    a: Fraction
    b: Fraction
    excess: int


def excess(a: Rate, b: Rate, name: str) -> int:
    """``a.count * b.units - b.count * a.units``: 0 exactly when the two rates are equal."""
    return a.count(name) * b.units - b.count(name) * a.units


def differences(a: Rate, b: Rate, keep: Callable[[str], bool] = lambda name: True) -> list[Difference]:
    """Every counter (of either, filtered by ``keep``) whose rates differ, in name order."""
    out = []
    for name in sorted(set(a.counts) | set(b.counts)):
        if keep(name):
            d = excess(a, b, name)
            if d:
                out.append(Difference(name, a.per_unit(name), b.per_unit(name), d))
    return out


def display(value: int | Fraction) -> int | float:
    """An int stays an int (also a whole Fraction); any other Fraction becomes the nearest float —
    for showing a value, never for comparing one."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    return value
