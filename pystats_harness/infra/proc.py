"""Subprocesses and their owners: one way to run git/tar/debootstrap, and reaping after kill -9.

Every external command goes through :func:`run`, which turns a non-zero exit into the harness
error the caller names (carrying a :class:`~pystats_harness.errors.FailedCommand`), so no
``CalledProcessError`` ever escapes the error root as a traceback.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from pystats_harness.errors import FailedCommand, HarnessError

STDERR_TAIL = 300


def run(
    argv: Sequence[str],
    *,
    error: type[HarnessError],
    what: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
) -> str:
    """Run ``argv`` to completion and return its stdout; a non-zero exit raises ``error``.

    ``what`` says what the command was for ("git apply of stats-api.patch"); the message names it,
    the exit status and the end of stderr.
    """
    try:
        proc = subprocess.run(
            list(argv), cwd=cwd, env=dict(env) if env is not None else None, input=input, capture_output=True, text=True
        )
    except OSError as exc:
        raise error(f"{what}: cannot run {argv[0]} ({exc.strerror}); is it installed?") from None
    if proc.returncode != 0:
        tail = proc.stderr.strip()[-STDERR_TAIL:]
        failed = FailedCommand(tuple(argv), proc.returncode, tail)
        last = tail.splitlines()[-1] if tail else "no output"
        raise error(f"{what} failed (`{shlex.join(argv)[:120]}` exited {proc.returncode}): {last}", command=failed)
    return proc.stdout


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap_dead(parent: Path, prefix: str) -> list[Path]:
    """Remove ``<prefix>…-<pid>-<rand>`` dirs whose owning process is gone (e.g. after kill -9)."""
    removed = []
    for path in parent.glob(f"{prefix}*"):
        parts = path.name.rsplit("-", 2)
        if len(parts) == 3 and parts[1].isdigit() and not pid_alive(int(parts[1])):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
