"""Measurements kept in the results store (:mod:`pystats_harness.results`), so that re-running or widening a
bisect or a history measures nothing twice. A measurement is named by

    hash(sha, build key, workload id)

* ``build_key`` identifies how a commit is built apart from its sha (patch selection mode, configure
  flags, builder image id).  It must be computable *before* building, because a commit whose patches
  do not apply never gets a build cache key; the build's own cache key can be kept in ``extra``.
* ``workload`` identifies what was run (e.g. a hash of the workload's name, arguments and files).

A measurement keeps **every counter** per loop, not the metric's value, so any metric reuses it (``a/b``,
``b/a``, or one over other counters); :func:`outcome_of` evaluates the metric again.

Failures are kept too, with their reason.  Patch and build failures are properties of the commit and the
recipe, so they are reused (``MeasureWork`` does not keep a checkout failure: cheap to find again).  A **run failure is retried**: a timeout, an engine hiccup or
an out-of-memory kill says little about the commit, so :meth:`Measurements.get` ignores it (pass
``retry=()`` to reuse it); the retried outcome replaces it.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from pystats_harness.errors import HarnessError, MissingCounters
from pystats_harness.measure.metric import Metric
from pystats_harness.measure.outcome import Failure, Outcome
from pystats_harness.results import Measurement, Store

RETRIED_BY_DEFAULT: frozenset[str] = frozenset({Failure.RUN_FAILED})


def outcome_of(found: Measurement, metric: Metric) -> Outcome:
    """The metric's value from the stored counters (or the stored failure)."""
    if found.failure is not None or found.counters is None:
        return Outcome.failed(found.failure or Failure.RUN_FAILED, found.detail)
    try:
        evaluation = metric.explain(found.counters)
    except MissingCounters as exc:
        return Outcome.failed(Failure.METRIC_UNDEFINED, str(exc))
    if not math.isfinite(evaluation.value):
        return Outcome.failed(Failure.METRIC_UNDEFINED, "; ".join(evaluation.notes))
    return Outcome.ok(evaluation.value, "; ".join(evaluation.notes))


class Measurements:
    """The measurements of the store at ``path`` (``CachePaths.results_db``), as bisect and history use them."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def get(
        self, sha: str, build_key: str, workload: str, *, retry: Collection[str] = RETRIED_BY_DEFAULT
    ) -> Measurement | None:
        """The stored measurement, or None if there is none or its failure is in ``retry``."""
        with Store.open(self.path) as store:
            return store.measurement(sha, build_key, workload, retry=retry)

    def put(
        self,
        sha: str,
        build_key: str,
        workload: str,
        *,
        counters: Mapping[str, float] | None = None,
        failure: str | None = None,
        detail: str = "",
        extra: Mapping[str, Any] | None = None,
    ) -> Measurement:
        """Store either every counter (per loop) or a failure with its reason."""
        if (counters is None) == (failure is None):
            raise ValueError("store either counters or a failure")
        found = Measurement(sha, build_key, workload, counters, failure, detail, extra=dict(extra or {}))
        try:
            with Store.open(self.path) as store:
                return store.keep(found)
        except sqlite3.Error as exc:
            raise HarnessError(
                f"cannot write the results store {self.path} ({exc}); check free space and permissions of the "
                "cache directory"
            ) from exc

    def put_failure(
        self, sha: str, build_key: str, workload: str, outcome: Outcome, extra: Mapping[str, Any] | None = None
    ) -> Measurement:
        """Store a failed :class:`Outcome` (its ``failure`` and ``detail``)."""
        if outcome.failure is None:
            raise ValueError("put_failure needs a failed Outcome; store values with put(counters=...)")
        return self.put(sha, build_key, workload, failure=outcome.failure, detail=outcome.detail, extra=extra)
