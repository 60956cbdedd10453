"""Files: atomic writes (temp file + rename), content hashes, JSON read once per file version."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any


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
