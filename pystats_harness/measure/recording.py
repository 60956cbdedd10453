"""Bisect's and history's measurements as runs of the results store: one :class:`RunRecord` per commit
measured, a unit per workload (its verdict ``measured``, or why it has no counters: ``build failed``,
``run failed``, ...; its values every counter per loop). The commit's value of the metric is not stored: the
store derives a metric from the counters when asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pystats_harness.infra.commits import CommitInfo
from pystats_harness.measure.measurer import Measured
from pystats_harness.measure.workload import PYPERFORMANCE, Workload
from pystats_harness.results import RunRecord, Task, UnitRecord

MEASURED = "measured"


def unit_name(workload: Workload) -> str:
    """A workload as a unit is named: ``richards`` for ``pyperformance:richards`` (collect's name for it),
    ``nbody`` for the suite's, a script's stem."""
    return workload.label.removeprefix(PYPERFORMANCE)


def unit_of(name: str, loops: int, rec: Measured) -> UnitRecord:
    """One workload's record at one commit."""
    if rec.counters:
        return UnitRecord(name, MEASURED, "", loops, dict(rec.counters))
    failure = rec.outcome.failure.value if rec.outcome.failure else "failed"
    return UnitRecord(name, failure, rec.outcome.detail, loops, {})


def commit_run(
    task: Task,
    commit: CommitInfo,
    units: Sequence[tuple[str, int, Measured]],
    *,
    config: str,
    extra: Mapping[str, Any],
    patches: tuple[str, ...] = ("auto",),
) -> RunRecord:
    """One commit's record: ``units`` are (workload label, loops, what measuring it gave). ``patches`` is
    the selection (``auto``, and what was put on top, e.g. a revert): the build key in ``extra`` says
    what was applied."""
    keys = sorted({rec.build_key for _, _, rec in units if rec.build_key})
    upstream = sorted({rec.upstream for _, _, rec in units if rec.upstream})
    return RunRecord(
        task,
        commit.rev,
        commit.sha,
        commit.date,
        config,
        patches,
        tuple(unit_of(name, loops, rec) for name, loops, rec in units),
        extra={**extra, "build_keys": keys, **({"upstream": upstream} if upstream else {})},
    )
