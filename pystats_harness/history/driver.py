"""Measure a metric (or several) over a first-parent range of commits, here or on the cluster."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from pystats_harness.bisect.fleet import open_fleet
from pystats_harness.bisect.measurer import Measured
from pystats_harness.bisect.metric import Metric, parse_metric
from pystats_harness.bisect.workload import Workload, resolve_workload
from pystats_harness.errors import ConfigError, MissingCounters
from pystats_harness.history.select import ChangePoint, change_points, pick
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo, Mirror


@dataclass
class HistoryRun:
    path: list[CommitInfo]  # the whole first-parent range, oldest first
    picked: list[int]  # the indices measured
    metrics: list[Metric]
    records: list[Measured]  # one per picked commit
    values: dict[str, list[float | None]]  # metric expression -> value per picked commit
    changes: list[ChangePoint]
    workload: Workload
    threshold: float
    workers: int
    builds: int
    wall_seconds: float

    @property
    def commits(self) -> list[CommitInfo]:
        return [self.path[i] for i in self.picked]


def history_path(mirror: Mirror, start: str, end: str) -> list[CommitInfo]:
    """--from, then the first-parent commits up to --to; exit 2 for an empty or unrelated range."""
    a, b = mirror.resolve(start), mirror.resolve(end)
    if a.sha == b.sha:
        raise ConfigError(f"--from {start} and --to {end} are the same commit ({a.short}): the range is empty")
    if not mirror.is_ancestor(a.sha, b.sha):
        raise ConfigError(
            f"--from {start} ({a.short}) is not an ancestor of --to {end} ({b.short}); "
            "give the older commit as --from (swap them if --to is the older one)"
        )
    rest = mirror.ancestry_path(a.sha, b.sha, first_parent=True)
    if not rest or rest[-1].sha != b.sha:
        raise ConfigError(f"--to {end} ({b.short}) is not reached from --from {start} along first parents")
    return [a, *rest]


def _value(metric: Metric, rec: Measured) -> float | None:
    if not rec.outcome.usable and not rec.counters:
        return None
    try:
        value = metric.explain(rec.counters).value
    except MissingCounters:
        return None
    return value if math.isfinite(value) else None


def run_history(
    ctx: Context,
    *,
    start: str,
    end: str,
    workload: str,
    metrics: Sequence[str],
    every: int | None = None,
    count: int | None = None,
    threshold: float = 0.05,
    loops: int | None = None,
) -> HistoryRun:
    """Measure the picked commits (K at a time on a cluster) and flag where each metric moves."""
    started = time.perf_counter()
    if not metrics:
        raise ConfigError("give at least one --metric")
    if threshold <= 0:
        raise ConfigError(f"--threshold {threshold}: a relative change must be above 0 (e.g. 0.05 = 5%)")
    parsed = [parse_metric(m) for m in metrics]
    combined = parse_metric(" + ".join(f"({m.expression})" for m in parsed))  # measures every input once
    work = resolve_workload(workload, loops, ctx)
    path = history_path(Mirror(ctx.settings.mirror_dir), start, end)
    picked = pick(len(path), every=every, count=count)
    with open_fleet(ctx, combined, work) as fleet:
        ctx.reporter.info(f"measuring {len(picked)} of {len(path)} commits on {fleet.where} ({fleet.width} at a time)")
        records = fleet.measure_many([path[i] for i in picked])
    values = {m.expression: [_value(m, r) for r in records] for m in parsed}
    changes = [p for m in parsed for p in change_points(m.expression, values[m.expression], threshold)]
    wall = time.perf_counter() - started
    return HistoryRun(path, picked, parsed, records, values, changes, work, threshold, fleet.width, fleet.builds, wall)
