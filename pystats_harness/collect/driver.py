"""`invoke collect` as an operation: choose benchmarks, get the build, fix loops, run every benchmark
(``jobs`` containers at a time), judge each, write the outputs; the report appears only complete.
A collect on a cluster uses the parts: :func:`run_benchmarks` on each worker for its chunk,
:func:`staged` and :func:`finish` on the client (the whole-run files need only a :class:`BuildInfo`).

Output directory (written as ``<out>.partial-<pid>`` and renamed when everything is written, so an
interrupted collect leaves no report posing as complete)::

    loops.json                     the loops each benchmark ran (reusable: --loops-file)
    report.json  trust.md          per benchmark: verdict, checks, loops, seconds, reason/log tail
    benchmarks/<name>/collection.json summary.md dumps/ pyperf/
    all/collection.json summary.md every benchmark's counts summed
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import BuildInfo, CacheEntry
from pystats_harness.collect import exactness, one, overhead, report
from pystats_harness.collect import loops as loops_file
from pystats_harness.collect.trust import Verdict
from pystats_harness.errors import ConfigError, HarnessError, Interrupted
from pystats_harness.exit_codes import ExitCode
from pystats_harness.infra.context import Context
from pystats_harness.measure.deferred import DeferredRule
from pystats_harness.measure.suiteconfig import SuiteConfig
from pystats_harness.pyperformance import runs
from pystats_harness.pyperformance.benchmarks import Benchmark, Suite
from pystats_harness.pyperformance.place import CannotRun, place
from pystats_harness.reports import write_report
from pystats_harness.stats.collection import Collection, aggregate, load
from pystats_harness.stats.outputs import collection_report

#: Why no benchmark runs on an interpreter without the on/off API (pyperf's hook raises HookError).
NO_STATS_API = (
    "this interpreter has no sys._stats_on/_stats_off, so pyperf's --hook pystats refuses to run "
    "(HookError); --patches auto adds the on/off API (stats-api)"
)

Started = Callable[[str], Callable[[str], None]]  # benchmark -> phase reporter
Finished = Callable[[one.Outcome], None]


@dataclass(frozen=True)
class Request:
    benchmarks: tuple[Benchmark, ...]
    jobs: int
    processes: int
    loops: Mapping[str, int]  # fixed loops (from --loops-file); the others are calibrated
    out: Path
    manual: bool = True


def check_request(jobs: int, processes: int, out: Path | None) -> None:
    if jobs < 1:
        raise ConfigError(f"--jobs must be at least 1 (got {jobs})")
    if processes < 1:
        raise ConfigError(f"--processes must be at least 1 (got {processes}); 2 or more checks that workers agree")
    if out is not None and out.exists() and not (out / "report.json").is_file() and any(out.iterdir()):
        raise ConfigError(f"--out {out} exists and is not a collect output; choose a new directory")


def _place(ctx: Context, entry: CacheEntry, bench: Benchmark) -> runs.Place | one.Outcome:
    where = place(ctx, entry, bench)
    if isinstance(where, CannotRun):
        if where.package:
            return one.skipped(bench, where.package, where.reason)
        return one.Outcome(bench.name, bench.directory, Verdict.SKIPPED, reason=f"skipped: {where.reason}")
    return where


def _one(
    ctx: Context,
    entry: CacheEntry,
    bench: Benchmark,
    request: Request,
    staging: Path,
    suite: SuiteConfig,
    phase: Callable[[str], None],
    nulls: Callable[[runs.Place], overhead.NullRuns],
    judging: tuple[Mapping[str, exactness.Allowance], DeferredRule, Mapping[str, exactness.MachineryShare]],
) -> tuple[one.Outcome, int | None]:
    start, loops = time.perf_counter(), request.loops.get(bench.name) or None  # 0: did not run there
    out = staging / "benchmarks" / bench.name
    if not entry.manifest().get("python", {}).get("has_stats_api", True):
        return one.failed_before(bench, NO_STATS_API), None
    try:
        phase("requirements")
        place = _place(ctx, entry, bench)
        if isinstance(place, one.Outcome):
            return place, None
        if loops is None:
            phase("calibrating loops")
            loops = runs.calibrated_loops(runs.calibrate(ctx, entry, bench, place, out / "calibrate").pyperf or {})
        options = one.Options(request.processes, request.manual, *judging)
        return one.measure(ctx, entry, bench, place, loops, out, options, suite, phase, nulls(place)), loops
    except HarnessError as exc:
        gone = exc.exit_code in (ExitCode.ENGINE_UNAVAILABLE, ExitCode.DISK_FULL)  # here or on a cluster worker
        if isinstance(exc, Interrupted | ConfigError) or gone:
            raise  # the engine or the disk is gone, or the input is wrong: no point going on
        return one.failed(bench, exc, time.perf_counter() - start, loops), loops


def _write_all(staging: Path, entry: BuildInfo, outcomes: Sequence[one.Outcome]) -> None:
    """``all/``: every benchmark summed (raw), and ``all/net/``: those with net counts, summed."""
    _write_sum(staging, entry, [o.name for o in outcomes], staging / "all", net=False)
    _write_sum(staging, entry, [o.name for o in outcomes], staging / "all" / "net", net=True)


def _write_sum(staging: Path, entry: BuildInfo, names: Sequence[str], into: Path, *, net: bool) -> None:
    """The collections of ``names`` (raw, or ``net/``) summed into ``into``, with their export."""
    benchmarks = staging / "benchmarks"
    relative = "net/collection.json" if net else "collection.json"
    counted = [name for name in names if (benchmarks / name / relative).is_file()]
    into.mkdir(parents=True, exist_ok=True)
    if not counted:
        return
    total = aggregate([load(benchmarks / name / relative) for name in counted])
    total = Collection({**total.metadata, "benchmark": "all", "benchmarks": counted}, total.counters, total.unknown)
    write_report(collection_report(total, total), into)
    dumps = [d for name in counted for d in sorted((benchmarks / name / "dumps").glob("*"))]
    origin = {"benchmark": "all", "counts": total.metadata.get("counts", "")}
    if net:
        nulls = [d for name in counted for d in sorted((benchmarks / name / "null" / "automated").glob("*"))]
        one.export_net(entry, dumps, nulls, origin, into / "summarize.json")
    else:
        one.export(entry, dumps, origin, into / "summarize.json")


Results = Mapping[str, tuple[one.Outcome, int | None]]  # benchmark -> its outcome and the loops it ran


@contextmanager
def staged(out: Path) -> Iterator[Path]:
    """``<out>.partial-<pid>`` with an empty ``benchmarks/``; always removed (published by :func:`finish`)."""
    staging = out.with_name(f"{out.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "benchmarks").mkdir(parents=True)
    try:
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def run_benchmarks(
    ctx: Context,
    entry: CacheEntry,
    request: Request,
    staging: Path,
    suite: SuiteConfig,
    *,
    started: Started,
    finished: Finished,
) -> dict[str, tuple[one.Outcome, int | None]]:
    """Every requested benchmark into ``staging/benchmarks/<name>/``, ``jobs`` at a time; the null
    benchmark runs (each shape and loops once) under ``staging/null/``, which :func:`finish` removes."""
    # the declared allowances, validate's deferred rule (from the build's own source), the machinery bound
    judging = (exactness.load_declared(), DeferredRule.from_source(entry.source_dir), exactness.load_machinery())
    null_runs: list[overhead.NullRuns] = []
    lock = threading.Lock()

    def nulls(place: runs.Place) -> overhead.NullRuns:
        with lock:
            if not null_runs:
                null_runs.append(overhead.NullRuns(ctx, entry, place, staging / "null"))
            return null_runs[0]

    def job(bench: Benchmark) -> tuple[one.Outcome, int | None]:
        result = _one(ctx, entry, bench, request, staging, suite, started(bench.name), nulls, judging)
        finished(result[0])
        return result

    pool = ThreadPoolExecutor(max_workers=request.jobs)
    try:
        futures = {b.name: pool.submit(job, b) for b in request.benchmarks}
        return {name: f.result() for name, f in futures.items()}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # Ctrl-C or an error: start no further benchmark


def finish(
    staging: Path,
    entry: BuildInfo,
    suite_benchmarks: Suite,
    request: Request,
    results: Results,
    extra_run: Mapping[str, Any] | None = None,
) -> list[one.Outcome]:
    """The whole-run files (loops.json, all/, report.json, trust.md), then ``staging`` published as
    ``request.out``; the outcomes in the order of the request. ``extra_run``: more run metadata."""
    outcomes = [results[b.name][0] for b in request.benchmarks]
    loops = {name: n for name, (_, n) in results.items() if n is not None}
    not_run = [b.name for b in request.benchmarks if b.name not in loops]
    loops_file.write(staging / "loops.json", loops, suite_benchmarks.version, not_run)
    _write_all(staging, entry, outcomes)
    shutil.rmtree(staging / "null", ignore_errors=True)  # each benchmark keeps the null dumps it used
    run = {
        "processes": request.processes,
        "jobs": request.jobs,
        "benchmarks_selected": [b.name for b in request.benchmarks],
        **(extra_run or {}),
    }
    write_report(report.to_report(entry, suite_benchmarks, run, outcomes), staging)
    _publish(staging, request.out)
    return outcomes


def collect(
    ctx: Context,
    entry: CacheEntry,
    suite_benchmarks: Suite,
    request: Request,
    suite: SuiteConfig,
    *,
    started: Started,
    finished: Finished,
) -> list[one.Outcome]:
    """Run every requested benchmark; returns the outcomes (in MANIFEST order) once the output is in place."""
    with staged(request.out) as staging:
        results = run_benchmarks(ctx, entry, request, staging, suite, started=started, finished=finished)
        return finish(staging, entry, suite_benchmarks, request, results)


def _publish(staging: Path, out: Path) -> None:
    """Replace ``out`` by the complete ``staging`` (an earlier collect output there is removed last)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    old = out.with_name(f"{out.name}.old-{os.getpid()}")
    if out.exists():
        os.replace(out, old)
    os.replace(staging, out)
    shutil.rmtree(old, ignore_errors=True)
