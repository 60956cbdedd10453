"""Measure a metric (or several) over a first-parent range of commits, here or on the cluster, for one
workload or several pyperformance benchmarks (one build per commit; a series per metric and benchmark)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from pystats_harness.builder.configurations import DEFAULT, ConfigName
from pystats_harness.errors import ConfigError, MissingCounters
from pystats_harness.history.select import ChangePoint, change_points, choose_benchmarks, pick
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror
from pystats_harness.measure.fleet import open_fleet
from pystats_harness.measure.measurer import Measured, Row
from pystats_harness.measure.metric import Metric, parse_metric
from pystats_harness.measure.workload import PYPERFORMANCE, Workload, resolve_workload
from pystats_harness.pyperformance.benchmarks import read_suite
from pystats_harness.pyperformance.sites import benchmark_data_dir


@dataclass(frozen=True)
class Series:
    """One line of the history: a metric at one workload (named by the metric alone for one workload)."""

    name: str
    metric: Metric
    workload: int  # index into HistoryRun.workloads


@dataclass
class HistoryRun:
    path: list[CommitInfo]  # the whole first-parent range, oldest first
    picked: list[int]  # the indices measured
    metrics: list[Metric]
    rows: list[Row]  # one per picked commit: a record per workload
    series: list[Series]
    values: dict[str, list[float | None]]  # series name -> value per picked commit
    changes: list[ChangePoint]  # ChangePoint.metric is the series name
    workloads: list[Workload]
    threshold: float
    workers: int
    builds: int
    sent: int  # commits sent to cluster workers (the rest came from this machine's results store)
    wall_seconds: float
    configuration: str = "default"  # the build configuration every commit was built in

    @property
    def commits(self) -> list[CommitInfo]:
        return [self.path[i] for i in self.picked]

    @property
    def records(self) -> list[Measured]:
        """The first workload's record per commit (commit, worker, build)."""
        return [row[0] for row in self.rows]

    @property
    def label(self) -> str:
        return labelled(self.workloads)

    def failure(self, pos: int) -> str | None:
        """Why a commit has no value (the first workload that failed there), or None."""
        failed = [(w, r) for w, r in zip(self.workloads, self.rows[pos], strict=True) if not r.outcome.usable]
        if not failed:
            return None
        workload, rec = failed[0]
        return rec.outcome.reason if len(self.workloads) == 1 else f"{short_label(workload)}: {rec.outcome.reason}"


def history_path(mirror: Mirror, a: CommitInfo, b: CommitInfo) -> list[CommitInfo]:
    """--from (``a``), then the first-parent commits up to --to (``b``); exit 2 for an empty or unrelated range."""
    if a.sha == b.sha:
        raise ConfigError(f"--from {a.rev} and --to {b.rev} are the same commit ({a.short}): the range is empty")
    if not mirror.is_ancestor(a.sha, b.sha):
        raise ConfigError(
            f"--from {a.rev} ({a.short}) is not an ancestor of --to {b.rev} ({b.short}); "
            "give the older commit as --from (swap them if --to is the older one)"
        )
    rest = mirror.ancestry_path(a.sha, b.sha, first_parent=True)
    if not rest or rest[-1].sha != b.sha:
        raise ConfigError(f"--to {b.rev} ({b.short}) is not reached from --from {a.rev} along first parents")
    return [a, *rest]


def _value(metric: Metric, rec: Measured) -> float | None:
    if not rec.outcome.usable and not rec.counters:
        return None
    try:
        value = metric.explain(rec.counters).value
    except MissingCounters:
        return None
    return value if math.isfinite(value) else None


def history_workloads(ctx: Context, workload: str | None, benchmarks: str | None, loops: int | None) -> list[Workload]:
    """``--workload W`` (default nbody) or ``--benchmarks SPEC`` (see :func:`choose_benchmarks`)."""
    if not benchmarks:
        return [resolve_workload(workload or "nbody", loops, ctx)]
    usable, left_out = choose_benchmarks(read_suite(benchmark_data_dir(ctx)), benchmarks)
    if left_out:
        ctx.reporter.warn(f"left out (timed code not callable directly, see invoke collect): {', '.join(left_out)}")
    return [resolve_workload(f"{PYPERFORMANCE}{name}", loops, ctx) for name in usable]


def short_label(workload: Workload) -> str:
    """A workload as tables name it: ``nbody`` for pyperformance:nbody (a history's benchmarks)."""
    return workload.label.removeprefix(PYPERFORMANCE)


def labelled(workloads: Sequence[Workload]) -> str:
    """The workloads as a history's title names them: ``nbody,richards``."""
    return ",".join(short_label(w) for w in workloads)


def _series(metrics: Sequence[Metric], workloads: Sequence[Workload]) -> list[Series]:
    if len(workloads) == 1:
        return [Series(m.expression, m, 0) for m in metrics]
    return [Series(f"{m.expression} @ {short_label(w)}", m, i) for i, w in enumerate(workloads) for m in metrics]


@dataclass(frozen=True)
class HistoryRequest:
    """A history, typed at the edge: the range's ends resolved, the metrics parsed, the workloads found."""

    start: CommitInfo
    end: CommitInfo
    metrics: tuple[Metric, ...]
    workloads: tuple[Workload, ...]
    every: int | None = None
    count: int | None = None
    threshold: float = 0.05
    config: ConfigName = DEFAULT

    @classmethod
    def parse(
        cls,
        ctx: Context,
        *,
        start: str,
        end: str,
        metrics: Sequence[str],
        workload: str | None = None,
        benchmarks: str | None = None,
        every: int | None = None,
        count: int | None = None,
        threshold: float = 0.05,
        loops: int | None = None,
        config: ConfigName = DEFAULT,
    ) -> HistoryRequest:
        """The options checked in the order a user reads them, the range's ends resolved once, then the
        workloads (``--benchmarks`` needs the suite: the benchmark wheelhouse, made the first time, which a
        mistyped revision must not cost)."""
        if not metrics:
            raise ConfigError("give at least one --metric")
        if threshold <= 0:
            raise ConfigError(f"--min-change {threshold}: a relative change must be above 0 (e.g. 0.05 = 5%)")
        parsed = tuple(parse_metric(m) for m in metrics)
        if workload and benchmarks:
            raise ConfigError("give --workload or --benchmarks, not both")
        mirror = Mirror(ctx.settings.mirror_dir)
        first, last = mirror.resolve(start), mirror.resolve(end)
        works = tuple(history_workloads(ctx, workload, benchmarks, loops))
        return cls(first, last, parsed, works, every, count, threshold, config)


def run_history(ctx: Context, request: HistoryRequest) -> HistoryRun:
    """Measure the picked commits (K at a time on a cluster) and flag where each series moves."""
    started = time.perf_counter()
    parsed, works, config, threshold = list(request.metrics), list(request.workloads), request.config, request.threshold
    combined = parse_metric(" + ".join(f"({m.expression})" for m in parsed))  # measures every input once
    path = history_path(Mirror(ctx.settings.mirror_dir), request.start, request.end)
    picked = pick(len(path), every=request.every, count=request.count)
    with open_fleet(ctx, combined, works, config) as fleet:
        ctx.reporter.info(f"measuring {len(picked)} of {len(path)} commits on {fleet.where} ({fleet.width} at a time)")
        rows = fleet.measure_grid([path[i] for i in picked])
    series = _series(parsed, works)
    values = {s.name: [_value(s.metric, row[s.workload]) for row in rows] for s in series}
    changes = [p for s in series for p in change_points(s.name, values[s.name], threshold)]
    wall = time.perf_counter() - started
    return HistoryRun(
        path,
        picked,
        parsed,
        rows,
        series,
        values,
        changes,
        works,
        threshold,
        fleet.width,
        fleet.builds,
        fleet.sent,
        wall,
        config,
    )
