"""Who measures commits: this machine (one at a time) or the workers of a Dask cluster (K at a time).

:func:`open_fleet` gives a :class:`Fleet` with ``width`` (K of the k-ary search) and ``measure_many``;
with ``pystats.cluster`` empty it is today's local :class:`~pystats_harness.bisect.measurer.Measurer`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from pystats_harness.bisect.measurer import Measured, Measurer
from pystats_harness.bisect.metric import Metric
from pystats_harness.bisect.remote import MeasureUnit, UnitResult, measure_unit
from pystats_harness.bisect.workload import Workload
from pystats_harness.cluster.client import Cluster
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo


@dataclass
class Fleet:
    """``measure_many(commits)`` in order; ``builds`` counts builds that ran (failed ones included)."""

    width: int
    run: Callable[[Sequence[CommitInfo]], list[Measured]]
    where: str  # "this machine" or the scheduler's address
    unfit: dict[str, str] = field(default_factory=dict)  # worker name -> why it took no units
    builds: int = 0

    def measure_many(self, commits: Sequence[CommitInfo]) -> list[Measured]:
        records = self.run(commits)
        self.builds += sum(r.built for r in records)
        return records


@contextmanager
def open_fleet(ctx: Context, metric: Metric, workload: Workload) -> Iterator[Fleet]:
    """The local measurer, or a connection to ``ctx.settings.cluster`` (ClusterUnavailable, exit 18)."""
    if not ctx.settings.cluster:
        measurer = Measurer(ctx, metric, workload)

        def local(commits: Sequence[CommitInfo]) -> list[Measured]:
            return [measurer.measure(commit) for commit in commits]

        yield Fleet(1, local, "this machine")
        return
    if workload.name.endswith(".py"):
        raise ConfigError("a workload script cannot be sent to cluster workers yet; use a suite workload")
    with Cluster[MeasureUnit, UnitResult](ctx.settings.cluster) as cluster:
        for worker, why in cluster.workers.unfit.items():
            ctx.reporter.warn(f"cluster worker {worker} takes no units: {why}")

        def remote(commits: Sequence[CommitInfo]) -> list[Measured]:
            units = [MeasureUnit(c, metric.expression, workload.name, workload.loops) for c in commits]
            return [r.measured() for r in cluster.run_units(measure_unit, units)]

        fleet = Fleet(cluster.size, remote, ctx.settings.cluster, cluster.workers.unfit)
        yield fleet
