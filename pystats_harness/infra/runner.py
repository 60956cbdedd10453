"""Run a built interpreter in a fresh container with its own empty stats directory."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pystats_harness.errors import NotBuilt
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context

STATS_DIR_IN_CONTAINER = "/tmp/py_stats"
PREFIX_IN_CONTAINER = "/opt/pystats"
PYTHON_IN_CONTAINER = f"{PREFIX_IN_CONTAINER}/bin/python3"
SOURCE_IN_CONTAINER = "/src"


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


@dataclass(frozen=True)
class RunRequest:
    """What to run: interpreter arguments, environment, extra mounts, and whether a stats dir exists."""

    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    stats_dir: bool = True
    mounts: tuple[engine.Mount, ...] = ()
    workdir: str | None = None
    label: str = "run"


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    stdout: str
    stderr: str
    run_dir: Path
    stats_files: tuple[Path, ...]
    seconds: float

    def stats_texts(self) -> list[tuple[str, str]]:
        return [(p.name, p.read_text(errors="replace")) for p in self.stats_files]


def new_run_dir(runs_dir: Path, interpreter: Interpreter, label: str) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    path = runs_dir / f"{stamp}-{interpreter.key[:8]}-{label}-{uuid.uuid4().hex[:6]}"
    path.mkdir(parents=True)
    return path


def container_spec(interpreter: Interpreter, request: RunRequest, run_dir: Path, image: str) -> engine.ContainerSpec:
    """Pure: the container for one run (install read-only, private /tmp/py_stats, no network)."""
    mounts = [engine.Mount(str(interpreter.install_dir), PREFIX_IN_CONTAINER, read_only=True)]
    if interpreter.source_dir.is_dir():
        mounts.append(engine.Mount(str(interpreter.source_dir), SOURCE_IN_CONTAINER, read_only=True))
    if request.stats_dir:
        mounts.append(engine.Mount(str(run_dir / "py_stats"), STATS_DIR_IN_CONTAINER))
    mounts.extend(request.mounts)
    env = {"PYTHONHASHSEED": "0", **request.env}
    # The image creates /tmp/py_stats; a run without a stats dir must not have it.
    prefix = [] if request.stats_dir else ["sh", "-c", f'rmdir {STATS_DIR_IN_CONTAINER} 2>/dev/null; exec "$@"', "sh"]
    return engine.ContainerSpec(
        image=image,
        command=[*prefix, PYTHON_IN_CONTAINER, *request.args],
        mounts=tuple(mounts),
        env=env,
        workdir=request.workdir,
        network=False,
        name_prefix=f"pystats-harness-{request.label}",
    )


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
    """
    if require_complete and not interpreter.complete():
        raise NotBuilt(f"build {interpreter.key} is not complete; run `invoke build` first")
    settings = ctx.settings
    run_dir = new_run_dir(settings.runs_dir, interpreter, request.label)
    if request.stats_dir:
        (run_dir / "py_stats").mkdir()
    spec = container_spec(interpreter, request, run_dir, image or interpreter.image_id())
    start = time.perf_counter()
    result = engine.run(ctx.docker, spec, timeout=settings.run_timeout, keep=settings.keep_containers)
    seconds = time.perf_counter() - start
    files = tuple(sorted((run_dir / "py_stats").glob("*"))) if request.stats_dir else ()
    (run_dir / "stdout.txt").write_text(result.stdout)
    (run_dir / "stderr.txt").write_text(result.stderr)
    return RunResult(result.exit_code, result.stdout, result.stderr, run_dir, files, seconds)
