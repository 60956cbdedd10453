"""The bisection core: find the first commit whose metric is "bad", stepping around broken commits.

Independent of how values are obtained.  The caller passes the commits of the ancestry path from good
(index 0) to bad (last index), a :class:`Judge` made from the good and bad values (both measured and
checked with :func:`validate_endpoints` before the search), and ``measure(index) -> Outcome``.

The search keeps ``lo`` (latest known good) and ``hi`` (earliest known bad) and measures the middle
of the interval.  A commit that cannot be measured (checkout, patch, build or run failed, or the metric
is undefined there) is skipped: its neighbours inside the interval are tried, nearest first
(``mid+1, mid-1, mid+2, ...``), as asv's ``find`` does.  Every index is measured at most once.  When
every commit strictly between ``lo`` and ``hi`` has failed, the first bad commit is one of
``lo+1 .. hi`` and the result says so (:attr:`BisectResult.candidates`) instead of guessing.

Without failures a path of N commits takes ``ceil(log2(N-1))`` measurements besides the two
endpoints, so at most ``ceil(log2(N)) + 2`` builds in all.

Judging: ``direction="up"`` means the metric went up (bad when ``value > threshold``), ``"down"``
that it went down (bad when ``value < threshold``).  A value exactly at the threshold is good.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from pystats_harness.bisect.judge import Judge, Verdict
from pystats_harness.errors import ConfigError, EndpointsDoNotDiffer
from pystats_harness.measure.outcome import Outcome, normalised


@dataclass(frozen=True)
class Tested:
    """One commit with a known outcome; step 0 means it was known before the search (the endpoints)."""

    index: int
    sha: str
    outcome: Outcome
    status: Verdict
    step: int

    @property
    def value(self) -> float | None:
        return self.outcome.value if self.outcome.usable else None

    @property
    def reason(self) -> str:
        return self.outcome.reason


@dataclass(frozen=True)
class BisectResult:
    """Where the metric changed, and everything that was measured on the way."""

    commits: tuple[str, ...]
    judge: Judge
    tested: tuple[Tested, ...]  # sorted by index
    last_good: int  # latest index known good
    earliest_bad: int  # earliest index known bad
    measurements: int  # calls to measure() made by this search (endpoints excluded)
    rounds: int = 0  # batches of measurements (k-ary search: up to K at once; binary: one each); 0 = unknown

    @property
    def exact(self) -> bool:
        return self.earliest_bad - self.last_good == 1

    @property
    def first_bad(self) -> int | None:
        """The first bad index, or None when skipped commits leave several candidates."""
        return self.earliest_bad if self.exact else None

    @property
    def candidates(self) -> tuple[int, ...]:
        """Indices that may be the first bad commit (one when exact; the skipped ones plus earliest_bad)."""
        return tuple(range(self.last_good + 1, self.earliest_bad + 1))

    @property
    def skipped(self) -> tuple[Tested, ...]:
        return tuple(t for t in self.tested if t.status is Verdict.SKIPPED)

    def at(self, index: int) -> Tested | None:
        return next((t for t in self.tested if t.index == index), None)


def estimate_remaining_steps(lo: int, hi: int) -> int:
    """Measurements still needed to close ``lo < first bad <= hi`` if none fails: ``ceil(log2(hi - lo))``."""
    return math.ceil(math.log2(hi - lo)) if hi - lo > 1 else 0


def _probe_order(lo: int, hi: int) -> Iterator[int]:
    """Indices strictly between lo and hi: the middle first, then its neighbours nearest first."""
    mid = (lo + hi) // 2
    yield mid
    for d in range(1, hi - lo):
        yield from (i for i in (mid + d, mid - d) if lo < i < hi)


OnStart = Callable[[int, int, int], None]  # (step, remaining estimate, index) before measuring
OnStep = Callable[[int, int, int, Outcome], None]  # (step, remaining estimate, index, outcome) after


def seed_outcomes(commits: Sequence[str], judge: Judge, known: Mapping[int, Outcome] | None) -> dict[int, Outcome]:
    """The endpoints from the judge's values plus ``known``; the endpoints must be good and bad."""
    n = len(commits)
    memo: dict[int, Outcome] = {0: Outcome.ok(judge.good_value), n - 1: Outcome.ok(judge.bad_value)}
    for i, o in (known or {}).items():
        if not 0 <= i < n:
            raise ValueError(f"known outcome for index {i} outside the path of {n} commits")
        memo[i] = normalised(o)
    for end in (0, n - 1):
        outcome = memo[end]
        if not outcome.usable or judge.is_bad(outcome.number) != (end == n - 1):
            raise EndpointsDoNotDiffer(
                f"commit index {end} ({commits[end][:12]}) must be "
                f"{'bad' if end else 'good'}: {outcome.reason or outcome.value}"
            )
    return memo


def bisect(
    commits: Sequence[str],
    measure: Callable[[int], Outcome],
    judge: Judge,
    *,
    known: Mapping[int, Outcome] | None = None,
    on_start: OnStart | None = None,
    on_step: OnStep | None = None,
) -> BisectResult:
    """Find the first bad commit between ``commits[0]`` (good) and ``commits[-1]`` (bad).

    ``known`` seeds outcomes that need no measuring (by default the endpoints, from the judge's good
    and bad values).  ``measure`` is called at most once per index and never for a known one; an
    exception from it (Ctrl-C, an error that is the same for every commit) ends the search.
    """
    n = len(commits)
    if n < 2:
        raise ConfigError("a bisect needs at least two commits (good and bad)")
    memo = seed_outcomes(commits, judge, known)
    steps: dict[int, int] = {}
    lo, hi = 0, n - 1
    measured = 0
    while hi - lo > 1:
        index = next((i for i in _probe_order(lo, hi) if i not in memo or memo[i].usable), None)
        if index is None:
            break  # every commit between lo and hi failed: the result is a range
        fresh = index not in memo
        if fresh:
            measured += 1
            if on_start is not None:
                on_start(measured, estimate_remaining_steps(lo, hi), index)
            memo[index] = normalised(measure(index))
            steps[index] = measured
        outcome = memo[index]
        if outcome.usable:
            if judge.is_bad(outcome.number):
                hi = index
            else:
                lo = index
        if fresh and on_step is not None:
            on_step(measured, estimate_remaining_steps(lo, hi), index, outcome)
    tested = tuple(
        Tested(i, commits[i], o, judge.verdict(o.number) if o.usable else Verdict.SKIPPED, steps.get(i, 0))
        for i, o in sorted(memo.items())
    )
    return BisectResult(tuple(commits), judge, tested, lo, hi, measured, rounds=measured)
