"""Integration fixtures: the real Docker engine, real git, real CPython builds.

Builds go to their own cache (PYSTATS_TEST_CACHE, default ~/.cache/pystats-harness-tests) whose
mirror is fetched from the default cache's mirror, where scripts/bootstrap.sh imported the
release sources.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from pystats_harness.config import Settings, load_settings
from pystats_harness.infra import engine
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror

ROOT = Path(__file__).resolve().parents[2]


#: (fault, survived, entries damaged, leftovers after the next invocation), one row per fault test.
FAULTS: list[tuple[str, bool, int, int]] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The table of faults tried (issue: faults tried, survived, entries damaged, leftovers)."""
    if not FAULTS:
        return
    terminalreporter.section("faults tried")
    terminalreporter.write_line(f"{'fault':<44}{'survived':>10}{'damaged':>9}{'leftovers':>11}")
    for fault, survived, damaged, left in FAULTS:
        terminalreporter.write_line(f"{fault:<44}{'yes' if survived else 'NO':>10}{damaged:>9}{left:>11}")
    terminalreporter.write_line(
        f"{len(FAULTS)} faults, {sum(s for _, s, _, _ in FAULTS)} survived, {sum(d for _, _, d, _ in FAULTS)} entries "
        f"damaged, {sum(left for _, _, _, left in FAULTS)} leftovers"
    )
    if table := os.environ.get("PYSTATS_FAULTS_TABLE"):  # the same rows as Markdown (the docs' tables)
        rows = [f"| {f} | {'yes' if s else 'NO'} | {d} | {n} |" for f, s, d, n in FAULTS]
        head = ["| fault | survived | damaged | leftovers |", "|---|---|---:|---:|"]
        Path(table).write_text("\n".join([*head, *rows]) + "\n")


@dataclass(frozen=True)
class Harness:
    cache_dir: Path

    @property
    def settings(self) -> Settings:
        return load_settings({"cache_dir": str(self.cache_dir)})

    def context(self) -> Context:
        return Context(self.settings)

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "INVOKE_PYSTATS_CACHE_DIR": str(self.cache_dir), **extra}

    def invoke(self, *args: str, timeout: float = 3600, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "invoke", *args],
            cwd=ROOT,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def popen(self, *args: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "invoke", *args],
            cwd=ROOT,
            env=self.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )


@pytest.fixture(scope="session")
def harness() -> Harness:
    try:
        client = engine.connect()
    except Exception as exc:
        pytest.fail(f"integration tests need a Docker engine: {exc} (unit tests only: pytest tests/unit)")
    default = load_settings({})
    if engine.image_id(client, default.image) is None:
        pytest.fail(f"builder image {default.image} missing; run scripts/bootstrap.sh")
    cache = Path(os.environ.get("PYSTATS_TEST_CACHE", "~/.cache/pystats-harness-tests")).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    h = Harness(cache)
    Mirror(h.settings.mirror_dir).update(str(default.mirror_dir))
    return h


def make_commit(mirror_dir: Path, parent: str, files: dict[str, tuple[str, str]], message: str, branch: str) -> str:
    """Commit on top of ``parent`` with ``files`` = {path: (mode, text)} replaced; returns the sha."""
    git = ["git", "--git-dir", str(mirror_dir)]
    env = {
        **os.environ,
        "GIT_INDEX_FILE": str(mirror_dir / f"index-{branch.replace('/', '-')}"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_AUTHOR_DATE": "1700000000 +0000",
        "GIT_COMMITTER_DATE": "1700000000 +0000",
    }

    def run(*args: str, input: str | None = None) -> str:
        return subprocess.run(
            [*git, *args], env=env, input=input, capture_output=True, text=True, check=True
        ).stdout.strip()

    run("read-tree", parent)
    for path, (mode, text) in files.items():
        blob = run("hash-object", "-w", "--stdin", input=text)
        run("update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}")
    tree = run("write-tree")
    sha = run("commit-tree", tree, "-p", parent, "-m", message)
    run("update-ref", f"refs/heads/{branch}", sha)
    os.unlink(env["GIT_INDEX_FILE"])
    return sha


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
