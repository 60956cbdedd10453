"""Value lists for the bisection tests, asv style (``None`` is a commit that cannot be measured): the
binary search over them, and what any answer of a search must satisfy."""

from __future__ import annotations

from collections.abc import Sequence

from pystats_harness.bisect.judge import Judge, validate_endpoints
from pystats_harness.bisect.search import BisectResult, bisect
from pystats_harness.measure.outcome import Failure, Outcome

Value = float | None


def shas(n: int) -> list[str]:
    """``n`` made-up shas, in order."""
    return [f"{i:040x}" for i in range(n)]


def bisect_values(
    values: Sequence[Value], *, threshold: float | None = None, direction: str | None = None
) -> tuple[BisectResult, list[int]]:
    """The binary search over ``values`` (endpoints judged as ``invoke bisect`` judges them), and the
    indices it measured, in order; fails if it measured one twice or an endpoint."""
    calls: list[int] = []

    def measure(i: int) -> Outcome:
        calls.append(i)
        v = values[i]
        return Outcome.failed(Failure.BUILD_FAILED, f"commit {i} does not build") if v is None else Outcome.ok(v)

    judge = Judge.from_endpoints(values[0], values[-1], threshold=threshold, direction=direction)  # type: ignore[arg-type]
    validate_endpoints(values[0], values[-1], judge)  # type: ignore[arg-type]
    result = bisect(shas(len(values)), measure, judge)
    assert len(calls) == len(set(calls)), f"measured twice: {calls}"
    assert 0 not in calls and len(values) - 1 not in calls
    assert result.measurements == len(calls)
    return result, calls


def assert_consistent(values: Sequence[Value], result: BisectResult) -> None:
    """lo is good, hi is bad, and everything strictly between could not be measured."""
    judge = result.judge
    lo, hi = result.last_good, result.earliest_bad
    assert 0 <= lo < hi <= len(values) - 1
    assert not judge.is_bad(values[lo]) and judge.is_bad(values[hi])  # type: ignore[arg-type]
    assert all(values[i] is None for i in range(lo + 1, hi))
    assert result.candidates == tuple(range(lo + 1, hi + 1))
    assert (result.first_bad == hi) == result.exact
    tested = {t.index for t in result.tested}
    assert set(range(lo + 1, hi)) <= tested  # an ambiguous range is one of failures we really saw
