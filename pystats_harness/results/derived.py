"""Metrics over more counters than :mod:`~pystats_harness.results.metrics` derives, for the published site's
headline metrics (docs/publish.md); everything else is the store's own :meth:`Store.series`:

    <a>.*.<b>                 the sum of every counter the name matches, ``*`` standing for one name segment:
                              ``opcode.*.execution_count`` (instructions per loop), ``gc.*.collections`` (the
                              collections of every generation), ``uops.*.execution_count`` (uops per loop)
    <prefix>.deferred_share   ``<prefix>.deferred / (<prefix>.deferred + <prefix>.hit + <prefix>.miss)``: the
                              share of a family's specialized-path executions that waited (the adaptive
                              counter's backoff) instead of hitting or missing

A counter a unit's stats leave out is 0 (as in :mod:`metrics`); a unit that measured nothing, or a share
over nothing, has no value. :func:`value` computes one unit's value from its counters (what a run page
shows); :func:`series` one metric over every stored unit, ordered as :meth:`Store.series` orders them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import lru_cache

from pystats_harness.results import metrics
from pystats_harness.results.errors import UnknownMetric
from pystats_harness.results.records import Point
from pystats_harness.results.store import Store

WILDCARD = "*"
SHARE = "deferred_share"


def is_sum(metric: str) -> bool:
    return WILDCARD in metric.split(".")


def _share_prefix(metric: str) -> str | None:
    prefix, _, last = metric.rpartition(".")
    return prefix if prefix and last == SHARE and not is_sum(metric) else None


@lru_cache(maxsize=64)
def _pattern(metric: str) -> re.Pattern[str]:
    return re.compile(r"\.".join("[^.]+" if s == WILDCARD else re.escape(s) for s in metric.split(".")))


def inputs(metric: str, names: Iterable[str]) -> tuple[str, ...]:
    """The counters ``metric`` reads, of those ``names`` (a sum's are the names it matches)."""
    if is_sum(metric):
        return tuple(sorted(n for n in names if _pattern(metric).fullmatch(n)))
    prefix = _share_prefix(metric)
    if prefix is not None:
        return (f"{prefix}.deferred", f"{prefix}.hit", f"{prefix}.miss")
    return metrics.inputs(metric)


def value(metric: str, values: Mapping[str, float], *, measured: bool = True) -> float | None:
    """``metric`` over one unit's per-loop ``values``; None when the unit measured nothing or a share's
    denominator is 0."""
    if not measured:
        return None
    if is_sum(metric):
        return float(sum(v for n, v in values.items() if _pattern(metric).fullmatch(n)))
    prefix = _share_prefix(metric)
    if prefix is None:
        return metrics.value(metric, values)
    deferred = values.get(f"{prefix}.deferred", 0.0)
    total = deferred + values.get(f"{prefix}.hit", 0.0) + values.get(f"{prefix}.miss", 0.0)
    return deferred / total if total else None


def counter_names(store: Store) -> list[str]:
    """Every counter name the store has seen, sorted."""
    return [r[0] for r in store.db.execute("SELECT name FROM counters ORDER BY name")]


def families(names: Iterable[str]) -> list[str]:
    """The instruction families with specialization counters among ``names`` (``family.<F>.specialization.*``)."""
    found = {n.split(".")[1] for n in names if n.startswith("family.") and ".specialization." in n}
    return sorted(found)


def series(store: Store, metric: str, unit: str | None = None) -> list[Point]:
    """``metric`` in every stored unit (named ``unit``), as :meth:`Store.series` gives it: by commit date, a
    unit that measured nothing without a value; UnknownMetric when no stored unit has its counters."""
    if not is_sum(metric) and _share_prefix(metric) is None:
        return store.series(metric, unit)
    names = counter_names(store)
    known = set(names)
    wanted = [n for n in inputs(metric, names) if n in known]
    if not wanted:
        raise UnknownMetric(metric, difflib.get_close_matches(metric, names, 3))
    every = _values(store, wanted)
    return [
        replace(p, value=value(metric, every.get((p.run_id, p.unit), {}), measured=p.value is not None))
        for p in store.series(wanted[0], unit)
    ]


def _values(store: Store, names: list[str]) -> dict[tuple[str, str], dict[str, float]]:
    """The values of the counters ``names`` per (run id, unit name)."""
    found: dict[tuple[str, str], dict[str, float]] = {}
    marks = ",".join("?" * len(names))
    for run_id, unit, name, v in store.db.execute(
        "SELECT r.run_id, u.name, c.name, v.value FROM unit_values v JOIN counters c ON c.id = v.counter"
        f" JOIN units u ON u.id = v.unit JOIN runs r ON r.id = u.run WHERE c.name IN ({marks})",
        names,
    ):
        found.setdefault((run_id, unit), {})[name] = v
    return found
