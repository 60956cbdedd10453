"""Baselines: per-loop stats of each workload from the manual path, stored in
configs/baselines/<python version>/<workload>.json, and the comparison against them.

Schema 2 stores the exact net counts and the loops they were counted over (``counts``,
``bracketed_loops``); per-loop values are Fractions of them, compared exactly (``per_loop`` in the
file is for reading).  Schema 1 files (``per_loop`` only, rounded to 6 decimals) are still read."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from pystats_harness import __version__
from pystats_harness.builder.configurations import DEFAULT
from pystats_harness.errors import ConfigError
from pystats_harness.infra.fs import write_json_atomic
from pystats_harness.measure.allowances import Kind, Uses, allowance_kind
from pystats_harness.measure.suiteconfig import SuiteConfig, Tolerance, compared
from pystats_harness.resources import BASELINES_DIR
from pystats_harness.stats.exact import display, net

SCHEMA = "pystats-harness/baseline/2"
#: schema 1 stored only ``per_loop`` values rounded to this many decimals (still read)
SCHEMA_1 = "pystats-harness/baseline/1"
PLACES_1 = 6


@dataclass(frozen=True)
class Deviation:
    name: str
    baseline: Fraction
    value: Fraction
    allowed: str


def net_counts(work: Mapping[str, int], null: Mapping[str, int]) -> dict[str, int]:
    """``work - null`` for every counter that is not zero: the workload's own work, exact."""
    return {n: v for n, v in sorted(net(work, null).items()) if v != 0}


def directory(python_version: str, configuration: str = DEFAULT) -> str:
    """A version's baselines directory: ``<version>`` for the default configuration (as before
    configurations existed), ``<version>-<configuration>`` for another."""
    return python_version if configuration == DEFAULT else f"{python_version}-{configuration}"


def path_for(python_version: str, workload: str, root: Path = BASELINES_DIR, configuration: str = DEFAULT) -> Path:
    return root / directory(python_version, configuration) / f"{workload}.json"


def record(
    python_version: str,
    workload: str,
    counts: Mapping[str, int],
    bracketed_loops: int,
    meta: Mapping[str, Any],
    root: Path = BASELINES_DIR,
    configuration: str = DEFAULT,
) -> Path:
    """``counts`` (net, over ``bracketed_loops`` loops) as the baseline; ``per_loop`` is for reading."""
    path = path_for(python_version, workload, root, configuration)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = {k: int(v) for k, v in sorted(counts.items()) if compared(k)}
    doc = {
        "schema": SCHEMA,
        "metadata": {
            **meta,
            "workload": workload,
            "python_version": python_version,
            "configuration": configuration,
            "harness_version": __version__,
            "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "bracketed_loops": bracketed_loops,
        "counts": kept,
        "per_loop": {k: display(Fraction(v, bracketed_loops)) for k, v in kept.items()},
    }
    return write_json_atomic(path, doc, indent=1, sort_keys=True)


def load(
    python_version: str, workload: str, root: Path = BASELINES_DIR, configuration: str = DEFAULT
) -> dict[str, Any] | None:
    path = path_for(python_version, workload, root, configuration)
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def per_loop(doc: Mapping[str, Any]) -> tuple[dict[str, Fraction], int | None]:
    """A baseline's exact per-loop values, and the decimals a value to compare with it is rounded
    to (None: exact; schema 1 stored per-loop values rounded to ``PLACES_1`` decimals)."""
    if doc.get("schema") == SCHEMA_1:
        return {k: Fraction(str(v)) for k, v in doc["per_loop"].items()}, PLACES_1
    if doc.get("schema") != SCHEMA:
        raise ConfigError(f"baseline of schema {doc.get('schema')!r}: expected {SCHEMA!r}; record it again")
    loops = int(doc["bracketed_loops"])
    return {k: Fraction(int(v), loops) for k, v in doc["counts"].items()}, None


def _compared(
    base: Mapping[str, Fraction], new: Mapping[str, Fraction], suite: SuiteConfig, places: int | None
) -> Iterator[tuple[str, Tolerance, Fraction, Fraction]]:
    """(name, tolerance, baseline, value) of every compared counter, exact (missing counters count as
    0; the value rounded to ``places`` decimals when the baseline was). A tolerance with ``minus``
    compares both net of that counter."""
    exact_base = {k: Fraction(x) for k, x in base.items()}
    new = dict(new)
    for name in sorted(set(base) | set(new)):
        if compared(name):
            tol = suite.tolerance_for(name)
            b, v = exact_base.get(name, Fraction(0)), Fraction(new.get(name, 0))
            if tol.combines:
                b, v = tol.value(exact_base, name), tol.value(new, name)
            yield name, tol, b, v if places is None else round(v, places)


def uses(
    base: Mapping[str, Fraction], new: Mapping[str, Fraction], suite: SuiteConfig, into: Uses, places: int | None = None
) -> int:
    """The rules of the registry a comparison with the baseline used, added to ``into`` (per-loop values
    shown as floats); returns how many compared counters were equal."""
    equal = 0
    for name, tol, b, v in _compared(base, new, suite, places):
        rule = suite.rule_for(name)[0]
        if tol.ignore:
            into.add(rule, Kind.IGNORE, name, float(b), float(v))
        elif b == v:
            equal += 1
        elif tol.allows(b, v):
            into.add(rule, allowance_kind(tol), name, float(b), float(v))
    return equal


def deviations(
    base: Mapping[str, Fraction], new: Mapping[str, Fraction], suite: SuiteConfig, places: int | None = None
) -> list[Deviation]:
    """Counters outside their tolerance."""
    out = []
    for name, tol, b, v in _compared(base, new, suite, places):
        if not tol.allows(b, v):
            allowed = "exact" if tol.rel == 0 and tol.abs == 0 else f"±{tol.abs:g}+{tol.rel:.0%}"
            out.append(Deviation(name, b, v, allowed))
    return out


@dataclass(frozen=True)
class AllowanceUse:
    """How much of its allowance a workload's worst counter used: ``deviation`` = |value - baseline| per
    loop of ``allowed`` = abs + rel * |baseline| (configs/suite.toml tolerances; 0 for exact counters).
    ``counter`` is None when none of the ``compared`` counters differs.  Computed exactly, kept as
    floats: this is what the plot and the report show, never what a comparison reads."""

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


def worst_use(
    base: Mapping[str, Fraction], new: Mapping[str, Fraction], suite: SuiteConfig, places: int | None = None
) -> AllowanceUse:
    """The compared, non-ignored counter that used most of its allowance (an exact counter that differs
    before all others; then the larger deviation)."""
    exact = [
        (n, abs(v - b), tol.allowance(b)) for n, tol, b, v in _compared(base, new, suite, places) if not tol.ignore
    ]
    differing = [(n, d, a) for n, d, a in exact if d]
    if not differing:
        return AllowanceUse(None, 0.0, 0.0, len(exact))
    n, d, a = max(differing, key=lambda u: (u[2] == 0, u[1] / u[2] if u[2] else 0, u[1]))
    return AllowanceUse(n, float(d), float(a), len(exact))
