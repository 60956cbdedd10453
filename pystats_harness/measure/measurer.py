"""One commit's value for a bisect or a history, as a unit's work: plan → stored measurement → build (through
the build cache) → run → metric.

:class:`MeasureWork` says what measuring is once the unit runner
(:mod:`pystats_harness.dispatch.runner`) has planned the commit's build: its result is looked up in the
:class:`~pystats_harness.measure.stored.Measurements` of the results store, keyed on (sha, build key,
workload id), where a hit needs no build and no run; otherwise the runner builds through the build cache and
:meth:`MeasureWork.run` runs the workload on the manual path, keeps every per-loop counter and evaluates the
metric. Each workload is one part: on a cluster, the parts run beside the next commit's build.

A commit that cannot be planned, patched, built or run becomes a failed :class:`Outcome` (the search
steps around it); an error that would repeat at every commit (no engine, bad setting, Ctrl-C) ends
the run.
"""

from __future__ import annotations

import enum
import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from pystats_harness.builder.configurations import DEFAULT, ConfigName
from pystats_harness.builder.recipe import Recipe
from pystats_harness.builder.upstream import UpstreamPatch, describe_all
from pystats_harness.dispatch.dispatcher import this_machine
from pystats_harness.dispatch.units import Attempt, Emit, Unit, Work
from pystats_harness.errors import BuildFailed
from pystats_harness.infra.commits import CommitInfo
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_bytes_atomic
from pystats_harness.measure.metric import Metric, parse_metric
from pystats_harness.measure.outcome import Failure, Outcome, outcome_for_error
from pystats_harness.measure.runs import Shape, run_manual
from pystats_harness.measure.stored import Measurements, outcome_of
from pystats_harness.measure.workload import Workload, resolve_workload
from pystats_harness.pyperformance.place import manual_per_loop
from pystats_harness.results import Measurement

#: Failures that are not kept in the results store: cheap to find again, or not the commit's fault.
NOT_CACHED = (Failure.METRIC_UNDEFINED, Failure.CHECKOUT_FAILED)


def with_unexecuted_opcodes(counters: Mapping[str, float], opnames: Sequence[str]) -> dict[str, float]:
    """Pure: ``counters`` with ``opcode.<name>.execution_count`` 0 for each opcode of the build (its names.json)
    that the dump leaves out, since a dump prints only counts that are not 0: a metric over an opcode the
    build has but the workload never executed is 0 there (``LOAD_FAST`` on nbody once 3.14.0a7 made every
    one ``LOAD_FAST_BORROW``), not undefined; a name the build does not have stays absent. A dump that counted
    no opcode at all (nothing ran inside the bracket) is left as it is: its metric stays undefined, not 0."""
    if not any(name.startswith("opcode.") and name.endswith(".execution_count") for name in counters):
        return dict(counters)
    zeros = {
        f"opcode.{name}.execution_count": 0.0
        for name in opnames
        if name and not name.startswith("<") and f"opcode.{name}.execution_count" not in counters
    }
    return {**counters, **zeros}


class Source(enum.StrEnum):
    RESULTS_STORE = "results store"
    MEASURED = "measured"
    FAILED = "failed"


@dataclass
class Measured:
    """One commit's outcome and what it took."""

    commit: CommitInfo
    outcome: Outcome
    source: Source
    built: bool = False  # a build ran (not a build-cache hit), successful or not
    build_key: str = ""
    seconds: dict[str, float] = field(default_factory=dict)  # plan, build, run, total
    error: BaseException | None = field(default=None, repr=False)
    worker: str = ""  # the Dask worker that measured it ("" = this machine)
    counters: Mapping[str, float] = field(default_factory=dict, repr=False)  # every counter, per loop
    upstream: str = ""  # how the build was changed from upstream ("repaired with upstream 23e4f80ce2 (…)")

    def __getstate__(self) -> dict[str, Any]:
        """What travels from a worker: everything but the error (an exception may not survive the trip)."""
        return {**self.__dict__, "error": None}

    def to_dict(self, index: int, label: str) -> dict[str, Any]:
        return {
            "index": index,
            "label": label,
            "sha": self.commit.sha,
            "source": self.source.value,
            "built": self.built,
            "build_key": self.build_key,
            "value": self.outcome.value,
            "failure": self.outcome.failure.value if self.outcome.failure else None,
            "detail": self.outcome.detail,
            "seconds": {k: round(v, 2) for k, v in self.seconds.items()},
            "worker": self.worker,
            "upstream": self.upstream,
        }


def failure_detail(exc: BaseException, outcome: Outcome) -> Outcome:
    """A build failure's reason with the compiler's first error line and the log path."""
    if not isinstance(exc, BuildFailed):
        return outcome
    first = exc.first_error()
    detail = f"{exc.phase} failed for {exc.commit} (exit {exc.status})" + (f": {first[:200]}" if first else "")
    return Outcome.failed(outcome.failure or Failure.BUILD_FAILED, f"{detail}; full log: {exc.log_path}")


Row = tuple[Measured, ...]  # one commit: one record per workload, in the work's order


@dataclass(frozen=True)
class MeasureWork(Work[Row]):
    """Measure ``metric`` with each workload (suite name, pyperformance:NAME or script path, and its loops);
    scripts travel with the work as bytes. ``fresh``: run again, neither reading nor storing a
    measurement (the build cache is still used)."""

    metric: str
    workloads: tuple[tuple[str, int], ...]
    scripts: tuple[tuple[str, bytes], ...] = ()
    fresh: bool = False
    beside_builds: ClassVar[bool] = True
    keeps_results: ClassVar[bool] = True

    @classmethod
    def of(cls, metric: Metric, workloads: Sequence[Workload], *, fresh: bool = False) -> MeasureWork:
        named = tuple((w.name, w.loops) for w in workloads)
        scripts = tuple((w.name, Path(w.target).read_bytes()) for w in workloads if w.name.endswith(".py"))
        return cls(metric.expression, named, scripts, fresh)

    def parts(self) -> Sequence[MeasureWork]:
        return [replace(self, workloads=(w,)) for w in self.workloads] if len(self.workloads) > 1 else [self]

    def join(self, results: list[Row]) -> Row:
        return tuple(m for row in results for m in row)

    def cached(self, ctx: Context, attempt: Attempt) -> Row | None:
        plan = attempt.plan
        if self.fresh or plan is None:
            return None
        metric, cache, row = parse_metric(self.metric), Measurements(ctx.settings.paths.results_db), []
        for name, loops in self.workloads:
            found = cache.get(plan.commit.sha, plan.key, self._workload(ctx, name, loops).ident)
            if found is None:
                return None
            row.append(
                Measured(
                    plan.commit,
                    outcome_of(found, metric),
                    Source.RESULTS_STORE,
                    build_key=plan.key,
                    worker=attempt.worker,
                    counters=dict(found.counters or {}),
                    upstream=describe_all(plan.upstream),
                )
            )
        return tuple(row)

    def run(self, ctx: Context, attempt: Attempt, emit: Emit) -> Row:
        ((name, loops),) = self.workloads
        workload, metric, obtained = self._workload(ctx, name, loops), parse_metric(self.metric), attempt.build
        entry, start = obtained.entry, time.perf_counter()
        ctx.reporter.phase(f"running {workload.label} × {workload.loops}")
        if workload.benchmark is not None:
            counters, run_dir = manual_per_loop(ctx, entry, workload.benchmark, workload.loops)
        else:
            run = run_manual(ctx, entry, workload.target, Shape(workload.loops))
            counters, run_dir = run.per_loop, run.runs[0].run_dir
        seconds = {**attempt.seconds, "run": time.perf_counter() - start}
        seconds["total"] = sum(seconds.values())
        names = entry.names()
        counters = with_unexecuted_opcodes(counters, names.opnames if names is not None else ())
        if not any(name in counters for name in metric.inputs):
            metric.explain(counters)  # raises MissingCounters with "did you mean" hints; not cached
        extra = {"run_dir": str(run_dir), "build": entry.key, "seconds": {k: round(v, 2) for k, v in seconds.items()}}
        sha, key = obtained.plan.commit.sha, obtained.plan.key
        if self.fresh:  # the same evaluation as a stored measurement, kept only in memory
            stored = Measurement(sha, key, workload.ident, dict(counters), extra=extra)
        else:
            stored = Measurements(ctx.settings.paths.results_db).put(
                sha, key, workload.ident, counters=counters, extra=extra
            )
        return (
            Measured(
                obtained.plan.commit,
                outcome_of(stored, metric),
                Source.MEASURED,
                attempt.built,
                key,
                seconds,
                worker=attempt.worker,
                counters=dict(stored.counters or {}),
                upstream=describe_all(obtained.plan.upstream),
            ),
        )

    def failed(self, ctx: Context, attempt: Attempt, error: Exception) -> Row | None:
        outcome = outcome_for_error(error)
        if outcome is None:
            return None
        outcome, plan = failure_detail(error, outcome), attempt.plan
        key = plan.key if plan is not None else ""
        if not self.fresh and key and outcome.failure not in NOT_CACHED:
            cache = Measurements(ctx.settings.paths.results_db)
            for name, loops in self.workloads:
                cache.put_failure(attempt.recipe.commit.sha, key, self._workload(ctx, name, loops).ident, outcome)
        seconds = {**attempt.seconds, "total": sum(attempt.seconds.values())}
        upstream = describe_all(plan.upstream) if plan is not None else ""
        return tuple(
            Measured(
                attempt.recipe.commit,
                outcome,
                Source.FAILED,
                attempt.built,
                key,
                dict(seconds),
                error,
                attempt.worker,
                upstream=upstream,
            )
            for _ in self.workloads
        )

    def keep(self, ctx: Context, result: Row) -> None:
        cache = Measurements(ctx.settings.paths.results_db)
        for (name, loops), measured in zip(self.workloads, result, strict=True):
            if not measured.build_key:
                continue
            args = (measured.commit.sha, measured.build_key, self._workload(ctx, name, loops).ident)
            if measured.counters:
                cache.put(*args, counters=dict(measured.counters), extra={"worker": measured.worker})
            elif measured.outcome.failure not in (None, *NOT_CACHED, Failure.RUN_FAILED):
                cache.put_failure(*args, measured.outcome)

    def _workload(self, ctx: Context, name: str, loops: int) -> Workload:
        """A workload here; a script sent with the work is written into this machine's cache under its digest
        and file name (its stored measurements' identity is the same everywhere: name and content)."""
        scripts = dict(self.scripts)
        if name not in scripts:
            return resolve_workload(name, loops, ctx)
        data = scripts[name]
        path = ctx.settings.paths.unit_scripts / hashlib.sha256(data).hexdigest()[:16] / Path(name).name
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, data)
        return resolve_workload(str(path), loops, ctx)


class Measurer:
    """One workload's value at one commit after another, on this machine (a bisect's confirmation and
    ``bisect-run``); counts the builds that ran."""

    def __init__(self, ctx: Context, metric: Metric, workload: Workload, config: ConfigName = DEFAULT) -> None:
        self.ctx, self.metric, self.workload, self.config = ctx, metric, workload, config
        self.builds = 0  # builds that ran (build-cache misses), failed ones included

    def measure(self, commit: CommitInfo, *, fresh: bool = False, extra: tuple[UpstreamPatch, ...] = ()) -> Measured:
        """``commit``'s value; ``fresh``: run again, neither reading nor storing a measurement (the build
        cache is still used); ``extra``: upstream changes applied after the patch series (a revert)."""
        unit = Unit(
            Recipe(commit, "auto", self.config, extra), MeasureWork.of(self.metric, [self.workload], fresh=fresh)
        )
        ((measured,),) = this_machine(self.ctx).run([unit])
        self.builds += measured.built
        return measured
