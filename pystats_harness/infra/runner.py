"""Run a built interpreter in a fresh container with its own empty stats directory."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.build.cache import PREFIX_IN_CONTAINER, PYTHON_IN_CONTAINER, CacheEntry
from pystats_harness.config import Settings
from pystats_harness.errors import NotBuilt
from pystats_harness.infra import engine

STATS_DIR_IN_CONTAINER = "/tmp/py_stats"


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


def new_run_dir(settings: Settings, entry: CacheEntry, label: str) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    path = settings.runs_dir / f"{stamp}-{entry.key[:8]}-{label}-{uuid.uuid4().hex[:6]}"
    path.mkdir(parents=True)
    return path


def container_spec(
    settings: Settings, entry: CacheEntry, request: RunRequest, run_dir: Path, image: str
) -> engine.ContainerSpec:
    """Pure: the container for one run (install read-only, private /tmp/py_stats, no network)."""
    mounts = [engine.Mount(str(entry.install_dir), PREFIX_IN_CONTAINER, read_only=True)]
    if entry.source_dir.is_dir():
        mounts.append(engine.Mount(str(entry.source_dir), "/src", read_only=True))
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
        name_prefix=f"pystats-harness-{request.label}",
    )


def run_python(
    settings: Settings,
    entry: CacheEntry,
    request: RunRequest,
    client: object = None,
    *,
    image: str | None = None,
    require_complete: bool = True,
) -> RunResult:
    """Run ``python3 ARGS`` from ``entry`` in a fresh container; stats files come back to the host."""
    if require_complete and not entry.complete():
        raise NotBuilt(f"build {entry.key} is not complete; run `invoke build` first")
    client = client or engine.connect()
    image = image or entry.manifest()["image"]["id"]
    run_dir = new_run_dir(settings, entry, request.label)
    if request.stats_dir:
        (run_dir / "py_stats").mkdir()
    spec = container_spec(settings, entry, request, run_dir, image)
    start = time.perf_counter()
    result = engine.run(client, spec, timeout=settings.run_timeout, keep=settings.keep_containers)
    seconds = time.perf_counter() - start
    files = tuple(sorted((run_dir / "py_stats").glob("*"))) if request.stats_dir else ()
    (run_dir / "stdout.txt").write_text(result.stdout)
    (run_dir / "stderr.txt").write_text(result.stderr)
    return RunResult(result.exit_code, result.stdout, result.stderr, run_dir, files, seconds)
