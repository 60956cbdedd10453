"""A bisect as a report (:func:`to_report`): report.json, report.md (the table, the builds against the
goal, each step) and plot.png, in ``--out`` or a run folder of ``bisect_reports``; :func:`bisect_into`
runs, writes, and records each commit measured in the results store (:func:`recorded`); :func:`record_step`
records one step of ``invoke bisect-run``."""

from __future__ import annotations

import math
from pathlib import Path

from pystats_harness.bisect.driver import BisectRequest, BisectRun, Progress, run_bisect
from pystats_harness.bisect.plot import figure
from pystats_harness.bisect.report import to_markdown
from pystats_harness.infra.context import Context
from pystats_harness.measure.measurer import Measured
from pystats_harness.measure.metric import Metric
from pystats_harness.measure.recording import commit_run, unit_name
from pystats_harness.measure.workload import Workload
from pystats_harness.reports import Format, Report, output_folder, write_report
from pystats_harness.results import RunRecord, Task
from pystats_harness.results.recording import record_runs


def bisect_into(
    ctx: Context, request: BisectRequest, out: Path | None, progress: Progress | None = None
) -> tuple[BisectRun, dict[Format, Path]]:
    """The bisect, then its files (in ``out``, or a new run folder named after the workload); an output
    directory that cannot be written is refused first (exit 32)."""
    workload = request.workload.name
    stem = Path(workload).stem if workload.endswith(".py") else workload
    folder = output_folder(out, ctx.settings.paths.bisect_reports, stem, request.config)
    run = run_bisect(ctx, request, progress)
    written = write_report(to_report(run), folder)
    record_runs(ctx, recorded(run, request, folder))
    return run, written


def recorded(run: BisectRun, request: BisectRequest, folder: Path) -> list[RunRecord]:
    """Each commit the search measured as a run of the results store, then each fresh run of the
    confirmation (``extra["confirmation"]`` its label; the bad end with the culprit reverted has the
    patches ``auto`` and ``revert <sha>``)."""
    extra = {"metric": request.metric.expression, "report": str(folder)}
    name, loops = unit_name(run.workload), run.workload.loops
    found = [
        commit_run(Task.BISECT, rec.commit, [(name, loops, rec)], config=request.config, extra=extra)
        for rec in run.records.values()
    ]
    for again in run.confirmation.remeasured:
        patches = ("auto", f"revert {again.reverted}") if again.reverted else ("auto",)
        unit = (name, loops, again.record)
        marked = {**extra, "confirmation": again.label}
        found.append(
            commit_run(Task.BISECT, again.record.commit, [unit], config=request.config, extra=marked, patches=patches)
        )
    return found


def record_step(ctx: Context, rec: Measured, workload: Workload, metric: Metric, config: str, judged: str) -> None:
    """One ``git bisect run`` step (``invoke bisect-run``) as a bisect run of the results store, how it was
    judged in ``extra``; a commit ``invoke bisect`` measured from the same stored measurement is one run."""
    extra = {"metric": metric.expression, "step": "bisect-run", "judged": judged}
    unit = (unit_name(workload), workload.loops, rec)
    record_runs(ctx, [commit_run(Task.BISECT, rec.commit, [unit], config=config, extra=extra)])


def to_report(run: BisectRun) -> Report:
    r = run.report.result
    steps = "".join(
        f"| {rec.commit.short} | {run.labels[i]} | {rec.source}{', built' if rec.built else ''} | "
        f"{rec.seconds.get('total', 0):.1f} |\n"
        for i, rec in sorted(run.records.items())
    )
    markdown = (
        to_markdown(run.report) + f"\n{run.builds} builds (goal ≤ {goal(len(r.commits))}), "
        f"{run.wall_seconds:.0f} s wall time.\n\n| Commit | Step | Source | Seconds |\n|:---|:---|:---|---:|\n" + steps
    )
    return Report(
        files={Format.JSON: "report.json", Format.MARKDOWN: "report.md", Format.PNG: "plot.png"},
        data=run.to_dict(),
        markdown=markdown,
        figure=lambda: figure(run.report),
    )


def goal(n_commits: int) -> int:
    """ceil(log2(N)) + 2 builds for a path of N commits (good and bad included)."""
    return math.ceil(math.log2(n_commits)) + 2
