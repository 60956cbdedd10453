"""A benchmark wheelhouse whose pyperf site carries a planted ``sitecustomize`` (faults planted in the
interpreter's environment, not in the harness), for the collect and cluster fault tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def planted_wheelhouse(real: Path, into: Path, sitecustomize: str, plant: str) -> Path:
    """A copy of ``real``'s pyperf site with ``sitecustomize`` and ``plant.txt`` holding ``plant`` (the
    planted code reads it at each start, so a test can change it mid-run); the benchmarks' part is the
    real one, linked (read on the host only). World-readable: runs are nobody."""
    shutil.copytree(real / "site", into / "site")
    (into / "site" / "sitecustomize.py").write_text(sitecustomize)
    (into / "site" / "plant.txt").write_text(plant + "\n")
    os.symlink(real / "benchmarks", into / "benchmarks")
    for path in (into, *into.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return into
