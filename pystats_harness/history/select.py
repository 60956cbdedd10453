"""Which commits and benchmarks a history measures, and where its metrics move (all pure)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pystats_harness.errors import ConfigError
from pystats_harness.pyperformance.benchmarks import Suite, select


def pick(n: int, *, every: int | None = None, count: int | None = None) -> list[int]:
    """Indices of the ``n`` commits of a range (0 = --from, n-1 = --to) to measure; both ends always.

    ``every``: every N-th commit from --from (N >= 1); ``count``: M commits (M >= 2) spread evenly;
    neither: every commit."""
    if every is not None and count is not None:
        raise ConfigError("give --every or --count, not both")
    if every is not None and every < 1:
        raise ConfigError(f"--every {every}: measure at least every commit (--every 1) or a wider step")
    if count is not None and count < 2:
        raise ConfigError(f"--count {count}: a history needs at least the two ends (--count 2)")
    if n < 2:
        raise ConfigError("the range holds a single commit; give --from an older commit than --to")
    if count is not None:
        m = min(count, n)
        return sorted({round(j * (n - 1) / (m - 1)) for j in range(m)})
    step = every or 1
    return sorted({*range(0, n, step), n - 1})


@dataclass(frozen=True)
class ChangePoint:
    """A metric moving by more than the threshold between two measured commits (``after`` is the
    commit it moved at, or the end of the stretch where it moved when commits were skipped)."""

    metric: str
    before: int  # position in the measured list
    after: int
    old: float
    new: float

    @property
    def relative(self) -> float:
        if self.old == 0:
            return math.inf if self.new != 0 else 0.0
        return (self.new - self.old) / abs(self.old)


def change_points(metric: str, values: Sequence[float | None], threshold: float) -> list[ChangePoint]:
    """Where ``|new - old| / |old| > threshold`` between consecutive measured values (None: no value)."""
    points, last = [], None
    for i, value in enumerate(values):
        if value is None or not math.isfinite(value):
            continue
        if last is not None:
            point = ChangePoint(metric, last, i, values[last], value)  # type: ignore[arg-type]
            if abs(point.relative) > threshold:
                points.append(point)
        last = i
    return points


def choose_benchmarks(suite: Suite, spec: str) -> tuple[list[str], list[str]]:
    """``--benchmarks SPEC`` (collect's syntax: names, groups, ``-x``) -> (measured, left out): a history
    runs each benchmark's timed function on the manual path, so benchmarks whose timed code is not a
    callable (commands, async) are left out of a group; one named explicitly is exit 2 (at resolution)."""
    chosen = select(suite, spec)
    named = {item.strip() for item in spec.split(",")}
    usable = [b.name for b in chosen if b.directly_callable or b.name in named]
    left_out = [b.name for b in chosen if b.name not in usable]
    if not usable:
        raise ConfigError(f"--benchmarks {spec!r} holds no benchmark whose timed function runs directly")
    return usable, left_out
