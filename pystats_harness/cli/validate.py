"""The validate tasks: validate (is this build's stats trustworthy?) and baseline (record per-loop stats)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from invoke import Context as InvokeContext
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pystats_harness.builder.obtain import obtain, plan_for
from pystats_harness.cli.common import CONFIG_HELP, PATCHES_HELP, REPAIRS_HELP, configuration, out_suffix, resolve
from pystats_harness.cli.shell import harness_task, settings_of
from pystats_harness.cluster.client import Cluster
from pystats_harness.console import stdout_console
from pystats_harness.dispatch.dispatcher import run_dispatched
from pystats_harness.infra.context import Context
from pystats_harness.infra.mirror import CommitInfo
from pystats_harness.measure.suiteconfig import SuiteConfig, load_suite
from pystats_harness.validate import report as validate_report
from pystats_harness.validate.driver import (
    choose_workloads,
    count_jobs,
    fingerprint_step,
    record_baselines,
    validate,
)
from pystats_harness.validate.report import ValidationReport
from pystats_harness.validate.unit import validate_on_cluster


def _progress(ctx: Context) -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=ctx.reporter.console, transient=True)


def run_validate(
    ctx: Context,
    rev: str | None,
    patches: str,
    config: str = "default",
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
    commit = resolve(ctx, rev)
    report, where = run_dispatched(
        ctx,
        lambda: (_here(ctx, commit, (patches, config), chosen, suite, jobs, leak), ""),
        lambda cluster: _on_cluster(ctx, cluster, commit, (patches, config), chosen, jobs, leak),
    )
    stamp = f"{time.strftime('%Y%m%dT%H%M%S')}-{commit.rev.replace('/', '_')}{out_suffix(config)}"
    out_dir = Path(out) if out else settings.paths.validate_reports / stamp
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


def _here(
    ctx: Context,
    commit: CommitInfo,
    recipe: tuple[str, str],
    chosen: dict[str, int],
    suite: SuiteConfig,
    jobs: int,
    leak: bool,
) -> ValidationReport:
    """``recipe``: (--patches, --config)."""
    with fingerprint_step():
        entry = obtain(ctx, plan_for(ctx, commit, *recipe)).entry
    with _progress(ctx) as progress:
        task = progress.add_task(f"validating {commit.rev}", total=count_jobs(chosen, suite))
        return validate(
            ctx,
            entry,
            chosen,
            suite,
            jobs=jobs,
            tick=lambda: progress.advance(task),
            leak=leak,
            baselines_root=ctx.settings.baselines_dir,
        )


def _on_cluster(
    ctx: Context,
    cluster: Cluster[Any, Any],
    commit: CommitInfo,
    recipe: tuple[str, str],
    chosen: dict[str, int],
    jobs: int,
    leak: bool,
) -> tuple[ValidationReport, str]:
    """The report of a validation on a worker of the cluster, and the line naming the worker."""
    patches, config = recipe
    report, result = validate_on_cluster(ctx, cluster, commit, patches, chosen, jobs, leak=leak, config=config)
    how = "built there" if result.built else "a build-cache hit there"
    took = " + ".join(f"{k} {v:.0f} s" for k, v in result.seconds.items())
    return report, f"validated on {result.worker} ({how}; {took})"


def run_baseline(
    ctx: Context, rev: str | None, patches: str, config: str = "default", *, workloads: str | None, jobs: int
) -> list[Path]:
    """Record manual-path per-loop stats (net of the null workload) as the baselines of this version
    (configs/baselines/<version>/, or <version>-<config>/ for another configuration than the default)."""
    suite = load_suite()
    chosen = choose_workloads(suite, workloads)
    commit = resolve(ctx, rev)
    entry = obtain(ctx, plan_for(ctx, commit, patches, config)).entry
    with _progress(ctx) as progress:
        task = progress.add_task(f"baseline {commit.rev}", total=len(chosen) + len(set(chosen.values())))
        written = record_baselines(
            ctx, entry, commit.rev, chosen, suite, jobs=jobs, tick=lambda: progress.advance(task)
        )
    out = stdout_console()
    for p in written:
        out.print(f"baseline {p}")
    return written


# The tasks (tasks.py lists them): options declared once, with their help, above the function each calls.


@harness_task(
    help={
        "repairs": REPAIRS_HELP,
        "rev": "revision (default: setting pystats.default_rev); built first if not cached",
        "patches": PATCHES_HELP,
        "config": CONFIG_HELP,
        "workloads": "comma-separated suite workloads (default: all in configs/suite.toml); isolation adds a partner from the suite when fewer than two are chosen",
        "jobs": "parallel containers (default 2); isolation starts its two to four workloads at once regardless",
        "out": "directory for validation.json, validation.md and deviation.png",
        "require_baseline": "fail (exit 24) when no baseline is recorded for this Python version; without it the baselines step is skipped for such versions (every development commit)",
        "strict": "fail (exit 19) when a step is partial (canaries that cannot be counted statically on this revision); without it a partial step is reported, not fatal",
    }
)
def validate_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    workloads: str | None = None,
    jobs: int = 2,
    out: str | None = None,
    require_baseline: bool = False,
    strict: bool = False,
    repairs: str | None = None,
) -> None:
    """Prove the stats of a build are reliable: fingerprint, canaries, threads, leakage, isolation, baselines."""
    ctx = settings_of(c, repairs=repairs)
    name = configuration(ctx, config)
    report = run_validate(ctx, rev, patches, name, workloads=workloads, jobs=int(jobs), out=out, strict=strict)
    error = report.error(require_baseline=require_baseline, strict=strict)
    if error is not None:
        raise error


@harness_task(
    help={
        "rev": "revision (default: setting pystats.default_rev); built first if not cached",
        "patches": PATCHES_HELP,
        "config": CONFIG_HELP + "; another than default records into configs/baselines/<version>-<config>/",
        "workloads": "comma-separated suite workloads (default: all)",
        "jobs": "parallel containers (default 2)",
    }
)
def baseline_task(
    c: InvokeContext,
    rev: str | None = None,
    patches: str = "auto",
    config: str | None = None,
    workloads: str | None = None,
    jobs: int = 2,
) -> None:
    """Record per-loop manual-path stats into configs/baselines/<python version>[-<config>]/<workload>.json."""
    ctx = settings_of(c)
    run_baseline(ctx, rev, patches, configuration(ctx, config), workloads=workloads, jobs=int(jobs))
