"""Compare two collect outputs (pure): per benchmark x metric, joined by name (so a 3.11 run and a
3.13 run compare by opcode family), with "interesting changes" flagged.

Metrics per benchmark (every count per loop):
  executed                          instructions executed per loop
  <FAMILY>.hit_ratio / .miss_ratio / .deopt_ratio   hit, miss, deopt over (hit + miss) of the family
                                    (pystats_harness/results/metrics.py computes them, for the store too)
  <FAMILY>.deferred_share           deferred over the family's executions: the share that ran the
                                    adaptive instruction backing off instead of a specialized form
  <FAMILY>.failure.<kind>           specialization failures of that kind per loop

A change is interesting when a ratio or the deferred share moves by at least ``ratio_threshold``
(absolute, 0.10 = ten percentage points) or a per-loop count by at least ``count_threshold``
(relative), for families that execute at least ``min_share`` of the benchmark's instructions in base
or head. A failure kind is a count of specialization attempts, not of executions (a failure backs
the instruction off for many executions): it is interesting when it moves by ``count_threshold`` and
by at least ``ratio_threshold`` of the family's failures, appearing or gone included (ea72c6fe3b's
``str[int]`` specialization: tomli_loads's BINARY_SUBSCR ``string int`` failures gone, its deferred
share from 84 % to 4 %, its hit ratio over hits and misses ~100 % on both sides).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pystats_harness.collect import tier2_rates
from pystats_harness.errors import ConfigError
from pystats_harness.results import metrics as stored
from pystats_harness.stats.collection import Collection, load

#: Instructions executed per loop (a metric as the results store computes it, as every ratio here is).
INSTRUCTIONS = "opcode.*.execution_count"


@dataclass(frozen=True)
class Thresholds:
    ratio: float = 0.10
    count: float = 0.25
    min_share: float = 0.005


@dataclass(frozen=True)
class Change:
    benchmark: str
    metric: str
    family: str
    base: float | None
    head: float | None
    interesting: bool

    @property
    def delta(self) -> float:
        return (self.head or 0.0) - (self.base or 0.0)


@dataclass(frozen=True)
class SuiteComparison:
    base: Mapping[str, Any]
    head: Mapping[str, Any]
    changes: tuple[Change, ...]
    only_base: tuple[str, ...]
    only_head: tuple[str, ...]
    #: side ("base", "head") -> benchmark -> its optimizer rates (None: no tier-2 counters)
    tier2: Mapping[str, Mapping[str, tier2_rates.Tier2Rates | None]] = field(default_factory=dict)

    @property
    def interesting(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.interesting)

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": dict(self.base),
            "head": dict(self.head),
            "only_base": list(self.only_base),
            "only_head": list(self.only_head),
            "changes": [asdict(c) for c in self.changes],
            "tier2": {
                side: {n: None if r is None else asdict(r) for n, r in found.items()}
                for side, found in self.tier2.items()
            },
        }


#: Metrics that are fractions of 1, compared in percentage points.
FRACTIONS = (*stored.RATIOS, stored.SHARE)


def is_fraction(metric: str) -> bool:
    return metric in FRACTIONS


def _per_loop(c: Collection) -> dict[str, float]:
    loops = float(c.metadata.get("loops") or 1)
    return {k: v / loops for k, v in c.counters.items()}


def metrics(counters: Mapping[str, float]) -> dict[tuple[str, str], float]:
    """(family, metric) -> value from per-loop family counters."""
    out: dict[tuple[str, str], float] = {}
    executed = stored.value(INSTRUCTIONS, counters) or 0.0
    out[("", "executed")] = executed
    for key, value in counters.items():
        if not key.startswith("family."):
            continue
        _, family, rest = key.split(".", 2)
        if rest == "execution_count":
            out[(family, "share")] = value / executed if executed else 0.0
        elif rest.startswith("specialization.failure_kinds."):
            out[(family, "failure." + rest.rsplit(".", 1)[1])] = value
        elif rest == "specialization.failure":
            out[(family, "failures")] = value
    families = {k.split(".")[1] for k in counters if k.startswith("family.") and k.endswith(".specialization.hit")}
    for family, ratio in ((f, r) for f in families for r in FRACTIONS):
        found = stored.value(f"family.{family}.specialization.{ratio}", counters)
        if found is not None:  # a family that neither hit nor missed has no ratio
            out[(family, ratio)] = found
    return out


def _interesting(
    metric: str,
    base: float | None,
    head: float | None,
    share: float,
    family_exec: float,
    t: Thresholds,
    family_failures: float = 0.0,
) -> bool:
    """Ratios and the deferred share: an absolute move (or a family that specializes in one run only);
    failure kinds: a relative move that is also ``ratio`` of the family's failures (appearing or gone);
    counts: a relative move that is also at least ``min_share`` of the family's executions."""
    if metric in ("share", "failures") or (metric != "executed" and share < t.min_share):
        return False
    if metric.startswith("failure."):
        a, b = base or 0.0, head or 0.0
        return abs(b - a) >= t.count * max(abs(a), 1.0) and abs(b - a) >= t.ratio * family_failures
    if base is None or head is None:
        return metric == "hit_ratio"
    if is_fraction(metric):
        return abs(head - base) >= t.ratio
    big_enough = metric == "executed" or abs(head - base) >= t.min_share * family_exec
    return big_enough and abs(head - base) >= t.count * max(abs(base), 1.0)


def compare_benchmark(name: str, base: Collection, head: Collection, t: Thresholds) -> list[Change]:
    a, b = metrics(_per_loop(base)), metrics(_per_loop(head))
    changes = []
    for family, metric in sorted(set(a) | set(b)):
        va, vb = a.get((family, metric)), b.get((family, metric))
        share = max(a.get((family, "share"), 0.0), b.get((family, "share"), 0.0))
        family_exec = max(
            a.get((family, "share"), 0.0) * a[("", "executed")], b.get((family, "share"), 0.0) * b[("", "executed")]
        )
        failures = max(a.get((family, "failures"), 0.0), b.get((family, "failures"), 0.0))
        if metric not in ("share", "failures"):
            flagged = _interesting(metric, va, vb, share, family_exec, t, failures)
            changes.append(Change(name, metric, family, va, vb, flagged))
    return changes


def _collections(out: Path) -> tuple[dict[str, Any], dict[str, Collection]]:
    report = out / "report.json"
    if not report.is_file():
        raise ConfigError(
            f"{out} is not a complete collect output (no report.json); pass directories written by invoke collect"
        )
    meta = json.loads(report.read_text()).get("metadata", {})
    found = {p.parent.name: load(p) for p in sorted((out / "benchmarks").glob("*/collection.json"))}
    return meta, {k: v for k, v in found.items() if v.counters}


def compare_outputs(base_dir: Path, head_dir: Path, t: Thresholds = Thresholds()) -> SuiteComparison:
    (base_meta, base), (head_meta, head) = _collections(base_dir), _collections(head_dir)
    common = [name for name in base if name in head]
    if not common:
        raise ConfigError(f"{base_dir} and {head_dir} have no benchmark with stats in common")
    changes = tuple(c for name in common for c in compare_benchmark(name, base[name], head[name], t))
    tier2 = {
        side: {n: tier2_rates.rates(_per_loop(c)) for n, c in found.items()}
        for side, found in (("base", base), ("head", head))
    }
    only_base, only_head = tuple(n for n in base if n not in head), tuple(n for n in head if n not in base)
    return SuiteComparison(base_meta, head_meta, changes, only_base, only_head, tier2)


def _fmt(metric: str, value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.1%}" if is_fraction(metric) else f"{value:,.1f}"


def _label(meta: Mapping[str, Any]) -> str:
    config = "" if meta.get("configuration", "default") == "default" else f", configuration {meta['configuration']}"
    return f"{meta.get('revision', '?')} ({str(meta.get('sha', ''))[:12]}, Python {meta.get('python_version', '?')}{config})"


def to_markdown(cmp: SuiteComparison, limit: int = 200) -> str:
    flagged = sorted(cmp.interesting, key=lambda c: (c.benchmark, not is_fraction(c.metric), -abs(c.delta)))
    lines = [
        f"## pystats: {_label(cmp.head)} vs {_label(cmp.base)}",
        "",
        f"{len(flagged)} interesting changes over {len({c.benchmark for c in cmp.changes})} benchmarks "
        "(ratios: hit/miss/deopt over hit+miss of the family, deferred share over its executions; counts per loop).",
        "",
        "| Benchmark | Family | Metric | Base | Head | Change |",
        "|:---|:---|:---|---:|---:|---:|",
    ]
    for c in flagged[:limit]:
        change = f"{c.delta:+.1%}" if is_fraction(c.metric) else _relative(c)
        lines.append(
            f"| `{c.benchmark}` | `{c.family or '—'}` | {c.metric} | {_fmt(c.metric, c.base)} | {_fmt(c.metric, c.head)} | {change} |"
        )
    if len(flagged) > limit:
        lines.append(f"\n… and {len(flagged) - limit} more (see the JSON).")
    lines += tier2_rates.table(cmp.tier2)
    for what, names in (("only in base", cmp.only_base), ("only in head", cmp.only_head)):
        if names:
            lines.append(f"\nBenchmarks {what}: {', '.join(names)}")
    return "\n".join(lines) + "\n"


def _relative(c: Change) -> str:
    if c.base in (None, 0) or c.head is None:
        return "new" if c.base in (None, 0) else "gone"
    return f"{(c.head - c.base) / abs(c.base):+.1%}"


def heat(
    cmp: SuiteComparison, metric: str = "hit_ratio", top: int = 20
) -> tuple[list[str], list[str], list[list[float | None]]]:
    """Benchmarks x families (the ``top`` families with the largest changes) of ``metric``'s change."""
    rows = [c for c in cmp.changes if c.metric == metric]
    by_family: dict[str, float] = {}
    for c in rows:
        by_family[c.family] = max(by_family.get(c.family, 0.0), abs(c.delta))
    families = sorted(by_family, key=lambda f: -by_family[f])[:top]
    benchmarks = sorted({c.benchmark for c in cmp.changes})
    cells = {(c.benchmark, c.family): c.delta for c in rows if c.base is not None and c.head is not None}
    return benchmarks, sorted(families), [[cells.get((b, f)) for f in sorted(families)] for b in benchmarks]


def by_benchmark(changes: Sequence[Change]) -> dict[str, list[Change]]:
    out: dict[str, list[Change]] = {}
    for c in changes:
        out.setdefault(c.benchmark, []).append(c)
    return out
