"""A finished diff as a run of the results store, its revision ``BASE..HEAD``: its parents are the two collects (each recorded by
collect itself, so their counters are stored once), a unit per benchmark (``changed`` with how many
changes were flagged, ``unchanged``, ``not trusted`` with the sides' verdicts, or ``not compared``: it did
not run on a side, and why), and the flagged
changes in ``extra["flagged"]`` (benchmark, metric, base, head, change: what ``invoke publish``'s
page of the diff shows first)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pystats_harness.collect.compare import Change
from pystats_harness.diff.report import change, ordered
from pystats_harness.diff.result import DiffResult
from pystats_harness.results import RunRecord, Task, UnitRecord

CHANGED, UNCHANGED, NOT_TRUSTED, NOT_COMPARED = "changed", "unchanged", "not trusted", "not compared"


def flagged_row(c: Change) -> dict[str, Any]:
    metric = c.metric if c.metric == "executed" else f"{c.family}.{c.metric}"
    return {"benchmark": c.benchmark, "metric": metric, "base": c.base, "head": c.head, "change": change(c)}


def recorded(result: DiffResult) -> RunRecord:
    rows = ordered(result)
    per = Counter(c.benchmark for c in rows)
    units = []
    for v in result.verdicts:
        if not v.compared:
            verdict, reason = NOT_COMPARED, v.why_not_compared()
        elif not v.trusted:
            verdict, reason = NOT_TRUSTED, v.mark()
        elif per[v.name]:
            verdict, reason = CHANGED, f"{per[v.name]} flagged"
        else:
            verdict, reason = UNCHANGED, ""
        units.append(UnitRecord(v.name, verdict, reason, result.loops.get(v.name)))
    base, head = result.base_recipe.commit, result.head_recipe
    return RunRecord(
        Task.DIFF,
        f"{base.rev}..{head.commit.rev}",  # both sides where runs are listed; the sha and date are the head's
        head.commit.sha,
        head.commit.date,
        head.config,
        (head.patches,),  # as asked (auto, none, names); each side's collect records the patches applied
        tuple(units),
        parents=tuple(run.run_id for run in (result.base, result.head) if run.run_id),
        extra={
            "base_revision": base.rev,
            "base_sha": base.sha,
            "out": str(result.paths.out),
            "loops_source": result.loops_source,
            "flagged": [flagged_row(c) for c in rows],
        },
    )
