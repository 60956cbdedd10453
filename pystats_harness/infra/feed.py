"""Copying between the host's streams and a container's, each in a thread of its own so that a run's
timeout still holds: feeding its stdin (a host stream's bytes copied to the engine's attach socket as they
come, then end of file, the write side shut; a program that exits without reading all of it ends the copy),
and echoing its output (the engine's log chunks written to the host's stdout or stderr as they come)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

CHUNK = 1 << 16


def copy_then_close(source: IO[bytes], sink: socket.socket) -> int:
    """Copy ``source`` into ``sink`` until end of file, then shut ``sink``'s write side; the bytes copied.
    A sink that went away (the program exited, the container was removed) ends the copy quietly."""
    copied = 0
    try:
        while chunk := os.read(source.fileno(), CHUNK):
            sink.sendall(chunk)
            copied += len(chunk)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the other end is gone: nothing more to feed
    return copied


def start_feeding(source: IO[bytes], sink: socket.socket) -> threading.Thread:
    """:func:`copy_then_close` in a daemon thread (one blocked reading the host's stdin never holds the
    process up when it ends)."""
    thread = threading.Thread(target=copy_then_close, args=(source, sink), name="stdin-feed", daemon=True)
    thread.start()
    return thread


@dataclass
class Echo:
    """One output stream echoed to the host: its thread, and whether every chunk reached the sink."""

    thread: threading.Thread = field(init=False)
    complete: bool = False

    def finish(self, timeout: float) -> bool:
        """Wait for the copy to end (the container has exited); whether everything was echoed."""
        self.thread.join(timeout)
        return self.complete and not self.thread.is_alive()


def start_echo(chunks: Iterator[bytes], sink: IO[bytes]) -> Echo:
    """Write ``chunks`` to ``sink`` as they come, flushed, in a daemon thread. Any failure (the engine gone,
    the sink closed) ends the echo quietly, not complete: the caller still has the whole output."""
    echo = Echo()

    def copy() -> None:
        try:
            for chunk in chunks:
                sink.write(chunk)
                sink.flush()
            echo.complete = True
        except Exception:  # a thread must not print a traceback: complete stays False
            pass

    echo.thread = threading.Thread(target=copy, name="output-echo", daemon=True)
    echo.thread.start()
    return echo


def close(sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sink.close()
