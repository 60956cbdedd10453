"""Run a built interpreter in a fresh container with its own empty stats directory."""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from pystats_harness.errors import NotBuilt
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.run_limits import Limit, LimitReached, Resource

STATS_DIR_IN_CONTAINER = "/tmp/py_stats"
PREFIX_IN_CONTAINER = "/opt/pystats"
PYTHON_IN_CONTAINER = f"{PREFIX_IN_CONTAINER}/bin/python3"
SOURCE_IN_CONTAINER = "/src"
#: Runs execute arbitrary code as nobody:nogroup (Debian), never as root.
RUN_UID = 65534
RUN_USER = f"{RUN_UID}:{RUN_UID}"


@dataclass(frozen=True)
class RuntimeSwitch:
    """What every run of a build adds: interpreter arguments before the run's own, and environment
    variables (a configuration's run-time switch, e.g. ``-X uops``; none for most builds)."""

    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


class Interpreter(Protocol):
    """A built interpreter as runs need it (a build cache entry is one)."""

    @property
    def key(self) -> str: ...

    @property
    def install_dir(self) -> Path: ...

    @property
    def source_dir(self) -> Path: ...

    def complete(self) -> bool: ...

    def image_id(self) -> str: ...

    def runtime_switch(self) -> RuntimeSwitch: ...


@dataclass(frozen=True)
class RunRequest:
    """What to run: interpreter arguments, environment, extra mounts, whether a stats dir exists, a
    stream fed to the interpreter's stdin (None: its stdin is empty), and whether its output is echoed."""

    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    stats_dir: bool = True
    mounts: tuple[engine.Mount, ...] = ()
    workdir: str | None = None
    label: str = "run"
    stdin: IO[bytes] | None = None
    echo: bool = False  # also write the program's stdout and stderr to this process's as they come


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    stdout: str
    stderr: str
    run_dir: Path
    stats_files: tuple[Path, ...]
    seconds: float
    echoed: bool = False  # stdout and stderr were written to this process's as they came, every byte

    def stats_texts(self) -> list[tuple[str, str]]:
        return [(p.name, p.read_text(errors="replace")) for p in self.stats_files]


def new_run_dir(runs_dir: Path, interpreter: Interpreter, label: str) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    path = runs_dir / f"{stamp}-{interpreter.key[:8]}-{label}-{uuid.uuid4().hex[:6]}"
    path.mkdir(parents=True)
    return path


def container_spec(
    interpreter: Interpreter, request: RunRequest, run_dir: Path, image: str, *, memory: str, pids: int
) -> engine.ContainerSpec:
    """Pure: the container for one run. The install is read-only, the run's own stats dir the only
    host directory it writes; no network, no capabilities, not root, a read-only root with an empty
    in-memory /tmp (so a run without a stats dir has no /tmp/py_stats), memory and process limits.
    The build's run-time switch comes first: its arguments before the request's, its variables under them."""
    switch = interpreter.runtime_switch()
    mounts = [engine.Mount(str(interpreter.install_dir), PREFIX_IN_CONTAINER, read_only=True)]
    if interpreter.source_dir.is_dir():
        mounts.append(engine.Mount(str(interpreter.source_dir), SOURCE_IN_CONTAINER, read_only=True))
    if request.stats_dir:
        mounts.append(engine.Mount(str(run_dir / "py_stats"), STATS_DIR_IN_CONTAINER))
    mounts.extend(request.mounts)
    return engine.ContainerSpec(
        image=image,
        command=[PYTHON_IN_CONTAINER, *switch.args, *request.args],
        mounts=tuple(mounts),
        env={"PYTHONHASHSEED": "0", **switch.env, **request.env},
        workdir=request.workdir,
        network=False,
        # its own name resolves (to the loopback), as on a host: servers that bind to their host's
        # address start (pyperformance's dask benchmark runs a Scheduler)
        hostname="localhost",
        name_prefix=f"pystats-harness-{request.label}",
        stdin=request.stdin is not None,
        user=RUN_USER,
        read_only_root=True,
        tmpfs=("/tmp",),
        cap_drop=("ALL",),
        no_new_privileges=True,
        memory=memory,
        pids=pids,
    )


#: What CPython and the shells print when fork() or starting a thread fails with EAGAIN, which in a
#: run container (no RLIMIT_NPROC) means its pids limit. The engine keeps no count of refused forks.
PROCESS_LIMIT_SIGNS = (
    "BlockingIOError: [Errno 11] Resource temporarily unavailable",
    "can't start new thread",
    "fork: Resource temporarily unavailable",
    "fork: retry: Resource temporarily unavailable",
    "Cannot fork",
)


def limits_reached(result: engine.ContainerResult) -> tuple[Resource, ...]:
    """Pure: the limits that stopped a run: refused a process (and failed), OOM-killed, or both."""
    reached = []
    if result.exit_code != 0 and any(sign in result.stderr for sign in PROCESS_LIMIT_SIGNS):
        reached.append(Resource.PROCESSES)
    if result.oom_killed:
        reached.append(Resource.MEMORY)
    return tuple(reached)


def make_stats_dir(run_dir: Path) -> Path:
    """The run's stats dir, writable by the run's user (chown needs root; otherwise anyone may write)."""
    path = run_dir / "py_stats"
    path.mkdir()
    if os.geteuid() == 0:
        os.chown(path, RUN_UID, RUN_UID)
    else:
        path.chmod(0o777)
    return path


def run_python(
    ctx: Context,
    interpreter: Interpreter,
    request: RunRequest,
    *,
    image: str | None = None,
    require_complete: bool = True,
) -> RunResult:
    """Run ``python3 ARGS`` of ``interpreter`` in a fresh container; stats files come back to the host.

    ``image`` and ``require_complete=False`` are for runs during a build, before the entry is complete.
    A run stopped by its process or memory limit raises LimitReached (its output stays in its run dir).
    """
    if require_complete and not interpreter.complete():
        raise NotBuilt(f"build {interpreter.key} is not complete; run `invoke build` first")
    settings = ctx.settings
    run_dir = new_run_dir(settings.runs_dir, interpreter, request.label)
    if request.stats_dir:
        make_stats_dir(run_dir)
    image = image or interpreter.image_id()
    spec = container_spec(interpreter, request, run_dir, image, memory=settings.run_memory, pids=settings.run_pids)
    start = time.perf_counter()
    sinks = getattr(sys.stdout, "buffer", None), getattr(sys.stderr, "buffer", None)  # none when captured as text
    echo = (sinks[0], sinks[1]) if request.echo and sinks[0] and sinks[1] else None
    if echo:
        sys.stdout.flush()  # what this process printed comes before the program's output
    result = engine.run(
        ctx.docker, spec, timeout=settings.run_timeout, keep=settings.keep_containers, stdin=request.stdin, echo=echo
    )
    seconds = time.perf_counter() - start
    files = tuple(sorted((run_dir / "py_stats").glob("*"))) if request.stats_dir else ()
    (run_dir / "stdout.txt").write_text(result.stdout)
    (run_dir / "stderr.txt").write_text(result.stderr)
    reached = limits_reached(result)
    if reached:
        limits = {
            Resource.PROCESSES: Limit(Resource.PROCESSES, str(settings.run_pids), "run_pids"),
            Resource.MEMORY: Limit(Resource.MEMORY, settings.run_memory, "run_memory"),
        }
        raise LimitReached(label=request.label, limits=[limits[r] for r in reached], run_dir=run_dir)
    return RunResult(result.exit_code, result.stdout, result.stderr, run_dir, files, seconds, result.echoed)
