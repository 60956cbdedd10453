"""Feeding a container's stdin: a host stream's bytes copied to the engine's attach socket as they come,
then end of file (the write side shut), in a thread of its own, so that a run's timeout still holds
while its program does not read. A program that exits without reading all of it ends the copy."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
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


def close(sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sink.close()
