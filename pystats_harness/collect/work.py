"""A collect's unit of work: "with this build, measure benchmarks B1..Bn" (a chunk of the chosen
benchmarks, ``jobs`` at a time), the same here and on a Dask worker.

The unit runner gets the build (on a worker, through that worker's cache: its second chunk is a cache
hit); :meth:`CollectWork.run` runs the collect machinery
(:func:`pystats_harness.collect.driver.run_benchmarks`: requirements, calibration unless ``--loops-file``
fixed them, pyperf ``--hook pystats``, the manual path, the verdict) into a scratch directory, and
answers each benchmark's outcome, its loops and the files of its ``benchmarks/<name>/`` directory, plus
the build's :class:`~pystats_harness.builder.cache.BuildFacts` (manifest and name tables), so the client
writes the whole-run files without the build. The raw dumps travel too (15-40 kB each): the client
needs them for ``all/summarize.json``. Progress goes out as events: ``started``, ``phase`` and, as each
benchmark ends, its pickled ``outcome``.
"""

from __future__ import annotations

import pickle
import shutil
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.builder.cache import BuildFacts
from pystats_harness.collect import driver, one
from pystats_harness.dispatch.units import Attempt, Emit, Work
from pystats_harness.errors import ConfigError
from pystats_harness.infra.context import Context
from pystats_harness.measure.suiteconfig import load_suite
from pystats_harness.pyperformance.benchmarks import read_suite
from pystats_harness.pyperformance.sites import benchmark_data_dir

CHUNKS_PER_WORKER = 2  # a worker that is faster takes more chunks


def chunk(names: Sequence[str], workers: int, per_worker: int = CHUNKS_PER_WORKER) -> list[tuple[str, ...]]:
    """``names`` in order, split into ``per_worker`` chunks per worker (fewer if there are fewer names),
    sizes differing by at most one; one chunk for one worker (it runs ``jobs`` at a time anyway)."""
    count = max(1, min(len(names), workers * per_worker if workers > 1 else 1))
    size, extra = divmod(len(names), count)
    chunks, start = [], 0
    for i in range(count):
        end = start + size + (i < extra)
        chunks.append(tuple(names[start:end]))
        start = end
    return [c for c in chunks if c]


@dataclass(frozen=True)
class BenchmarkResult:
    outcome: one.Outcome
    loops: int | None  # the loops it ran (None: it did not run)
    files: Mapping[str, bytes]  # path under benchmarks/<name>/ -> content


@dataclass(frozen=True)
class CollectResult:
    worker: str  # "" on this machine
    built: bool
    build: BuildFacts
    benchmarks: tuple[BenchmarkResult, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class CollectWork(Work[CollectResult]):
    pyperformance: str  # the client's version: a worker with another one refuses (exit 2)
    benchmarks: tuple[str, ...]
    jobs: int
    processes: int
    loops: tuple[tuple[str, int], ...] = ()  # fixed loops of these benchmarks (--loops-file); the others are calibrated
    manual: bool = True

    def run(self, ctx: Context, attempt: Attempt, emit: Emit) -> CollectResult:
        scratch = ctx.settings.paths.unit_scratch / f"collect-{uuid.uuid4().hex[:12]}"
        try:
            return self._measure(ctx, attempt, scratch, emit)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _measure(self, ctx: Context, attempt: Attempt, scratch: Path, emit: Emit) -> CollectResult:
        entry, start = attempt.build.entry, time.perf_counter()
        suite_benchmarks = read_suite(benchmark_data_dir(ctx))
        if suite_benchmarks.version != self.pyperformance:
            raise ConfigError(
                f"worker {attempt.worker} has pyperformance {suite_benchmarks.version}, the client {self.pyperformance}; "
                "make both wheelhouses with the same scripts/make_benchmark_wheelhouse.py"
            )
        chosen = tuple(suite_benchmarks.benchmarks[b] for b in self.benchmarks)
        request = driver.Request(chosen, self.jobs, self.processes, dict(self.loops), scratch, self.manual)
        (scratch / "benchmarks").mkdir(parents=True)

        def started(name: str) -> Callable[[str], None]:
            emit({"started": name})
            return lambda what: emit({"phase": what, "benchmark": name})

        results = driver.run_benchmarks(
            ctx,
            entry,
            request,
            scratch,
            load_suite(),
            started=started,
            finished=lambda outcome: emit({"outcome": pickle.dumps(outcome)}),
        )
        benchmarks = tuple(
            BenchmarkResult(outcome, loops, read_files(scratch / "benchmarks" / b))
            for b, (outcome, loops) in results.items()
        )
        seconds = {"build": attempt.seconds.get("build", 0.0), "measure": time.perf_counter() - start}
        return CollectResult(attempt.worker, attempt.built, entry.facts(), benchmarks, seconds)


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
