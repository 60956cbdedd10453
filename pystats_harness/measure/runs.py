"""Run the reference suite's drivers inside a built interpreter (fresh containers) and collect
their stats as named collections.

manual     python3 -B /suite/manual.py W LOOPS --values V --warmups W'   one process, one dump
automated  python3 -B /suite/automated.py W --loops ... --hook pystats   pyperf, P worker dumps
canary     python3 -B /suite/canaries.py run NAME N                       one process, one dump
threads    python3 -B /suite/thread_canary.py sweep KERNEL N REPEATS T,..  a process per T, K, repeat
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.config import Settings
from pystats_harness.errors import ConfigError, RunFailed
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import write_text_atomic
from pystats_harness.infra.runner import RunRequest, RunResult, run_python
from pystats_harness.resources import SUITE_DIR
from pystats_harness.stats.collection import Collection, collect

SUITE_MOUNT = "/suite"
SITE_MOUNT = "/wheels/site"
SCRIPT_MOUNT = "/workload"


class RunPath(enum.StrEnum):
    """How a workload's stats are collected."""

    MANUAL = "manual"  # _stats_on(); run(loops); _stats_off() in one process
    AUTOMATED = "automated"  # pyperf --hook pystats, worker processes
    CANARY = "canary"


@dataclass(frozen=True)
class Shape:
    """How much bracketed work a path does: loops per value, values, warmups, worker processes."""

    loops: int
    values: int = 1
    warmups: int = 0
    processes: int = 1

    def bracketed_loops(self, path: RunPath) -> int:
        return self.loops * self.values * (self.processes if path is RunPath.AUTOMATED else 1)


@dataclass(frozen=True)
class PathRun:
    workload: str
    path: RunPath
    shape: Shape
    collection: Collection
    runs: tuple[RunResult, ...]

    @property
    def per_loop(self) -> dict[str, float]:
        n = self.shape.bracketed_loops(self.path)
        return {k: v / n for k, v in self.collection.counters.items()}


def _site_dir(settings: Settings) -> Path:
    site = settings.wheelhouse_dir / "site"
    if not (site / "pyperf").is_dir():
        raise ConfigError(
            f"no pyperf in the wheelhouse {site}; run scripts/make-wheelhouse.sh {settings.wheelhouse_dir}"
        )
    return site


def known_workloads() -> list[str]:
    return sorted(p.stem for p in (SUITE_DIR / "workloads").glob("*.py") if p.stem != "__init__")


def workload_mounts(workload: str, scripts_dir: Path | None = None) -> tuple[tuple[engine.Mount, ...], str]:
    """A suite workload name, or a path to a script defining run(loops) (mounted at /workload).

    Runs are confined to the user nobody, who may not be able to read the user's directory, so a
    script is copied (by content) into ``scripts_dir`` with world-readable modes and that is mounted."""
    path = Path(workload)
    if workload.endswith(".py"):
        if not path.is_file():
            raise ConfigError(f"workload script {workload} does not exist; pass a suite workload name or a .py path")
        if scripts_dir is None:
            return (), f"{SCRIPT_MOUNT}/{path.name}"
        data = path.read_bytes()
        copy_dir = scripts_dir / hashlib.sha256(data).hexdigest()[:16]
        copy_dir.mkdir(parents=True, exist_ok=True)
        copy = copy_dir / path.name
        if not copy.is_file():
            write_text_atomic(copy, data.decode("utf-8", "surrogateescape"))
        for p, mode in ((scripts_dir, 0o755), (copy_dir, 0o755), (copy, 0o644)):
            p.chmod(mode)
        return (engine.Mount(str(copy_dir), SCRIPT_MOUNT, read_only=True),), f"{SCRIPT_MOUNT}/{path.name}"
    if workload not in known_workloads():
        raise ConfigError(
            f"unknown workload {workload!r}; known: {', '.join(known_workloads())}, or a path to a .py script"
        )
    return (), workload


def _suite_mount() -> engine.Mount:
    return engine.Mount(str(SUITE_DIR), SUITE_MOUNT, read_only=True)


def _collection(entry: CacheEntry, runs: list[RunResult], meta: Mapping[str, Any]) -> Collection:
    files = [f for r in runs for f in r.stats_files]
    metadata = {**entry.stats_metadata(), **meta}
    if not files:
        return Collection(metadata={**metadata, "nfiles": 0}, counters={})
    return collect(files, entry.names(), metadata)


def _check(r: RunResult, what: str) -> RunResult:
    if r.exit_code != 0:
        tail = " | ".join(r.stderr.strip().splitlines()[-3:])
        raise RunFailed(f"{what} exited {r.exit_code}: {tail[-400:]} (output kept in {r.run_dir})")
    return r


def run_manual(ctx: Context, entry: CacheEntry, workload: str, shape: Shape) -> PathRun:
    mounts, target = workload_mounts(workload, ctx.settings.paths.run_scripts)
    args = (
        "-B",
        f"{SUITE_MOUNT}/manual.py",
        target,
        str(shape.loops),
        "--values",
        str(shape.values),
        "--warmups",
        str(shape.warmups),
    )
    request = RunRequest(args, mounts=(_suite_mount(), *mounts), label=f"manual-{Path(workload).stem}")
    r = _check(run_python(ctx, entry, request), f"manual run of {workload}")
    meta = {"workload": workload, "path": RunPath.MANUAL.value, "loops": shape.bracketed_loops(RunPath.MANUAL)}
    return PathRun(workload, RunPath.MANUAL, shape, _collection(entry, [r], meta), (r,))


def run_automated(ctx: Context, entry: CacheEntry, workload: str, shape: Shape, *, leak: bool = False) -> PathRun:
    if not entry.manifest().get("python", {}).get("has_stats_api", True):
        raise RunFailed(
            "pyperf --hook pystats cannot bracket anything here: the interpreter has no sys._stats_on "
            "(pyperf raises HookError; older pyperf silently collected whole processes)"
        )
    mounts, target = workload_mounts(workload, ctx.settings.paths.run_scripts)
    args = ["-B", f"{SUITE_MOUNT}/automated.py", target, "--loops", str(shape.loops), "--values", str(shape.values)]
    args += ["--warmups", str(shape.warmups), "--processes", str(shape.processes), "--site", SITE_MOUNT]
    args += ["-q", "-o", "/tmp/pyperf.json", *(["--leak"] if leak else [])]
    site = engine.Mount(str(_site_dir(ctx.settings)), SITE_MOUNT, read_only=True)
    request = RunRequest(tuple(args), mounts=(_suite_mount(), site, *mounts), label=f"pyperf-{Path(workload).stem}")
    r = _check(run_python(ctx, entry, request), f"pyperf run of {workload}")
    meta = {"workload": workload, "path": RunPath.AUTOMATED.value, "loops": shape.bracketed_loops(RunPath.AUTOMATED)}
    return PathRun(workload, RunPath.AUTOMATED, shape, _collection(entry, [r], meta), (r,))


def run_canary(ctx: Context, entry: CacheEntry, name: str, n: int) -> RunResult:
    args = ("-B", f"{SUITE_MOUNT}/canaries.py", "run", name, str(n))
    request = RunRequest(args, mounts=(_suite_mount(),), label=f"canary-{name}")
    return _check(run_python(ctx, entry, request), f"canary {name}({n})")


def run_thread_canary(ctx: Context, entry: CacheEntry, kernel: str, n: int, repeats: int, threads: str) -> RunResult:
    """The threaded canary's sweep (suite/thread_canary.py): one labelled dump per (T, K, repeat)."""
    args = ("-B", f"{SUITE_MOUNT}/thread_canary.py", "sweep", kernel, str(n), str(repeats), threads)
    request = RunRequest(args, mounts=(_suite_mount(),), label=f"threads-{kernel}")
    return _check(run_python(ctx, entry, request), f"threaded canary {kernel}")


def canary_table(ctx: Context, entry: CacheEntry) -> str:
    args = ("-B", f"{SUITE_MOUNT}/canaries.py", "expect")
    request = RunRequest(args, mounts=(_suite_mount(),), label="canary-expect")
    return _check(run_python(ctx, entry, request), "canaries.py expect").stdout
