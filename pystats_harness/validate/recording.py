"""A finished validation as a run of the results store: a unit per step (``step:fingerprint``, ...: its
status and summary) and a unit per workload (``pass``, or ``fail`` with the failing steps that name it;
its manual-path counters per loop)."""

from __future__ import annotations

from pystats_harness.builder.recipe import Recipe
from pystats_harness.results import RunRecord, Task, UnitRecord
from pystats_harness.validate.report import StepStatus, ValidationReport


def workload_unit(report: ValidationReport, workload: str, loops: int) -> UnitRecord:
    named: dict[str, int] = {}
    for step in report.steps:
        if step.status is StepStatus.FAIL:
            for finding in step.findings:
                if finding.get("workload") == workload:
                    named[step.step.value] = named.get(step.step.value, 0) + 1
    reason = "; ".join(f"{step}: {n} finding{'s' if n > 1 else ''}" for step, n in named.items())
    return UnitRecord(workload, "fail" if named else "pass", reason, loops, report.per_loop.get(workload, {}))


def recorded(recipe: Recipe, report: ValidationReport, files: list[str]) -> RunRecord:
    meta = report.metadata
    steps = tuple(UnitRecord(f"step:{s.step.value}", s.status.value, s.summary) for s in report.steps)
    workloads = tuple(workload_unit(report, w, int(n)) for w, n in dict(meta.get("workloads", {})).items())
    return RunRecord(
        Task.VALIDATE,
        recipe.commit.rev,
        recipe.commit.sha,
        recipe.commit.date,
        recipe.config,
        tuple(meta.get("patches", [])),
        steps + workloads,
        extra={
            "files": files,
            **{k: meta[k] for k in ("build_key", "python_version", "upstream", "worker") if meta.get(k)},
        },
    )
