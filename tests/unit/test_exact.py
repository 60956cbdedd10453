"""Exact integer comparisons of counters (stats/exact.py): nets and rates beyond 2**53, no floats."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pystats_harness.errors import ConfigError, StatsParseError
from pystats_harness.stats.exact import Difference, Rate, as_counts, differences, display, excess, net

BIG = 2**60  # far beyond 2**53, where floats stop counting by ones


def test_net_and_rates_beyond_2_to_the_53() -> None:
    work, null = {"a": 3 * BIG + 7, "b": 5}, {"a": BIG + 1, "c": 2}
    got = net(work, null)
    assert got == {"a": 2 * BIG + 6, "b": 5, "c": -2}
    automated, manual = Rate({"a": 2 * BIG + 6}, units=2), Rate({"a": BIG + 3})
    assert excess(automated, manual, "a") == 0 and differences(automated, manual) == []
    off = Rate({"a": 2 * BIG + 7}, units=2)  # one more in all processes: a float sum would not see it
    assert float(2 * BIG + 7) / 2 == float(BIG + 3)
    assert differences(off, manual) == [Difference("a", Fraction(2 * BIG + 7, 2), Fraction(BIG + 3), 1)]


def test_differences_filter_and_missing_counters() -> None:
    a, b = Rate({"x": 4, "y": 1}, 2), Rate({"x": 2, "z": 1})
    assert [(d.name, d.a, d.b, d.excess) for d in differences(a, b)] == [
        ("y", Fraction(1, 2), 0, 1),
        ("z", 0, 1, -2),
    ]
    assert [d.name for d in differences(a, b, keep=lambda n: n != "y")] == ["z"]


def test_rates_need_whole_units_and_counts_need_ints() -> None:
    with pytest.raises(ConfigError, match="positive whole number"):
        Rate({}, 0)
    with pytest.raises(ConfigError, match="positive whole number"):
        Rate({}, 1.5)  # type: ignore[arg-type]
    assert as_counts({"a": BIG}, "run") == {"a": BIG}
    with pytest.raises(StatsParseError, match=r"run: counter b is 0\.5, not a count"):
        as_counts({"a": 1, "b": 0.5}, "run")


def test_display_is_int_when_whole() -> None:
    assert display(Fraction(2 * BIG, 2)) == BIG and isinstance(display(Fraction(2 * BIG, 2)), int)
    assert display(Fraction(1, 4)) == 0.25 and display(7) == 7
