"""A metric over stored counters, computed when asked: the store keeps every counter per loop and derives
nothing, so a metric defined later applies to every run already stored.

A metric is a counter name (``opcode.LOAD_ATTR.execution_count``), or a ratio over the hit and miss
counters of a prefix, the way ``invoke compare`` computes them:

    <prefix>.hit_ratio    <prefix>.hit   / (<prefix>.hit + <prefix>.miss)
    <prefix>.miss_ratio   <prefix>.miss  / (<prefix>.hit + <prefix>.miss)
    <prefix>.deopt_ratio  <prefix>.deopt / (<prefix>.hit + <prefix>.miss)

(``opcode.LOAD_ATTR.specialization.hit_ratio``, ``family.LOAD_ATTR.specialization.hit_ratio``). A counter
a unit's stats leave out counts as 0 (a stats dump leaves out every counter that is 0); a unit that
measured nothing, or a ratio over no hits and no misses, has no value.
"""

from __future__ import annotations

from collections.abc import Mapping

RATIOS = ("hit_ratio", "miss_ratio", "deopt_ratio")


def _ratio(metric: str) -> tuple[str, str] | None:
    prefix, _, last = metric.rpartition(".")
    return (prefix, last.removesuffix("_ratio")) if prefix and last in RATIOS else None


def inputs(metric: str) -> tuple[str, ...]:
    """The counters ``metric`` is computed from."""
    ratio = _ratio(metric)
    if ratio is None:
        return (metric,)
    prefix, part = ratio
    return tuple(dict.fromkeys((f"{prefix}.hit", f"{prefix}.miss", f"{prefix}.{part}")))


def value(metric: str, values: Mapping[str, float], *, measured: bool = True) -> float | None:
    """``metric`` over one unit's per-loop ``values`` (at least its :func:`inputs`); None when the unit
    measured nothing (``measured`` False) or a ratio's denominator is 0."""
    if not measured:
        return None
    ratio = _ratio(metric)
    if ratio is None:
        return float(values.get(metric, 0.0))
    prefix, part = ratio
    total = values.get(f"{prefix}.hit", 0.0) + values.get(f"{prefix}.miss", 0.0)
    return values.get(f"{prefix}.{part}", 0.0) / total if total else None
