"""The validate tasks: validate (is this build's stats trustworthy?) and baseline (record per-loop stats)."""

from __future__ import annotations

import time
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pystats_harness.build.ensure import ensure_build
from pystats_harness.console import stdout_console
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import Mirror
from pystats_harness.validate import report as validate_report
from pystats_harness.validate.driver import (
    build_for_validation,
    choose_workloads,
    count_jobs,
    record_baselines,
    validate,
)
from pystats_harness.validate.report import ValidationReport
from pystats_harness.validate.suiteconfig import load_suite


def _progress(ctx: Context) -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=ctx.reporter.console, transient=True)


def run_validate(
    ctx: Context,
    rev: str,
    patches: str,
    *,
    workloads: str | None,
    jobs: int,
    out: str | None,
    leak: bool = False,
    strict: bool = False,
) -> ValidationReport:
    settings = ctx.settings
    suite = load_suite()
    chosen = choose_workloads(suite, workloads)
    where = ""
    if settings.cluster:
        report, where = _on_cluster(ctx, rev, patches, chosen, jobs, leak)
    else:
        entry = build_for_validation(ctx, rev, patches)
        with _progress(ctx) as progress:
            task = progress.add_task(f"validating {rev}", total=count_jobs(chosen, suite))
            report = validate(
                ctx,
                entry,
                chosen,
                suite,
                jobs=jobs,
                tick=lambda: progress.advance(task),
                leak=leak,
                baselines_root=settings.baselines_dir,
            )
    stamp = f"{time.strftime('%Y%m%dT%H%M%S')}-{rev.replace('/', '_')}"
    out_dir = Path(out) if out else settings.cache_dir / "validate" / stamp
    paths = validate_report.write_all(report, out_dir)
    console = stdout_console()
    console.print(validate_report.to_rich(report))
    if where:
        console.print(where)
    console.print(f"report: {paths['json']}  {paths['markdown']}  {paths['plot']}")
    partial = ", ".join(step.step for step in report.partial_steps())
    if partial and not strict:
        ctx.reporter.warn(f"partial, not pass: {partial} only partly checked (see above); --strict makes it fail")
    return report


def _on_cluster(
    ctx: Context, rev: str, patches: str, chosen: dict[str, int], jobs: int, leak: bool
) -> tuple[ValidationReport, str]:
    """The report of a validation on a worker of ``pystats.cluster``, and the line naming the worker."""
    from pystats_harness.cluster.validate_unit import validate_on_cluster

    commit = Mirror(ctx.settings.mirror_dir).resolve(rev)
    report, result = validate_on_cluster(ctx, commit, patches, chosen, jobs, leak=leak)
    how = "built there" if result.built else "a build-cache hit there"
    took = " + ".join(f"{k} {v:.0f} s" for k, v in result.seconds.items())
    return report, f"validated on {result.worker} ({how}; {took})"


def run_baseline(ctx: Context, rev: str, patches: str, *, workloads: str | None, jobs: int) -> list[Path]:
    """Record manual-path per-loop stats (net of the null workload) as the baselines of this version."""
    suite = load_suite()
    chosen = choose_workloads(suite, workloads)
    entry = ensure_build(ctx, rev, patches)
    with _progress(ctx) as progress:
        task = progress.add_task(f"baseline {rev}", total=len(chosen) + len(set(chosen.values())))
        written = record_baselines(ctx, entry, rev, chosen, suite, jobs=jobs, tick=lambda: progress.advance(task))
    out = stdout_console()
    for p in written:
        out.print(f"baseline {p}")
    return written
