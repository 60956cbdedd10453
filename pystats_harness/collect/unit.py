"""`invoke collect` on a Dask cluster, the worker's side: a unit is "build revision R with patches P, then
measure benchmarks B1..Bn" (a chunk of the chosen benchmarks, ``jobs`` at a time on that worker).

The worker builds through its own cache (a second chunk on a worker that built R is a cache hit), runs
the local collect machinery (:func:`pystats_harness.collect.driver.run_benchmarks`: requirements,
calibration unless ``--loops`` fixed them, pyperf ``--hook pystats``, the manual path, the verdict) into a
directory of its cache, and sends back only each benchmark's outcome, its loops and the files of its
``benchmarks/<name>/`` directory, plus the build's :class:`~pystats_harness.builder.cache.BuildFacts`
(manifest and name tables) so the client can write the whole-run files without a build. The raw dumps
travel too (15-40 kB each): the client needs them for ``all/summarize.json``, and the output is then the
same as a local one.
"""

from __future__ import annotations

import pickle
import shutil
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.builder.cache import BuildFacts
from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.cluster.client import Fault, Unfit, progress
from pystats_harness.collect import driver, one
from pystats_harness.dispatch.worker import RemoteFailure, local_commit, on_worker
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.pyperformance.benchmarks import read_suite
from pystats_harness.pyperformance.sites import benchmark_data_dir

CHUNKS_PER_WORKER = 2  # a worker that is faster takes more chunks


def chunk(names: Sequence[str], workers: int, per_worker: int = CHUNKS_PER_WORKER) -> list[tuple[str, ...]]:
    """``names`` in order, split into ``per_worker`` chunks per worker (fewer if there are fewer names),
    sizes differing by at most one."""
    count = max(1, min(len(names), workers * per_worker))
    size, extra = divmod(len(names), count)
    chunks, start = [], 0
    for i in range(count):
        end = start + size + (i < extra)
        chunks.append(tuple(names[start:end]))
        start = end
    return [c for c in chunks if c]


@dataclass(frozen=True)
class CollectUnit:
    commit: CommitInfo  # resolved in the client's mirror; the worker fetches it from its mirror_remote
    patches: str
    pyperformance: str  # the client's version: a worker with another one refuses (exit 2)
    benchmarks: tuple[str, ...]
    jobs: int
    processes: int
    loops: Mapping[str, int]  # fixed loops of these benchmarks (--loops); the others are calibrated
    manual: bool = True
    config: str = "default"  # the build configuration (its name; the worker reads configs/configurations.toml)


@dataclass(frozen=True)
class BenchmarkResult:
    outcome: one.Outcome
    loops: int | None  # the loops it ran (None: it did not run)
    files: Mapping[str, bytes]  # path under benchmarks/<name>/ -> content


@dataclass(frozen=True)
class CollectResult:
    worker: str
    built: bool
    build: BuildFacts | None
    benchmarks: tuple[BenchmarkResult, ...] = ()
    failure: RemoteFailure | None = None
    seconds: dict[str, float] = field(default_factory=dict)


def collect_unit(unit: CollectUnit) -> CollectResult | Unfit | Fault:
    """Run on a worker: fetch, build (through its cache) and measure one chunk of benchmarks; each
    benchmark's outcome goes to the client as a progress event as soon as it ends."""
    return on_worker(
        lambda ctx, name: _in_scratch(ctx, unit, name),
        lambda exc, name: CollectResult(name, False, None, failure=RemoteFailure.of(exc, name)),
    )


def _in_scratch(ctx: Context, unit: CollectUnit, name: str) -> CollectResult:
    scratch = ctx.settings.paths.unit_scratch / f"collect-{uuid.uuid4().hex[:12]}"
    try:
        return _measure(ctx, unit, scratch, name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _measure(ctx: Context, unit: CollectUnit, scratch: Path, name: str) -> CollectResult:
    start = time.perf_counter()
    obtained = obtain(ctx, plan_for(ctx, local_commit(ctx, unit.commit), unit.patches, unit.config))
    entry, built = obtained.entry, obtained.built
    built_at = time.perf_counter()
    suite_benchmarks = read_suite(benchmark_data_dir(ctx))
    if suite_benchmarks.version != unit.pyperformance:
        raise ConfigError(
            f"worker {name} has pyperformance {suite_benchmarks.version}, the client {unit.pyperformance}; "
            "make both wheelhouses with the same scripts/make_benchmark_wheelhouse.py"
        )
    chosen = tuple(suite_benchmarks.benchmarks[b] for b in unit.benchmarks)
    request = driver.Request(chosen, unit.jobs, unit.processes, dict(unit.loops), scratch, unit.manual)
    (scratch / "benchmarks").mkdir(parents=True)
    emit = progress()  # in the task's thread; the benchmarks end in the pool's threads
    results = driver.run_benchmarks(
        ctx,
        entry,
        request,
        scratch,
        load_suite(),
        started=lambda _: lambda _: None,
        finished=lambda outcome: emit({"outcome": pickle.dumps(outcome)}),
    )
    benchmarks = tuple(
        BenchmarkResult(outcome, loops, read_files(scratch / "benchmarks" / b))
        for b, (outcome, loops) in results.items()
    )
    seconds = {"build": built_at - start, "measure": time.perf_counter() - built_at}
    return CollectResult(name, built, entry.facts(), benchmarks, None, seconds)


def read_files(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` by its relative path (empty when there is none)."""
    if not directory.is_dir():
        return {}
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def write_files(directory: Path, files: Mapping[str, bytes]) -> None:
    """``files`` (from :func:`read_files`) under ``directory``; a path leaving it is refused."""
    root = directory.resolve()
    for relative, content in files.items():
        target = (root / relative).resolve()
        if not target.is_relative_to(root) or target == root:
            raise ConfigError(f"a cluster worker sent a file outside its benchmark directory: {relative!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
