"""Baselines: per-loop stats of each workload from the manual path, stored in
configs/baselines/<python version>/<workload>.json, and the comparison against them."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pystats_harness import __version__
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.resources import BASELINES_DIR
from pystats_harness.validate.suiteconfig import SuiteConfig, Tolerance, compared

SCHEMA = "pystats-harness/baseline/1"


@dataclass(frozen=True)
class Deviation:
    name: str
    baseline: float
    value: float
    allowed: str


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


def _compared(
    base: Mapping[str, float], new: Mapping[str, float], suite: SuiteConfig
) -> Iterator[tuple[str, Tolerance, float, float]]:
    """(name, tolerance, baseline, value) of every compared counter (missing counters count as 0; the
    value rounded as baselines are recorded)."""
    for name in sorted(set(base) | set(new)):
        if compared(name):
            yield name, suite.tolerance_for(name), float(base.get(name, 0.0)), round(float(new.get(name, 0.0)), 6)


def deviations(base: Mapping[str, float], new: Mapping[str, float], suite: SuiteConfig) -> list[Deviation]:
    """Counters outside their tolerance."""
    out = []
    for name, tol, b, v in _compared(base, new, suite):
        if not tol.allows(b, v):
            allowed = "exact" if tol.rel == 0 and tol.abs == 0 else f"±{tol.abs:g}+{tol.rel:.0%}"
            out.append(Deviation(name, b, v, allowed))
    return out


@dataclass(frozen=True)
class AllowanceUse:
    """How much of its allowance a workload's worst counter used: ``deviation`` = |value - baseline| per
    loop of ``allowed`` = abs + rel * |baseline| (configs/suite.toml tolerances; 0 for exact counters).
    ``counter`` is None when none of the ``compared`` counters differs."""

    counter: str | None
    deviation: float
    allowed: float
    compared: int = 0

    @property
    def used(self) -> float | None:
        """deviation / allowed: 0 identical, at most 1 within tolerance; None: an exact counter differs."""
        if self.deviation == 0:
            return 0.0
        return self.deviation / self.allowed if self.allowed else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "counter": self.counter,
            "deviation": self.deviation,
            "allowed": self.allowed,
            "used": self.used,
            "compared": self.compared,
        }


def worst_use(base: Mapping[str, float], new: Mapping[str, float], suite: SuiteConfig) -> AllowanceUse:
    """The compared, non-ignored counter that used most of its allowance (an exact counter that differs
    before all others; then the larger deviation)."""
    uses = [
        AllowanceUse(n, abs(v - b), tol.allowance(b)) for n, tol, b, v in _compared(base, new, suite) if not tol.ignore
    ]
    differing = [u for u in uses if u.deviation]
    if not differing:
        return AllowanceUse(None, 0.0, 0.0, len(uses))
    worst = max(differing, key=lambda u: (u.used is None, u.used or 0.0, u.deviation))
    return replace(worst, compared=len(uses))
