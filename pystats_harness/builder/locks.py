"""Cache entries shared by concurrent invocations: who builds a key, who uses an entry.

Both are ``flock`` locks on files under ``builds/.locks/`` (released by the kernel when a process
dies, even after kill -9):

* ``<key>.build`` -- exclusive while one invocation builds that key. A second invocation of the
  same build says whose build it waits for (``<key>.owner``), waits, then takes the cache hit.
* ``<key>.use`` -- shared while an invocation uses the entry (taken on every lookup and held until
  the process ends); ``invoke cache prune`` removes an entry only if it can take it exclusively.
  Its modification time is the entry's "last used".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pystats_harness.infra.fs import write_json_atomic

LOCKS = ".locks"
#: Use locks this process holds (key -> open file); kept until the process ends.
_held: dict[Path, IO[str]] = {}


def _lock_path(builds_dir: Path, key: str, kind: str) -> Path:
    directory = builds_dir / LOCKS
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{key}.{kind}"


def use(builds_dir: Path, key: str) -> None:
    """Mark the entry as used now and as in use by this process until it ends."""
    path = _lock_path(builds_dir, key, "use")
    if path not in _held:
        fh = path.open("a")
        fcntl.flock(fh, fcntl.LOCK_SH)
        _held[path] = fh
    os.utime(path)


def release(builds_dir: Path, key: str) -> None:
    """Stop using the entry (after a lookup that found nothing to use)."""
    fh = _held.pop(builds_dir / LOCKS / f"{key}.use", None)
    if fh is not None:
        fh.close()


def last_used(builds_dir: Path, key: str) -> float | None:
    path = builds_dir / LOCKS / f"{key}.use"
    return path.stat().st_mtime if path.exists() else None


@contextlib.contextmanager
def unused(builds_dir: Path, key: str) -> Iterator[bool]:
    """True (and held exclusively for the ``with`` block) when no invocation uses the entry."""
    path = _lock_path(builds_dir, key, "use")
    if path in _held:  # this process uses it itself
        yield False
        return
    with exclusive_if_free(path) as free:
        yield free


@contextlib.contextmanager
def exclusive_if_free(path: Path) -> Iterator[bool]:
    """True (the lock file ``path`` held exclusively for the ``with`` block) when nobody holds it."""
    with path.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True


@dataclass(frozen=True)
class Owner:
    pid: int
    what: str
    since: str

    def describe(self) -> str:
        return f"pid {self.pid} ({self.what}, since {self.since})"


def _read_owner(path: Path) -> Owner | None:
    try:
        doc = json.loads(path.read_text())
        return Owner(int(doc["pid"]), str(doc["what"]), str(doc["since"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


@contextlib.contextmanager
def building(builds_dir: Path, key: str, what: str, on_wait: Callable[[Owner | None], None]) -> Iterator[None]:
    """Exclusive right to build ``key``; ``on_wait`` is told whose build this one waits for."""
    path = _lock_path(builds_dir, key, "build")
    owner_path = _lock_path(builds_dir, key, "owner")
    with path.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            on_wait(_read_owner(owner_path))
            fcntl.flock(fh, fcntl.LOCK_EX)
        me = {"pid": os.getpid(), "what": what, "since": time.strftime("%Y-%m-%dT%H:%M:%S"), "argv": sys.argv}
        write_json_atomic(owner_path, me)
        try:
            yield
        finally:
            owner_path.unlink(missing_ok=True)
