"""The bisect's unit of work for a cluster: "build revision R (patches auto), then measure workload W for
the counters metric M needs", carried out on a Dask worker by :func:`measure_unit`.

The worker reads its own settings from its environment (``INVOKE_PYSTATS_*``: its cache directory,
engine, image), fetches the revision into its own mirror from its ``mirror_remote`` when it lacks it,
and measures through its build cache and result cache exactly as a local bisect does
(:class:`~pystats_harness.measure.measurer.Measurer`). Only the small result travels back: the outcome,
whether a build ran, the seconds, the worker's name. A worker without a usable engine answers
:class:`~pystats_harness.cluster.client.Unfit` and the unit is sent to another worker.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.cluster.client import Unfit
from pystats_harness.dispatch.worker import local_commit, on_worker
from pystats_harness.errors import HarnessError
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_bytes_atomic
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.measurer import Measured, Measurer, Source
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome
from pystats_harness.measure.workload import Workload, resolve_workload


@dataclass(frozen=True)
class MeasureUnit:
    """What one worker does for one commit: one build, then each workload (a ``history --benchmarks`` sends
    several; the second and later ones find the build in the worker's cache)."""

    commit: CommitInfo
    metric: str  # the expression; parsed again on the worker
    workloads: tuple[tuple[str, int], ...]  # (suite workload, pyperformance:NAME or script path, loops)
    scripts: tuple[tuple[str, bytes], ...] = ()  # (script path as given, its bytes): scripts travel with the unit
    config: str = "default"  # the build configuration (its name; the worker reads configs/configurations.toml)


@dataclass(frozen=True)
class UnitResult:
    """The small result a worker sends back."""

    commit: CommitInfo
    outcome: Outcome
    source: Source
    built: bool
    build_key: str
    worker: str
    seconds: dict[str, float] = field(default_factory=dict)
    counters: dict[str, float] = field(default_factory=dict)  # the metric's inputs, per loop

    def measured(self) -> Measured:
        return Measured(
            self.commit,
            self.outcome,
            self.source,
            self.built,
            self.build_key,
            dict(self.seconds),
            worker=self.worker,
            counters=dict(self.counters),
        )


def _workload(ctx: Context, name: str, loops: int, scripts: dict[str, bytes]) -> Workload:
    """A workload on this worker; a script sent with the unit is written into the worker's cache under its
    digest and file name (its result-cache identity is the same as on the client: name and content)."""
    if name not in scripts:
        return resolve_workload(name, loops, ctx)
    data = scripts[name]
    path = ctx.settings.paths.unit_scripts / hashlib.sha256(data).hexdigest()[:16] / Path(name).name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, data)
    return resolve_workload(str(path), loops, ctx)


def measure_unit(unit: MeasureUnit) -> tuple[UnitResult, ...] | Unfit:
    """Run on a worker: build one commit and measure each workload (a result per workload, in order);
    never raises for the commit's own failures."""
    start = time.perf_counter()

    def failed(exc: HarnessError, name: str) -> tuple[UnitResult, ...]:  # would repeat at every commit
        outcome = Outcome.failed(Failure.RUN_FAILED, f"on worker {name}: {str(exc).splitlines()[0]}")
        seconds = {"total": time.perf_counter() - start}
        return tuple(UnitResult(unit.commit, outcome, Source.FAILED, False, "", name, seconds) for _ in unit.workloads)

    return on_worker(lambda ctx, name: _measure(ctx, unit, name), failed)


def _measure(ctx: Context, unit: MeasureUnit, name: str) -> tuple[UnitResult, ...]:
    commit = local_commit(ctx, unit.commit)
    metric = parse_metric(unit.metric)
    scripts = dict(unit.scripts)
    measurers = [Measurer(ctx, metric, _workload(ctx, w, n, scripts), unit.config) for w, n in unit.workloads]
    records = [m.measure(commit) for m in measurers]
    return tuple(
        UnitResult(unit.commit, r.outcome, r.source, r.built, r.build_key, name, dict(r.seconds), dict(r.counters))
        for r in records
    )
