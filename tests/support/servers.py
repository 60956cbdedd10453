"""Real servers for the scale-out tests: a redis-server on 127.0.0.1 with a random free port."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pystats_harness.cluster.local import free_port, wait_listening


class Redis:
    """A redis-server process on 127.0.0.1 (no persistence); ``stop`` ends it, ``url`` is ccache's."""

    def __init__(self, workdir: Path) -> None:
        if shutil.which("redis-server") is None:
            pytest.fail("redis-server missing; run scripts/bootstrap.sh (apt-get install redis-server)")
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            cwd=workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not wait_listening(self.port, self.proc, deadline=20.0):
            self.stop()
            pytest.fail(f"redis-server did not listen on 127.0.0.1:{self.port} within 20 s")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextmanager
def redis_server(workdir: Path) -> Iterator[Redis]:
    server = Redis(workdir)
    try:
        yield server
    finally:
        server.stop()
