"""Reused build directories ("lanes"): a neighbouring commit rebuilds only what changed.

A lane is a build directory kept between builds of the same group (builder image, configure flags,
X.Y version). Reuse is allowed only where it is safe:

* the lane's previous build succeeded (its state says so; a failed or interrupted build marks it
  dirty, and a dirty lane is wiped before use);
* the previous commit and this one differ in at most MAX_CHANGED files (git diff), none of them a
  file that configures the build (CONFIGURATION_FILES);
* one process at a time (an exclusive lock per lane; a busy lane is never waited for: the build
  takes another lane, or a fresh directory).

The source worktree is always fresh (and removed afterwards), so make would see every file as new:
before the build, every file that did not change since the lane's previous build gets an old
timestamp (T0), and the changed ones -- including files patched then or now -- keep "now". make
then recompiles exactly what changed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.infra.mirror import Mirror

#: A change to one of these re-runs configure: a fresh build directory is safer than make's rules.
CONFIGURATION_FILES = (
    "configure",
    "configure.ac",
    "aclocal.m4",
    "Makefile.pre.in",
    "pyconfig.h.in",
    "Modules/Setup",
    "Modules/Setup.bootstrap.in",
    "Modules/Setup.stdlib.in",
    "Modules/makesetup",
)
MAX_LANES = 4
MAX_CHANGED = 300
T0 = 946684800  # 2000-01-01: older than any object file a lane holds


@dataclass(frozen=True)
class Lane:
    build_dir: Path
    reuse: bool
    reason: str
    state_path: Path | None

    def mark_ok(self, sha: str, patched: Iterable[str]) -> None:
        if self.state_path is not None:
            _write_state(self.state_path, {"ok": True, "sha": sha, "patched": sorted(set(patched))})


def _write_state(path: Path, state: dict[str, Any]) -> None:
    write_json_atomic(path, state)


def _read_state(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def age_unchanged(worktree: Path, changed: set[str]) -> int:
    """Give every file not in ``changed`` the old timestamp T0; returns how many were aged."""
    aged = 0
    for dirpath, _dirnames, filenames in os.walk(worktree):
        if dirpath == str(worktree) and ".git" in filenames:
            filenames = [f for f in filenames if f != ".git"]
        rel_dir = os.path.relpath(dirpath, worktree)
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if rel not in changed:
                os.utime(os.path.join(dirpath, name), (T0, T0), follow_symlinks=False)
                aged += 1
    return aged


def decide(state: dict[str, Any], changed: list[str] | None) -> tuple[bool, str]:
    """Pure: may this lane's build directory be reused?"""
    if not state:
        return False, "new lane"
    if not state.get("ok"):
        return False, "the lane's previous build did not finish"
    if changed is None:
        return False, "cannot diff against the lane's previous commit"
    if len(changed) > MAX_CHANGED:
        return False, f"{len(changed)} files changed since the lane's previous build (> {MAX_CHANGED})"
    config = sorted(set(changed) & set(CONFIGURATION_FILES))
    if config:
        return False, f"the build configuration changed ({', '.join(config)})"
    return True, f"{len(changed)} file(s) changed since {str(state.get('sha'))[:10]}"


@contextlib.contextmanager
def acquire(root: Path, group: str, mirror: Mirror, sha: str, worktree: Path, patched: list[str]) -> Iterator[Lane]:
    """A locked lane for this build (or a fresh temporary directory when all lanes are busy)."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(MAX_LANES):
        lock_path = root / f"{group}-{i}.lock"
        fh = lock_path.open("a")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            continue
        try:
            lane_dir = root / f"{group}-{i}"
            state_path = root / f"{group}-{i}.json"
            state = _read_state(state_path)
            changed = mirror.changed_paths(state["sha"], sha) if state.get("sha") else None
            reuse, reason = decide(state, changed)
            if reuse and lane_dir.is_dir():
                age_unchanged(worktree, set(changed or ()) | set(state.get("patched", ())) | set(patched))
            else:
                reuse = False
                shutil.rmtree(lane_dir, ignore_errors=True)
            lane_dir.mkdir(parents=True, exist_ok=True)
            _write_state(state_path, {"ok": False, "sha": sha, "patched": sorted(set(patched))})
            yield Lane(lane_dir, reuse, reason, state_path)
            return
        finally:
            fh.close()
    from pystats_harness.infra.proc import reap_dead

    reap_dead(root, "fresh-")
    tmp = root / f"fresh-x-{os.getpid()}-{os.urandom(4).hex()}"
    tmp.mkdir()
    try:
        yield Lane(tmp, False, "all lanes busy", None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
