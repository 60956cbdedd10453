"""What the results store keeps, as frozen values: a run (:class:`RunRecord`) with its units
(:class:`UnitRecord`), a run as listed (:class:`RunSummary`), one metric's value in one unit of one run
(:class:`Point`), what a merge did (:class:`MergeResult`) and one measurement reused by bisect and history
(:class:`Measurement`).

A run is named by its content: :attr:`RunRecord.run_id` is the sha256 of a canonical JSON of the task, the
commit's sha, the configuration, the patches, the parents and each unit's name, verdict, reason, loops and
values. When it was recorded, where, under which revision label and what ``extra`` says are not part of it,
so the same measurement recorded twice, or merged in from another machine, is one run.
"""

from __future__ import annotations

import enum
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


class Task(enum.StrEnum):
    """What ran."""

    VALIDATE = "validate"
    COLLECT = "collect"
    DIFF = "diff"
    HISTORY = "history"
    BISECT = "bisect"


def plain(record: Any) -> dict[str, Any]:
    """A frozen record's fields as a JSON-ready dict (mappings as plain dicts)."""
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        out[f.name] = dict(value) if isinstance(value, Mapping) else value
    return out


def finite(values: Mapping[str, float]) -> dict[str, float]:
    """The values as floats, sorted by name, without NaN and infinities (JSON and the content key have none)."""
    kept = {str(k): float(v) for k, v in values.items()}
    return {k: kept[k] for k in sorted(kept) if math.isfinite(kept[k])}


@dataclass(frozen=True)
class UnitRecord:
    """One benchmark's or workload's result in a run: its verdict and why, and the per-loop value of every
    counter it measured (none when it failed before measuring)."""

    name: str
    verdict: str
    reason: str = ""
    loops: int | None = None
    values: Mapping[str, float] = field(default_factory=dict)

    def content(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "verdict": self.verdict,
            "reason": self.reason,
            "loops": self.loops,
            "values": finite(self.values),
        }


@dataclass(frozen=True)
class RunRecord:
    """One run of validate, collect, diff, history (one commit of it) or bisect (one commit of it).

    ``commit_date`` and ``recorded_at`` are ISO 8601; ``parents`` are a diff's base and head run ids;
    ``extra`` is any JSON object (the metric of a history, the output folder, ...)."""

    task: Task
    revision: str
    sha: str
    commit_date: str
    config: str
    patches: tuple[str, ...]
    units: tuple[UnitRecord, ...]
    parents: tuple[str, ...] = ()
    recorded_at: str = ""
    host: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def content(self) -> dict[str, Any]:
        """What names the run (see :attr:`run_id`)."""
        return {
            "task": Task(self.task).value,
            "sha": self.sha,
            "config": self.config,
            "patches": list(self.patches),
            "parents": list(self.parents),
            "units": [u.content() for u in sorted(self.units, key=lambda u: u.name)],
        }

    @property
    def run_id(self) -> str:
        canonical = json.dumps(self.content(), sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def verdicts(self) -> dict[str, int]:
        """How many units had each verdict."""
        counts: dict[str, int] = {}
        for unit in self.units:
            counts[unit.verdict] = counts.get(unit.verdict, 0) + 1
        return dict(sorted(counts.items()))

    def unit(self, name: str) -> UnitRecord | None:
        return next((u for u in self.units if u.name == name), None)


@dataclass(frozen=True)
class RunSummary:
    """A run as ``invoke results`` lists it."""

    run_id: str
    task: Task
    revision: str
    sha: str
    commit_date: str
    config: str
    recorded_at: str
    host: str
    units: int
    verdicts: Mapping[str, int]

    def to_dict(self) -> dict[str, Any]:
        return plain(self)


@dataclass(frozen=True)
class Point:
    """One metric's value in one unit of one stored run; ``value`` is None where the metric is undefined
    (a failed unit, a ratio over nothing)."""

    run_id: str
    task: Task
    revision: str
    sha: str
    commit_date: str
    config: str
    unit: str
    verdict: str
    value: float | None

    def to_dict(self) -> dict[str, Any]:
        return plain(self)


@dataclass(frozen=True)
class MergeResult:
    """What merging another store did: runs added, runs this store already had, measurements added."""

    added: int
    already_there: int
    measurements_added: int = 0


@dataclass(frozen=True)
class Measurement:
    """One workload measured at one commit with one build (bisect and history reuse it): the per-loop value
    of every counter, or the failure (a :class:`~pystats_harness.measure.outcome.Failure` value) and why."""

    sha: str
    build_key: str
    workload: str
    counters: Mapping[str, float] | None  # None for a failure
    failure: str | None = None
    detail: str = ""
    measured_at: str = ""  # ISO 8601, UTC
    extra: Mapping[str, Any] = field(default_factory=dict)
