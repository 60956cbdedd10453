"""k-ary bisection: with K workers, each round measures up to K commits spread evenly over the range.

Pure, like :mod:`pystats_harness.bisect.search` (which it falls back to for K = 1, so one worker or no
cluster is exactly today's bisect). A round picks K indices evenly spread over the commits strictly
between ``lo`` (latest known good) and ``hi`` (earliest known bad) that are not known to fail, measures
the new ones together (``measure_many``), and narrows the interval to the sub-interval between the
latest good and the earliest bad. Without failures the interval shrinks from ``g`` to at most
``ceil(g / (K + 1))`` per round, so a path of N commits takes ``ceil(log_(K+1)(N - 1))`` rounds. A
commit that cannot be measured is left out of the next rounds' spread: the picks move around it
(skip-around), and when every commit in the interval has failed the result is a range, as in search.py.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from pystats_harness.bisect.judge import Judge, Verdict
from pystats_harness.bisect.search import BisectResult, Tested, bisect, seed_outcomes
from pystats_harness.errors import ConfigError
from pystats_harness.measure.outcome import Outcome, normalised

MeasureMany = Callable[[Sequence[int]], Mapping[int, Outcome]]
OnRound = Callable[[int, int, Sequence[int]], None]  # (round, remaining rounds estimate, indices) before
OnDone = Callable[[int, int, int, Outcome], None]  # (round, remaining estimate, index, outcome) after each


def rounds_needed(gap: int, k: int) -> int:
    """Rounds to close ``lo < first bad <= hi`` with ``hi - lo = gap`` and no failures: smallest r with
    ``(k + 1) ** r >= gap`` (integers only: no floating-point logarithm at exact powers)."""
    rounds, reach = 0, 1
    while reach < gap:
        rounds, reach = rounds + 1, reach * (k + 1)
    return rounds


def spread(lo: int, hi: int, k: int, excluded: Collection[int] = ()) -> tuple[int, ...]:
    """Up to ``k`` indices strictly between ``lo`` and ``hi``, evenly spread over those not ``excluded``.

    With ``m`` candidates the j-th pick is candidate ``floor(j (m + 1) / (k + 1))`` (1-based), which for
    an unbroken interval is ``lo + floor(j (hi - lo) / (k + 1))``: the K + 1 sub-intervals differ in
    length by at most one."""
    candidates = [i for i in range(lo + 1, hi) if i not in excluded]
    m = len(candidates)
    if m <= k:
        return tuple(candidates)
    return tuple(sorted({candidates[(j * (m + 1)) // (k + 1) - 1] for j in range(1, k + 1)}))


def _narrow(memo: Mapping[int, Outcome], judge: Judge, last: int) -> tuple[int, int]:
    """(latest good before the earliest bad, earliest bad) from every usable outcome so far."""
    bad = [i for i, o in memo.items() if o.usable and judge.is_bad(o.number)]
    hi = min(bad, default=last)
    lo = max((i for i, o in memo.items() if o.usable and i < hi and not judge.is_bad(o.number)), default=0)
    return lo, hi


def kary_bisect(
    commits: Sequence[str],
    measure_many: MeasureMany,
    judge: Judge,
    k: int,
    *,
    known: Mapping[int, Outcome] | None = None,
    on_round: OnRound | None = None,
    on_done: OnDone | None = None,
) -> BisectResult:
    """Find the first bad commit measuring up to ``k`` commits per round (``k <= 1``: :func:`bisect`).

    ``measure_many(indices)`` returns an outcome for each index it was given (never a known one); an
    exception from it ends the search. ``Tested.step`` is the round a commit was measured in."""
    if len(commits) < 2:
        raise ConfigError("a bisect needs at least two commits (good and bad)")
    if k <= 1:
        return bisect(
            commits,
            lambda i: measure_many([i])[i],
            judge,
            known=known,
            on_start=None if on_round is None else lambda step, left, i: on_round(step, left, [i]),
            on_step=on_done,
        )
    memo = seed_outcomes(commits, judge, known)
    rounds: dict[int, int] = {}
    lo, hi = _narrow(memo, judge, len(commits) - 1)
    round_no = measured = 0
    while hi - lo > 1:
        picks = spread(lo, hi, k, excluded=[i for i, o in memo.items() if not o.usable])
        if not picks:
            break  # every commit between lo and hi failed: the result is a range
        round_no += 1
        if on_round is not None:
            on_round(round_no, rounds_needed(hi - lo, k), picks)
        outcomes = measure_many(picks)
        for index in picks:
            memo[index], rounds[index] = normalised(outcomes[index]), round_no
        measured += len(picks)
        lo, hi = _narrow(memo, judge, len(commits) - 1)
        for index in picks if on_done is not None else ():
            on_done(round_no, rounds_needed(hi - lo, k), index, memo[index])  # type: ignore[misc]
    tested = tuple(
        Tested(i, commits[i], o, judge.verdict(o.number) if o.usable else Verdict.SKIPPED, rounds.get(i, 0))
        for i, o in sorted(memo.items())
    )
    return BisectResult(tuple(commits), judge, tested, lo, hi, measured, rounds=round_no)
