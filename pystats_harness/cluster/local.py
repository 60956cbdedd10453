"""A Dask cluster on this machine for trying the scale-out: one scheduler and N worker processes.

Each worker is a real ``dask worker`` process with ``--resources build=1``, two threads and its own harness cache
(``<base>/worker-<i>``, ``INVOKE_PYSTATS_CACHE_DIR``), fetching revisions into its own mirror from this
machine's mirror; all share the one Docker engine and its ccache volume. Everything listens on
127.0.0.1. The processes are stopped (SIGTERM, then SIGKILL) when the context ends.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pystats_harness.cluster.errors import ClusterUnavailable
from pystats_harness.config import Settings
from pystats_harness.resources import PROJECT_ROOT

START_DEADLINE = 60.0  # seconds for the scheduler to listen and every worker to register
THREADS = 2  # a worker's threads: one build (the build resource) and measurements beside it


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for a server about to start)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LocalCluster:
    address: str
    base_dir: Path
    scheduler: subprocess.Popen[bytes]
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def worker_cache(self, name: str) -> Path:
        return self.base_dir / name

    def add_worker(self, settings: Settings, name: str, extra: Mapping[str, str] | None = None) -> None:
        """Start a ``dask worker`` process named ``name`` (before or during a run): ``--resources build=1``
        and two threads, so that one measures while the other builds; its own cache under the base."""
        env = worker_env(settings, self.base_dir / name, extra or {})
        args = [sys.executable, "-m", "dask", "worker", self.address, "--name", name, "--nthreads", str(THREADS)]
        args += ["--resources", "build=1", "--no-dashboard", "--host", "127.0.0.1"]
        args += ["--local-directory", str(self.base_dir / name / "dask")]
        self.workers[name] = _spawn(args, env, self.base_dir / f"{name}.log")

    def kill_scheduler(self) -> None:
        """SIGKILL the scheduler's process group: as if its host died."""
        if self.scheduler.poll() is None:
            os.killpg(self.scheduler.pid, signal.SIGKILL)
            self.scheduler.wait()

    def kill_worker(self, name: str) -> None:
        """SIGKILL a worker's whole process group (nanny and worker): as if its host died."""
        proc = self.workers[name]
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def worker_env(settings: Settings, cache: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """A worker's environment: its own cache, this machine's mirror as its remote, this machine's ccache
    volume and image (one engine), the checkout importable."""
    mirror = settings.mirror_dir if settings.mirror_dir.is_dir() else settings.mirror_remote
    path = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "INVOKE_PYSTATS_CACHE_DIR": str(cache)}
    env.update({"INVOKE_PYSTATS_MIRROR_REMOTE": str(mirror), "INVOKE_PYSTATS_CLUSTER": ""})
    env.update({"INVOKE_PYSTATS_CCACHE_VOLUME": settings.ccache_volume, "INVOKE_PYSTATS_IMAGE": settings.image})
    if settings.ccache_remote:
        env["INVOKE_PYSTATS_CCACHE_REMOTE"] = settings.ccache_remote
    return {**env, **extra}


def _spawn(args: list[str], env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(args, env=dict(env), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_listening(port: int, proc: subprocess.Popen[bytes], deadline: float = START_DEADLINE) -> bool:
    """True once something listens on 127.0.0.1:``port``; False if ``proc`` ends or ``deadline`` passes."""
    end = time.monotonic() + deadline
    while time.monotonic() < end and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False


@contextmanager
def local_cluster(
    settings: Settings, base_dir: Path, workers: int, worker_extra: Mapping[str, Mapping[str, str]] | None = None
) -> Iterator[LocalCluster]:
    """Start a scheduler and ``workers`` workers (``worker_extra``: extra environment by worker name)."""
    base_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    dask = [sys.executable, "-m", "dask"]
    scheduler = _spawn(
        [*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        os.environ,
        base_dir / "scheduler.log",
    )
    cluster = LocalCluster(f"tcp://127.0.0.1:{port}", base_dir, scheduler)
    try:
        if not wait_listening(port, scheduler):
            raise ClusterUnavailable(
                f"the local scheduler did not start; see {base_dir / 'scheduler.log'}", address=cluster.address
            )
        for i in range(1, workers + 1):
            cluster.add_worker(settings, f"worker-{i}", (worker_extra or {}).get(f"worker-{i}", {}))
        yield cluster
    finally:
        for proc in [*cluster.workers.values(), scheduler]:
            _stop(proc)
