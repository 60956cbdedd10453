"""``python3 -m invoke`` as a user runs it, from the checkout's root, for tests and bench scripts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.config import Settings, load_settings
from pystats_harness.infra.context import Context

ROOT = Path(__file__).resolve().parents[2]
#: The command line of the task runner, with the interpreter that runs the tests.
INVOKE = (sys.executable, "-m", "invoke")


def invoke_env(cache_dir: Path, **extra: str) -> dict[str, str]:
    """This process's environment with the harness's cache at ``cache_dir`` and ``extra`` added."""
    return {**os.environ, "INVOKE_PYSTATS_CACHE_DIR": str(cache_dir), **extra}


def run_invoke(
    *args: str, env: Mapping[str, str] | None = None, timeout: float | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``invoke ARGS`` to its end, its output captured as text (``env`` None: this process's; ``input``:
    its stdin, else this process's)."""
    return subprocess.run(
        [*INVOKE, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, input=input
    )


def invoke_in(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``invoke ARGS`` with its cache in ``tmp_path / "cache"`` (a unit test's scratch cache), ``env`` added."""
    return run_invoke(*args, env=invoke_env(tmp_path / "cache", **env))


def default_sigint() -> None:
    """In a child before it execs: SIGINT back to its default, so that the child's Python turns it into
    KeyboardInterrupt even where the tests run with SIGINT ignored (a background job: ``nohup … &``)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass(frozen=True)
class Harness:
    """The harness on the cache at ``cache_dir``: its settings and context, and its tasks run as a user runs them."""

    cache_dir: Path

    @property
    def settings(self) -> Settings:
        return load_settings({"cache_dir": str(self.cache_dir)})

    def context(self) -> Context:
        return Context(self.settings)

    def env(self, **extra: str) -> dict[str, str]:
        return invoke_env(self.cache_dir, **extra)

    def invoke(
        self, *args: str, timeout: float = 3600, input: str | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return run_invoke(*args, env=self.env(**env), timeout=timeout, input=input)

    def popen(self, *args: str, **env: str) -> subprocess.Popen[str]:
        """``invoke ARGS`` started, stdout and stderr merged into one text pipe; it can receive SIGINT
        (:func:`default_sigint`), as a task started from a terminal can."""
        return subprocess.Popen(
            [*INVOKE, *args],
            cwd=ROOT,
            env=self.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=default_sigint,
        )
