"""A history's files: history.json, history.md and history.png, in ``--out`` or a run folder of
``history_reports``; :func:`history_into` runs and writes."""

from __future__ import annotations

from pathlib import Path

from pystats_harness.history.driver import HistoryRequest, HistoryRun, run_history
from pystats_harness.history.report import to_dict, to_markdown, write_plot
from pystats_harness.infra.context import Context
from pystats_harness.infra.fs import check_output_dir, write_json_atomic, write_text_atomic
from pystats_harness.paths import run_folder


def history_into(ctx: Context, request: HistoryRequest, out: Path | None) -> tuple[HistoryRun, dict[str, Path]]:
    """The history, then its files (in ``out``, or a new run folder named after what it measured); an
    output directory that cannot be written is refused first (exit 32)."""
    check_output_dir(out or ctx.settings.paths.history_reports)
    run = run_history(ctx, request)
    label = run.label.replace(",", "+")[:60]
    return run, write_outputs(run, out or run_folder(ctx.settings.paths.history_reports, label, request.config))


def write_outputs(run: HistoryRun, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "history.json", "markdown": out / "history.md", "plot": out / "history.png"}
    write_json_atomic(paths["json"], to_dict(run))
    write_text_atomic(paths["markdown"], to_markdown(run))
    write_plot(run, paths["plot"])
    return paths
