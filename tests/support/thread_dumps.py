"""The committed threaded canary dumps (tests/data/threads) and the plan they were made with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from pystats_harness.measure import threads
from pystats_harness.measure.suiteconfig import ThreadCanary

DATA = Path(__file__).resolve().parent.parent / "data" / "threads"
#: What `invoke validate --rev v3.13.5` ran (configs/suite.toml [threads]), two of its five repeats kept.
PLAN = ThreadCanary(kernel="calls", n=20000, repeats=2, thread_counts=(1, 2, 4, 8))


def load(build: str, into: Path | None = None) -> tuple[dict[threads.Key, Path], dict[str, Any]]:
    """(dump files by (T, K, repeat), the build's canary table); copied to ``into`` first if given."""
    source = DATA / build
    if into is not None:
        shutil.copytree(source, into)
        source = into
    return threads.dump_files(sorted(source.glob("*.txt")), "calls"), json.loads((source / "table.json").read_text())
