"""One pyperformance benchmark against a built interpreter, each run in its own fresh container:

calibrate   pyperf without the hook, 1 process, 1 value: the loops pyperf calibrates (no stats kept)
automated   ``run_benchmark.py EXTRA --hook pystats --warmups 0 --loops N --values 1 --processes P``
manual      ``/suite/pyperformance_manual.py N run_benchmark.py EXTRA``: one bracket per timed function
null        both of the above on ``/suite/pyperformance_null.py`` (timed functions that do nothing, of
            the benchmark's shapes): what each path executes inside its brackets besides the benchmark

Mounts (read-only): benchmarks /bench, pyperf /wheels/site, the benchmark's requirements /bench-site; writable /out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import BuildInfo, CacheEntry
from pystats_harness.builder.configurations import is_free_threaded
from pystats_harness.errors import RunFailed
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.runner import RUN_UID, RunRequest, RunResult, run_python
from pystats_harness.pyperformance.benchmarks import Benchmark
from pystats_harness.pyperformance.fallbacks import Used
from pystats_harness.pyperformance.output import error_line, output_tail
from pystats_harness.resources import SUITE_DIR

BENCH_MOUNT = "/bench"
PYPERF_SITE_MOUNT = "/wheels/site"
BENCH_SITE_MOUNT = "/bench-site"
OUT_MOUNT = "/out"
SUITE_MOUNT = "/suite"
#: pyperf gives workers a filtered environment; these must reach them.
INHERITED = ("PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYPERFORMANCE_RUNID", "PYSTATS_NULL_SHAPES")
NULL_SCRIPT = f"{SUITE_MOUNT}/pyperformance_null.py"
THREAD_STATE_PATH = f"{SUITE_MOUNT}/thread_state"  # its usercustomize.py: first on PYTHONPATH when free-threaded
#: What the object counters of a free-threaded build depend on, said in its verdicts.
THREAD_STATE_NOTE = (
    "free-threaded build: object counters (increfs, decrefs) depend on whether the process has ever started "
    "a thread (gh-117783 immortalizes deferred-refcount objects then); every process of this collect started "
    "and joined one at start-up (suite/thread_state/usercustomize.py), so both paths compare in that state; and on "
    "which code constants are immortal (not as `python script` under compile(), gh-118527): the manual path remakes them"
)


def same_thread_state(entry: BuildInfo) -> bool:
    """Whether the build's processes are put in one thread state (a free-threaded build: gh-117783)."""
    return is_free_threaded(entry.manifest())


def _thread_state(entry: CacheEntry) -> list[str]:
    return [THREAD_STATE_PATH] if same_thread_state(entry) else []


@dataclass(frozen=True)
class Place:
    """Where a benchmark's runs find their inputs on the host."""

    data_dir: Path  # pyperformance's data-files/benchmarks
    pyperf_site: Path
    bench_site: Path | None  # the benchmark's own requirements (None: it has none)
    fallbacks: tuple[Used, ...] = ()  # what its site installed otherwise than its lock says (configs/sites.toml)


@dataclass(frozen=True)
class BenchRun:
    """One finished run: its container result and pyperf's JSON (None for the manual path)."""

    result: RunResult
    pyperf: Mapping[str, Any] | None

    @property
    def dumps(self) -> tuple[Path, ...]:
        """The run's stats files in the order they were written (workers run one after another)."""
        return tuple(sorted(self.result.stats_files, key=lambda p: (p.stat().st_mtime_ns, p.name)))


def _writable_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(path, RUN_UID, RUN_UID)
    else:
        path.chmod(0o777)
    return path


def _mounts(place: Place, out: Path | None) -> tuple[engine.Mount, ...]:
    mounts = [
        engine.Mount(str(place.data_dir), BENCH_MOUNT, read_only=True),
        engine.Mount(str(place.pyperf_site), PYPERF_SITE_MOUNT, read_only=True),
        engine.Mount(str(SUITE_DIR), SUITE_MOUNT, read_only=True),
    ]
    if place.bench_site is not None:
        mounts.append(engine.Mount(str(place.bench_site), BENCH_SITE_MOUNT, read_only=True))
    if out is not None:
        mounts.append(engine.Mount(str(_writable_dir(out)), OUT_MOUNT))
    return tuple(mounts)


def _env(entry: CacheEntry, place: Place, benchmark: Benchmark) -> dict[str, str]:
    """The benchmark's requirements, its vendored sources (bm_2to3 pip-installs ``vendor/`` into its venv
    at run time when lib2to3 is gone; here it is on the path instead) and pyperf; on a free-threaded
    build the thread-state start-up first (:data:`THREAD_STATE_NOTE`)."""
    path = [*_thread_state(entry), *([BENCH_SITE_MOUNT] if place.bench_site is not None else [])]
    if (place.data_dir / benchmark.directory / "vendor" / "src").is_dir():
        path.append(f"{BENCH_MOUNT}/{benchmark.directory}/vendor/src")
    return {
        "PYTHONPATH": ":".join([*path, PYPERF_SITE_MOUNT]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYPERFORMANCE_RUNID": "pystats-harness",
    }


def script_of(benchmark: Benchmark) -> tuple[str, ...]:
    """The run script inside the container and the benchmark's extra options."""
    return (f"{BENCH_MOUNT}/{benchmark.directory}/{benchmark.runscript}", *benchmark.extra_opts)


def pyperf_args(
    script: Sequence[str],
    *,
    loops: int | None,
    processes: int,
    hook: bool,
    out: str = f"{OUT_MOUNT}/pyperf.json",
    switch_env: Sequence[str] = (),
) -> tuple[str, ...]:
    """Pure: the command line of a pyperf run of ``script`` (path and options; ``loops`` None: calibrate).
    ``switch_env``: the variables of the build's run-time switch (``PYTHON_UOPS`` of a tier-2 build of the
    3.13 development line), which pyperf's workers must inherit too, or they would run without it."""
    inherited = [*INHERITED, *(name for name in switch_env if name not in INHERITED)]
    args = ["-u", *script, "--inherit-environ", ",".join(inherited)]
    if loops is None:
        args += ["--processes", "1", "--values", "1", "--warmups", "1"]
    else:
        args += ["--loops", str(loops), "--values", "1", "--warmups", "0", "--processes", str(processes)]
    if hook:
        args += ["--hook", "pystats"]
    return (*args, "--quiet", "--output", out)


def _switch(entry: CacheEntry) -> tuple[str, ...]:
    """The names of the build's run-time switch variables (pyperf's workers get a filtered environment;
    its ``-X`` arguments do not reach them, its variables do when inherited)."""
    return tuple(entry.runtime_switch().env)


def manual_args(script: Sequence[str], loops: int) -> tuple[str, ...]:
    return ("-u", f"{SUITE_MOUNT}/pyperformance_manual.py", str(loops), *script)


class BenchmarkRunFailed(RunFailed):
    """A benchmark's run exited non-zero; carries its log tail and where its output is kept."""

    def __init__(self, benchmark: str, what: str, result: RunResult) -> None:
        output = result.stderr or result.stdout
        last = error_line(output) or "no output"
        super().__init__(
            f"{what} of {benchmark} exited {result.exit_code}: {last[-300:]} (output kept in {result.run_dir})"
        )
        self.benchmark = benchmark
        self.log_tail = output_tail(output)
        self.run_dir = result.run_dir


def _run(ctx: Context, entry: CacheEntry, request: RunRequest, out: Path | None, what: str, name: str) -> BenchRun:
    result = run_python(ctx, entry, request)
    if result.exit_code != 0:
        raise BenchmarkRunFailed(name, what, result)
    doc = json.loads((out / "pyperf.json").read_text()) if out is not None else None
    return BenchRun(result, doc)


def calibrate(ctx: Context, entry: CacheEntry, benchmark: Benchmark, place: Place, out: Path) -> BenchRun:
    args = pyperf_args(script_of(benchmark), loops=None, processes=1, hook=False, switch_env=_switch(entry))
    request = RunRequest(
        args,
        env=_env(entry, place, benchmark),
        mounts=_mounts(place, out),
        stats_dir=False,
        label=f"calibrate-{benchmark.name}",
    )
    return _run(ctx, entry, request, out, "calibration run", benchmark.name)


def automated(
    ctx: Context, entry: CacheEntry, benchmark: Benchmark, place: Place, out: Path, *, loops: int, processes: int
) -> BenchRun:
    args = pyperf_args(script_of(benchmark), loops=loops, processes=processes, hook=True, switch_env=_switch(entry))
    request = RunRequest(
        args, env=_env(entry, place, benchmark), mounts=_mounts(place, out), label=f"pyperf-{benchmark.name}"
    )
    return _run(ctx, entry, request, out, "pyperf --hook pystats run", benchmark.name)


@dataclass(frozen=True)
class ManualRun:
    """The manual path, one fresh process per timed function (as pyperf runs each in its own workers):
    the runs in order, and each timed function's shape (``kind:nargs``)."""

    runs: tuple[BenchRun, ...]
    shapes: tuple[str, ...]

    @property
    def dumps(self) -> tuple[Path, ...]:
        return tuple(d for run in self.runs for d in run.dumps)

    @property
    def reports(self) -> tuple[Mapping[str, Any], ...]:
        """Each run's JSON line (suite/pyperformance_manual.py): what it bracketed, its threads."""
        return tuple(_manual_report(run.result) for run in self.runs)


def _manual_report(result: RunResult) -> Mapping[str, Any]:
    for line in reversed(result.stdout.strip().splitlines()):
        if line.startswith("{"):
            return dict(json.loads(line))
    return {}


def manual(ctx: Context, entry: CacheEntry, benchmark: Benchmark, place: Place, *, loops: int) -> ManualRun:
    """Every timed function of ``benchmark`` bracketed in its own process (the first run says how many)."""
    done: list[BenchRun] = []
    shapes: tuple[str, ...] = ()
    index = 0
    while index == 0 or index < len(shapes):
        request = RunRequest(
            manual_args(script_of(benchmark), loops),
            env={**_env(entry, place, benchmark), "PYSTATS_MANUAL_ONLY": str(index)},
            mounts=_mounts(place, None),
            label=f"manual-{benchmark.name}-{index}",
        )
        done.append(_run(ctx, entry, request, None, "manual run", benchmark.name))
        if index == 0:
            shapes = tuple(str(s) for s in _manual_report(done[0].result).get("shapes", ()))
        index += 1
    return ManualRun(tuple(done), shapes)


@dataclass(frozen=True)
class NullRuns:
    """The null benchmark of one shape and loops on both paths: what each path executes inside its
    bracket besides the benchmark (the automated path over ``processes`` workers)."""

    shape: str
    loops: int
    processes: int
    automated: BenchRun
    manual: BenchRun


def null(
    ctx: Context, entry: CacheEntry, place: Place, out: Path, *, shape: str, loops: int, processes: int
) -> NullRuns:
    """The null benchmark (``suite/pyperformance_null.py``) of one timed function's ``shape`` at
    ``loops``, run as a benchmark is: pyperf with the hook over ``processes`` workers, then by hand."""
    path = ":".join([*_thread_state(entry), PYPERF_SITE_MOUNT])
    env = {"PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1", "PYSTATS_NULL_SHAPES": shape}
    label = f"null-{shape.replace(':', '')}-{loops}"
    bare = Place(place.data_dir, place.pyperf_site, None)
    args = pyperf_args((NULL_SCRIPT,), loops=loops, processes=processes, hook=True, switch_env=_switch(entry))
    auto = RunRequest(args, env=env, mounts=_mounts(bare, out), label=f"pyperf-{label}")
    automated_run = _run(ctx, entry, auto, out, "pyperf --hook pystats run", "the null benchmark")
    by_hand = RunRequest(
        manual_args((NULL_SCRIPT,), loops), env=env, mounts=_mounts(bare, None), label=f"manual-{label}"
    )
    manual_run = _run(ctx, entry, by_hand, None, "manual run", "the null benchmark")
    return NullRuns(shape, loops, processes, automated_run, manual_run)


def calibrated_loops(doc: Mapping[str, Any]) -> int:
    """The loops pyperf calibrated: the smallest over the run's benchmarks (one script may time several)."""
    found = [int(v) for v in _loops_values(doc)]
    if not found:
        raise RunFailed("pyperf's calibration output records no loops")
    return min(found)


def _loops_values(doc: Mapping[str, Any]) -> Sequence[int]:
    common = doc.get("metadata", {}).get("loops")
    values = []
    for bench in doc.get("benchmarks", []):
        loops = bench.get("metadata", {}).get("loops", common)
        for run in bench.get("runs", []):
            loops = run.get("metadata", {}).get("loops", loops)
        if loops is not None:
            values.append(int(loops))
    return values


def timed_names(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The pyperf benchmark names a run timed (a run script may time several, one worker each)."""
    common = doc.get("metadata", {}).get("name")
    return tuple(str(b.get("metadata", {}).get("name", common)) for b in doc.get("benchmarks", []))
