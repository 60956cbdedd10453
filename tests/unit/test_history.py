"""invoke history's pure parts: which commits, where metrics move, and the bad-input lines (exit 2)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pystats_harness.errors import ConfigError
from pystats_harness.history.select import change_points, pick


def test_every_and_count_pick_both_ends() -> None:
    assert pick(10) == list(range(10))
    assert pick(10, every=3) == [0, 3, 6, 9]
    assert pick(10, every=4) == [0, 4, 8, 9]
    assert pick(41, count=8) == [0, 6, 11, 17, 23, 29, 34, 40]
    assert pick(3, count=8) == [0, 1, 2]


@given(n=st.integers(2, 500), every=st.integers(1, 50), count=st.integers(2, 60))
def test_picks_are_sorted_unique_and_hold_the_ends(n: int, every: int, count: int) -> None:
    for picked in (pick(n, every=every), pick(n, count=count)):
        assert picked[0] == 0 and picked[-1] == n - 1 and picked == sorted(set(picked))
    assert len(pick(n, count=count)) == min(count, n)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 5, "every": 0}, "--every 0"),
        ({"n": 5, "count": 1}, "--count 1"),
        ({"n": 5, "every": 2, "count": 3}, "not both"),
        ({"n": 1}, "single commit"),
    ],
)
def test_bad_selection_is_one_line_exit_2(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        pick(**kwargs)
    assert info.value.exit_code == 2 and "\n" not in str(info.value)


def test_change_points_compare_consecutive_measured_values() -> None:
    points = change_points("m", [1.0, 1.01, None, 1.5, 1.5, 0.0, 0.0], 0.05)
    assert [(p.before, p.after) for p in points] == [(1, 3), (4, 5)]
    assert math.isclose(points[0].relative, 0.49 / 1.01) and points[1].relative == -1.0
    assert change_points("m", [0.0, 2.0], 0.05)[0].relative == math.inf
    assert change_points("m", [1.0, 1.04, 1.0], 0.05) == []
