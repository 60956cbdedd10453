"""Bisect a pystats metric over CPython history: build, run and measure commits through the caches.

The search itself is :mod:`pystats_harness.bisect.search`; this module supplies its ``measure(index)``:

1. plan the commit's build (patches auto-selected per commit, cache key) — cheap, no container;
2. look the result up in the :class:`~pystats_harness.bisect.resultcache.ResultCache`, keyed on
   (sha, build key, workload id, metric inputs): a hit needs no build and no run;
3. otherwise build through the normal build cache (:func:`build.execute`: warm ccache, cached
   configure results), run the workload on the manual path (:func:`measure.run_manual`), keep the
   per-loop counters the metric needs, and evaluate the metric.

A commit that cannot be planned, patched, built or run becomes a failed :class:`Outcome` (the search
steps around it); an error that would repeat at every commit (no engine, bad setting, Ctrl-C) ends
the bisect.  Good and bad are measured first and must differ as claimed.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.bisect.exitcodes import outcome_for_error
from pystats_harness.bisect.metric import Metric, parse_metric
from pystats_harness.bisect.report import BisectReport
from pystats_harness.bisect.report import CommitInfo as ReportCommit
from pystats_harness.bisect.resultcache import ResultCache
from pystats_harness.bisect.search import (
    CHECKOUT_FAILED,
    METRIC_UNDEFINED,
    EndpointsDoNotDiffer,
    Judge,
    Outcome,
    estimate_remaining_steps,
    validate_endpoints,
)
from pystats_harness.bisect.search import (
    bisect as _search,
)
from pystats_harness.build import execute as _build
from pystats_harness.build.cache import lookup
from pystats_harness.config import Settings
from pystats_harness.console import Reporter
from pystats_harness.errors import BuildFailed, ConfigError, HarnessError, MirrorError
from pystats_harness.infra import engine
from pystats_harness.infra.mirror import CommitInfo, Mirror
from pystats_harness.validate import runs as _measure

SCRIPT_LOOPS = 10  # default --loops for a workload script (suite workloads: configs/suite.toml)


@dataclass(frozen=True)
class Workload:
    """What runs at every commit; ``ident`` is its part of the result-cache key."""

    name: str  # as given: a suite workload name or a script path
    target: str  # what run_manual gets (a script as an absolute path)
    loops: int
    ident: str

    @property
    def label(self) -> str:
        return Path(self.name).stem if self.name.endswith(".py") else self.name


def resolve_workload(workload: str, loops: int | None = None) -> Workload:
    """A suite workload (default loops from configs/suite.toml) or a ``.py`` script defining run(loops)."""
    _measure.workload_mounts(workload)  # validates the name or path (ConfigError)
    digest = hashlib.sha256()
    if workload.endswith(".py"):
        path = Path(workload).resolve()
        digest.update(path.read_bytes())
        target, kind, loops = str(path), f"script:{path.name}", loops or SCRIPT_LOOPS
    else:
        from pystats_harness.validate.suiteconfig import load_suite

        suite_dir = _measure.SUITE_DIR
        for file in (suite_dir / "workloads" / f"{workload}.py", suite_dir / "manual.py", suite_dir / "common.py"):
            digest.update(file.read_bytes() if file.is_file() else b"")
        target, kind = workload, f"suite:{workload}"
        loops = loops or load_suite().workloads.get(workload, SCRIPT_LOOPS)
    if loops < 1:
        raise ConfigError(f"--loops must be >= 1 (got {loops})")
    return Workload(workload, target, loops, f"{kind}:{digest.hexdigest()[:16]}:manual:loops={loops}")


@dataclass
class Measured:
    """One commit's outcome and what it took."""

    commit: CommitInfo
    outcome: Outcome
    source: str  # "result cache" | "measured" | "failed"
    built: bool = False  # a build ran (not a build-cache hit), successful or not
    build_key: str = ""
    seconds: dict[str, float] = field(default_factory=dict)  # plan, build, run, total
    error: BaseException | None = field(default=None, repr=False)

    def to_json(self, index: int, label: str) -> dict[str, Any]:
        return {
            "index": index,
            "label": label,
            "sha": self.commit.sha,
            "source": self.source,
            "built": self.built,
            "build_key": self.build_key,
            "value": self.outcome.value,
            "failure": self.outcome.failure,
            "detail": self.outcome.detail,
            "seconds": {k: round(v, 2) for k, v in self.seconds.items()},
        }


_COMPILE_ERROR = re.compile(r"(error:|Error \d+|\*\*\*)")


def _failure_detail(exc: BaseException, outcome: Outcome, log_tail: str) -> Outcome:
    """A build failure's reason with the compiler's first error line instead of "log lines above"."""
    if not isinstance(exc, BuildFailed):
        return outcome
    detail = str(exc).replace("; last 30 log lines above", "")
    first = next((line.strip() for line in log_tail.splitlines() if _COMPILE_ERROR.search(line)), "")
    if first:
        head, _, log = detail.partition("; full log: ")
        detail = f"{head}: {first[:200]}" + (f"; full log: {log}" if log else "")
    return Outcome.failed(outcome.failure or "build failed", detail)


def _outcome_for_error(exc: BaseException) -> Outcome | None:
    """As :func:`bisect_run.outcome_for_error`, except that a worktree that cannot be made for one
    commit (``Mirror.worktree``: "cannot check out <sha>") skips that commit instead of ending the bisect."""
    if isinstance(exc, MirrorError) and str(exc).startswith("cannot check out"):
        return Outcome.failed(CHECKOUT_FAILED, str(exc))
    return outcome_for_error(exc)


class Measurer:
    """Measures commits: plan → result cache → build (through the build cache) → run → evaluate."""

    def __init__(
        self, settings: Settings, metric: Metric, workload: Workload, reporter: Reporter, client: Any = None
    ) -> None:
        self.settings, self.metric, self.workload, self.reporter = settings, metric, workload, reporter
        self.client = client or engine.connect()
        self.cache = ResultCache(settings.cache_dir / "bisect" / "results")
        self.builds = 0  # builds that ran (build-cache misses), failed ones included

    def measure(self, commit: CommitInfo) -> Measured:
        start = time.perf_counter()
        seconds: dict[str, float] = {}
        rec = Measured(commit, Outcome.failed("not measured"), "failed", seconds=seconds)
        build_start = start
        try:
            plan = _build.plan_build(self.settings, commit.sha, "auto", client=self.client)
            seconds["plan"] = time.perf_counter() - start
            rec.build_key = plan.key
            cached = self.cache.get(commit.sha, plan.key, self.workload.ident, self.metric.inputs)
            if cached is not None:
                rec.outcome, rec.source = cached.outcome(self.metric), "result cache"
                return rec
            build_start = time.perf_counter()
            rec.built = lookup(self.settings.builds_dir, plan.key) is None
            self.builds += rec.built
            entry = _build.execute(self.settings, plan, self.reporter, verify_strict=True, client=self.client)
            seconds["build"] = time.perf_counter() - build_start
            t = time.perf_counter()
            self.reporter.phase(f"running {self.workload.label} × {self.workload.loops}")
            run = _measure.run_manual(
                self.settings, entry, self.workload.target, _measure.Shape(self.workload.loops), client=self.client
            )
            seconds["run"] = time.perf_counter() - t
            counters = run.per_loop
            if not any(name in counters for name in self.metric.inputs):
                self.metric.explain(counters)  # raises MissingCounters with "did you mean" hints; not cached
            stored = self.cache.put(
                commit.sha,
                plan.key,
                self.workload.ident,
                self.metric.inputs,
                counters=counters,
                extra={
                    "run_dir": str(run.runs[0].run_dir),
                    "build": entry.key,
                    "seconds": {k: round(v, 2) for k, v in seconds.items()},
                },
            )
            rec.outcome, rec.source = stored.outcome(self.metric), "measured"
            return rec
        except BaseException as exc:
            outcome = _outcome_for_error(exc)
            if outcome is None:
                raise
            if rec.built and "build" not in seconds:
                seconds["build"] = time.perf_counter() - build_start
            rec.outcome, rec.error = _failure_detail(exc, outcome, getattr(self.reporter, "last_info", "")), exc
            if rec.build_key and outcome.failure not in (METRIC_UNDEFINED, CHECKOUT_FAILED):  # cheap to retry
                self.cache.put_failure(commit.sha, rec.build_key, self.workload.ident, self.metric.inputs, rec.outcome)
            return rec
        finally:
            seconds["total"] = time.perf_counter() - start


class Progress:
    """Hooks for a live display (no-op here; see :mod:`bisect_cli`).  ``reporter`` gets build output."""

    def __init__(self, reporter: Reporter | None = None) -> None:
        self.reporter = reporter or Reporter()

    def start(self, label: str, remaining: int, index: int, commit: CommitInfo) -> None:
        """Before measuring ``commit`` (``label`` is "good", "bad" or "step k")."""

    def finish(self, label: str, remaining: int, index: int, rec: Measured, judge: Judge | None) -> None:
        """After measuring it; ``remaining`` is the estimate of steps still to do."""


@dataclass
class BisectRun:
    report: BisectReport
    workload: Workload
    records: dict[int, Measured]  # every commit measured by this run (endpoints included)
    labels: dict[int, str]
    builds: int
    wall_seconds: float

    def to_dict(self) -> dict[str, Any]:
        from pystats_harness.bisect.report import to_dict

        steps = [self.records[i].to_json(i, self.labels[i]) for i in self.records]
        return {
            **to_dict(self.report),
            "run": {
                "workload": self.workload.name,
                "workload_id": self.workload.ident,
                "loops": self.workload.loops,
                "path": "manual",
                "builds": self.builds,
                "wall_seconds": round(self.wall_seconds, 2),
                "steps": steps,
            },
        }


def _endpoint_error(which: str, rev: str, rec: Measured) -> HarnessError:
    what = f"cannot measure --{which} {rev} ({rec.commit.short}): {rec.outcome.reason}"
    if isinstance(rec.error, HarnessError):
        return type(rec.error)(what)
    return EndpointsDoNotDiffer(what + "; a bisect needs a value at both ends")


def run_bisect(
    settings: Settings,
    *,
    good: str,
    bad: str,
    workload: str,
    metric: str,
    threshold: float | None = None,
    direction: str | None = None,
    loops: int | None = None,
    progress: Progress | None = None,
) -> BisectRun:
    """Measure good and bad, check they differ as claimed, then bisect the ancestry path between them."""
    started = time.perf_counter()
    parsed, work = parse_metric(metric), resolve_workload(workload, loops)
    if direction is not None and direction not in ("up", "down"):
        raise ConfigError(f"--direction must be 'up' or 'down' (got {direction!r})")
    mirror = Mirror(settings.mirror_dir)
    g, b = mirror.resolve(good), mirror.resolve(bad)
    if g.sha == b.sha:
        raise ConfigError(f"--good {good} and --bad {bad} are the same commit ({g.short})")
    progress = progress or Progress()
    if not mirror.is_ancestor(g.sha, b.sha):
        base = mirror.merge_base(g.sha, b.sha)
        if mirror.is_ancestor(b.sha, g.sha) or base is None or base.sha == b.sha:
            raise ConfigError(
                f"--good {good} ({g.short}) is not an ancestor of --bad {bad} ({b.short}) and they share "
                "no earlier commit; swap them if bad is the older one"
            )
        # As git bisect does for a good commit on another branch: bisect from the merge base,
        # which is measured as the good end (and must be good).
        Reporter().warn(
            f"--good {good} ({g.short}) is on another branch than --bad {bad}; bisecting from "
            f"their merge base {base.short} ({base.subject[:60]}), measured as the good end"
        )
        g, good = base, f"merge-base({good}, {bad})"
    path = [g, *mirror.ancestry_path(g.sha, b.sha)]
    measurer = Measurer(settings, parsed, work, progress.reporter)
    records: dict[int, Measured] = {}
    labels: dict[int, str] = {}
    remaining = estimate_remaining_steps(0, len(path) - 1)
    for which, rev, index in (("good", good, 0), ("bad", bad, len(path) - 1)):
        progress.start(which, remaining + (2 if which == "good" else 1), index, path[index])
        rec = records[index] = measurer.measure(path[index])
        labels[index] = which
        progress.finish(which, remaining + (1 if which == "good" else 0), index, rec, None)
        if not rec.outcome.usable:
            raise _endpoint_error(which, rev, rec)
    good_value, bad_value = records[0].outcome.value, records[len(path) - 1].outcome.value
    judge = Judge.from_endpoints(good_value, bad_value, threshold=threshold, direction=direction)  # type: ignore[arg-type]
    validate_endpoints(
        good_value,
        bad_value,
        judge,
        metric=parsed.expression,  # type: ignore[arg-type]
        good_label=f"good {good}",
        bad_label=f"bad {bad}",
    )

    def measure_at(index: int) -> Outcome:
        records[index] = measurer.measure(path[index])
        return records[index].outcome

    def on_start(step: int, left: int, index: int) -> None:
        labels[index] = f"step {step}"
        progress.start(labels[index], left, index, path[index])

    def on_step(step: int, left: int, index: int, outcome: Outcome) -> None:
        progress.finish(labels[index], left, index, records[index], judge)

    result = _search([c.sha for c in path], measure_at, judge, on_start=on_start, on_step=on_step)
    infos = {c.sha: ReportCommit(c.sha, c.subject, c.date) for c in path}
    report = BisectReport(result, parsed.expression, work.name, good, bad, infos)
    return BisectRun(report, work, records, labels, measurer.builds, time.perf_counter() - started)


def measure_rev(
    settings: Settings,
    rev: str,
    *,
    workload: str,
    metric: str,
    loops: int | None = None,
    progress: Progress | None = None,
) -> Measured:
    """One commit, as ``bisect-run`` needs it (the same caches as ``bisect``); progress index is -1."""
    parsed, work = parse_metric(metric), resolve_workload(workload, loops)
    commit = Mirror(settings.mirror_dir).resolve(rev)
    progress = progress or Progress()
    progress.start("bisect-run", 0, -1, commit)
    return Measurer(settings, parsed, work, progress.reporter).measure(commit)
