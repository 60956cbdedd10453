"""A started ``invoke build`` whose output a test reads line by line, waiting for phase lines."""

from __future__ import annotations

import queue
import signal
import subprocess
import threading
import time
from typing import NoReturn

import pytest

#: How long a build may take to reach the phase a test waits for (a cold CPython build takes minutes).
PHASE_DEADLINE = 300.0


class Streamed:
    """A popen'ed ``invoke build`` whose merged output a thread reads line by line, so that a test
    waits for a phase line (``» configure``, ``» make``: Reporter.phase off a terminal) with a deadline
    instead of sleeping or blocking on the pipe."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[str] = []  # what the test has read so far
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line)
        self._queue.put(None)  # end of output

    def _give_up(self, why: str) -> NoReturn:
        """Stop the build the way a user would (Ctrl-C, then kill) and fail the test."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        pytest.fail(f"{why}; output so far:\n{''.join(self.lines)}")

    def wait_for(self, marker: str, deadline: float = PHASE_DEADLINE, *, contains: bool = False) -> None:
        """Read until the line ``marker`` (with ``contains``: a line containing it); fail if the process
        ends or ``deadline`` seconds pass first."""
        end = time.monotonic() + deadline
        while True:
            try:
                line = self._queue.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                self._give_up(f"the build printed no {marker!r} line within {deadline:.0f} s")
            if line is None:
                self._give_up(f"the build exited (code {self.proc.wait()}) before printing {marker!r}")
            self.lines.append(line)
            if (marker in line) if contains else (line.strip() == marker):
                return

    def finish(self, timeout: float) -> str:
        """Wait for the process to exit; returns the output after what ``wait_for`` read."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"the build did not exit within {timeout:.0f} s; output so far:\n{''.join(self.lines)}")
        self._reader.join(timeout=timeout)
        start = len(self.lines)
        try:
            while (line := self._queue.get(timeout=timeout)) is not None:
                self.lines.append(line)
        except queue.Empty:
            pytest.fail(f"the build exited but its output did not end within {timeout:.0f} s")
        return "".join(self.lines[start:])
