"""One commit's value for a bisect: plan → result cache → build (through the build cache) → run → metric.

1. plan the commit's build (patches auto-selected per commit, cache key) — cheap, no container;
2. look the result up in the :class:`~pystats_harness.measure.resultcache.ResultCache`, keyed on
   (sha, build key, workload id, metric inputs): a hit needs no build and no run;
3. otherwise build through the normal build cache (warm ccache, cached configure results), run the
   workload on the manual path, keep the per-loop counters the metric needs, and evaluate it.

A commit that cannot be planned, patched, built or run becomes a failed :class:`Outcome` (the search
steps around it); an error that would repeat at every commit (no engine, bad setting, Ctrl-C) ends
the bisect.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.builder.plan import BuildPlan
from pystats_harness.builder.upstream import UpstreamPatch, describe_all
from pystats_harness.errors import BuildFailed
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.metric import Metric
from pystats_harness.measure.outcome import Failure, Outcome, outcome_for_error
from pystats_harness.measure.resultcache import CachedResult, ResultCache
from pystats_harness.measure.runs import Shape, run_manual
from pystats_harness.measure.workload import Workload
from pystats_harness.pyperformance.place import manual_per_loop

#: Failures that are not kept in the result cache: cheap to find again, or not the commit's fault.
NOT_CACHED = (Failure.METRIC_UNDEFINED, Failure.CHECKOUT_FAILED)


class Source(enum.StrEnum):
    RESULT_CACHE = "result cache"
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
    counters: Mapping[str, float] = field(default_factory=dict, repr=False)  # the metric's inputs (per loop)
    upstream: str = ""  # how the build was changed from upstream ("repaired with upstream 23e4f80ce2 (…)")

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


class Measurer:
    """Measures commits through the build cache and the result cache; counts the builds it ran."""

    def __init__(self, ctx: Context, metric: Metric, workload: Workload, config: str = "default") -> None:
        self.ctx, self.metric, self.workload, self.config = ctx, metric, workload, config
        self.cache = ResultCache(ctx.settings.paths.measured_results)
        self.builds = 0  # builds that ran (build-cache misses), failed ones included

    def measure(self, commit: CommitInfo, *, fresh: bool = False, extra: tuple[UpstreamPatch, ...] = ()) -> Measured:
        """``commit``'s value; ``fresh``: run again, neither reading nor storing the result cache (the build
        cache is still used); ``extra``: upstream changes applied after the patch series (a revert)."""
        start = time.perf_counter()
        rec = Measured(commit, Outcome.failed(Failure.RUN_FAILED, "not measured"), Source.FAILED)
        try:
            plan = plan_for(self.ctx, commit, "auto", self.config, extra=extra)
            rec.seconds["plan"] = time.perf_counter() - start
            rec.build_key, rec.upstream = plan.key, describe_all(plan.upstream)
            cached = None if fresh else self.cache.get(commit.sha, plan.key, self.workload.ident, self.metric.inputs)
            if cached is not None:
                rec.outcome, rec.source = cached.outcome(self.metric), Source.RESULT_CACHE
                rec.counters = dict(cached.counters or {})
            else:
                self._build_and_run(plan, rec, store=not fresh)
        except BaseException as exc:
            outcome = outcome_for_error(exc)
            if outcome is None:
                raise
            rec.outcome, rec.error = failure_detail(exc, outcome), exc
            if not fresh and rec.build_key and rec.outcome.failure not in NOT_CACHED:
                self.cache.put_failure(commit.sha, rec.build_key, self.workload.ident, self.metric.inputs, rec.outcome)
        finally:
            rec.seconds["total"] = time.perf_counter() - start
        return rec

    def _build_and_run(self, plan: BuildPlan, rec: Measured, *, store: bool = True) -> None:
        build_start = time.perf_counter()
        rec.built = True  # until the cache answers: a failed build ran
        try:
            obtained = obtain(self.ctx, plan)
            rec.built, rec.upstream = obtained.built, describe_all(obtained.plan.upstream)
        finally:
            self.builds += rec.built
            rec.seconds["build"] = time.perf_counter() - build_start
        entry = obtained.entry
        t = time.perf_counter()
        self.ctx.reporter.phase(f"running {self.workload.label} × {self.workload.loops}")
        if self.workload.benchmark is not None:
            counters, run_dir = manual_per_loop(self.ctx, entry, self.workload.benchmark, self.workload.loops)
        else:
            run = run_manual(self.ctx, entry, self.workload.target, Shape(self.workload.loops))
            counters, run_dir = run.per_loop, run.runs[0].run_dir
        rec.seconds["run"] = time.perf_counter() - t
        if not any(name in counters for name in self.metric.inputs):
            self.metric.explain(counters)  # raises MissingCounters with "did you mean" hints; not cached
        extra = {
            "run_dir": str(run_dir),
            "build": entry.key,
            "seconds": {k: round(v, 2) for k, v in rec.seconds.items()},
        }
        sha, key, ident, inputs = plan.commit.sha, obtained.plan.key, self.workload.ident, self.metric.inputs
        if store:
            stored = self.cache.put(sha, key, ident, inputs, counters=counters, extra=extra)
        else:  # the same evaluation as a stored result, kept only in memory
            names = tuple(sorted(set(inputs)))
            stored = CachedResult(sha, key, ident, names, {n: counters[n] for n in names if n in counters}, extra=extra)
        rec.outcome, rec.source = stored.outcome(self.metric), Source.MEASURED
        rec.counters = dict(stored.counters or {})
