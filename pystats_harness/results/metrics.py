"""A metric over stored counters, computed when asked: the store keeps every counter per loop and derives
nothing, so a metric defined later applies to every run already stored.

A metric is a counter name (``opcode.LOAD_ATTR.execution_count``), or one of these forms over a prefix's
counters (the ratios as ``invoke compare`` computes them):

    <prefix>.hit_ratio        <prefix>.hit   / (<prefix>.hit + <prefix>.miss)
    <prefix>.miss_ratio       <prefix>.miss  / (<prefix>.hit + <prefix>.miss)
    <prefix>.deopt_ratio      <prefix>.deopt / (<prefix>.hit + <prefix>.miss)
    <x>.specialization.deferred_share
                              <x>.specialization.deferred / <x>.execution_count: the share of a family's (or
                              an instruction's) executions that were deferred, the adaptive counter backing off
                              instead of specializing. For a family this is summarize_stats.py's deferred
                              "Ratio" (over hit + miss + the base's executions, which sum to the family's
                              executions up to the few CPython counts twice or not at all)
    <a>.*.<b>                 the sum of every counter the name matches, ``*`` standing for one name segment:
                              ``opcode.*.execution_count`` (instructions per loop), ``gc.*.collections`` (the
                              collections of every generation), ``uops.*.execution_count`` (uops per loop)

(``opcode.LOAD_ATTR.specialization.hit_ratio``, ``family.LOAD_ATTR.specialization.deferred_share``). A counter
a unit's stats leave out counts as 0 (a stats dump leaves out every counter that is 0); a unit that
measured nothing, or a ratio over nothing, has no value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

RATIOS = ("hit_ratio", "miss_ratio", "deopt_ratio")
SHARE = "deferred_share"
WILDCARD = "*"


def is_sum(metric: str) -> bool:
    return WILDCARD in metric.split(".")


def _ratio(metric: str) -> tuple[str, str] | None:
    """(prefix, part) of a ratio over hits and misses: the numerator is ``<prefix>.<part>``."""
    prefix, _, last = metric.rpartition(".")
    return (prefix, last.removesuffix("_ratio")) if prefix and last in RATIOS and not is_sum(metric) else None


def _share(metric: str) -> tuple[str, str] | None:
    """(numerator, denominator) counters of a deferred share."""
    prefix, _, last = metric.rpartition(".")
    owner, _, kind = prefix.rpartition(".")
    if last != SHARE or kind != "specialization" or not owner or is_sum(metric):
        return None
    return f"{prefix}.deferred", f"{owner}.execution_count"


@lru_cache(maxsize=64)
def _pattern(metric: str) -> re.Pattern[str]:
    return re.compile(r"\.".join("[^.]+" if s == WILDCARD else re.escape(s) for s in metric.split(".")))


def inputs(metric: str, names: Iterable[str] = ()) -> tuple[str, ...]:
    """The counters ``metric`` is computed from; a sum's are those of ``names`` it matches, sorted."""
    if is_sum(metric):
        return tuple(sorted(n for n in names if _pattern(metric).fullmatch(n)))
    share = _share(metric)
    if share is not None:
        return share
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
    if is_sum(metric):
        return float(sum(v for n, v in values.items() if _pattern(metric).fullmatch(n)))
    share = _share(metric)
    if share is not None:
        total = values.get(share[1], 0.0)
        return values.get(share[0], 0.0) / total if total else None
    ratio = _ratio(metric)
    if ratio is None:
        return float(values.get(metric, 0.0))
    prefix, part = ratio
    total = values.get(f"{prefix}.hit", 0.0) + values.get(f"{prefix}.miss", 0.0)
    return values.get(f"{prefix}.{part}", 0.0) / total if total else None


def is_fraction(metric: str) -> bool:
    """Whether ``metric`` is a ratio or a share (a fraction of 1), not a count."""
    last = metric.rpartition(".")[2]
    return (last in RATIOS or last == SHARE) and not is_sum(metric)


def shown(metric: str, v: float | None) -> str:
    """A metric's value as reports show it: a ratio or a share in percent, a count per loop with one decimal."""
    if v is None:
        return "—"
    return f"{v:.1%}" if is_fraction(metric) else f"{v:,.1f}"


def suggestions(names: Iterable[str]) -> list[str]:
    """What a mistyped metric may have meant: the counters ``names`` and the ratios and shares over them."""
    names = list(names)
    prefixes = sorted({n.rpartition(".")[0] for n in names if n.endswith(".hit")})
    shares = [f"{p}.{SHARE}" for p in prefixes if p.endswith(".specialization")]
    return [*names, *(f"{p}.{kind}" for p in prefixes for kind in RATIOS), *shares]
