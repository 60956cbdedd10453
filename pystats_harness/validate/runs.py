"""What every step of a validation reads: the suite runs by (path, workload, loops), their counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pystats_harness.errors import RunFailed
from pystats_harness.measure.runs import PathRun, RunPath
from pystats_harness.stats.exact import as_counts

Finding = dict[str, Any]


@dataclass
class Runs:
    """Every suite run of one validation, by (path, workload, loops)."""

    results: dict[tuple[RunPath, str, int], PathRun | RunFailed] = field(default_factory=dict)

    def get(self, path: RunPath, workload: str, loops: int) -> PathRun:
        got = self.results[(path, workload, loops)]
        if isinstance(got, RunFailed):
            raise got
        return got


def counters(run: PathRun) -> dict[str, int]:
    """The run's counts, exact (a per-loop collection here is an error, not a float)."""
    return as_counts(run.collection.counters, f"{run.path} run of {run.workload}")
