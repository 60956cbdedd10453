"""A history as a report (:func:`to_report`): history.json, history.md and history.png, in ``--out`` or a
run folder of ``history_reports``; :func:`history_into` runs, writes, and records each measured commit in the
results store (:func:`recorded`)."""

from __future__ import annotations

from pathlib import Path

from pystats_harness.history.driver import HistoryRequest, HistoryRun, labelled, run_history
from pystats_harness.history.report import figure, to_dict, to_markdown
from pystats_harness.infra.context import Context
from pystats_harness.measure.recording import commit_run, unit_name
from pystats_harness.reports import Format, Report, output_folder, write_report
from pystats_harness.results import RunRecord, Task
from pystats_harness.results.recording import record_runs


def history_into(ctx: Context, request: HistoryRequest, out: Path | None) -> tuple[HistoryRun, dict[Format, Path]]:
    """The history, then its files (in ``out``, or a new run folder named after what it measured); an
    output directory that cannot be written is refused first (exit 32)."""
    label = labelled(request.workloads).replace(",", "+")[:60]
    folder = output_folder(out, ctx.settings.paths.history_reports, label, request.config)
    run = run_history(ctx, request)
    written = write_report(to_report(run), folder)
    record_runs(ctx, recorded(run, folder))
    return run, written


def recorded(run: HistoryRun, folder: Path) -> list[RunRecord]:
    """Each measured commit as a run of the results store, a unit per workload."""
    extra = {"metrics": [m.expression for m in run.metrics], "report": str(folder)}
    return [
        commit_run(
            Task.HISTORY,
            commit,
            [(unit_name(w), w.loops, rec) for w, rec in zip(run.workloads, row, strict=True)],
            config=run.configuration,
            extra=extra,
        )
        for commit, row in zip(run.commits, run.rows, strict=True)
    ]


def to_report(run: HistoryRun) -> Report:
    return Report(
        files={Format.JSON: "history.json", Format.MARKDOWN: "history.md", Format.PNG: "history.png"},
        data=to_dict(run),
        markdown=to_markdown(run),
        figure=lambda: figure(run),
    )
