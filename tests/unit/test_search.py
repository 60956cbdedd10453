"""The bisection core over value lists, asv style: ``None`` is a commit that cannot be measured."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pystats_harness import errors
from pystats_harness.bisect.exitcodes import (
    EXIT_ABORT,
    EXIT_BAD,
    EXIT_GOOD,
    EXIT_INTERRUPTED,
    EXIT_SKIP,
    exit_code,
    exit_code_for_error,
)
from pystats_harness.bisect.judge import Judge, validate_endpoints
from pystats_harness.bisect.search import EndpointsDoNotDiffer, bisect, estimate_remaining_steps
from pystats_harness.errors import MissingCounters
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome, outcome_for_error
from pystats_harness.measure.stored import Measurements, outcome_of
from pystats_harness.results import Store
from tests.support.value_search import Value, assert_consistent, bisect_values, shas


def test_asv_example() -> None:
    result, calls = bisect_values([1, 1, None, 1, 5, None, 5, 5])
    assert result.first_bad == 4 and result.exact
    assert calls == [3, 5, 6, 4]  # 5 fails: its neighbour 6 is next (then the search goes on)
    assert [t.index for t in result.skipped] == [5]
    assert result.skipped[0].reason == "build failed: commit 5 does not build"
    assert [(t.index, t.status, t.step) for t in result.tested] == [
        (0, "good", 0),
        (3, "good", 1),
        (4, "bad", 4),
        (5, "skipped", 2),
        (6, "bad", 3),
        (7, "bad", 0),
    ]


@pytest.mark.parametrize("n", range(2, 41))
def test_step_at_every_position(n: int) -> None:
    for k in range(1, n):
        values = [1.0] * k + [5.0] * (n - k)
        result, calls = bisect_values(values)
        assert result.first_bad == k, (n, k, calls)
        assert len(calls) <= estimate_remaining_steps(0, n - 1)


def test_direction_down_and_explicit_threshold() -> None:
    result, _ = bisect_values([9, 9, 9, 2, 2, 2])
    assert result.judge.direction == "down" and result.first_bad == 3
    # the metric falls below 5.5 (the midpoint) and 6 at index 3, but below 4 only at index 5
    values = [9, 8, 7, 5, 4.5, 3, 2]
    assert bisect_values(values)[0].first_bad == 3
    assert bisect_values(values, threshold=4)[0].first_bad == 5
    assert bisect_values(values, threshold=6, direction="down")[0].first_bad == 3


@pytest.mark.parametrize("n", range(8, 65))
def test_measurements_within_log2_plus_two(n: int) -> None:
    counts = []
    for k in range(1, n):
        _result, calls = bisect_values([0.0] * k + [1.0] * (n - k))
        counts.append(len(calls) + 2)  # + the two endpoints, measured before the search
    assert max(counts) <= math.ceil(math.log2(n)) + 2
    assert max(counts) == math.ceil(math.log2(n - 1)) + 2
    assert min(counts) == math.floor(math.log2(n - 1)) + 2


def test_failure_right_after_good_is_ambiguous() -> None:
    values = [1, None, 5, 5]
    result, calls = bisect_values(values)
    assert result.first_bad is None and result.candidates == (1, 2)
    assert calls == [1, 2]
    assert_consistent(values, result)


def test_failure_right_before_bad_is_ambiguous() -> None:
    values = [1, 1, None, 5]
    result, calls = bisect_values(values)
    assert result.candidates == (2, 3) and calls == [1, 2]
    assert_consistent(values, result)


def test_failures_next_to_the_endpoints_do_not_matter_when_the_step_is_elsewhere() -> None:
    values = [1, None, 1, 1, 1, 5, 5, 5, None, 5]
    result, _ = bisect_values(values)
    assert result.first_bad == 5


def test_all_failed_between_good_and_bad() -> None:
    values = [1, None, None, None, None, 5]
    result, calls = bisect_values(values)
    assert result.first_bad is None and result.candidates == (1, 2, 3, 4, 5)
    assert sorted(calls) == [1, 2, 3, 4]
    assert [t.index for t in result.skipped] == [1, 2, 3, 4]
    assert all(t.outcome.failure == Failure.BUILD_FAILED for t in result.skipped)


def test_neighbours_of_a_failed_midpoint_nearest_first() -> None:
    values = [1, 1, 1, 1, 1, None, None, 1, 5, 5, 5]
    result, calls = bisect_values(values)
    assert calls == [5, 6, 4, 7, 8]
    assert result.first_bad == 8


def test_run_of_failures_around_the_step() -> None:
    values = [1, 1, 1, None, None, None, 5, 5, 5]
    result, _calls = bisect_values(values)
    assert result.candidates == (3, 4, 5, 6)
    assert_consistent(values, result)


def test_noisy_values_around_the_midpoint() -> None:
    rng = random.Random(1234)
    for n in (16, 33, 64):
        for k in range(1, n):
            values = [100 + rng.uniform(-20, 20) for _ in range(k)] + [200 + rng.uniform(-20, 20) for _ in range(n - k)]
            assert bisect_values(values)[0].first_bad == k
            values_down = [-v for v in values]
            assert bisect_values(values_down)[0].first_bad == k


def test_nan_is_skipped_as_metric_undefined() -> None:
    values = [1, 1, math.nan, 1, 5, 5]
    result = bisect(shas(6), lambda i: Outcome.ok(values[i], "division by zero"), Judge.from_endpoints(1, 5))
    assert result.first_bad == 4
    skipped = result.at(2)
    assert skipped is not None and skipped.status == "skipped" and skipped.outcome.failure == Failure.METRIC_UNDEFINED
    assert "value is nan" in skipped.reason


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([1.0, 5.0, None, 2.9, 3.1]), min_size=0, max_size=40))
def test_any_history_gives_a_consistent_answer(middle: list[Value]) -> None:
    values = [1.0, *middle, 5.0]
    result, _ = bisect_values(values)
    assert_consistent(values, result)


def test_progress_callbacks() -> None:
    n, k = 100, 37
    values = [0.0] * k + [1.0] * (n - k)
    starts: list[tuple[int, int, int]] = []
    steps: list[tuple[int, int, int, Outcome]] = []
    result = bisect(
        shas(n),
        lambda i: Outcome.ok(values[i]),
        Judge.from_endpoints(0, 1),
        on_start=lambda *a: starts.append(a),
        on_step=lambda *a: steps.append(a),
    )
    assert [s[0] for s in starts] == [s[0] for s in steps] == list(range(1, result.measurements + 1))
    assert starts[0][1] == estimate_remaining_steps(0, n - 1) == 7
    remaining = [s[1] for s in steps]
    assert remaining == sorted(remaining, reverse=True) and remaining[-1] == 0
    assert [s[2] for s in starts] == [s[2] for s in steps]
    assert result.first_bad == k


def test_known_outcomes_are_not_measured_again() -> None:
    values = [1, 1, 1, 1, 5, 5, 5, 5, 5]
    first, _calls = bisect_values(values)
    known = {t.index: t.outcome for t in first.tested}
    again = bisect(shas(9), lambda i: pytest.fail(f"measured {i} again"), first.judge, known=known)
    assert again.first_bad == first.first_bad and again.measurements == 0
    # widening: the same commits inside a longer path (shifted by 3) are reused through the caller's cache
    wider = [1, 1, 1, *values, 5]
    shifted = {i + 3: o for i, o in known.items() if 0 < i < 8}
    seen: list[int] = []
    result = bisect(
        shas(len(wider)), lambda i: (seen.append(i), Outcome.ok(wider[i]))[1], Judge.from_endpoints(1, 5), known=shifted
    )
    assert result.first_bad == 7 and not set(seen) & set(shifted)


def test_trivial_paths() -> None:
    result = bisect(shas(2), lambda i: pytest.fail("nothing to measure"), Judge.from_endpoints(0, 1))
    assert result.first_bad == 1 and result.measurements == 0
    with pytest.raises(errors.ConfigError, match="at least two"):
        bisect(shas(1), lambda i: Outcome.ok(0), Judge.from_endpoints(0, 1))


def test_known_endpoints_must_hold() -> None:
    with pytest.raises(EndpointsDoNotDiffer, match="must be good"):
        bisect(
            shas(4),
            lambda i: Outcome.ok(0),
            Judge.from_endpoints(0, 1),
            known={0: Outcome.failed(Failure.BUILD_FAILED)},
        )


def test_estimate_remaining_steps() -> None:
    assert [estimate_remaining_steps(0, d) for d in (1, 2, 3, 4, 5, 8, 9, 1000)] == [0, 1, 2, 2, 3, 3, 4, 10]
    assert estimate_remaining_steps(10, 11) == 0


def test_judge() -> None:
    j = Judge.from_endpoints(0.9, 0.5)
    assert (j.direction, j.threshold, j.threshold_explicit) == ("down", pytest.approx(0.7), False)
    assert j.is_bad(0.6) and not j.is_bad(0.8) and not j.is_bad(0.7)  # at the threshold: good
    assert j.describe() == "bad means < 0.7"
    up = Judge.from_endpoints(1, 3, threshold=1.5)
    assert up.direction == "up" and up.threshold_explicit and up.verdict(2) == "bad" and up.verdict(1.5) == "good"
    with pytest.raises(errors.ConfigError, match="--direction"):
        Judge.from_endpoints(1, 2, direction="sideways")
    with pytest.raises(errors.ConfigError, match="--threshold"):
        Judge.from_endpoints(1, 2, threshold=math.nan)
    with pytest.raises(ValueError):
        j.is_bad(math.nan)


def test_outcome_has_a_value_or_a_failure() -> None:
    with pytest.raises(ValueError):
        Outcome()
    with pytest.raises(ValueError):
        Outcome(value=1.0, failure=Failure.BUILD_FAILED)
    assert Outcome.failed(Failure.PATCH_FAILED, "hunk 2").reason == "patch failed: hunk 2"
    assert Outcome.ok(3).usable and Outcome.ok(3).reason == ""
    assert not Outcome.ok(math.inf).usable


def test_validate_endpoints() -> None:
    validate_endpoints(1, 2, Judge.from_endpoints(1, 2))
    with pytest.raises(EndpointsDoNotDiffer, match="equal"):
        validate_endpoints(1, 1, Judge.from_endpoints(1, 1))
    with pytest.raises(EndpointsDoNotDiffer, match="--direction down") as info:
        validate_endpoints(2, 1, Judge.from_endpoints(2, 1, direction="up"), good_label="v3.13.4", bad_label="main")
    assert "v3.13.4 gives 2 and main gives 1" in str(info.value)
    with pytest.raises(EndpointsDoNotDiffer, match="both are bad"):
        validate_endpoints(3, 4, Judge.from_endpoints(3, 4, threshold=2))
    with pytest.raises(EndpointsDoNotDiffer, match="both are good"):
        validate_endpoints(3, 4, Judge.from_endpoints(3, 4, threshold=5))
    with pytest.raises(EndpointsDoNotDiffer, match="undefined"):
        validate_endpoints(math.nan, 4, Judge.from_endpoints(3, 4), metric="a/b")
    assert issubclass(EndpointsDoNotDiffer, errors.ConfigError)


# --- git bisect run exit codes ------------------------------------------------------------------------


def test_exit_codes_for_git_bisect_run() -> None:
    judge = Judge.from_endpoints(1, 5)
    assert exit_code(Outcome.ok(1.5), judge) == EXIT_GOOD == 0
    assert exit_code(Outcome.ok(4), judge) == EXIT_BAD == 1
    for failure in (Failure.BUILD_FAILED, Failure.PATCH_FAILED, Failure.RUN_FAILED, Failure.METRIC_UNDEFINED):
        assert exit_code(Outcome.failed(failure), judge) == EXIT_SKIP == 125
    assert exit_code(Outcome.ok(math.nan), judge) == 125


@pytest.mark.parametrize(
    "exc, code, failure",
    [
        (
            errors.BuildFailed(phase="make", commit="abc", status=2, log_tail=["x"], log_path=Path("/l")),
            125,
            Failure.BUILD_FAILED,
        ),
        (errors.CheckoutFailed("a" * 40, "unable to read tree"), 125, Failure.CHECKOUT_FAILED),
        (errors.MirrorError("no mirror"), 128, None),
        (errors.PatchError("does not apply"), 125, Failure.PATCH_FAILED),
        (errors.RevisionNotFound("no such commit"), 125, "checkout failed"),
        (errors.RevisionUnsupported("too old"), 125, Failure.BUILD_FAILED),
        (errors.VerificationFailed("fingerprint"), 125, Failure.BUILD_FAILED),
        (errors.RunFailed("timed out"), 125, Failure.RUN_FAILED),
        (errors.StatsParseError("bad dump"), 125, Failure.RUN_FAILED),
        (MissingCounters("none of its counters", names=["a"]), 125, Failure.METRIC_UNDEFINED),
        (RuntimeError("a bug"), 128, None),
        (errors.HarnessError("cannot write the results store"), 128, None),
        (errors.ConfigError("bad --metric"), 128, None),
        (errors.EngineUnavailable("no docker"), 128, None),
        (errors.ImageError("no image"), 128, None),
        (errors.Interrupted("interrupted"), 130, None),
        (KeyboardInterrupt(), 130, None),
    ],
)
def test_exit_codes_for_errors(exc: BaseException, code: int, failure: str | None) -> None:
    assert exit_code_for_error(exc) == code
    assert code not in (255, -1) and (code in (0, 1, 125) or code >= 128)
    outcome = outcome_for_error(exc)
    assert (outcome.failure if outcome else None) == failure
    assert EXIT_ABORT == 128 and EXIT_INTERRUPTED == 130


# --- stored measurements (re-running a bisect measures nothing) ----------------------------------------


def test_rerun_reuses_the_stored_measurements(tmp_path: Path) -> None:
    metric = parse_metric("hit / (hit + miss)")
    n, k = 33, 20
    counters = [{"hit": 9, "miss": 1} if i < k else {"hit": 5, "miss": 5} for i in range(n)]
    counters[12] = None  # does not build
    counters[25] = {"hit": 0, "miss": 0}  # division by zero
    cache = Measurements(tmp_path / "results.sqlite")
    commits = shas(n)
    builds: list[int] = []

    def measure(i: int) -> Outcome:
        hit = cache.get(commits[i], "recipe", "nbody")
        if hit is not None:
            return outcome_of(hit, metric)
        builds.append(i)
        if counters[i] is None:
            failed = cache.put(
                commits[i], "recipe", "nbody", failure=Failure.BUILD_FAILED, detail="make: *** [python] Error 1"
            )
            return outcome_of(failed, metric)
        return outcome_of(cache.put(commits[i], "recipe", "nbody", counters=counters[i]), metric)

    judge = Judge.from_endpoints(measure(0).value, measure(n - 1).value)  # type: ignore[arg-type]
    first = bisect(commits, measure, judge)
    assert first.first_bad == k
    built = list(builds)
    builds.clear()
    second = bisect(commits, measure, judge)
    assert builds == [] and second.first_bad == k
    assert [(t.index, t.status) for t in second.tested] == [(t.index, t.status) for t in first.tested]
    # any metric over the stored counters reuses them
    other = parse_metric("miss / (miss + hit)")
    assert outcome_of(cache.get(commits[0], "recipe", "nbody"), other).value == pytest.approx(0.1)  # type: ignore[arg-type]
    with Store.open(tmp_path / "results.sqlite") as store:
        assert store.counts()["measurements"] == len(built)


def test_stored_failures_and_retry_policy(tmp_path: Path) -> None:
    cache = Measurements(tmp_path / "results.sqlite")
    metric = parse_metric("a / b")
    cache.put("s1", "r", "w", failure=Failure.BUILD_FAILED, detail="make failed")
    cache.put("s2", "r", "w", failure=Failure.RUN_FAILED, detail="timed out")
    cached = cache.get("s1", "r", "w")
    assert cached is not None and outcome_of(cached, metric) == Outcome.failed(Failure.BUILD_FAILED, "make failed")
    assert cache.get("s2", "r", "w") is None  # a run failure is retried ...
    assert cache.get("s2", "r", "w", retry=()) is not None  # ... unless asked not to
    assert cache.get("s1", "other recipe", "w") is None
    assert cache.get("s1", "r", "other workload") is None
    stored = cache.put("s3", "r", "w", counters={"a": 1, "b": 4, "unrelated": 7}, extra={"build_key": "abc"})
    assert stored.counters == {"a": 1, "b": 4, "unrelated": 7} and stored.extra == {"build_key": "abc"}
    assert stored.measured_at.endswith("+00:00")
    assert cache.get("s3", "r", "w") == stored
    assert outcome_of(cache.get("s3", "r", "w"), parse_metric("c + d")).failure == Failure.METRIC_UNDEFINED  # type: ignore[arg-type]
    cache.put("s2", "r", "w", counters={"a": 2.0, "b": 1.0})  # the retried run replaces its failure
    assert outcome_of(cache.get("s2", "r", "w"), metric) == Outcome.ok(2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        cache.put("s4", "r", "w")
    with pytest.raises(ValueError):
        cache.put_failure("s4", "r", "w", Outcome.ok(1.0))
