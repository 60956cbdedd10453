"""Real servers for the scale-out tests: a redis-server on 127.0.0.1 with a random free port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, deadline: float = 20.0) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False


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
        if not wait_for_port(self.port):
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
