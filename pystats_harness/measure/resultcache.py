"""Measured metric inputs per commit, so that re-running or widening a bisect measures nothing twice.

One small JSON file per entry, ``<dir>/<key>.json``, written atomically (temp file + rename), so
concurrent bisects never see half an entry and never lose each other's entries.  The key is

    hash(sha, build key, workload id, sorted metric inputs)

* ``build_key`` identifies how a commit is built apart from its sha (patch selection mode, configure
  flags, builder image id).  It must be computable *before* building, because a commit whose patches
  do not apply never gets a build cache key; the build's own cache key can be kept in ``extra``.
* ``workload`` identifies what was run (e.g. a hash of the workload's name, arguments and files).
* ``inputs`` are :attr:`Metric.inputs`: the entry stores those counters, not the metric's value, so
  any metric over the same counters (``a/b`` and ``b/a``) reuses it; :meth:`CachedResult.outcome`
  evaluates the metric again.

Failures are cached too, with their reason.  Checkout, patch and build failures are properties of
the commit and the recipe, so they are reused.  A **run failure is retried**: a timeout, an engine
hiccup or an out-of-memory kill says little about the commit, so :meth:`ResultCache.get` ignores such
entries (pass ``retry=()`` to reuse them); the retried outcome overwrites the entry.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pystats_harness.errors import HarnessError, MissingCounters
from pystats_harness.measure.metric import Metric
from pystats_harness.measure.outcome import Failure, Outcome

RESULT_SCHEMA = "pystats-harness/bisect-result/1"
RETRIED_BY_DEFAULT: frozenset[str] = frozenset({Failure.RUN_FAILED})


def result_key(sha: str, build_key: str, workload: str, inputs: Sequence[str]) -> str:
    payload = json.dumps(
        {"sha": sha, "build": build_key, "workload": workload, "inputs": sorted(set(inputs))}, sort_keys=True
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class CachedResult:
    """One cached measurement: the counters a metric needs, or why there are none."""

    sha: str
    build_key: str
    workload: str
    inputs: tuple[str, ...]
    counters: Mapping[str, float] | None  # None for a failure
    failure: str | None = None
    detail: str = ""
    measured_at: str = ""  # ISO 8601, UTC
    extra: Mapping[str, Any] = field(default_factory=dict)  # e.g. build cache key, run directory, seconds

    @property
    def key(self) -> str:
        return result_key(self.sha, self.build_key, self.workload, self.inputs)

    def outcome(self, metric: Metric) -> Outcome:
        """The metric's value from the stored counters (or the stored failure)."""
        if self.failure is not None or self.counters is None:
            return Outcome.failed(self.failure or Failure.RUN_FAILED, self.detail)
        try:
            evaluation = metric.explain(self.counters)
        except MissingCounters as exc:
            return Outcome.failed(Failure.METRIC_UNDEFINED, str(exc))
        if not math.isfinite(evaluation.value):
            return Outcome.failed(Failure.METRIC_UNDEFINED, "; ".join(evaluation.notes))
        return Outcome.ok(evaluation.value, "; ".join(evaluation.notes))

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": RESULT_SCHEMA,
            "key": self.key,
            "sha": self.sha,
            "build_key": self.build_key,
            "workload": self.workload,
            "inputs": list(self.inputs),
            "counters": None if self.counters is None else dict(sorted(self.counters.items())),
            "status": "failed" if self.failure else "ok",
            "failure": self.failure,
            "detail": self.detail,
            "measured_at": self.measured_at,
            "extra": dict(self.extra),
        }

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> CachedResult:
        if doc.get("schema") != RESULT_SCHEMA:
            raise ValueError(f"not a cached bisect result (schema {doc.get('schema')!r})")
        counters = doc.get("counters")
        return cls(
            str(doc["sha"]),
            str(doc["build_key"]),
            str(doc["workload"]),
            tuple(doc["inputs"]),
            None if counters is None else {str(k): v for k, v in counters.items()},
            doc.get("failure"),
            str(doc.get("detail") or ""),
            str(doc.get("measured_at") or ""),
            dict(doc.get("extra") or {}),
        )


class ResultCache:
    """``<directory>/<key>.json``; the directory is created on first write."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(
        self,
        sha: str,
        build_key: str,
        workload: str,
        inputs: Sequence[str],
        *,
        retry: Collection[str] = RETRIED_BY_DEFAULT,
    ) -> CachedResult | None:
        """The cached entry, or None if there is none, it is unreadable, or its failure is in ``retry``."""
        try:
            entry = CachedResult.from_dict(
                json.loads(self.path(result_key(sha, build_key, workload, inputs)).read_text())
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # absent, or damaged (treated as absent and overwritten by the next put)
        if entry.failure is not None and entry.failure in retry:
            return None
        return entry

    def put(
        self,
        sha: str,
        build_key: str,
        workload: str,
        inputs: Sequence[str],
        *,
        counters: Mapping[str, float] | None = None,
        failure: str | None = None,
        detail: str = "",
        extra: Mapping[str, Any] | None = None,
    ) -> CachedResult:
        """Store either the counters (only those in ``inputs`` are kept) or a failure with its reason."""
        if (counters is None) == (failure is None):
            raise ValueError("store either counters or a failure")
        names = tuple(sorted(set(inputs)))
        kept = None if counters is None else {n: counters[n] for n in names if n in counters}
        entry = CachedResult(
            sha,
            build_key,
            workload,
            names,
            kept,
            failure,
            detail,
            datetime.now(UTC).isoformat(timespec="seconds"),
            dict(extra or {}),
        )
        self._write(entry)
        return entry

    def put_failure(
        self,
        sha: str,
        build_key: str,
        workload: str,
        inputs: Sequence[str],
        outcome: Outcome,
        extra: Mapping[str, Any] | None = None,
    ) -> CachedResult:
        """Store a failed :class:`Outcome` (its ``failure`` and ``detail``)."""
        if outcome.failure is None:
            raise ValueError("put_failure needs a failed Outcome; store values with put(counters=...)")
        return self.put(sha, build_key, workload, inputs, failure=outcome.failure, detail=outcome.detail, extra=extra)

    def _write(self, entry: CachedResult) -> None:
        path = self.path(entry.key)
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(entry.to_dict(), indent=1, allow_nan=False) + "\n")
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise HarnessError(
                f"cannot write the bisect result cache in {self.directory} ({exc.strerror}); "
                "check free space and permissions of the cache directory"
            ) from exc
