"""Baselines: per-loop stats of each workload from the manual path, stored in
configs/baselines/<python version>/<workload>.json, and the comparison against them."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pystats_harness import __version__
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.resources import BASELINES_DIR
from pystats_harness.validate.suiteconfig import SuiteConfig, compared

SCHEMA = "pystats-harness/baseline/1"


@dataclass(frozen=True)
class Deviation:
    name: str
    baseline: float
    value: float
    allowed: str

    def relative(self) -> float:
        return abs(self.value - self.baseline) / abs(self.baseline) if self.baseline else float("inf")


def net_per_loop(work: Mapping[str, float], null: Mapping[str, float], loops: int) -> dict[str, float]:
    """(work - null) / loops for every counter: the workload's own work per loop."""
    names = set(work) | set(null)
    out = {n: (work.get(n, 0) - null.get(n, 0)) / loops for n in names}
    return {n: v for n, v in sorted(out.items()) if v != 0}


def path_for(python_version: str, workload: str, root: Path = BASELINES_DIR) -> Path:
    return root / python_version / f"{workload}.json"


def record(
    python_version: str,
    workload: str,
    counters: Mapping[str, float],
    meta: Mapping[str, Any],
    root: Path = BASELINES_DIR,
) -> Path:
    path = path_for(python_version, workload, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "schema": SCHEMA,
        "metadata": {
            **meta,
            "workload": workload,
            "python_version": python_version,
            "harness_version": __version__,
            "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "per_loop": {k: round(v, 6) for k, v in sorted(counters.items()) if compared(k)},
    }
    return write_json_atomic(path, doc, indent=1, sort_keys=True)


def load(python_version: str, workload: str, root: Path = BASELINES_DIR) -> dict[str, Any] | None:
    path = path_for(python_version, workload, root)
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def deviations(base: Mapping[str, float], new: Mapping[str, float], suite: SuiteConfig) -> list[Deviation]:
    """Counters outside their tolerance (missing counters count as 0)."""
    out = []
    for name in sorted(set(base) | set(new)):
        if not compared(name):
            continue
        tol = suite.tolerance_for(name)
        b, v = float(base.get(name, 0.0)), round(float(new.get(name, 0.0)), 6)
        if not tol.allows(b, v):
            allowed = "exact" if tol.rel == 0 and tol.abs == 0 else f"±{tol.abs:g}+{tol.rel:.0%}"
            out.append(Deviation(name, b, v, allowed))
    return out


def max_relative_deviation(base: Mapping[str, float], new: Mapping[str, float], suite: SuiteConfig) -> float:
    """Largest relative deviation among compared, non-ignored counters (for the plot)."""
    worst = 0.0
    for name in set(base) | set(new):
        if not compared(name) or suite.tolerance_for(name).ignore:
            continue
        b, v = float(base.get(name, 0.0)), float(new.get(name, 0.0))
        if b == v:
            continue
        worst = max(worst, abs(v - b) / abs(b) if b else 1.0)
    return worst
