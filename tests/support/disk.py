"""Disk usage as ``du`` counts it."""

from __future__ import annotations

from pathlib import Path


def disk_mb(path: Path) -> float:
    """What ``du -s`` says, in MiB (allocated blocks, each inode once, symlinks not followed)."""
    seen, total = set(), 0
    for f in [path, *path.rglob("*")]:
        st = f.lstat()
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total / 2**20
