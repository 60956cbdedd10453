"""Files: atomic writes (temp file + rename), a directory put in place once, content hashes, JSON read once
per file version."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pystats_harness.errors import OutputNotWritable


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` so that readers see the old file or the whole new one, never a part."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) atomically: readers see the old file or the whole new one."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: Path, data: Any, *, indent: int = 1, sort_keys: bool = False) -> Path:
    """JSON (no NaN: it is not JSON) written atomically, ending with a newline."""
    return write_text_atomic(path, json.dumps(data, indent=indent, sort_keys=sort_keys, allow_nan=False) + "\n")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@functools.lru_cache(maxsize=64)
def _read_json(path: Path, mtime_ns: int) -> Any:
    return json.loads(path.read_text())


def read_json_cached(path: Path) -> Any:
    """JSON of ``path``, parsed once per version of the file (keyed on its mtime); do not mutate it."""
    return _read_json(path, path.stat().st_mtime_ns)


@contextlib.contextmanager
def exclusively(lock_file: Path) -> Iterator[None]:
    """Hold ``lock_file`` (an ``flock``, released by the kernel if the process dies) for the block; waits
    for another holder, a thread of this process included (each call opens the file anew)."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def put_in_place(staging: Path, final: Path, marker: str) -> bool:
    """Move the directory ``staging`` to ``final`` unless ``final`` is complete (has ``marker``); a
    ``final`` without it (left by a process killed mid-way) is replaced. Under a lock beside ``final``, so
    that two threads or processes finishing at once never remove what the other put there (one of
    them may be reading it). True if ``staging`` was moved (else the caller removes it)."""
    with exclusively(final.parent / f".{final.name}.lock"):
        if (final / marker).is_file():
            return False
        (staging / marker).write_text("complete\n")
        if final.exists():
            shutil.rmtree(final)
        os.replace(staging, final)
        return True


def check_output_dir(path: Path, option: str = "--out") -> Path:
    """``path`` if a run can write its output there (it exists as a writable directory, or its nearest
    existing parent lets a directory be made), else OutputNotWritable (exit 32) before any work. The check
    makes and removes one empty directory: nothing is left."""
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise OutputNotWritable(path, f"{existing} is not a directory" if existing else "no parent exists", option)
    try:
        probe = existing / f".pystats-probe-{uuid.uuid4().hex[:8]}"
        probe.mkdir()
        probe.rmdir()
    except OSError as exc:
        raise OutputNotWritable(path, f"{existing}: {exc.strerror or exc}", option) from None
    return path
