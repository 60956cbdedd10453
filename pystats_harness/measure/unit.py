"""The bisect's unit of work for a cluster: "build revision R (patches auto), then measure workload W for
the counters metric M needs", carried out on a Dask worker by :func:`measure_unit`.

The worker reads its own settings from its environment (``INVOKE_PYSTATS_*``: its cache directory,
engine, image), fetches the revision into its own mirror from its ``mirror_remote`` when it lacks it,
and measures through its build cache and result cache exactly as a local bisect does
(:class:`~pystats_harness.measure.measurer.Measurer`). Only the small result travels back: the outcome,
whether a build ran, the seconds, the worker's name. A worker without a usable engine answers
:class:`~pystats_harness.cluster.client.Unfit` and the unit is sent to another worker.

Build once, measure in parallel: :func:`measure_unit` is the build task (it holds the worker's ``build``
slot); it answers :class:`~pystats_harness.cluster.client.Then` with one :func:`measure_part` per
workload, which run on that worker without the slot, so they overlap with the next revision's build.
A revision that cannot be built is every workload's failed outcome (skipped, as locally).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.cluster.client import Fault, Then, Unfit, then
from pystats_harness.dispatch.worker import local_commit, on_worker
from pystats_harness.errors import HarnessError
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_bytes_atomic
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.measurer import Measured, Measurer, Source, failure_detail
from pystats_harness.measure.metric import parse_metric
from pystats_harness.measure.outcome import Failure, Outcome, outcome_for_error
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


@dataclass(frozen=True)
class MeasurePart:
    """One workload of a unit, measured on the worker that holds the unit's build."""

    unit: MeasureUnit
    index: int  # of the workload in ``unit.workloads``
    built: bool  # the build task ran a build (told by the first part only)
    build_seconds: float


def _failed(unit: MeasureUnit, exc: HarnessError, name: str, start: float) -> tuple[UnitResult, ...]:
    """The revision's failure as every workload's outcome (what a local measure gives)."""
    outcome = outcome_for_error(exc) or Outcome.failed(Failure.RUN_FAILED, str(exc).splitlines()[0])
    outcome = failure_detail(exc, outcome)
    seconds = {"total": time.perf_counter() - start}
    return tuple(UnitResult(unit.commit, outcome, Source.FAILED, False, "", name, seconds) for _ in unit.workloads)


def measure_unit(unit: MeasureUnit) -> tuple[UnitResult, ...] | Then | Unfit | Fault:
    """Run on a worker, holding its build slot: build one commit (through the worker's cache), then
    :class:`Then` a part per workload; never raises for the commit's own failures."""
    start = time.perf_counter()
    return on_worker(lambda ctx, name: _build(ctx, unit, name, start), lambda exc, n: _failed(unit, exc, n, start))


def _build(ctx: Context, unit: MeasureUnit, name: str, start: float) -> tuple[UnitResult, ...] | Then:
    plan = plan_for(ctx, local_commit(ctx, unit.commit), "auto", unit.config)
    try:
        built = obtain(ctx, plan).built
    except HarnessError as exc:
        outcome = outcome_for_error(exc)
        if outcome is None:
            raise
        seconds = {"build": time.perf_counter() - start, "total": time.perf_counter() - start}
        failed = UnitResult(unit.commit, failure_detail(exc, outcome), Source.FAILED, True, plan.key, name, seconds)
        return tuple(failed for _ in unit.workloads)
    took = time.perf_counter() - start
    parts = [
        (measure_part, MeasurePart(unit, i, built and i == 0, took if i == 0 else 0.0))
        for i in range(len(unit.workloads))
    ]
    return then(parts, join_parts)


def join_parts(results: list[UnitResult]) -> tuple[UnitResult, ...]:
    """The unit's result: its parts' results, in the order of its workloads."""
    return tuple(results)


def measure_part(part: MeasurePart) -> UnitResult | Unfit | Fault:
    """Run on the worker holding the build (without its build slot): measure one workload."""
    start = time.perf_counter()
    return on_worker(lambda ctx, name: _measure(ctx, part, name), lambda exc, n: _failed(part.unit, exc, n, start)[0])


def _measure(ctx: Context, part: MeasurePart, name: str) -> UnitResult:
    unit = part.unit
    workload, loops = unit.workloads[part.index]
    work = _workload(ctx, workload, loops, dict(unit.scripts))
    measurer = Measurer(ctx, parse_metric(unit.metric), work, unit.config)
    r = measurer.measure(local_commit(ctx, unit.commit))
    seconds = {**r.seconds, "build": part.build_seconds, "total": r.seconds.get("total", 0.0) + part.build_seconds}
    built = part.built or r.built
    return UnitResult(unit.commit, r.outcome, r.source, built, r.build_key, name, seconds, dict(r.counters))
