"""``invoke run`` without an engine: the stdin feed."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from pystats_harness.builder.cache import CacheEntry
from pystats_harness.infra import engine, feed
from pystats_harness.infra.runner import RunRequest, container_spec


def test_a_run_with_stdin_asks_the_engine_to_keep_it_open_and_nothing_else(tmp_path: Path) -> None:
    plain = container_spec(CacheEntry(tmp_path), RunRequest(("-",)), tmp_path / "run", "img", memory="1g", pids=8)
    assert plain.stdin is False and engine.create_options(plain)["stdin_open"] is False
    read, write = os.pipe()
    with os.fdopen(read, "rb") as stream:
        request = RunRequest(("-",), stdin=stream)
        spec = container_spec(CacheEntry(tmp_path), request, tmp_path / "run", "img", memory="1g", pids=8)
    os.close(write)
    assert spec.stdin is True and engine.create_options(spec)["stdin_open"] is True
    fed, unfed = engine.create_options(spec), engine.create_options(plain)
    assert {k: v for k, v in fed.items() if k != "stdin_open"} == {k: v for k, v in unfed.items() if k != "stdin_open"}


def test_the_feed_copies_everything_then_ends_the_input() -> None:
    read, write = os.pipe()
    sink, far = socket.socketpair()
    data = os.urandom(300_000)  # more than a pipe and a socket buffer hold
    with os.fdopen(read, "rb") as source, far:
        thread = feed.start_feeding(source, sink)
        with os.fdopen(write, "wb") as writer:
            writer.write(data)
        received = b"".join(iter(lambda: far.recv(1 << 16), b""))  # b"": the write side was shut
        thread.join(timeout=10)
    assert received == data and not thread.is_alive()
    feed.close(sink)


def test_the_feed_ends_quietly_when_the_program_is_gone(tmp_path: Path) -> None:
    sink, far = socket.socketpair()
    far.close()
    (tmp_path / "in").write_bytes(b"x" * 100_000)
    with (tmp_path / "in").open("rb") as source:
        assert feed.copy_then_close(source, sink) < 100_000
    feed.close(sink)
