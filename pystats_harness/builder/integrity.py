"""What a cache entry holds, recorded when it is made and checked by ``invoke cache verify``.

``contents.json`` maps every file of the entry (install, sources, manifest, names, log) to its size
and sha256, and every symbolic link to its target. A flipped byte, a deleted or an added file makes
:func:`check` name it; :func:`invalidate` then turns the completion marker into ``INVALID`` (with
the reason), so the entry is never served again and the next build of its key replaces it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness.builder.cache import MARKER, CacheEntry
from pystats_harness.infra.fs import read_json_cached, sha256_file, write_json_atomic

CONTENTS = "contents.json"
INVALID = "INVALID"
#: Files that change after the entry is made, or describe it: not part of its contents.
NOT_CONTENT = frozenset({MARKER, CONTENTS, INVALID})


def _files(root: Path) -> Iterator[tuple[str, Path]]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if rel not in NOT_CONTENT:
                yield rel, path


def describe(root: Path) -> dict[str, Any]:
    """{relative path: [size, sha256] or ["link", target]} for everything under ``root``."""
    out: dict[str, Any] = {}
    for rel, path in _files(root):
        if path.is_symlink():
            out[rel] = ["link", os.readlink(path)]
        else:
            out[rel] = [path.stat().st_size, sha256_file(path)]
    return out


def record(staged: Path) -> None:
    """Write the contents of a finished staging entry (before it is committed)."""
    write_json_atomic(staged / CONTENTS, describe(staged), indent=0, sort_keys=True)


@dataclass(frozen=True)
class Problem:
    path: str
    what: str  # "changed", "missing", "unexpected", "no record"

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


def check(entry: CacheEntry) -> list[Problem]:
    """What differs between the entry and its recorded contents (empty: intact)."""
    record_path = entry.path / CONTENTS
    if not record_path.is_file():
        return [Problem(CONTENTS, "no record")]
    recorded: dict[str, Any] = read_json_cached(record_path)
    found = describe(entry.path)
    problems = [Problem(rel, "missing") for rel in sorted(recorded.keys() - found.keys())]
    problems += [Problem(rel, "unexpected") for rel in sorted(found.keys() - recorded.keys())]
    problems += [
        Problem(rel, "changed") for rel in sorted(recorded.keys() & found.keys()) if recorded[rel] != found[rel]
    ]
    return problems


def invalidate(entry: CacheEntry, problems: list[Problem]) -> None:
    """The entry is no longer a build: its marker becomes INVALID, with the reason."""
    (entry.path / INVALID).write_text("\n".join(str(p) for p in problems[:50]) + "\n")
    (entry.path / MARKER).unlink(missing_ok=True)
