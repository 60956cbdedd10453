"""Who measures commits, as bisect and history see it: the dispatcher's units of
:class:`~pystats_harness.measure.measurer.MeasureWork`, one per commit (one build, then each workload).

:func:`open_fleet` gives a :class:`Fleet` with ``width`` (K of the k-ary search: 1 here, the workers
that take units on a cluster), ``measure_grid`` (every workload at every commit) and ``measure_many``
(the first workload). Where the units run is the dispatcher's decision alone; on a cluster, a commit
whose every workload this machine's results store holds is not sent at all, and what the workers send back
is kept there too, so a re-run or a widened range sends only what is new.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from pystats_harness.builder.configurations import DEFAULT, ConfigName
from pystats_harness.builder.recipe import Recipe
from pystats_harness.dispatch.dispatcher import Dispatcher, open_dispatcher
from pystats_harness.dispatch.units import Unit
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.measure.measurer import Measured, MeasureWork, Row
from pystats_harness.measure.metric import Metric
from pystats_harness.measure.workload import Workload


@dataclass
class Fleet:
    """``measure_grid(commits)``: a row per commit; ``builds`` counts commits whose build ran (failed
    ones included)."""

    dispatcher: Dispatcher
    work: MeasureWork
    config: ConfigName = DEFAULT
    builds: int = 0

    @property
    def width(self) -> int:
        return self.dispatcher.width

    @property
    def where(self) -> str:
        return self.dispatcher.where

    @property
    def unfit(self) -> dict[str, str]:
        return dict(self.dispatcher.unfit)

    @property
    def sent(self) -> int:
        """Commits sent to cluster workers (0 here)."""
        return self.dispatcher.sent

    def measure_grid(self, commits: Sequence[CommitInfo]) -> list[Row]:
        rows = self.dispatcher.run([Unit(Recipe(c, "auto", self.config), self.work) for c in commits])
        self.builds += sum(any(r.built for r in row) for row in rows)
        return rows

    def measure_many(self, commits: Sequence[CommitInfo]) -> list[Measured]:
        """The first workload at each commit (a bisect has one)."""
        return [row[0] for row in self.measure_grid(commits)]


@contextmanager
def open_fleet(
    ctx: Context, metric: Metric, workloads: Sequence[Workload], config: ConfigName = DEFAULT
) -> Iterator[Fleet]:
    """Commits measured where the dispatcher decides (a cluster that does not answer: exit 18), each built
    in configuration ``config``."""
    with open_dispatcher(ctx) as dispatcher:
        yield Fleet(dispatcher, MeasureWork.of(metric, workloads), config)
