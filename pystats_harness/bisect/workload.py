"""What a bisect runs at every commit: a suite workload or a script, with its loops and identity."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pystats_harness.errors import ConfigError
from pystats_harness.resources import SUITE_DIR
from pystats_harness.validate.runs import workload_mounts
from pystats_harness.validate.suiteconfig import load_suite

SCRIPT_LOOPS = 10  # default --loops for a workload script (suite workloads: configs/suite.toml)


@dataclass(frozen=True)
class Workload:
    """What runs at every commit; ``ident`` is its part of the result-cache key."""

    name: str  # as given: a suite workload name or a script path
    target: str  # what run_manual gets (a script as an absolute path)
    loops: int
    ident: str

    @property
    def label(self) -> str:
        return Path(self.name).stem if self.name.endswith(".py") else self.name


def resolve_workload(workload: str, loops: int | None = None) -> Workload:
    """A suite workload (default loops from configs/suite.toml) or a ``.py`` script defining run(loops)."""
    workload_mounts(workload)  # validates the name or path (ConfigError)
    digest = hashlib.sha256()
    if workload.endswith(".py"):
        path = Path(workload).resolve()
        digest.update(path.read_bytes())
        target, kind, loops = str(path), f"script:{path.name}", loops or SCRIPT_LOOPS
    else:
        for file in (SUITE_DIR / "workloads" / f"{workload}.py", SUITE_DIR / "manual.py", SUITE_DIR / "common.py"):
            digest.update(file.read_bytes() if file.is_file() else b"")
        target, kind = workload, f"suite:{workload}"
        loops = loops or load_suite().workloads.get(workload, SCRIPT_LOOPS)
    if loops < 1:
        raise ConfigError(f"--loops must be >= 1 (got {loops})")
    return Workload(workload, target, loops, f"{kind}:{digest.hexdigest()[:16]}:manual:loops={loops}")
