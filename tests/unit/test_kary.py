"""k-ary bisect (pure): K commits a round, rounds ~ log_(K+1)(N), same answer as the binary search."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pystats_harness.bisect.judge import Judge
from pystats_harness.bisect.kary import kary_bisect, rounds_needed, spread
from pystats_harness.bisect.search import BisectResult
from pystats_harness.measure.outcome import Failure, Outcome
from tests.support.value_search import Value, assert_consistent, bisect_values, shas


def run_k(values: Sequence[Value], k: int) -> tuple[BisectResult, list[list[int]]]:
    batches: list[list[int]] = []

    def measure_many(indices: Sequence[int]) -> Mapping[int, Outcome]:
        batches.append(list(indices))
        return {
            i: Outcome.failed(Failure.BUILD_FAILED, f"{i} fails") if values[i] is None else Outcome.ok(values[i])  # type: ignore[arg-type]
            for i in indices
        }

    judge = Judge.from_endpoints(values[0], values[-1])  # type: ignore[arg-type]
    result = kary_bisect(shas(len(values)), measure_many, judge, k)
    flat = [i for batch in batches for i in batch]
    assert len(flat) == len(set(flat)), f"measured twice: {batches}"
    assert 0 not in flat and len(values) - 1 not in flat
    assert all(len(batch) <= max(k, 1) for batch in batches)
    assert result.measurements == len(flat) and result.rounds == len(batches)
    return result, batches


def test_spread_is_even_and_skips_failures() -> None:
    assert spread(0, 40, 1) == (20,)
    assert spread(0, 40, 2) == (13, 26)
    assert spread(0, 40, 4) == (8, 16, 24, 32)
    assert spread(0, 3, 4) == (1, 2)  # fewer candidates than workers: all of them
    assert spread(0, 10, 2, excluded={3}) == (4, 7)
    assert spread(0, 4, 2, excluded={1, 2, 3}) == ()


@pytest.mark.parametrize("k", [2, 3, 4])
def test_a_41_commit_series_takes_log_k_plus_1_rounds(k: int) -> None:
    rounds = []
    for step in range(1, 41):
        result, _ = run_k([0.0] * step + [1.0] * (41 - step), k)
        assert result.first_bad == step
        rounds.append(result.rounds)
    assert max(rounds) == rounds_needed(40, k) == math.ceil(math.log(40) / math.log(k + 1))
    assert max(rounds) < math.ceil(math.log2(40))  # fewer rounds than the binary search's steps


def test_k_one_is_todays_bisect() -> None:
    values = [1, 1, None, 1, 5, None, 5, 5]
    result, batches = run_k(values, 1)
    _, calls = bisect_values(values)
    assert [b[0] for b in batches] == calls and result.first_bad == 4


def test_rounds_needed_at_exact_powers() -> None:
    assert [rounds_needed(g, 2) for g in (1, 2, 3, 4, 9, 10, 27, 28)] == [0, 1, 1, 2, 2, 3, 3, 4]


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(2, 120),
    step=st.integers(1, 119),
    k=st.integers(1, 8),
    failing=st.sets(st.integers(1, 118), max_size=30),
)
def test_same_answer_as_binary_search_and_consistent(n: int, step: int, k: int, failing: set[int]) -> None:
    step = min(step, n - 1)
    values: list[Value] = [0.0 if i < step else 1.0 for i in range(n)]
    for i in failing:
        if 0 < i < n - 1:
            values[i] = None
    result, _ = run_k(values, k)
    assert_consistent(values, result)
    if not failing & set(range(1, n - 1)):
        assert result.first_bad == step and result.rounds <= rounds_needed(n - 1, k)
        assert result.first_bad == bisect_values(values)[0].first_bad
    else:
        assert step in result.candidates  # a range that holds the real step (failures hide the rest)
