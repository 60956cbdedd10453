"""Owner processes of leftovers: a killed build (kill -9) cannot clean up; the next one does."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


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
