"""Who measures commits: this machine (one at a time) or the workers of a Dask cluster (K at a time).

:func:`open_fleet` gives a :class:`Fleet` with ``width`` (K of the k-ary search), ``measure_grid``
(every workload at every commit: one build per commit) and ``measure_many`` (the first workload); with
``pystats.cluster`` empty it is today's local :class:`~pystats_harness.measure.measurer.Measurer`.

On a cluster this machine's own result cache is read first (:class:`ClientResults`): a commit whose
every workload is there is not sent at all, and what the workers send back is kept there too, so a
re-run or a widened range sends only what is new.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.builder.obtain import plan_for
from pystats_harness.cluster.client import Cluster
from pystats_harness.dispatch.dispatcher import THIS_MACHINE, dispatch
from pystats_harness.errors import HarnessError
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.measurer import NOT_CACHED, Measured, Measurer, Source
from pystats_harness.measure.metric import Metric
from pystats_harness.measure.outcome import Failure
from pystats_harness.measure.resultcache import ResultCache
from pystats_harness.measure.unit import MeasureUnit, UnitResult, measure_unit
from pystats_harness.measure.workload import Workload

Row = tuple[Measured, ...]  # one commit: one record per workload, in the fleet's workload order


@dataclass
class Fleet:
    """``measure_grid(commits)``: a row per commit; ``builds`` counts builds that ran (failed ones included);
    ``sent`` counts commits sent to workers (0 here)."""

    width: int
    run: Callable[[Sequence[CommitInfo]], list[Row]]
    where: str  # "this machine" or the scheduler's address
    unfit: dict[str, str] = field(default_factory=dict)  # worker name -> why it took no units
    builds: int = 0
    sent: int = 0

    def measure_grid(self, commits: Sequence[CommitInfo]) -> list[Row]:
        rows = self.run(commits)
        self.builds += sum(r.built for row in rows for r in row)
        return rows

    def measure_many(self, commits: Sequence[CommitInfo]) -> list[Measured]:
        """The first workload at each commit (a bisect has one)."""
        return [row[0] for row in self.measure_grid(commits)]


class ClientResults:
    """This machine's result cache, read before units go out and filled with what comes back.

    Keys are the bisect's (sha, build key, workload, metric inputs); the build key is planned here, so
    a worker's result is found again when this machine plans the same recipe (same patches, flags and
    builder image id as the worker). Where this machine cannot plan a commit (no engine, say), nothing
    is looked up for it and the workers decide."""

    def __init__(self, ctx: Context, metric: Metric, workloads: Sequence[Workload], config: str = "default") -> None:
        self.ctx, self.metric, self.workloads, self.config = ctx, metric, list(workloads), config
        self.cache = ResultCache(ctx.settings.paths.measured_results)

    def _key(self, commit: CommitInfo) -> str | None:
        try:
            return plan_for(self.ctx, commit, "auto", self.config).key
        except HarnessError:
            return None

    def lookup(self, commit: CommitInfo) -> Row | None:
        """Every workload's record from the cache, or None if one of them is missing."""
        key = self._key(commit)
        if key is None:
            return None
        row = []
        for workload in self.workloads:
            cached = self.cache.get(commit.sha, key, workload.ident, self.metric.inputs)
            if cached is None:
                return None
            outcome = cached.outcome(self.metric)
            row.append(Measured(commit, outcome, Source.RESULT_CACHE, build_key=key, counters=cached.counters or {}))
        return tuple(row)

    def keep(self, results: Sequence[UnitResult]) -> None:
        for workload, result in zip(self.workloads, results, strict=True):
            if not result.build_key:
                continue
            args = (result.commit.sha, result.build_key, workload.ident, self.metric.inputs)
            if result.counters:
                self.cache.put(*args, counters=result.counters, extra={"worker": result.worker})
            elif result.outcome.failure not in (None, *NOT_CACHED, Failure.RUN_FAILED):
                self.cache.put_failure(*args, result.outcome)


def _local(ctx: Context, metric: Metric, workloads: Sequence[Workload], config: str) -> Fleet:
    measurers = [Measurer(ctx, metric, w, config) for w in workloads]

    def local(commits: Sequence[CommitInfo]) -> list[Row]:
        return [tuple(m.measure(commit) for m in measurers) for commit in commits]

    return Fleet(1, local, THIS_MACHINE)


def _remote(
    ctx: Context, cluster: Cluster[Any, Any], metric: Metric, workloads: Sequence[Workload], config: str
) -> Fleet:
    named = tuple((w.name, w.loops) for w in workloads)
    scripts = tuple((w.name, Path(w.target).read_bytes()) for w in workloads if w.name.endswith(".py"))
    known = ClientResults(ctx, metric, workloads, config)
    fleet = Fleet(cluster.size, lambda commits: [], cluster.address, cluster.workers.unfit)

    def remote(commits: Sequence[CommitInfo]) -> list[Row]:
        rows: dict[int, Row] = {i: row for i, c in enumerate(commits) if (row := known.lookup(c)) is not None}
        todo = [i for i in range(len(commits)) if i not in rows]
        units = [MeasureUnit(commits[i], metric.expression, named, scripts, config) for i in todo]
        fleet.sent += len(units)
        for i, results in zip(todo, cluster.run_units(measure_unit, units), strict=True):
            known.keep(results)
            rows[i] = tuple(r.measured() for r in results)
        return [rows[i] for i in range(len(commits))]

    fleet.run = remote
    return fleet


@contextmanager
def open_fleet(ctx: Context, metric: Metric, workloads: Sequence[Workload], config: str = "default") -> Iterator[Fleet]:
    """The local measurer, or the workers of the cluster (ClusterUnavailable, exit 18): as the dispatcher
    decides; every commit is built in configuration ``config``."""
    here, there = lambda: _local(ctx, metric, workloads, config), lambda c: _remote(ctx, c, metric, workloads, config)
    with dispatch(ctx, here, there) as fleet:
        yield fleet
