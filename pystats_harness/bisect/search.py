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

import enum
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from pystats_harness.errors import ConfigError, EndpointsDoNotDiffer


class Direction(enum.StrEnum):
    UP = "up"  # the metric went up: bad means above the threshold
    DOWN = "down"  # bad means below the threshold


class Verdict(enum.StrEnum):
    GOOD = "good"
    BAD = "bad"
    SKIPPED = "skipped"


class Failure(enum.StrEnum):
    """Why a commit has no value."""

    CHECKOUT_FAILED = "checkout failed"
    PATCH_FAILED = "patch failed"
    BUILD_FAILED = "build failed"
    RUN_FAILED = "run failed"
    METRIC_UNDEFINED = "metric undefined"  # NaN (division by zero) or none of its counters present


def parse_direction(text: str | Direction | None) -> Direction | None:
    """``--direction`` as given (None: inferred from the endpoints)."""
    if text is None or text == "":
        return None
    try:
        return Direction(text)
    except ValueError:
        raise ConfigError(f"--direction must be 'up' or 'down' (got {text!r})") from None


@dataclass(frozen=True)
class Outcome:
    """What measuring one commit gave: a value, or a failure with its reason."""

    value: float | None = None
    failure: Failure | None = None
    detail: str = ""  # why it failed (error line, log path), or notes about the value

    def __post_init__(self) -> None:
        if (self.value is None) == (self.failure is None):
            raise ValueError("an Outcome has either a value or a failure")
        if self.failure is not None:
            object.__setattr__(self, "failure", Failure(self.failure))

    @classmethod
    def ok(cls, value: float, detail: str = "") -> Outcome:
        return cls(value=float(value), detail=detail)

    @classmethod
    def failed(cls, failure: Failure | str, detail: str = "") -> Outcome:
        return cls(failure=Failure(failure), detail=detail)

    @property
    def usable(self) -> bool:
        return self.value is not None and math.isfinite(self.value)

    @property
    def number(self) -> float:
        """The value of a usable outcome (check :attr:`usable` first)."""
        if self.value is None or not math.isfinite(self.value):
            raise ValueError(f"outcome has no usable value ({self.reason})")
        return self.value

    @property
    def reason(self) -> str:
        """A failure as one phrase (``"build failed: make returned 2"``); "" for a usable value."""
        if self.usable:
            return ""
        if self.failure is None:
            return f"{Failure.METRIC_UNDEFINED}: value is {self.value}"
        return f"{self.failure}: {self.detail}" if self.detail else self.failure


def _normalised(outcome: Outcome) -> Outcome:
    """A NaN or infinite value cannot be judged: it becomes a METRIC_UNDEFINED failure."""
    if outcome.value is not None and not math.isfinite(outcome.value):
        detail = f"value is {outcome.value}" + (f"; {outcome.detail}" if outcome.detail else "")
        return Outcome.failed(Failure.METRIC_UNDEFINED, detail)
    return outcome


@dataclass(frozen=True)
class Judge:
    """Decides whether a value is good or bad."""

    good_value: float
    bad_value: float
    threshold: float
    direction: Direction
    threshold_explicit: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "direction", Direction(self.direction))

    @classmethod
    def from_endpoints(
        cls,
        good_value: float,
        bad_value: float,
        *,
        threshold: float | None = None,
        direction: str | Direction | None = None,
    ) -> Judge:
        """Threshold: the midpoint of good and bad unless given.  Direction: from good vs bad unless given."""
        given = parse_direction(direction)
        if threshold is not None and not math.isfinite(threshold):
            raise ConfigError(f"--threshold must be a finite number (got {threshold!r})")
        inferred = Direction.DOWN if bad_value < good_value else Direction.UP
        return cls(
            float(good_value),
            float(bad_value),
            float(threshold) if threshold is not None else (good_value + bad_value) / 2,
            given or inferred,
            threshold is not None,
        )

    def is_bad(self, value: float) -> bool:
        if not math.isfinite(value):
            raise ValueError(f"cannot judge a non-finite value ({value})")
        return value > self.threshold if self.direction is Direction.UP else value < self.threshold

    def verdict(self, value: float) -> Verdict:
        return Verdict.BAD if self.is_bad(value) else Verdict.GOOD

    def confidence(self, value: float) -> float:
        """Distance from the threshold in units of half the good–bad gap: 0 at the threshold, about 1
        at the endpoints' values (as bench_runner's log shows it); inf if good equals bad."""
        half = abs(self.bad_value - self.good_value) / 2
        return abs(value - self.threshold) / half if half else math.inf

    def describe(self) -> str:
        """``"bad means > 0.5"``."""
        return f"bad means {'>' if self.direction is Direction.UP else '<'} {self.threshold:.6g}"


def validate_endpoints(
    good_value: float,
    bad_value: float,
    judge: Judge,
    *,
    metric: str = "the metric",
    good_label: str = "good",
    bad_label: str = "bad",
) -> None:
    """Raise :class:`EndpointsDoNotDiffer` unless good judges good and bad judges bad."""
    for label, value in ((good_label, good_value), (bad_label, bad_value)):
        if not math.isfinite(value):
            raise EndpointsDoNotDiffer(
                f"{metric} is undefined ({value}) at {label}; a bisect needs a value "
                "at both ends (check the counter names and the workload)"
            )
    good_ok, bad_ok = not judge.is_bad(good_value), judge.is_bad(bad_value)
    if good_ok and bad_ok:
        return
    values = f"{good_label} gives {good_value:.6g} and {bad_label} gives {bad_value:.6g}"
    if good_value == bad_value:
        why = "they are equal, so there is no change to bisect"
    elif good_ok:
        why = f"both are good by '{judge.describe()}', so there is nothing to find"
    elif bad_ok:
        why = f"both are bad by '{judge.describe()}', so the change is before {good_label}"
    else:
        why = f"by '{judge.describe()}' {good_label} is bad and {bad_label} is good"
    fix = (
        "swap --good/--bad or pass --direction " + ("down" if judge.direction == "up" else "up")
        if not good_ok and not bad_ok and not judge.threshold_explicit
        else "check --good/--bad, --direction and --threshold"
    )
    raise EndpointsDoNotDiffer(f"{metric}: {values}; {why}; {fix}")


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
    memo: dict[int, Outcome] = {0: Outcome.ok(judge.good_value), n - 1: Outcome.ok(judge.bad_value)}
    for i, o in (known or {}).items():
        if not 0 <= i < n:
            raise ValueError(f"known outcome for index {i} outside the path of {n} commits")
        memo[i] = _normalised(o)
    steps: dict[int, int] = {}
    for end in (0, n - 1):
        outcome = memo[end]
        if not outcome.usable or judge.is_bad(outcome.number) != (end == n - 1):
            raise EndpointsDoNotDiffer(
                f"commit index {end} ({commits[end][:12]}) must be "
                f"{'bad' if end else 'good'}: {outcome.reason or outcome.value}"
            )
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
            memo[index] = _normalised(measure(index))
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
    return BisectResult(tuple(commits), judge, tested, lo, hi, measured)
